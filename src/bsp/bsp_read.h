/* bsp_read.h - reading compiled Quake-family maps: GoldSrc BSP v30, Quake BSP v29 and the large
 * forms BSP2 and 2PSB (ericw-tools, FTEQW). No GL, no pmfc internals.
 *
 *   bsp_file bsp;
 *   pmf_error err;
 *   if (!bsp_read_file(path, &bsp, &err)) { print pmf_error_format(&err, ...); exit 2; }
 *   ... bsp.faces, bsp.models[0] (the world), bsp.entities (text) ...
 *   bsp_free(&bsp);
 *
 * Layout: a version (29, 30, "BSP2" or "2PSB"), then 15 lumps {offset, length}: entities,
 * planes, textures, vertices, visibility, nodes, texinfo, faces, lighting, clipnodes, leaves,
 * mark surfaces, edges, surface edges, models. BSP2 widens faces, edges, mark surfaces, nodes
 * and leaves to 32-bit indices and float bounds (2PSB keeps 16-bit bounds); v29 lighting is one
 * grey byte a luxel, v30 three (RGB); a v30 texture carries its palette, a v29 one uses Quake's.
 *
 * Untrusted input: every lump lies inside the file and holds whole records, read through the
 * shared bounds-checked cursor (pmf_cursor, src/pmf/pmf_bytes.h) over the lump; every index a record
 * holds (plane, edge, vertex, texinfo, texture, face, mark surface, child, light and vis offset)
 * is checked against its lump before use, and each face's lightmap (its extents from its
 * vertices and texture axes) against the lighting lump. An error names the lump and record and
 * the file offset of the field (pmf_error: block "lump NAME record N"). Memory: the file, and
 * arrays of the records widened to one form (a few times the file at most), from the budget of
 * src/pmf/pmf_budget.h. */
#ifndef PMFC_BSP_READ_H
#define PMFC_BSP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

#define BSP_VERSION_QUAKE 29u
#define BSP_VERSION_GOLDSRC 30u
#define BSP_VERSION_BSP2 0x32505342u  /* "BSP2" */
#define BSP_VERSION_2PSB 0x42535032u  /* "2PSB" */
#define BSP_MAX_LUXELS 1024u          /* a face's lightmap side at most (luxels) */
#define BSP_NO_STYLE 255u
#define BSP_TEX_SPECIAL 1u            /* texinfo flag: sky or liquid, no lightmap */

typedef struct bsp_plane { float normal[3], dist; } bsp_plane;
typedef struct bsp_texinfo { float s[4], t[4]; uint32_t texture; uint32_t flags; } bsp_texinfo;

typedef struct bsp_face {
    uint32_t plane;
    bool back;                       /* the face looks along the plane's -normal */
    uint32_t first_edge, edge_count; /* into surfedges */
    uint32_t texinfo;
    uint8_t styles[4];               /* BSP_NO_STYLE ends the list */
    int64_t light_offset;            /* into lighting (bytes); -1: no lightmap */
    /* from the reader: the lightmap's grid (texture units / 16) and size in luxels */
    int32_t light_mins[2];
    uint32_t light_size[2];          /* 0 when it has no lightmap */
} bsp_face;

typedef struct bsp_model {
    float mins[3], maxs[3], origin[3];
    int32_t headnode;
    uint32_t visleafs, first_face, face_count;
} bsp_model;

typedef struct bsp_leaf {
    int32_t contents;
    int64_t vis_offset;              /* into visibility; -1: none */
    float mins[3], maxs[3];
    uint32_t first_mark, mark_count;
} bsp_leaf;

typedef struct bsp_node {
    uint32_t plane;
    int32_t children[2];             /* >= 0 a node, else -(leaf + 1) */
    float mins[3], maxs[3];
} bsp_node;

typedef struct bsp_texture {
    char name[16];                   /* "" for a missing slot (offset -1) */
    uint32_t width, height;
    bool embedded;                   /* its texels are in the file (else a WAD has them) */
    const uint8_t *miptex;           /* the whole miptex record when embedded */
    size_t miptex_size;
    uint64_t offset;                 /* its file offset */
} bsp_texture;

typedef struct bsp_file {
    uint32_t version;
    const char *entities;            /* the entity lump's text, NUL-terminated by the reader */
    size_t entities_size;
    bsp_plane *planes; uint32_t plane_count;
    float (*vertices)[3]; uint32_t vertex_count;
    uint32_t (*edges)[2]; uint32_t edge_count;
    int32_t *surfedges; uint32_t surfedge_count;
    bsp_texinfo *texinfos; uint32_t texinfo_count;
    bsp_texture *textures; uint32_t texture_count;
    bsp_face *faces; uint32_t face_count;
    bsp_model *models; uint32_t model_count;
    bsp_leaf *leaves; uint32_t leaf_count;
    bsp_node *nodes; uint32_t node_count;
    uint32_t *marks; uint32_t mark_count;
    const uint8_t *visibility; size_t visibility_size;
    const uint8_t *lighting; size_t lighting_size;
    uint32_t luxel_bytes;            /* 1 (v29, BSP2) or 3 (v30) */
    uint8_t *data_;                  /* the file, owned */
} bsp_file;

bool bsp_read(const uint8_t *data, size_t size, const char *name, bsp_file *out, pmf_error *err);
/* Regular files only (a FIFO or device is refused at once), at most 1 GiB. */
bool bsp_read_file(const char *path, bsp_file *out, pmf_error *err);
void bsp_free(bsp_file *bsp);

/* The vertex index of a face's k-th corner (surfedge sign read), k < edge_count. */
uint32_t bsp_face_vertex(const bsp_file *bsp, const bsp_face *f, uint32_t k);
/* The mean of a face's corners. */
void bsp_face_centre(const bsp_file *bsp, const bsp_face *f, double out[3]);
/* A leaf's potentially visible set, decompressed: vis[leaf] set for each leaf seen from it (bit
 * per leaf, leaf 0 excluded as the files store it); all set when the leaf has no vis data.
 * words = (leaf_count + 63) / 64. False when the run-length data is damaged. */
bool bsp_leaf_pvs(const bsp_file *bsp, uint32_t leaf, uint64_t *vis, size_t words);
/* The entity lump read as the .map text it is (map/map_read.h): an error names the block
 * "lump entities" (bsp_entities.c). */
typedef struct qmap qmap;
bool bsp_read_entities(const bsp_file *bsp, const char *name, qmap *out, pmf_error *err);
/* The program that wrote the map, where its worldspawn names it; NULL where it does not. */
const char *bsp_compiler(const qmap *entities);

/* "GoldSrc BSP v30", "Quake BSP v29", "Quake BSP2", "Quake 2PSB". */
const char *bsp_version_name(uint32_t version);

#endif
