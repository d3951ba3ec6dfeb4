/* view_probes.c - cube lighting data around the camera, for the light-probe overlay. */
#include "view_probes.h"
#include "base/grow.h"

#include <stdlib.h>
#include <string.h>

bool view_probes_open(view_probes *p, const char *path, uint32_t level, char *err, size_t err_size)
{
    memset(p, 0, sizeof *p);
    return level_file_open(&p->lf, path, level, PMF_PART_COMMON, err, err_size);
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

static void add_chunk(void *user, const pmf_chunk *ch, const double offset[3], double side)
{
    level_file_walk_cubes(ch, offset, side, visit_probe, &(probe_walk){ user, ch });
}

void view_probes_update(view_probes *p, const camera *cam)
{
    if (!p->lf.file || !level_file_moved(&p->lf, cam))
        return;
    p->count = 0;
    level_file_walk_near(&p->lf, cam, 1, PMF_PART_COMMON | PMF_PART_CLIENT, add_chunk, p);
}
