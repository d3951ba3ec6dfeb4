/* light_ids.c - the dynamic and fast light IDs of a level, from its chunks' common parts. */
#include "light_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf.h"
#include "base/grow.h"
#include "base/order.h"

/* Appends id; false when out of memory. */
static bool add_id(uint32_t **ids, size_t *count, size_t *cap, uint32_t id)
{
    if (!grow_array((void **)ids, cap, *count + 1, sizeof **ids))
        return false;
    (*ids)[(*count)++] = id;
    return true;
}

static size_t sort_unique(uint32_t *ids, size_t count)
{
    if (!count)
        return 0;
    order_sort(ids, count, sizeof *ids, order_u32);
    size_t n = 1;
    for (size_t i = 1; i < count; i++)
        if (ids[i] != ids[n - 1])
            ids[n++] = ids[i];
    return n;
}

bool light_ids_read(const char *pmf_path, uint32_t level, light_ids *out)
{
    memset(out, 0, sizeof *out);
    pmf_error err;
    pmf_file *f = pmf_open(pmf_path, &err);
    if (!f)
        return false;
    pmf_level lvl;
    bool ok = level < f->level_count && pmf_level_read(f, level, PMF_PART_COMMON, &lvl, &err);
    if (!ok) {
        pmf_close(f);
        return false;
    }
    const pmf_level_info *li = &f->levels[level];
    size_t dyn_cap = 0, fast_cap = 0;
    for (uint32_t y = 0; ok && y < li->count_y; y++)
        for (uint32_t x = 0; ok && x < li->count_x; x++)
            for (uint32_t z = 0; ok && z < li->count_z; z++) {
                pmf_chunk_coord c = { x, y, z };
                if (!pmf_chunk_present(f, level, c))
                    continue;
                pmf_chunk ch;
                if (!pmf_chunk_read(f, &lvl, level, c, PMF_PART_COMMON, &ch, &err)) {
                    ok = false;
                    break;
                }
                for (uint32_t i = 0; ok && i < ch.common.dynamic_light_count; i++)
                    ok = add_id(&out->dynamic, &out->dynamic_count, &dyn_cap, ch.common.dynamic_lights[i].id);
                for (uint32_t i = 0; ok && i < ch.common.fast_light_count; i++)
                    ok = add_id(&out->fast, &out->fast_count, &fast_cap, ch.common.fast_lights[i].id);
                pmf_chunk_free(&ch);
                /* a light spans chunks: keep the lists short as they grow */
                if (out->dynamic_count == dyn_cap)
                    out->dynamic_count = sort_unique(out->dynamic, out->dynamic_count);
                if (out->fast_count == fast_cap)
                    out->fast_count = sort_unique(out->fast, out->fast_count);
            }
    pmf_level_free(&lvl);
    pmf_close(f);
    if (!ok) {
        light_ids_free(out);
        return false;
    }
    out->dynamic_count = sort_unique(out->dynamic, out->dynamic_count);
    out->fast_count = sort_unique(out->fast, out->fast_count);
    return true;
}

void light_ids_free(light_ids *ids)
{
    free(ids->dynamic);
    free(ids->fast);
    memset(ids, 0, sizeof *ids);
}

bool light_ids_has(const uint32_t *ids, size_t count, uint32_t id)
{
    return count && bsearch(&id, ids, count, sizeof *ids, order_u32) != NULL;
}

void light_ids_format(const uint32_t *ids, size_t count, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = 0;
    if (!count) {
        snprintf(buf, size, "none");
        return;
    }
    for (size_t i = 0; i < count && i < 16; i++) {
        int n = snprintf(buf + o, size - o, "%s%u", i ? ", " : "", ids[i]);
        if (n < 0 || (size_t)n >= size - o)
            return;
        o += (size_t)n;
    }
    if (count > 16)
        snprintf(buf + o, size - o, ", ...");
}
