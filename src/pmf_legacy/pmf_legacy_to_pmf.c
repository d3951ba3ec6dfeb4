/* pmf_legacy_to_pmf.c - a legacy draft map as a PMF 0.0 file for the viewer (see pmf_legacy.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_build.h"
#include "pmf_internal.h"
#include "pmf_legacy.h"

#define UNTEXTURED "(untextured)"

bool pmfl_to_pmf(const pmfl_map *m, const char *path, pmf_error *err)
{
    /* materials: the cubes' resource paths in order of first use, then one untextured material
     * for triangles no solid / angled cube draws */
    pmf_build_material *mats = calloc(m->materials_count + 1u, sizeof *mats);
    pmf_build_triangle *tris = calloc(m->triangle_count + 1u, sizeof *tris);
    if (!mats || !tris) {
        free(mats);
        free(tris);
        pmf_error_set(err, m->file, "build", 0, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < m->materials_count; i++)
        mats[i] = (pmf_build_material){ m->materials[i], m->materials[i], { 255, 255, 255 } };
    uint16_t untextured = (uint16_t)m->materials_count;
    mats[untextured] = (pmf_build_material){ UNTEXTURED, "", { 255, 255, 255 } };
    for (uint32_t t = 0; t < m->triangle_count; t++) {
        pmf_build_triangle *bt = &tris[t];
        const pmfl_triangle *src = &m->triangles[t];
        for (int k = 0; k < 3; k++) {
            memcpy(bt->xyz[k], src->p[k].pos, sizeof bt->xyz[k]);
            memcpy(bt->uv[k], src->p[k].uv, sizeof bt->uv[k]);
        }
        bt->material = untextured;
        uint32_t c = m->triangle_cube[t];
        if (c == UINT32_MAX)
            continue;
        const pmfl_cube *cube = &m->cubes[c];
        for (uint32_t i = 0; cube->material[0] && i < m->materials_count; i++)
            if (!strcmp(m->materials[i], cube->material))
                bt->material = (uint16_t)i;
        if (cube->flags & PMFL_CUBE_HAS_LIGHTING) {
            bt->lit = true;
            memcpy(bt->light, cube->base_light, 3);
        }
    }
    pmf_build_desc d = {
        .name = m->name, .description = m->description, .authors = m->authors, .created = m->created,
        .gamemode_count = m->gamemode_count, .gamemodes = m->gamemodes,
        .materials = mats, .material_count = (uint16_t)(m->materials_count + 1),
        .triangles = tris, .triangle_count = m->triangle_count,
        .chunk_size_exp = m->section_size_exp > 4 ? m->section_size_exp : 4,
    };
    bool ok = pmf_build_write(&d, path, err);
    if (!ok)
        snprintf(err->file, sizeof err->file, "%s", m->file);
    free(mats);
    free(tris);
    return ok;
}
