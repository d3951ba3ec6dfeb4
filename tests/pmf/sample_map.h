/* sample_map.h - PMF maps built in code for tests: the "kitchen sink" uses every structure and
 * flag of the spec (every cube type, visibility with chunk lists, lighting with references,
 * pathfinding, dynamic lights with layers, fast lights with ranges, every environment kind and
 * region, sky environments incl. a 3D skybox, load regions, extensions, archive bytes, global /
 * level / chunk entities, three levels, void chunks). SAMPLE_MAP_SMALL keeps one level with one
 * rich chunk and one void position, for loops that parse a file many times.
 *
 * Also: field-by-field comparison of decoded levels and chunks (for round-trip tests). */
#ifndef PMF_TESTS_SAMPLE_MAP_H
#define PMF_TESTS_SAMPLE_MAP_H

#include "pmf.h"

enum { SAMPLE_MAP_KITCHEN_SINK, SAMPLE_MAP_SMALL };

#define SAMPLE_MAX_LEVELS 4

typedef struct sample_level {
    pmf_level level;                 /* all three parts filled */
    uint32_t chunk_count;            /* present chunks */
    pmf_chunk *chunks;               /* all three parts filled */
} sample_level;

typedef struct sample_map {
    pmf_header header;
    pmf_data_desc data;
    uint32_t level_count;
    sample_level levels[SAMPLE_MAX_LEVELS];
    void *mem_;                      /* every allocation; sample_map_free() */
} sample_map;

void sample_map_build(sample_map *m, int variant);
void sample_map_free(sample_map *m);

/* Encodes every chunk and writes the map (to memory: caller frees *out). */
bool sample_map_write_memory(const sample_map *m, uint8_t **out, size_t *size, pmf_error *err);
bool sample_map_write_file(const sample_map *m, const char *path, pmf_error *err);
/* Builds the variant, writes it to path and opens it there with its level 0 decoded (all parts)
 * into *lvl. NULL with a line on stderr when a step fails (nothing to free then). */
pmf_file *sample_map_open_written(int variant, const char *path, pmf_level *lvl);
/* The same with the chunks spooled beside path as they are put (pmf_writer_stream); when copy
 * is given, the same writer also finishes to memory there (caller frees). */
bool sample_map_write_streamed(const sample_map *m, const char *path, uint8_t **copy, size_t *copy_size, pmf_error *err);

/* Writes f again from its decoded structs (every level and chunk, header, Data parts). */
bool sample_rewrite(const pmf_file *f, uint8_t **out, size_t *size, pmf_error *err);
/* The same with one more extension after the file's own (NULL = none). */
bool sample_rewrite_extended(const pmf_file *f, const pmf_blob *extra, uint8_t **out, size_t *size, pmf_error *err);
/* Decodes both files completely and compares every level and chunk field by field. */
bool sample_compare_files(const pmf_file *a, const pmf_file *b, char *why, size_t why_size);

/* Field-by-field comparison of the parts both hold; false with the first difference in why.
 * Material maps are compared only when both have them (the writer ignores them). */
bool pmf_compare_level(const pmf_level *a, const pmf_level *b, char *why, size_t why_size);
bool pmf_compare_chunk(const pmf_chunk *a, const pmf_chunk *b, char *why, size_t why_size);

#endif
