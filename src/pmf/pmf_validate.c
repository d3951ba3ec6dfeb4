/* pmf_validate.c - decodes every level and every present chunk with all parts. */
#include "pmf_internal.h"

bool pmf_validate(const pmf_file *f, pmf_level_stats *stats, pmf_error *err)
{
    for (uint32_t l = 0; l < f->level_count; l++) {
        const pmf_level_info *li = &f->levels[l];
        pmf_level_stats s = { 0 };
        pmf_level lvl;
        if (!pmf_level_read(f, l, PMF_PART_ALL, &lvl, err))
            return false;
        s.decompressed_bytes = (uint64_t)li->decompressed[0] + li->decompressed[1] + li->decompressed[2];
        for (uint32_t y = 0; y < li->count_y; y++)
            for (uint32_t x = 0; x < li->count_x; x++)
                for (uint32_t z = 0; z < li->count_z; z++) {
                    const pmf_chunk_loc *loc = &li->chunks[pmf_grid_index(li, x, y, z)];
                    if (!loc->compressed[0])
                        continue;
                    pmf_chunk ch;
                    if (!pmf_chunk_read(f, &lvl, l, (pmf_chunk_coord){ x, y, z }, PMF_PART_ALL, &ch, err)) {
                        pmf_level_free(&lvl);
                        return false;
                    }
                    s.present_chunks++;
                    s.cubes += ch.common.cube_count;
                    s.vertices += ch.client.vertex_count;
                    s.lightmaps += ch.client.lightmap_count;
                    s.dynamic_lights += ch.common.dynamic_light_count;
                    s.fast_lights += ch.common.fast_light_count;
                    s.decompressed_bytes += (uint64_t)loc->decompressed[0] + loc->decompressed[1] + loc->decompressed[2];
                    pmf_chunk_free(&ch);
                }
        pmf_level_free(&lvl);
        if (stats)
            stats[l] = s;
    }
    return true;
}
