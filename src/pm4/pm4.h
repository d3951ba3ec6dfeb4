/* pm4.h - PM4 server-side nav-mesh files (../shared/specs/pm4.md): every chunk the spec lists,
 * validated, with its coordinate transform to the spec's world frame and to the viewer's (Y up,
 * metres 1:1; docs/formats.md). No GL, no SDL.
 *
 * Usage:
 *   pmf_error err;
 *   pm4_tile *t = pm4_open("map_32_41.pm4", &err);
 *   float w[3]; pm4_msvt_world(t, 5, w);  pm4_world_to_view(w, v);
 *   pm4_close(t);
 *
 * Errors use the PMF library's pmf_error: BLOCK is "file" or "chunk MSUR" (the chunk's name as
 * the spec writes it) and OFFSET is the file offset of the bad bytes.
 */
#ifndef PM4_H
#define PM4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf.h"

#define PM4_MSUR_LIQUID 0x80u            /* attribute_mask bit 7: liquid candidate */

typedef struct pm4_mslk {
    uint8_t type_flags, subtype;
    uint16_t padding;
    uint32_t group_object_id;
    int32_t mspi_first;                  /* -1 = no geometry */
    uint8_t mspi_count;
    uint32_t link_id;                    /* tile crossing: 0xFFFFYYXX */
    uint16_t ref_index, system_flag;
} pm4_mslk;

typedef struct pm4_msur {
    uint8_t group_key;                   /* 0 = M2 props, else walkable */
    uint8_t index_count;
    uint8_t attribute_mask;              /* PM4_MSUR_LIQUID */
    uint8_t padding;
    float normal[3];                     /* as stored */
    float height;
    uint32_t msvi_first, mdos_index, packed_params;
} pm4_msur;

static inline uint32_t pm4_msur_ck24(const pm4_msur *s) { return (s->packed_params & 0xFFFFFF00u) >> 8; }

typedef struct pm4_mprl {
    uint16_t unknown0;
    int16_t unknown2;
    uint16_t unknown4, unknown6;
    float pos[3];                        /* as stored */
    int16_t unknown14;
    uint16_t unknown16;
} pm4_mprl;

typedef struct pm4_mprr { uint16_t value0, value1; } pm4_mprr;
typedef struct pm4_mdos { uint32_t value0, value1; } pm4_mdos;
typedef struct pm4_mdsf { uint32_t msur_index, mdos_index; } pm4_mdsf;

/* Chunk names in a fixed order, for counts and errors. */
enum { PM4_MVER, PM4_MSHD, PM4_MSLK, PM4_MSPI, PM4_MSPV, PM4_MSVT, PM4_MSVI, PM4_MSUR, PM4_MSCN, PM4_MPRL, PM4_MPRR,
       PM4_MDBH, PM4_MDOS, PM4_MDSF, PM4_CHUNK_KINDS };
extern const char *const pm4_chunk_names[PM4_CHUNK_KINDS];

typedef struct pm4_tile {
    char file[256];
    bool has_tile_xy;                    /* the file name ends _XX_YY.pm4 */
    int tile_x, tile_y;
    bool present[PM4_CHUNK_KINDS];
    uint32_t entries[PM4_CHUNK_KINDS];   /* entries per chunk (MVER, MSHD: 1; MDBH: its count) */
    uint32_t unknown_chunks;             /* skipped by size */
    uint32_t version;                    /* MVER */
    uint32_t header[8];                  /* MSHD */
    pm4_mslk *mslk;
    uint32_t *mspi;
    float (*mspv)[3];                    /* as stored */
    float (*msvt)[3];                    /* as stored: (Y, X, Z) */
    uint32_t *msvi;
    pm4_msur *msur;
    float (*mscn)[3];                    /* as stored */
    pm4_mprl *mprl;
    pm4_mprr *mprr;
    uint32_t mdbh_subchunks;             /* MDBH: sub-chunks walked by size */
    pm4_mdos *mdos;
    pm4_mdsf *mdsf;

    /* derived */
    uint32_t groups;                     /* distinct CK24 keys among the surfaces */
    uint32_t triangles;                  /* of the fan-triangulated surfaces */
    bool has_bounds;                     /* the tile has any MSVT, MSPV, MSCN or MPRL point */
    float bounds_min[3], bounds_max[3];  /* view frame, of those points */
    void *impl_;
} pm4_tile;

pm4_tile *pm4_open(const char *path, pmf_error *err);
/* name is used in errors and for the _XX_YY tile coordinates; data stays the caller's. */
pm4_tile *pm4_open_memory(const void *data, size_t size, const char *name, pmf_error *err);
void pm4_close(pm4_tile *t);

/* The spec's per-chunk transforms to its world frame (X, Y, Z up). */
void pm4_msvt_world(const pm4_tile *t, uint32_t i, float out[3]);   /* (Y, X, Z) -> (X, Y, Z) */
void pm4_mspv_world(const pm4_tile *t, uint32_t i, float out[3]);   /* unchanged */
void pm4_mscn_world(const pm4_tile *t, uint32_t i, float out[3]);   /* (X, Y, Z) -> (Y, -X, Z) */
void pm4_mprl_world(const pm4_tile *t, uint32_t i, float out[3]);   /* (X, Y, Z) -> (X, -Z, Y) */
/* The spec's world (Z up) to the viewer's frame (conventions §2, Y up, right-handed): (X, Z, -Y). */
void pm4_world_to_view(const float world[3], float out[3]);

/* "map_32_41.pm4" -> 32, 41. */
bool pm4_tile_coords(const char *name, int *x, int *y);

#endif
