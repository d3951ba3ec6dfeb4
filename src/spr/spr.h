/* spr.h - Quake's (version 1) and GoldSrc's (version 2) sprites: how each faces the camera, how it
 * blends, its frames (single pictures and timed groups) decoded to RGBA8.
 *
 *   pmf_error err;
 *   spr_file *s = spr_open_memory(bytes, size, "sprites/glow01.spr", &err);  // every frame checked
 *   spr_picture p;
 *   if (s && spr_load_picture(s, 0, 0, quake_palette, &p, &err)) ... p.rgba ...
 *   spr_picture_free(&p); spr_close(s);
 *
 * Layout (little-endian): "IDSP", i32 version; i32 type (SPR_TYPE_*); version 2 only: i32 render
 * mode (SPR_RENDER_*); f32 bounding radius, i32 width, height (the largest frame), frame count,
 * f32 beam length, i32 sync type; version 2 only: u16 colour count and that many RGB triples.
 * Then the frames, each i32 kind: 0 = one picture, else a group: i32 pictures, f32 intervals
 * (seconds each picture ends at), the pictures. A picture: i32 origin x, y (its top
 * left corner from the sprite's centre, y up), i32 width, height, width * height palette indices,
 * row 0 the top.
 *
 * Colours: a Quake sprite's indices go through the game's palette, 255 a hole (alpha 0). A GoldSrc
 * sprite has its own palette: SPR_RENDER_NORMAL and _ADDITIVE opaque (additive: the renderer adds
 * it), _INDEX_ALPHA the palette's last colour with the index as alpha, _ALPHA_TEST index 255 a hole.
 *
 * What is checked, by spr_open_memory before anything is decoded: magic, version 1 or 2, type
 * and render mode known, 1 to 256 colours, at least one frame, every picture 1..SPR_MAX_SIDE a
 * side and inside the file, a group's count at least 1 and its intervals positive and finite (the
 * engines refuse others). A picture's index past a GoldSrc palette is refused when it is loaded.
 * What it keeps is an index of offsets (no more than the file's size); a decoded picture is at
 * most SPR_MAX_SIDE^2 * 4 bytes.
 *
 * Errors fill the shared pmf_error ("FILE: WHERE, byte OFFSET: WHAT"): its block is "header",
 * "palette", "frame 3" or "frame 3 picture 1". None prints or exits. An spr_file is immutable once
 * open: any number of threads may load pictures from it. */
#ifndef PMF_SPR_H
#define PMF_SPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

#define SPR_MAX_SIDE 4096u

typedef enum spr_type {
    SPR_TYPE_PARALLEL_UPRIGHT = 0,     /* faces the view plane, turning about the vertical only */
    SPR_TYPE_FACING_UPRIGHT = 1,       /* faces the viewer's position, turning about the vertical only */
    SPR_TYPE_PARALLEL = 2,             /* faces the view plane (the default: most sprites) */
    SPR_TYPE_ORIENTED = 3,             /* fixed by the entity's angles (a decal on a wall) */
    SPR_TYPE_PARALLEL_ORIENTED = 4,    /* faces the view plane, rolled by the entity's roll */
} spr_type;

typedef enum spr_render {
    SPR_RENDER_NORMAL = 0,
    SPR_RENDER_ADDITIVE = 1,
    SPR_RENDER_INDEX_ALPHA = 2,
    SPR_RENDER_ALPHA_TEST = 3,         /* a Quake sprite's only mode */
} spr_render;

typedef struct spr_info {
    int version;                       /* 1 Quake, 2 GoldSrc */
    spr_type type;
    spr_render render;
    float radius, beam_length;
    uint32_t width, height;            /* as the header says: the largest frame's */
    uint32_t frame_count;
    int32_t sync_type;
    uint32_t colour_count;             /* GoldSrc's palette; 0 for Quake */
} spr_info;

typedef struct spr_picture {
    int32_t origin[2];                 /* the top left corner from the sprite's centre, y up */
    uint32_t width, height;
    uint8_t *rgba;                     /* width * height * 4, row 0 the top */
} spr_picture;

typedef struct spr_file spr_file;

/* Over memory it BORROWS (name: the file for errors), kept alive and unchanged until spr_close. */
spr_file *spr_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err);
void spr_close(spr_file *s);

const spr_info *spr_get_info(const spr_file *s);
/* Pictures in a frame: 1, or a group's count; 0 past the end. */
uint32_t spr_frame_pictures(const spr_file *s, uint32_t frame);
/* When a group's picture ends, in seconds from the group's start (its interval); 0 for a single
 * picture or past the end. */
float spr_picture_interval(const spr_file *s, uint32_t frame, uint32_t picture);

/* Frame `frame`'s picture `picture` decoded (a frame or picture past the sprite's is 0, as the
 * engines draw it); palette: Quake's 768 bytes for a version 1 sprite (false without one), ignored
 * for version 2. False with err when out of memory or an index is past a GoldSrc palette. */
bool spr_load_picture(const spr_file *s, uint32_t frame, uint32_t picture, const uint8_t *palette, spr_picture *out,
                      pmf_error *err);
void spr_picture_free(spr_picture *p);

#endif
