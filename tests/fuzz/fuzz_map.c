/* fuzz_map.c - libFuzzer target: read any bytes as a Quake-family .map (standard, Valve 220,
 * Quake 2 surface numbers). An error must format to one clean line with a line number; a map
 * that reads must have every entity's pairs and brushes, and every brush's faces, in range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_read.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qmap m;
    pmf_error err;
    if (!qmap_read(data, size, "fuzz.map", &m, &err)) {
        char line[800];
        pmf_error_format(&err, line, sizeof line);
        fuzz_check_line(line);
        if (!err.over_budget && err.line < 1) {
            fprintf(stderr, "a .map error without a line: %s\n", line);
            abort();
        }
        return 0;
    }
    volatile size_t sum = 0;
    for (uint32_t e = 0; e < m.entity_count; e++) {
        const qmap_entity *ent = &m.entities[e];
        if ((uint64_t)ent->first_kv + ent->kv_count > m.kv_count || (uint64_t)ent->first_brush + ent->brush_count > m.brush_count) abort();
        for (uint32_t k = 0; k < ent->kv_count; k++) sum += strlen(m.kvs[ent->first_kv + k].key) + strlen(m.kvs[ent->first_kv + k].value);
        for (uint32_t b = 0; b < ent->brush_count; b++) {
            const qmap_brush *br = &m.brushes[ent->first_brush + b];
            if ((uint64_t)br->first_face + br->face_count > m.face_count) abort();
            for (uint32_t f = 0; f < br->face_count; f++) sum += strlen(m.faces[br->first_face + f].texture);
        }
    }
    qmap_free(&m);
    return 0;
}
