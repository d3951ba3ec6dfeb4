/* view_probes.c - cube lighting data around the camera, for the light-probe overlay. */
#include "view_probes.h"
#include "base/grow.h"

#include <stdlib.h>
#include <string.h>

bool view_probes_open(view_probes *p, const char *path, uint32_t level, char *err, size_t err_size)
{
    memset(p, 0, sizeof *p);
    if (!level_file_open(&p->lf, path, level, PMF_PART_COMMON, err, err_size))
        return false;
    p->level = level;
    return true;
}

void view_probes_close(view_probes *p)
{
    level_file_close(&p->lf);
    free(p->boxes);
    free(p->rgb);
    memset(p, 0, sizeof *p);
}

static bool push_probe(view_probes *p, const double center[3], double half, const uint8_t rgb[3])
{
    /* two arrays of one capacity: the second grows to the first's */
    size_t cap = p->capacity, colors_cap = p->capacity;
    if (!grow_array((void **)&p->boxes, &cap, p->count + 1, sizeof *p->boxes) ||
        !grow_array((void **)&p->rgb, &colors_cap, cap, sizeof *p->rgb))
        return false;
    p->capacity = cap;
    for (int k = 0; k < 3; k++)
        p->boxes[p->count][k] = (float)center[k];
    /* Small enough not to hide the room, large enough to see from a distance. */
    double box = half * 0.15;
    p->boxes[p->count][3] = (float)(box < 0.1 ? 0.1 : box > 0.5 ? 0.5 : box);
    memcpy(p->rgb[p->count], rgb, 3);
    p->count++;
    return true;
}

typedef struct probe_walk { view_probes *p; const pmf_chunk *ch; } probe_walk;

static bool visit_probe(void *user, uint32_t cube, const double center[3], double half)
{
    const probe_walk *w = user;
    if (!(w->ch->common.cubes[cube].flags & PMF_CUBE_HAS_LIGHTING))
        return true;
    return push_probe(w->p, center, half, w->ch->client.cubes[cube].lighting.base);
}

static void add_chunk(view_probes *p, const pmf_chunk *ch, const double offset[3], double side)
{
    level_file_walk_cubes(ch, offset, side, visit_probe, &(probe_walk){ p, ch });
}

void view_probes_update(view_probes *p, const camera *cam)
{
    if (!p->lf.file || (p->built && !memcmp(p->built_chunk, cam->chunk, sizeof p->built_chunk)))
        return;
    p->count = 0;
    p->error[0] = '\0';
    memcpy(p->built_chunk, cam->chunk, sizeof p->built_chunk);
    p->built = true;
    const pmf_level_info *li = &p->lf.file->levels[p->level];
    /* Around the grid chunk nearest the camera, so a camera outside the grid still sees some. */
    const uint32_t counts[3] = { li->count_x, li->count_y, li->count_z };
    int32_t centre[3];
    for (int k = 0; k < 3; k++)
        centre[k] = cam->chunk[k] < 0 ? 0 : cam->chunk[k] >= (int32_t)counts[k] ? (int32_t)counts[k] - 1 : cam->chunk[k];
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            for (int dz = -1; dz <= 1; dz++) {
                int32_t c[3] = { centre[0] + dx, centre[1] + dy, centre[2] + dz };
                if (c[0] < 0 || c[1] < 0 || c[2] < 0 || (uint32_t)c[0] >= li->count_x ||
                    (uint32_t)c[1] >= li->count_y || (uint32_t)c[2] >= li->count_z)
                    continue;
                pmf_chunk_coord cc = { (uint32_t)c[0], (uint32_t)c[1], (uint32_t)c[2] };
                if (!pmf_chunk_present(p->lf.file, p->level, cc))
                    continue;
                pmf_chunk ch;
                pmf_error e;
                if (!pmf_chunk_read(p->lf.file, &p->lf.lvl, p->level, cc, PMF_PART_COMMON | PMF_PART_CLIENT, &ch, &e)) {
                    if (!p->error[0])
                        pmf_error_format(&e, p->error, sizeof p->error);
                    continue;
                }
                double offset[3];
                camera_chunk_offset(cam, c, offset);
                add_chunk(p, &ch, offset, cam->chunk_size);
                pmf_chunk_free(&ch);
            }
}
