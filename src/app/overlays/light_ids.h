/* light_ids.h - the global IDs of a level's dynamic and fast lights (from every present chunk),
 * so `shot` can say when --light / --fast name a light the level does not have. */
#ifndef PMFVIEW_LIGHT_IDS_H
#define PMFVIEW_LIGHT_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct light_ids {
    uint32_t *dynamic, *fast;        /* sorted, distinct */
    size_t dynamic_count, fast_count;
} light_ids;

/* Reads the common part of every present chunk of the level. False (and nothing to free) when
 * the file or a chunk does not read: the render reports that itself. */
bool light_ids_read(const char *pmf_path, uint32_t level, light_ids *out);
void light_ids_free(light_ids *ids);
bool light_ids_has(const uint32_t *ids, size_t count, uint32_t id);
/* "10, 11" (at most 16, then "..."), or "none". */
void light_ids_format(const uint32_t *ids, size_t count, char *buf, size_t size);

#endif
