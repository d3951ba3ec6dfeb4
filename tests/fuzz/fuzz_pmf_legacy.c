/* fuzz_pmf_legacy.c - libFuzzer target: open any bytes as a legacy PMF draft. When they open,
 * everything the reader promises is walked (every section's cube tree, every solid / angled
 * cube's triangles and material, every triangle's cube), so a check the reader missed shows as
 * an ASan / UBSan report here. */
#include <stdlib.h>
#include <string.h>

#include "pmf_legacy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmf_error err;
    pmfl_map *m = pmfl_open_memory(data, size, "fuzz", &err);
    if (!m)
        return 0;
    volatile float sink = 0;
    for (uint32_t s = 0; s < (uint32_t)m->sections_x * m->sections_z; s++)
        if (m->sections[s] >= m->cube_count)
            abort();
    for (uint32_t i = 0; i < m->cube_count; i++) {
        const pmfl_cube *c = &m->cubes[i];
        if (c->type == PMFL_CUBE_PARENT)
            for (int k = 0; k < 8; k++)
                if (c->children[k] >= m->cube_count || (m->cubes[c->children[k]].parent != i &&
                                                        m->cubes[c->children[k]].parent != PMFL_NO_PARENT))
                    abort();
        if (c->type == PMFL_CUBE_SOLID || c->type == PMFL_CUBE_ANGLED) {
            sink += (float)strlen(c->material);
            for (uint32_t t = 0; t < c->triangle_count; t++)
                sink += m->triangles[c->triangle_index + t].p[2].lightmap_uv[1];
        }
    }
    for (uint32_t t = 0; t < m->triangle_count; t++)
        if (m->triangle_cube[t] != UINT32_MAX && m->triangle_cube[t] >= m->cube_count)
            abort();
    for (uint32_t i = 0; i < m->materials_count; i++)
        sink += (float)strlen(m->materials[i]);
    for (unsigned i = 0; i < m->team_count; i++)
        sink += (float)strlen(m->teams[i].name);
    (void)sink;
    pmfl_close(m);
    return 0;
}
