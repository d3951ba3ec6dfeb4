/* spr_read.c - Quake and GoldSrc sprites: the header, an index of frames and pictures, decoding
 * (see spr.h). */
#include "spr.h"
#include "base/pmf_budget.h"
#include "pmf/pmf_bytes.h"

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#define PICTURE_HEADER 16u         /* origin x, y, width, height */
#define HOLE 255                   /* the index a Quake or alpha-tested sprite leaves out */

typedef struct frame_part {
    uint32_t first, count;         /* its pictures in spr_file.pictures */
    size_t intervals_at;           /* a group's intervals; 0 for a single picture */
} frame_part;

struct spr_file {
    const uint8_t *data;
    size_t size;
    spr_info info;
    const uint8_t *palette;        /* GoldSrc's colours, in the file */
    frame_part *frames;
    size_t *pictures;              /* each picture's header byte, frames in order */
    uint32_t picture_count;
    char name[];                   /* the file, for errors */
};

static bool read_header(spr_file *s, pmf_cursor *c)
{
    const uint8_t *magic = pmf_take(c, 4, "magic");
    if (magic && memcmp(magic, "IDSP", 4) != 0)
        return pmf_cursor_fail_at(c, 0, "bad magic (expected 'IDSP': a Quake or GoldSrc sprite)");
    spr_info *i = &s->info;
    i->version = (int32_t)pmf_read_u32(c, "version");
    if (!c->failed && i->version != 1 && i->version != 2)
        return pmf_cursor_fail_at(c, 4, "version %d (Quake's sprites are 1, GoldSrc's 2)", i->version);
    size_t at = c->pos;
    uint32_t type = pmf_read_u32(c, "type");
    if (!c->failed && type > SPR_TYPE_PARALLEL_ORIENTED)
        return pmf_cursor_fail_at(c, at, "type %d (0 to %d)", (int32_t)type, SPR_TYPE_PARALLEL_ORIENTED);
    i->type = (spr_type)type;
    uint32_t render = SPR_RENDER_ALPHA_TEST;
    at = c->pos;
    if (i->version == 2)
        render = pmf_read_u32(c, "render mode");
    if (!c->failed && render > SPR_RENDER_ALPHA_TEST)
        return pmf_cursor_fail_at(c, at, "render mode %d (0 to %d)", (int32_t)render, SPR_RENDER_ALPHA_TEST);
    i->render = (spr_render)render;
    i->radius = pmf_read_f32(c, "bounding radius");
    i->width = pmf_read_u32(c, "width");
    i->height = pmf_read_u32(c, "height");
    at = c->pos;
    int32_t frames = (int32_t)pmf_read_u32(c, "frame count");
    if (!c->failed && frames < 1)
        return pmf_cursor_fail_at(c, at, "frame count %d (at least 1)", frames);
    i->frame_count = (uint32_t)frames;
    i->beam_length = pmf_read_f32(c, "beam length");
    i->sync_type = (int32_t)pmf_read_u32(c, "sync type");
    if (i->version == 2 && !c->failed) {
        c->block = "palette";
        at = c->pos;
        i->colour_count = pmf_read_u16(c, "colour count");
        if (!c->failed && (i->colour_count < 1 || i->colour_count > 256))
            return pmf_cursor_fail_at(c, at, "%u colours (1 to 256)", i->colour_count);
        s->palette = pmf_take(c, (size_t)i->colour_count * 3, "colours");
    }
    return !c->failed;
}

static bool read_picture(spr_file *s, pmf_cursor *c)
{
    size_t at = c->pos;
    pmf_read_u32(c, "origin x");
    pmf_read_u32(c, "origin y");
    uint32_t side[2] = { pmf_read_u32(c, "width"), pmf_read_u32(c, "height") };
    for (int k = 0; k < 2 && !c->failed; k++)
        if (side[k] < 1 || side[k] > SPR_MAX_SIDE)
            return pmf_cursor_fail_at(c, at + 8 + 4 * k, "%s %d (1 to %u)", k ? "height" : "width", (int32_t)side[k], SPR_MAX_SIDE);
    pmf_take(c, (size_t)side[0] * side[1], "pixels");
    if (c->failed)
        return false;
    if (s->pictures)
        s->pictures[s->picture_count] = at;
    s->picture_count++;
    return true;
}

/* A group's count and intervals (positive, finite, as the engines ask); 0 after an error. */
static uint32_t read_group(pmf_cursor *c)
{
    size_t at = c->pos;
    int32_t n = (int32_t)pmf_read_u32(c, "group's picture count");
    if (!c->failed && n < 1)
        pmf_cursor_fail_at(c, at, "a group of %d (at least 1)", n);
    if (c->failed || !pmf_cursor_fits(c, (uint64_t)n, 4 + PICTURE_HEADER + 1, "group's pictures"))
        return 0;
    for (int32_t k = 0; k < n; k++) {
        at = c->pos;
        float interval = pmf_read_f32(c, "interval");
        if (!(interval > 0.0f) || !isfinite(interval)) {
            pmf_cursor_fail_at(c, at, "interval %d is %g (the engines need a positive time)", k, interval);
            return 0;
        }
    }
    return (uint32_t)n;
}

/* Walks every frame: first counting pictures (s->pictures NULL), then recording them. */
static bool walk_frames(spr_file *s, pmf_cursor *c)
{
    s->picture_count = 0;
    for (uint32_t f = 0; f < s->info.frame_count; f++) {
        char block[40];
        snprintf(block, sizeof block, "frame %u", f);
        c->block = block;
        uint32_t kind = pmf_read_u32(c, "frame kind"), count = 1;
        size_t intervals = 0;
        if (kind != 0) {
            intervals = c->pos + 4;
            count = read_group(c);
        }
        if (s->frames)
            s->frames[f] = (frame_part){ s->picture_count, count, intervals };
        for (uint32_t p = 0; p < count && !c->failed; p++) {
            char picture_block[40];
            snprintf(picture_block, sizeof picture_block, "frame %u picture %u", f, p);
            c->block = kind != 0 ? picture_block : block;
            read_picture(s, c);
        }
        c->block = "frames";  /* the names above end with their loop */
        if (c->failed)
            return false;
    }
    return true;
}

static bool index_frames(spr_file *s, pmf_cursor *c, pmf_error *err)
{
    size_t start = c->pos;
    c->block = "header";
    if (!pmf_cursor_fits(c, s->info.frame_count, 4 + PICTURE_HEADER + 1, "frames") || !walk_frames(s, c))
        return false;
    s->frames = pmf_budget_calloc(s->info.frame_count, sizeof *s->frames);
    s->pictures = pmf_budget_calloc(s->picture_count, sizeof *s->pictures);
    if (!s->frames || !s->pictures) {
        pmf_error_set(err, s->name, "header", 0, "out of memory for %u pictures", s->picture_count);
        return false;
    }
    c->pos = start;
    return walk_frames(s, c);
}

spr_file *spr_open_memory(const uint8_t *data, size_t size, const char *name, pmf_error *err)
{
    spr_file *s = pmf_reader_handle(sizeof *s, offsetof(spr_file, name), name, err);
    if (!s)
        return NULL;
    s->data = data;
    s->size = size;
    pmf_cursor c = pmf_cursor_make(data, size, 0, s->name, "header", err);
    if (!read_header(s, &c) || !index_frames(s, &c, err)) {
        spr_close(s);
        return NULL;
    }
    return s;
}

void spr_close(spr_file *s)
{
    if (!s)
        return;
    pmf_budget_free(s->frames);
    pmf_budget_free(s->pictures);
    pmf_budget_free(s);
}

const spr_info *spr_get_info(const spr_file *s) { return &s->info; }

uint32_t spr_frame_pictures(const spr_file *s, uint32_t frame)
{
    return frame < s->info.frame_count ? s->frames[frame].count : 0;
}

float spr_picture_interval(const spr_file *s, uint32_t frame, uint32_t picture)
{
    if (frame >= s->info.frame_count || picture >= s->frames[frame].count || !s->frames[frame].intervals_at)
        return 0.0f;
    pmf_cursor c = pmf_cursor_make(s->data, s->size, 0, s->name, "frame", NULL);
    c.pos = s->frames[frame].intervals_at + 4 * (size_t)picture;
    return pmf_read_f32(&c, "interval");
}

/* One texel's colour and alpha by the sprite's render mode. */
static void decode_texel(const spr_info *i, const uint8_t *rgb, uint8_t index, uint8_t *out)
{
    bool hole = index == HOLE && (i->version == 1 || i->render == SPR_RENDER_ALPHA_TEST);
    if (hole) {
        memset(out, 0, 4);
    } else if (i->render == SPR_RENDER_INDEX_ALPHA && i->version == 2) {
        memcpy(out, rgb + 3 * (i->colour_count - 1), 3);
        out[3] = index;
    } else {
        memcpy(out, rgb + 3 * index, 3);
        out[3] = 255;
    }
}

bool spr_load_picture(const spr_file *s, uint32_t frame, uint32_t picture, const uint8_t *palette, spr_picture *out,
                      pmf_error *err)
{
    const spr_info *i = &s->info;
    frame = frame < i->frame_count ? frame : 0;
    picture = picture < s->frames[frame].count ? picture : 0;
    size_t at = s->pictures[s->frames[frame].first + picture];
    char block[40];
    snprintf(block, sizeof block, "frame %u picture %u", frame, picture);
    pmf_cursor c = pmf_cursor_make(s->data, s->size, 0, s->name, block, err);
    c.pos = at;
    spr_picture p = { .origin = { (int32_t)pmf_read_u32(&c, "origin x"), (int32_t)pmf_read_u32(&c, "origin y") } };
    p.width = pmf_read_u32(&c, "width");
    p.height = pmf_read_u32(&c, "height");
    const uint8_t *indices = s->data + at + PICTURE_HEADER, *rgb = i->version == 2 ? s->palette : palette;
    size_t count = (size_t)p.width * p.height;
    if (!rgb) {
        pmf_error_set(err, s->name, block, at, "a Quake sprite needs the game's palette");
        return false;
    }
    for (size_t t = 0; i->version == 2 && i->render != SPR_RENDER_INDEX_ALPHA && t < count; t++)
        if (indices[t] >= i->colour_count && !(indices[t] == HOLE && i->render == SPR_RENDER_ALPHA_TEST)) {
            pmf_error_set(err, s->name, block, at + PICTURE_HEADER + t, "pixel (%zu, %zu) is colour %u of a %u-colour palette",
                          t % p.width, t / p.width, indices[t], i->colour_count);
            return false;
        }
    p.rgba = pmf_budget_malloc(count * 4);
    if (!p.rgba) {
        pmf_error_set(err, s->name, block, at, "out of memory for %ux%u pixels", p.width, p.height);
        return false;
    }
    for (size_t t = 0; t < count; t++)
        decode_texel(i, rgb, indices[t], p.rgba + 4 * t);
    *out = p;
    return true;
}

void spr_picture_free(spr_picture *p)
{
    if (!p)
        return;
    pmf_budget_free(p->rgba);
    p->rgba = NULL;
}
