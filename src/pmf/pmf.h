/* pmf.h - the PMF 0.0 format library: open, decode, validate and write PlatinumSrc compiled maps.
 *
 * Reads ../shared/specs/pmf.md exactly as ../shared/conventions.md §1 reads it. No GL, no SDL.
 *
 * Usage:
 *   pmf_error err;
 *   pmf_file *f = pmf_open("map.pmf", &err);          // header, Data, chunk offset index
 *   pmf_level lvl;  pmf_level_read(f, 0, PMF_PART_ALL, &lvl, &err);
 *   pmf_chunk ch;   pmf_chunk_read(f, &lvl, x, y, z, PMF_PART_COMMON | PMF_PART_CLIENT, &ch, &err);
 *   ...
 *   pmf_chunk_free(&ch); pmf_level_free(&lvl); pmf_close(f);
 *
 * Every function that can fail returns false and fills a pmf_error; none exits or prints.
 * A pmf_file is immutable after pmf_open: pmf_chunk_read / pmf_level_read may be called from
 * any number of threads at once on the same file (each decode owns its own buffers).
 * Decoded strings and arrays live in the decoded struct's arena and die with its *_free().
 */
#ifndef PMF_PMF_H
#define PMF_PMF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMF_VERSION_MAJOR 0

/* ---- errors ---------------------------------------------------------------------------- */

/* The one error of every reader of untrusted bytes: binary formats name a block (or object) and
 * a byte offset, text formats a line and column. */
struct pmf_os_file_info;

typedef struct pmf_error {
    char file[256];    /* the file's name as given to pmf_open (or the name given for memory) */
    char block[96];    /* "header", "data", "level 0 common data", "level 0 chunk (3,0,5) client data" */
    uint64_t offset;   /* file offset for header/data; offset in the *decompressed* block otherwise */
    char message[256]; /* what is wrong, lower case, no trailing period */
    bool over_budget;  /* the memory budget (pmf_budget.h) refused it: the file may be fine */
    int line, column;  /* text: from 1 (0 = a binary offset) */
} pmf_error;

/* "FILE: BLOCK, byte OFFSET: MESSAGE", or for text "FILE:LINE:COLUMN: BLOCK: MESSAGE" (BLOCK left
 * out when empty); one line, no newline, no control byte. Returns buf. */
char *pmf_error_format(const pmf_error *err, char *buf, size_t size);
/* Fills err (when not NULL) for a binary file: what is wrong in block at a byte offset. */
void pmf_error_set(pmf_error *err, const char *file, const char *block, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void pmf_error_vset(pmf_error *err, const char *file, const char *block, uint64_t offset, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
/* Fills err (when not NULL) for a text file: what is wrong at line and column. */
void pmf_error_set_text(pmf_error *err, const char *file, const char *block, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* A reader's handle for the file called name: size zeroed bytes from the memory budget whose last
 * member, a flexible `char name[]` at name_offset, holds name as an error shows it (cut to
 * pmf_error.file). NULL, with "header: out of memory" in err, when memory runs out. */
void *pmf_reader_handle(size_t size, size_t name_offset, const char *name, pmf_error *err);

/* ---- common small types ------------------------------------------------------------------ */

/* Chunk index bits: Y in 31..24, X in 23..12, Z in 11..0. */
typedef struct pmf_chunk_coord { uint32_t x, y, z; } pmf_chunk_coord;
static inline uint32_t pmf_chunk_index_pack(pmf_chunk_coord c) { return (c.y << 24) | ((c.x & 0xFFFu) << 12) | (c.z & 0xFFFu); }
static inline pmf_chunk_coord pmf_chunk_index_unpack(uint32_t v) { pmf_chunk_coord c = { (v >> 12) & 0xFFFu, v >> 24, v & 0xFFFu }; return c; }

/* Face order used everywhere (geometry face bits, extended per-face arrays). */
enum { PMF_FACE_POS_X, PMF_FACE_POS_Y, PMF_FACE_POS_Z, PMF_FACE_NEG_X, PMF_FACE_NEG_Y, PMF_FACE_NEG_Z, PMF_FACE_COUNT };

/* Octant / corner order used by parent children and extended-cube points: bit 0 set = -X,
 * bit 1 set = -Z, bit 2 set = -Y.  0 (+X,+Y,+Z) 1 (-X,+Y,+Z) 2 (+X,+Y,-Z) 3 (-X,+Y,-Z)
 * 4 (+X,-Y,+Z) 5 (-X,-Y,+Z) 6 (+X,-Y,-Z) 7 (-X,-Y,-Z). */
#define PMF_OCTANT_NEG_X 1u
#define PMF_OCTANT_NEG_Z 2u
#define PMF_OCTANT_NEG_Y 4u

/* A byte range inside the file (or inside a decompressed block, where documented). */
typedef struct pmf_range { uint64_t offset, size; } pmf_range;

/* Opaque bytes the library does not decode (entities, extensions), with a pointer to them. */
typedef struct pmf_blob { const uint8_t *data; size_t size; } pmf_blob;

/* ---- header ------------------------------------------------------------------------------ */

#define PMF_MAX_GAMEMODES 32
#define PMF_MAX_GAMEMODE_LEN 15 /* bytes before the NUL */

typedef struct pmf_header {
    uint8_t major;      /* 0 */
    uint64_t created;   /* UTC Unix timestamp */
    const char *name, *description, *authors, *compiler;
    uint8_t gamemode_count;
    const char *gamemodes[PMF_MAX_GAMEMODES];
} pmf_header;

/* ---- level blocks -------------------------------------------------------------------------- */

#define PMF_LEVEL_KEEP_INCHUNK_OFFSET 0x01u
#define PMF_LEVEL_KEEP_CHUNK_OFFSET   0x02u
#define PMF_LEVEL_KEEP_VELOCITY       0x04u

#define PMF_MATERIAL_TRANSPARENT 0x01u
#define PMF_MATERIAL_LIQUID      0x02u
enum { PMF_RENDMODE_NORMAL = 0, PMF_RENDMODE_ADD = 1 };

typedef struct pmf_material {
    const char *name;
    const char *type;     /* user-defined type */
    uint8_t flags;        /* PMF_MATERIAL_* */
    uint8_t render_mode;  /* PMF_RENDMODE_* */
} pmf_material;

#define PMF_PHYSICS_NOT_SOLID 0x01u
typedef struct pmf_physics_material {
    const char *name;
    uint8_t flags;
    float friction;          /* or max speed when not solid */
    float traction, bounce;
    float damage_min_speed, damage_base, damage_per_speed;
} pmf_physics_material;

typedef struct pmf_sound_material { float volume_dampening, frequency_dampening; } pmf_sound_material;

typedef struct pmf_weather_env {
    const char *name;
    float wind[3];               /* direction and velocity */
    uint32_t wind_dir_seed;
    float wind_dir_randomness[3];
    float wind_dir_noise_speed;
    uint32_t wind_speed_seed;
    float wind_speed_randomness;
    float wind_speed_noise_speed;
} pmf_weather_env;

typedef struct pmf_gravity_env { const char *name; float gravity[3]; } pmf_gravity_env;

typedef struct pmf_level_common {
    uint16_t material_count;
    pmf_material *materials;
    uint16_t physics_material_count;
    pmf_physics_material *physics_materials;
    uint16_t sound_material_count;
    pmf_sound_material *sound_materials;
    const char *air_physics_material;
    uint8_t weather_env_count;
    pmf_weather_env *weather_envs;
    uint8_t gravity_env_count;
    pmf_gravity_env *gravity_envs;
    const char *default_weather_env, *default_gravity_env;
} pmf_level_common;

typedef struct pmf_sound_env {
    const char *name;
    float low_pass, high_pass;
    float reverb_delay, reverb_feedback, reverb_mix, reverb_low_pass, reverb_high_pass;
} pmf_sound_env;

#define PMF_SKY_3D_SKYBOX 0x01u
typedef struct pmf_sky_env {
    const char *name;
    uint8_t flags;               /* PMF_SKY_* */
    const char *skybox[PMF_FACE_COUNT]; /* level material names, face order; "" = none */
    const char *cloud_top, *cloud_bottom;
    pmf_chunk_coord skybox_chunk;       /* meaningful when PMF_SKY_3D_SKYBOX */
} pmf_sky_env;

typedef struct pmf_wave_info {
    float velocity[3];
    float wind_influence, offset, scale;
} pmf_wave_info;

typedef struct pmf_client_material {
    const char *texture;          /* "" = untextured */
    uint8_t extra_texture_count;
    const char **extra_textures;
    uint32_t advance_time_us;
    float uv_scroll[2];
    uint8_t color[3];
    uint8_t alpha;
    uint8_t emission[3];
    uint8_t shading, shine;
    const char *matcap;           /* "" = none */
    pmf_wave_info wave;
} pmf_client_material;

typedef struct pmf_level_client {
    uint8_t sound_env_count;
    pmf_sound_env *sound_envs;
    uint8_t sky_env_count;
    pmf_sky_env *sky_envs;
    const char *default_sound_env, *default_sky_env;
    uint16_t material_count;             /* = common.material_count */
    pmf_client_material *materials;      /* client material i belongs to level material i */
} pmf_level_client;

typedef struct pmf_level_server {
    pmf_blob string_table;               /* kept whole: entities refer into it */
    uint32_t entity_count;
    pmf_blob entities;                   /* undecoded, the rest of the block */
} pmf_level_server;

enum { PMF_PART_COMMON = 1u, PMF_PART_CLIENT = 2u, PMF_PART_SERVER = 4u, PMF_PART_ALL = 7u };

typedef struct pmf_level {
    uint8_t flags;                       /* PMF_LEVEL_* */
    uint8_t chunk_size_exp;              /* chunk side = 2^exp metres */
    uint32_t count_x, count_y, count_z;  /* grid size (1..4096, 1..256, 1..4096) */
    pmf_chunk_coord center;
    unsigned parts;                      /* which of common/client/server are filled */
    pmf_level_common common;
    pmf_level_client client;
    pmf_level_server server;
    void *arena_;                        /* owned memory; pmf_level_free() */
} pmf_level;

/* ---- chunk blocks ---------------------------------------------------------------------------- */

typedef struct pmf_region {              /* load region: box in chunk-local metres */
    float max[3], min[3];                /* the (+X,+Y,+Z) and (-X,-Y,-Z) corners */
    uint32_t chunk_count;
    pmf_chunk_coord *chunks;             /* other chunks to activate */
} pmf_region;

typedef struct pmf_env_region {
    float corners[8][3];                 /* octant order, see PMF_OCTANT_* */
    const char *env;                     /* environment name */
} pmf_env_region;

#define PMF_LIGHT_ENABLE   0x01u
#define PMF_LIGHT_PRESERVE 0x02u
typedef struct pmf_dynamic_light { uint8_t flags; uint32_t id; } pmf_dynamic_light;
typedef struct pmf_fast_light { uint8_t flags; uint8_t intensity; uint32_t id; } pmf_fast_light;

enum { PMF_CUBE_EMPTY = 0, PMF_CUBE_PARENT = 1, PMF_CUBE_GEOMETRY = 2, PMF_CUBE_EXTGEOMETRY = 3 };
#define PMF_CUBE_DRAW_BACKFACES   0x80u
#define PMF_CUBE_HAS_PATHFINDING  0x40u
#define PMF_CUBE_HAS_LIGHTING     0x20u
#define PMF_CUBE_HAS_VISIBILITY   0x10u
#define PMF_CUBE_TYPE_MASK        0x0Fu

typedef struct pmf_vis_chunk {
    pmf_chunk_coord chunk;
    uint32_t cube_count;                 /* 0 = the whole chunk */
    uint32_t *cubes;
} pmf_vis_chunk;

typedef struct pmf_visibility {
    uint32_t cube_count;                 /* other visible cubes of this chunk */
    uint32_t *cubes;
    uint32_t chunk_count;                /* other visible chunks */
    pmf_vis_chunk *chunks;
} pmf_visibility;

typedef struct pmf_cube {
    uint8_t flags;                       /* PMF_CUBE_DRAW_BACKFACES | HAS_* (high nibble) */
    uint8_t type;                        /* PMF_CUBE_* (low nibble) */
    pmf_visibility vis;                  /* valid when flags & PMF_CUBE_HAS_VISIBILITY */
    union {
        struct { uint8_t child_mask; uint32_t children[8]; } parent;  /* children[o] valid when bit o set */
        struct { uint8_t material, physics_material, sound_material; } geom;
        struct {
            uint8_t material[PMF_FACE_COUNT];
            uint8_t physics_material[PMF_FACE_COUNT];
            uint8_t sound_material;
            uint8_t moved_mask;          /* bit o: point o moved */
            float points[8][3];          /* points[o] valid when bit o set (chunk-local) */
        } ext;
    } u;
} pmf_cube;

typedef struct pmf_chunk_common {
    uint8_t used_material_count;
    const char **used_materials;
    uint16_t *material_map;              /* reader: used index -> level material index */
    uint8_t used_physics_material_count;
    const char **used_physics_materials;
    uint16_t *physics_material_map;      /* reader: used index -> level physics material index */
    uint8_t used_sound_material_count;
    const char **used_sound_materials;   /* kept as written (sound materials have no names) */
    uint8_t weather_region_count;
    pmf_env_region *weather_regions;
    uint8_t gravity_region_count;
    pmf_env_region *gravity_regions;
    uint8_t dynamic_light_count;
    pmf_dynamic_light *dynamic_lights;
    uint8_t fast_light_count;
    pmf_fast_light *fast_lights;
    uint32_t cube_count;                 /* >= 1; cube 0 is the root */
    pmf_cube *cubes;
} pmf_chunk_common;

#define PMF_MAX_LIGHTMAP_EXP 11
#define PMF_NO_LIGHTMAP 255
typedef struct pmf_lightmap {
    uint8_t size_exp;                    /* side = 2^size_exp luxels */
    uint8_t *luxels;                     /* (2^n)^2 RGB triples, row 0 at V = 0 */
} pmf_lightmap;

typedef struct pmf_vertex {
    float xyz[3];                        /* chunk-local metres */
    float uv[2];                         /* texture repeats */
    float lm_uv[2];                      /* 0..1 over the vertex's lightmap */
} pmf_vertex;

typedef struct pmf_light_layer { uint8_t target; uint8_t *luxels; } pmf_light_layer;
typedef struct pmf_client_dynamic_light {
    uint8_t color[3];
    uint8_t layer_count;
    pmf_light_layer *layers;
} pmf_client_dynamic_light;

typedef struct pmf_fast_range { uint32_t skip, count; uint8_t *multipliers; } pmf_fast_range;
typedef struct pmf_client_fast_light {
    uint8_t color[3];
    uint32_t range_count;
    pmf_fast_range *ranges;
} pmf_client_fast_light;

typedef struct pmf_light_ref { uint8_t index, amount; } pmf_light_ref;
typedef struct pmf_cube_lighting {
    uint8_t base[3];
    uint8_t dynamic_count;
    pmf_light_ref *dynamic;
    uint8_t fast_count;
    pmf_light_ref *fast;
} pmf_cube_lighting;

typedef struct pmf_client_cube {
    pmf_cube_lighting lighting;          /* valid when the cube has PMF_CUBE_HAS_LIGHTING */
    union {
        struct { uint8_t lightmap; uint32_t first_vertex; uint8_t face_mask; } geom; /* bit f = face f */
        struct {
            uint32_t first_vertex;
            uint8_t lightmap[PMF_FACE_COUNT];
            uint8_t tri_count[PMF_FACE_COUNT];
        } ext;
    } u;
} pmf_client_cube;

typedef struct pmf_chunk_client {
    uint8_t sound_region_count;
    pmf_env_region *sound_regions;
    uint8_t sky_region_count;
    pmf_env_region *sky_regions;
    uint8_t lightmap_count;
    pmf_lightmap *lightmaps;
    uint32_t vertex_count;
    pmf_vertex *vertices;
    pmf_client_dynamic_light *dynamic_lights;  /* common.dynamic_light_count of them */
    pmf_client_fast_light *fast_lights;        /* common.fast_light_count of them */
    pmf_client_cube *cubes;                    /* common.cube_count of them */
} pmf_chunk_client;

typedef struct pmf_path_attr { const char *name; float direction[3]; } pmf_path_attr;
typedef struct pmf_server_cube {
    uint8_t attr_count;                  /* valid when the cube has PMF_CUBE_HAS_PATHFINDING */
    pmf_path_attr *attrs;
} pmf_server_cube;

typedef struct pmf_chunk_server {
    pmf_blob string_table;               /* kept whole: entities refer into it */
    uint8_t load_region_count;
    pmf_region *load_regions;
    pmf_server_cube *cubes;              /* common.cube_count of them */
    uint32_t entity_count;
    pmf_blob entities;
} pmf_chunk_server;

typedef struct pmf_chunk {
    pmf_chunk_coord coord;
    unsigned parts;                      /* PMF_PART_* decoded; 0 = void grid position */
    pmf_chunk_common common;
    pmf_chunk_client client;
    pmf_chunk_server server;
    void *arena_;
} pmf_chunk;

/* ---- reading ----------------------------------------------------------------------------- */

/* Where a level's blocks and chunks sit in the file: built once by pmf_open. */
typedef struct pmf_chunk_loc {
    uint64_t offset;                     /* file offset of the compressed common block */
    uint32_t compressed[3];              /* common, client, server; all 0 = void */
    uint32_t decompressed[3];
} pmf_chunk_loc;

typedef struct pmf_level_info {
    uint8_t flags, chunk_size_exp;
    uint32_t count_x, count_y, count_z;
    pmf_chunk_coord center;
    uint64_t offset;                     /* file offset of the level data */
    uint64_t block_offset[3];            /* file offsets of compressed common/client/server */
    uint32_t compressed[3], decompressed[3];
    uint32_t chunk_count;                /* count_x * count_y * count_z */
    uint32_t present_chunks;
    pmf_chunk_loc *chunks;               /* [pmf_grid_index()] */
} pmf_level_info;

static inline uint32_t pmf_grid_index(const pmf_level_info *li, uint32_t x, uint32_t y, uint32_t z)
{ return (y * li->count_x + x) * li->count_z + z; }

typedef struct pmf_file {
    char name[256];
    const uint8_t *data;                 /* the whole file for pmf_open_memory; NULL for pmf_open (pmf_file_read) */
    size_t size;
    pmf_header header;
    pmf_blob string_table;               /* Data's string table */
    pmf_range archive;                   /* embedded PAF archive bytes (file offsets) */
    uint16_t extension_count;
    pmf_range *extensions;
    uint8_t level_count;
    pmf_level_info *levels;
    uint32_t global_entity_count;
    pmf_range global_entities;
    void *impl_;
} pmf_file;

/* Opens a regular file (anything else is refused without blocking), parses header and Data,
 * builds the chunk index. Blocks are read later with pread: a file that shrinks while open
 * gives an error naming the block, never a signal. NULL on error. */
pmf_file *pmf_open(const char *path, pmf_error *err);
/* Same over memory the caller keeps alive until pmf_close; name is used in errors. */
pmf_file *pmf_open_memory(const void *data, size_t size, const char *name, pmf_error *err);
void pmf_close(pmf_file *f);
/* Copies size bytes at a file offset (the archive, extensions, entities) into dst; an error
 * naming `block` when they lie outside the file or the file has shrunk since pmf_open. */
bool pmf_file_read(const pmf_file *f, uint64_t offset, size_t size, void *dst, const char *block, pmf_error *err);
/* Opens a regular file for reading (a FIFO, device or directory is refused without blocking):
 * its descriptor and *st (its size), or -1 with err naming block "file", byte 0 ("cannot open: ...", "is a
 * directory", "not a regular file"). */
int pmf_open_regular(const char *path, struct pmf_os_file_info *st, pmf_error *err);
/* Reads a whole regular file of at most max_size bytes into *bytes (charged to the memory budget:
 * the caller frees it with pmf_budget_free; a FIFO or device is refused without blocking). False
 * with err naming block "file" and the byte where reading stopped. */
bool pmf_read_whole_file(const char *path, uint64_t max_size, uint8_t **bytes, size_t *size, pmf_error *err);
/* The bytes of the file's first extension named `name` (its name and NUL first, conventions §4),
 * read into *bytes (malloc'ed, the caller frees; NULL when the file has none): *index is its
 * number. False on a read error or when out of memory (err names `block`). */
bool pmf_extension_read(const pmf_file *f, const char *name, uint8_t **bytes, unsigned *index, const char *block,
                        pmf_error *err);

/* Decodes the chosen parts of a level's common / client / server blocks (client needs common:
 * it is decoded too when asked for client). */
bool pmf_level_read(const pmf_file *f, uint32_t level, unsigned parts, pmf_level *out, pmf_error *err);
void pmf_level_free(pmf_level *lvl);

/* True when the grid position holds a chunk. */
bool pmf_chunk_present(const pmf_file *f, uint32_t level, pmf_chunk_coord c);

/* Decodes one chunk (common is always decoded); lvl must hold at least the common part (used
 * material names resolve against it). A void position gives out->parts == 0 and true. */
bool pmf_chunk_read(const pmf_file *f, const pmf_level *lvl, uint32_t level, pmf_chunk_coord c,
                    unsigned parts, pmf_chunk *out, pmf_error *err);
void pmf_chunk_free(pmf_chunk *chunk);

/* Decodes and validates every level and every present chunk. Per level totals when stats != NULL. */
typedef struct pmf_level_stats {
    uint32_t present_chunks;
    uint64_t cubes, vertices, lightmaps, dynamic_lights, fast_lights;
    uint64_t decompressed_bytes;
    uint64_t lightmaps_by_exp[PMF_MAX_LIGHTMAP_EXP + 1];   /* lightmaps of side 2^n, by n */
    bool has_bounds;                     /* false: the level has no vertex */
    double min[3], max[3];               /* world metres of every vertex of its present chunks
                                          * (conventions §2: a chunk's centre is at (c - center) x S) */
} pmf_level_stats;
bool pmf_validate(const pmf_file *f, pmf_level_stats *stats /* [level_count] or NULL */, pmf_error *err);

/* What one present chunk's blocks and lightmaps take (pmfview info, docs/info.md). */
typedef struct pmf_chunk_figures {
    pmf_chunk_coord coord;
    uint32_t compressed[3], decompressed[3];   /* common, client, server blocks */
    uint32_t lightmaps, dynamic_lights, layers;
    uint64_t lightmap_bytes;                   /* the lightmaps' RGB luxels, decoded */
    uint64_t layer_bytes;                      /* the dynamic lights' layers' RGB luxels, decoded */
} pmf_chunk_figures;
/* pmf_validate, then (when every chunk is valid) each level's present chunks to `each` in grid
 * order, on the caller's thread. */
bool pmf_validate_chunks(const pmf_file *f, pmf_level_stats *stats, void (*each)(void *user, uint32_t level,
                         const pmf_chunk_figures *chunk), void *user, pmf_error *err);

/* ---- writing ----------------------------------------------------------------------------- */

/* The file-level parts that are not levels. Zero means empty. */
typedef struct pmf_data_desc {
    pmf_blob string_table;
    pmf_blob archive;                    /* PAF bytes */
    uint16_t extension_count;
    const pmf_blob *extensions;
    uint32_t global_entity_count;
    pmf_blob global_entities;
} pmf_data_desc;

/* A chunk already serialised and LZ4F-compressed (pmf_chunk_encode is thread-safe). */
typedef struct pmf_encoded_chunk {
    uint8_t *bytes;                      /* common, client, server frames back to back */
    uint32_t compressed[3], decompressed[3];
} pmf_encoded_chunk;

/* Serialises and compresses one chunk of lvl (whose common part names the materials). */
bool pmf_chunk_encode(const pmf_level *lvl, const pmf_chunk *chunk, pmf_encoded_chunk *out, pmf_error *err);
void pmf_encoded_chunk_free(pmf_encoded_chunk *enc);

typedef struct pmf_writer pmf_writer;
pmf_writer *pmf_writer_create(const pmf_header *header, const pmf_data_desc *data, pmf_error *err);
/* Starts a level: lvl must have all three parts filled. Chunks then come in any order. */
bool pmf_writer_begin_level(pmf_writer *w, const pmf_level *lvl, pmf_error *err);
/* From now on keeps the chunks put in an unnamed scratch file in path's directory (the output's,
 * so the same disk) instead of memory: the writer then holds only their sizes, and finishing
 * copies them in place. Without it (tests, small maps) chunks stay in memory. */
bool pmf_writer_stream(pmf_writer *w, const char *path, pmf_error *err);
/* Takes ownership of enc's bytes. */
bool pmf_writer_put_chunk(pmf_writer *w, pmf_chunk_coord c, pmf_encoded_chunk *enc, pmf_error *err);
/* Writes to path atomically (temp file + rename), or to memory (caller frees *out). */
bool pmf_writer_finish(pmf_writer *w, const char *path, pmf_error *err);
bool pmf_writer_finish_memory(pmf_writer *w, uint8_t **out, size_t *size, pmf_error *err);
void pmf_writer_destroy(pmf_writer *w);

#endif
