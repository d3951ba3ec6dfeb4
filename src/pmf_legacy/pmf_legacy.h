/* pmf_legacy.h - the legacy PMF draft (../shared/specs/pmf-legacy-draft.txt), read as
 * ../shared/conventions.md §6 and docs/formats.md say. No GL, no SDL.
 *
 * Usage:
 *   pmf_error err;
 *   pmfl_map *m = pmfl_open("old.pmf", &err);   // reads and validates the whole file
 *   ... m->cubes, m->sections, m->triangles ...
 *   pmfl_close(m);
 *
 * Errors use the PMF library's pmf_error: BLOCK is "header", "data" (the block framing),
 * "shared data", "server data" or "client data"; OFFSET is a file offset for header and data
 * and an offset inside the (decompressed) block otherwise.
 */
#ifndef PMF_LEGACY_H
#define PMF_LEGACY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf.h"

/* The low 4 bits of a cube's type byte. */
enum { PMFL_CUBE_EMPTY = 0, PMFL_CUBE_PARENT = 1, PMFL_CUBE_SOLID = 2, PMFL_CUBE_ANGLED = 3 };
#define PMFL_CUBE_IS_CHUNK     0x20u
#define PMFL_CUBE_HAS_LIGHTING 0x10u

/* Face-count slots of solid / angled cube data, in the draft's bit order (plane: angled only). */
enum { PMFL_FACE_PLANE, PMFL_FACE_POS_X, PMFL_FACE_POS_Y, PMFL_FACE_POS_Z, PMFL_FACE_NEG_X, PMFL_FACE_NEG_Y,
       PMFL_FACE_NEG_Z, PMFL_FACE_SLOTS };

#define PMFL_NO_PARENT UINT32_MAX

typedef struct pmfl_cube {
    uint8_t type;                        /* PMFL_CUBE_* */
    uint8_t flags;                       /* PMFL_CUBE_IS_CHUNK | PMFL_CUBE_HAS_LIGHTING */
    uint8_t base_light[3];               /* has lighting */
    uint32_t light_ref_index;
    uint8_t dynamic_light_count;
    uint16_t prop_ref_index, prop_count; /* is chunk */
    uint32_t vis_index, vis_cube_count;
    uint32_t children[8];                /* parent, octants in the draft's order */
    const char *material;                /* solid / angled: the client resource path ("" = none) */
    uint32_t triangle_index;             /* solid / angled: first of its triangles */
    uint8_t face_triangles[PMFL_FACE_SLOTS];
    uint32_t triangle_count;             /* their sum */
    float fill, pitch, yaw;              /* angled */
    uint32_t parent;                     /* PMFL_NO_PARENT for a section root or an unreachable cube */
    uint8_t depth;                       /* 0 at a section root */
    uint32_t offset;                     /* of its type byte in the shared data (for errors) */
} pmfl_cube;

typedef struct pmfl_point { float pos[3], uv[2], lightmap_uv[2]; } pmfl_point;
typedef struct pmfl_triangle { pmfl_point p[3]; } pmfl_triangle;

typedef struct pmfl_team { const char *name; float color[3]; } pmfl_team;

typedef struct pmfl_block_info {
    uint64_t offset;                     /* file offset of the stored bytes */
    uint64_t stored, size;               /* stored (compressed) and decoded sizes */
    bool lz4;                            /* an LZ4 frame, else stored as is */
} pmfl_block_info;

typedef struct pmfl_map {
    char file[256];
    uint8_t major, minor;
    const char *name, *authors, *description;
    uint64_t created;
    uint8_t gamemode_count;
    const char *gamemodes[16];
    pmfl_block_info blocks[3];           /* shared, server, client */

    uint8_t sections_x, sections_z, section_size_exp;
    uint32_t *sections;                  /* [x * sections_z + z]: root cube index */
    uint32_t cube_count;
    pmfl_cube *cubes;
    uint32_t prop_ref_count;             /* always 0: the draft defines no prop layout */
    pmf_blob string_table, server_string_table;
    uint8_t team_count;
    pmfl_team *teams;
    uint32_t triangle_count;
    pmfl_triangle *triangles;
    uint32_t *triangle_cube;             /* [triangle]: the solid / angled cube drawing it, or UINT32_MAX */

    /* totals over the cubes reachable from the sections */
    uint32_t cubes_by_type[4];
    uint32_t lit_cubes;
    uint32_t materials_count;            /* distinct material paths */
    const char **materials;              /* in order of first use */
    float bounds_min[3], bounds_max[3];  /* of every triangle point; 0 when there are none */
    void *impl_;
} pmfl_map;

/* Reads and validates a whole file / memory (kept alive by the caller until pmfl_close). */
pmfl_map *pmfl_open(const char *path, pmf_error *err);
pmfl_map *pmfl_open_memory(const void *data, size_t size, const char *name, pmf_error *err);
void pmfl_close(pmfl_map *m);

/* Writes the map as a PMF 0.0 file the viewer draws (docs/formats.md): its triangles with their
 * cube's material (the resource path is the texture) and base light (else fullbright). */
bool pmfl_to_pmf(const pmfl_map *m, const char *path, pmf_error *err);

#endif
