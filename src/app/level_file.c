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
