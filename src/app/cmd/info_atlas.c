/* info_atlas.c - a level's lightmaps packed into the mesher's atlas (info_atlas.h). */
#include "info_atlas.h"

#include <string.h>

#include "mesh.h"

bool info_atlas_measure(const uint64_t by_exp[PMF_MAX_LIGHTMAP_EXP + 1], info_atlas *out)
{
    memset(out, 0, sizeof *out);
    out->complete = true;
    mesh_atlas *atlas = mesh_atlas_create(&(mesh_atlas_desc){ .max_pages = INFO_ATLAS_MAX_PAGES });
    if (!atlas)
        return false;
    out->page_size = mesh_atlas_page_size(atlas);
    uint64_t placed = 0;
    for (int n = PMF_MAX_LIGHTMAP_EXP; n >= 0; n--) {
        out->lightmaps += by_exp[n];
        out->luxels += by_exp[n] << (2 * n);
        for (uint64_t i = 0; i < by_exp[n] && out->complete; i++) {
            mesh_atlas_rect rect;
            out->complete = ++placed <= INFO_ATLAS_MAX_PLACED && mesh_atlas_alloc(atlas, 1u << n, &rect);
        }
    }
    out->bytes = out->luxels * 3;
    out->block_texels = mesh_atlas_used_texels(atlas);
    out->pages = mesh_atlas_page_count(atlas);
    double page_texels = (double)out->page_size * out->page_size;
    out->filled = out->pages ? (double)out->block_texels / (out->pages * page_texels) : 0.0;
    mesh_atlas_destroy(atlas);
    return true;
}
