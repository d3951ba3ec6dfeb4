/* level_file.c - one level of a map file kept open (level_file.h). */
#include "level_file.h"

#include <stdlib.h>
#include <string.h>

bool level_file_open(level_file *lf, const char *path, uint32_t level, unsigned parts, char *err, size_t err_size)
{
    memset(lf, 0, sizeof *lf);
    pmf_error e;
    lf->file = pmf_open(path, &e);
    if (lf->file && !pmf_level_read(lf->file, level, parts, &lf->lvl, &e)) {
        pmf_close(lf->file);
        lf->file = NULL;
    }
    if (!lf->file) {
        pmf_error_format(&e, err, err_size);
        return false;
    }
    lf->level = level;
    return true;
}

void level_file_close(level_file *lf)
{
    if (lf->file) {
        pmf_level_free(&lf->lvl);
        pmf_close(lf->file);
    }
    memset(lf, 0, sizeof *lf);
}

bool level_file_moved(const level_file *lf, const camera *cam)
{
    return !lf->walked || memcmp(lf->walked_chunk, cam->chunk, sizeof lf->walked_chunk) != 0;
}

void level_file_walk_near(level_file *lf, const camera *cam, int radius, unsigned parts,
                          void (*visit)(void *user, const pmf_chunk *ch, const double origin[3], double side),
                          void *user)
{
    lf->error[0] = '\0';
    memcpy(lf->walked_chunk, cam->chunk, sizeof lf->walked_chunk);
    lf->walked = true;
    const pmf_level_info *li = &lf->file->levels[lf->level];
    const uint32_t counts[3] = { li->count_x, li->count_y, li->count_z };
    int32_t centre[3];
    for (int k = 0; k < 3; k++)
        centre[k] = cam->chunk[k] < 0 ? 0 : cam->chunk[k] >= (int32_t)counts[k] ? (int32_t)counts[k] - 1 : cam->chunk[k];
    for (int dy = -radius; dy <= radius; dy++)
        for (int dx = -radius; dx <= radius; dx++)
            for (int dz = -radius; dz <= radius; dz++) {
                int32_t c[3] = { centre[0] + dx, centre[1] + dy, centre[2] + dz };
                if (c[0] < 0 || c[1] < 0 || c[2] < 0 || (uint32_t)c[0] >= counts[0] || (uint32_t)c[1] >= counts[1] ||
                    (uint32_t)c[2] >= counts[2])
                    continue;
                pmf_chunk_coord cc = { (uint32_t)c[0], (uint32_t)c[1], (uint32_t)c[2] };
                if (!pmf_chunk_present(lf->file, lf->level, cc))
                    continue;
                pmf_chunk ch;
                pmf_error e;
                if (!pmf_chunk_read(lf->file, &lf->lvl, lf->level, cc, parts, &ch, &e)) {
                    if (!lf->error[0])
                        pmf_error_format(&e, lf->error, sizeof lf->error);
                    continue;
                }
                double origin[3];
                camera_chunk_offset(cam, c, origin);
                visit(user, &ch, origin, cam->chunk_size);
                pmf_chunk_free(&ch);
            }
}

void level_file_walk_cubes(const pmf_chunk *ch, const double origin[3], double side,
                           bool (*visit)(void *user, uint32_t cube, const double center[3], double half), void *user)
{
    typedef struct { uint32_t cube; double center[3], half; } node;
    uint32_t n = ch->common.cube_count;
    node *stack = malloc((size_t)n * 8 * sizeof *stack + sizeof *stack);
    if (!stack)
        return;
    size_t top = 0, visited = 0;
    stack[top++] = (node){ 0, { origin[0], origin[1], origin[2] }, side / 2 };
    while (top && visited++ < n) {
        node nd = stack[--top];
        if (!visit(user, nd.cube, nd.center, nd.half))
            break;
        const pmf_cube *c = &ch->common.cubes[nd.cube];
        if (c->type != PMF_CUBE_PARENT)
            continue;
        for (uint32_t o = 0; o < 8; o++) {
            uint32_t child = c->u.parent.children[o];
            if (!(c->u.parent.child_mask & (1u << o)) || child >= n)
                continue;
            double q = nd.half / 2;
            stack[top++] = (node){ child,
                { nd.center[0] + ((o & PMF_OCTANT_NEG_X) ? -q : q),
                  nd.center[1] + ((o & PMF_OCTANT_NEG_Y) ? -q : q),
                  nd.center[2] + ((o & PMF_OCTANT_NEG_Z) ? -q : q) }, q };
        }
    }
    free(stack);
}
