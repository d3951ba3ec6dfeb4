/* pmf_map_info.c - the `pmfview.source`, `pmfview.entities` (with `pmfview.entity_placement` and
 * `pmfview.entity_render`) and `pmfview.leak` extensions (pmf_map_info.h). */
#include <math.h>
#include <stdlib.h>

#include "pmf_internal.h"
#include "pmf_map_info.h"

static const char *const look_names[PMF_LOOK_COUNT] = { "raw", "goldsrc", "quake" };

const char *pmf_look_name(unsigned look)
{
    return look < PMF_LOOK_COUNT ? look_names[look] : NULL;
}

static bool finite3(const float v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static void put_string(pmf_buf *b, const char *s)
{
    s = s ? s : "";
    pmf_put_bytes(b, s, strlen(s) + 1);
}

/* A NUL-terminated string in place; NULL (the cursor failed) when no NUL comes before the end. */
static const char *read_string(pmf_cursor *c, const char *what)
{
    if (c->failed)
        return NULL;
    const char *s = (const char *)c->data + c->pos;
    const char *nul = memchr(s, 0, c->size - c->pos);
    if (!nul) {
        pmf_cursor_fail_at(c, c->pos, "%s: no NUL before the end of the extension", what);
        return NULL;
    }
    pmf_take(c, (size_t)(nul - s) + 1, what);
    return s;
}

/* The extension's bytes in a cursor after its name; false with err set on a read failure, true
 * with *bytes NULL when the file has none. */
static bool open_extension(const pmf_file *f, const char *name, const char *block, uint8_t **bytes, pmf_cursor *c,
                           pmf_error *err)
{
    unsigned i;
    if (!pmf_extension_read(f, name, bytes, &i, block, err))
        return false;
    if (*bytes) {
        *c = pmf_cursor_make(*bytes, (size_t)f->extensions[i].size, f->extensions[i].offset, f->name, block, err);
        pmf_take(c, strlen(name) + 1, "extension name");
    }
    return true;
}

/* ---- pmfview.source ----------------------------------------------------------------------- */

#define SOURCE_BLOCK "extension " PMF_SOURCE_EXTENSION

bool pmf_source_encode(uint8_t look, uint8_t flags, const char *format, const char *compiler, uint8_t **out,
                       size_t *size, pmf_error *err)
{
    pmf_buf b = { 0 };
    pmf_put_bytes(&b, PMF_SOURCE_EXTENSION, sizeof PMF_SOURCE_EXTENSION);
    pmf_put_u8(&b, look);
    pmf_put_u8(&b, flags);
    put_string(&b, format);
    put_string(&b, compiler);
    return pmf_buf_take(&b, SOURCE_BLOCK, out, size, err);
}

bool pmf_source_read(const pmf_file *f, pmf_source *out, pmf_error *err)
{
    *out = (pmf_source){ 0 };
    uint8_t *bytes;
    pmf_cursor c;
    if (!open_extension(f, PMF_SOURCE_EXTENSION, SOURCE_BLOCK, &bytes, &c, err))
        return false;
    if (!bytes)
        return true;
    out->bytes_ = bytes;
    size_t at = c.pos;
    out->look = pmf_read_u8(&c, "look");
    out->flags = pmf_read_u8(&c, "flags");
    out->format = read_string(&c, "format");
    out->compiler = read_string(&c, "compiler");
    if (!c.failed && out->look >= PMF_LOOK_COUNT)
        pmf_cursor_fail_at(&c, at, "look %u (known: 0..%d)", out->look, PMF_LOOK_COUNT - 1);
    if (c.failed || !pmf_cursor_expect_end(&c, "the source")) {
        pmf_source_free(out);
        return false;
    }
    out->present = true;
    return true;
}

void pmf_source_free(pmf_source *s)
{
    free(s->bytes_);
    *s = (pmf_source){ 0 };
}

/* ---- pmfview.entities --------------------------------------------------------------------- */

#define ENTITIES_BLOCK "extension " PMF_ENTITIES_EXTENSION
#define ENTITY_FIXED_BYTES (1 + 12 + 2)      /* level, position, two empty strings */

bool pmf_entities_encode(const pmf_entity_info *list, size_t count, uint8_t **out, size_t *size, pmf_error *err)
{
    if (count > UINT32_MAX) {
        pmf_error_set(err, "(writer)", ENTITIES_BLOCK, 0, "%zu entities do not fit a u32 count", count);
        return false;
    }
    pmf_buf b = { 0 };
    pmf_put_bytes(&b, PMF_ENTITIES_EXTENSION, sizeof PMF_ENTITIES_EXTENSION);
    pmf_put_u32(&b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        if (!finite3(list[i].position)) {
            pmf_buf_free(&b);
            pmf_error_set(err, "(writer)", ENTITIES_BLOCK, 0, "entity %zu has a position that is not finite", i);
            return false;
        }
        pmf_put_u8(&b, list[i].level);
        pmf_put_f32s(&b, list[i].position, 3);
        put_string(&b, list[i].classname);
        put_string(&b, list[i].targetname);
    }
    return pmf_buf_take(&b, ENTITIES_BLOCK, out, size, err);
}

#define PLACEMENT_BLOCK "extension " PMF_PLACEMENT_EXTENSION
#define PLACEMENT_FIXED_BYTES (12 + 4 + 16 + 1)   /* angles, scale, four numbers, an empty model */

static bool placement_valid(const float angles[3], float scale)
{
    return finite3(angles) && isfinite(scale) && scale > 0;
}

bool pmf_entity_placement_encode(const pmf_entity_info *list, size_t count, uint8_t **out, size_t *size, pmf_error *err)
{
    if (count > UINT32_MAX) {
        pmf_error_set(err, "(writer)", PLACEMENT_BLOCK, 0, "%zu entities do not fit a u32 count", count);
        return false;
    }
    pmf_buf b = { 0 };
    pmf_put_bytes(&b, PMF_PLACEMENT_EXTENSION, sizeof PMF_PLACEMENT_EXTENSION);
    pmf_put_u32(&b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        const pmf_entity_info *e = &list[i];
        if (!placement_valid(e->angles, e->scale)) {
            pmf_buf_free(&b);
            pmf_error_set(err, "(writer)", PLACEMENT_BLOCK, 0, "entity %zu has an angle or scale that is not finite and positive", i);
            return false;
        }
        pmf_put_f32s(&b, e->angles, 3);
        pmf_put_f32(&b, e->scale);
        const int32_t numbers[4] = { e->skin, e->body, e->sequence, e->frame };
        for (int k = 0; k < 4; k++)
            pmf_put_u32(&b, (uint32_t)numbers[k]);
        put_string(&b, e->model);
    }
    return pmf_buf_take(&b, PLACEMENT_BLOCK, out, size, err);
}

static void placement_defaults(pmf_entities *e)
{
    for (uint32_t i = 0; i < e->count; i++) {
        pmf_entity_info *info = &e->list[i];
        memset(info->angles, 0, sizeof info->angles);
        info->scale = 1;
        info->skin = info->body = info->sequence = info->frame = PMF_NOT_GIVEN;
        info->model = "";
    }
}

/* pmfview.entity_placement over the entities already read; the defaults when the file has none. */
static bool read_placement(const pmf_file *f, pmf_entities *out, pmf_error *err)
{
    placement_defaults(out);
    uint8_t *bytes;
    pmf_cursor c;
    if (!open_extension(f, PMF_PLACEMENT_EXTENSION, PLACEMENT_BLOCK, &bytes, &c, err))
        return false;
    if (!bytes)
        return true;
    out->placement_bytes_ = bytes;
    size_t at = c.pos;
    uint32_t count = pmf_read_u32(&c, "entity count");
    if (!c.failed && count != out->count)
        pmf_cursor_fail_at(&c, at, "%u entities placed, %s has %u", count, PMF_ENTITIES_EXTENSION, out->count);
    if (!c.failed)
        pmf_cursor_fits(&c, count, PLACEMENT_FIXED_BYTES, "placements");
    for (uint32_t i = 0; i < count && !c.failed; i++) {
        pmf_entity_info *e = &out->list[i];
        at = c.pos;
        pmf_read_f32s(&c, e->angles, 3, "entity angles");
        e->scale = pmf_read_f32(&c, "entity scale");
        int32_t *numbers[4] = { &e->skin, &e->body, &e->sequence, &e->frame };
        for (int k = 0; k < 4; k++)
            *numbers[k] = (int32_t)pmf_read_u32(&c, "entity skin, body, sequence, frame");
        e->model = read_string(&c, "entity model");
        if (!c.failed && !placement_valid(e->angles, e->scale))
            pmf_cursor_fail_at(&c, at, "entity %u has an angle or scale that is not finite and positive", i);
    }
    return !c.failed && pmf_cursor_expect_end(&c, "the placements");
}

#define RENDER_BLOCK "extension " PMF_RENDER_EXTENSION
#define RENDER_ENTITY_BYTES (5 + 4)               /* mode, amount, colour, framerate */
#define RENDER_AMOUNT_DEFAULT 0                   /* a missing renderamt, as the game's entity has it */
#define FRAMERATE_NOT_GIVEN (-1.0f)

static bool render_valid(const pmf_entity_info *e)
{
    return e->render_mode < PMF_RENDER_MODES && (e->framerate == FRAMERATE_NOT_GIVEN || (isfinite(e->framerate) && e->framerate >= 0));
}

static bool render_default(const pmf_entity_info *e)
{
    return !e->render_mode && e->render_amount == RENDER_AMOUNT_DEFAULT && !e->render_color[0] && !e->render_color[1]
           && !e->render_color[2] && e->framerate == FRAMERATE_NOT_GIVEN;
}

bool pmf_entity_render_encode(const pmf_entity_info *list, size_t count, uint8_t **out, size_t *size, pmf_error *err)
{
    *out = NULL;
    *size = 0;
    size_t set = 0;
    for (size_t i = 0; i < count; i++) {
        if (!render_valid(&list[i])) {
            pmf_error_set(err, "(writer)", RENDER_BLOCK, 0, "entity %zu has rendermode %u or framerate %g", i,
                          list[i].render_mode, (double)list[i].framerate);
            return false;
        }
        set += !render_default(&list[i]);
    }
    if (!set)
        return true;
    pmf_buf b = { 0 };
    pmf_put_bytes(&b, PMF_RENDER_EXTENSION, sizeof PMF_RENDER_EXTENSION);
    pmf_put_u32(&b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        pmf_put_u8(&b, list[i].render_mode);
        pmf_put_u8(&b, list[i].render_amount);
        pmf_put_bytes(&b, list[i].render_color, 3);
        pmf_put_f32(&b, list[i].framerate);
    }
    return pmf_buf_take(&b, RENDER_BLOCK, out, size, err);
}

/* pmfview.entity_render over the entities already read; the defaults when the file has none. */
static bool read_render(const pmf_file *f, pmf_entities *out, pmf_error *err)
{
    for (uint32_t i = 0; i < out->count; i++) {
        out->list[i].render_amount = RENDER_AMOUNT_DEFAULT;
        out->list[i].framerate = FRAMERATE_NOT_GIVEN;
    }
    uint8_t *bytes;
    pmf_cursor c;
    if (!open_extension(f, PMF_RENDER_EXTENSION, RENDER_BLOCK, &bytes, &c, err))
        return false;
    if (!bytes)
        return true;
    out->render_bytes_ = bytes;
    size_t at = c.pos;
    uint32_t count = pmf_read_u32(&c, "entity count");
    if (!c.failed && count != out->count)
        pmf_cursor_fail_at(&c, at, "%u entities drawn, %s has %u", count, PMF_ENTITIES_EXTENSION, out->count);
    if (!c.failed)
        pmf_cursor_fits(&c, count, RENDER_ENTITY_BYTES, "render keys");
    for (uint32_t i = 0; i < count && !c.failed; i++) {
        pmf_entity_info *e = &out->list[i];
        at = c.pos;
        e->render_mode = pmf_read_u8(&c, "entity rendermode");
        e->render_amount = pmf_read_u8(&c, "entity renderamt");
        const uint8_t *colour = pmf_take(&c, 3, "entity rendercolor");
        if (colour)
            memcpy(e->render_color, colour, 3);
        e->framerate = pmf_read_f32(&c, "entity framerate");
        if (!c.failed && !render_valid(e))
            pmf_cursor_fail_at(&c, at, "entity %u has rendermode %u (0..5) or framerate %g (-1, or finite and >= 0)", i,
                               e->render_mode, (double)e->framerate);
    }
    return !c.failed && pmf_cursor_expect_end(&c, "the render keys");
}

bool pmf_entities_read(const pmf_file *f, pmf_entities *out, pmf_error *err)
{
    *out = (pmf_entities){ 0 };
    uint8_t *bytes;
    pmf_cursor c;
    if (!open_extension(f, PMF_ENTITIES_EXTENSION, ENTITIES_BLOCK, &bytes, &c, err))
        return false;
    if (!bytes)
        return true;
    out->bytes_ = bytes;
    uint32_t count = pmf_read_u32(&c, "entity count");
    if (!c.failed && pmf_cursor_fits(&c, count, ENTITY_FIXED_BYTES, "entities")
        && !(out->list = calloc(count ? count : 1, sizeof *out->list)))
        pmf_cursor_fail_at(&c, c.pos, "out of memory for %u entities", count);
    for (uint32_t i = 0; i < count && !c.failed; i++) {
        pmf_entity_info *e = &out->list[i];
        size_t at = c.pos;
        e->level = pmf_read_u8(&c, "entity level");
        pmf_read_f32s(&c, e->position, 3, "entity position");
        e->classname = read_string(&c, "entity class");
        e->targetname = read_string(&c, "entity targetname");
        if (c.failed)
            break;
        if (e->level >= f->level_count)
            pmf_cursor_fail_at(&c, at, "entity %u is on level %u, the file has %u", i, e->level, f->level_count);
        else if (!finite3(e->position))
            pmf_cursor_fail_at(&c, at + 1, "entity %u has a position that is not finite", i);
        else
            out->count = i + 1;
    }
    if (c.failed || !pmf_cursor_expect_end(&c, "the entities") || !read_placement(f, out, err) || !read_render(f, out, err)) {
        pmf_entities_free(out);
        return false;
    }
    return true;
}

void pmf_entities_free(pmf_entities *e)
{
    free(e->list);
    free(e->bytes_);
    free(e->placement_bytes_);
    free(e->render_bytes_);
    *e = (pmf_entities){ 0 };
}

/* ---- pmfview.leak ------------------------------------------------------------------------- */

#define LEAK_BLOCK "extension " PMF_LEAK_EXTENSION

bool pmf_leak_encode(uint8_t level, const float (*points)[3], size_t count, const char *classname, uint8_t **out,
                     size_t *size, pmf_error *err)
{
    if (count > UINT32_MAX / 12) {
        pmf_error_set(err, "(writer)", LEAK_BLOCK, 0, "%zu points are too many", count);
        return false;
    }
    pmf_buf b = { 0 };
    pmf_put_bytes(&b, PMF_LEAK_EXTENSION, sizeof PMF_LEAK_EXTENSION);
    pmf_put_u8(&b, level);
    pmf_put_u32(&b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        if (!finite3(points[i])) {
            pmf_buf_free(&b);
            pmf_error_set(err, "(writer)", LEAK_BLOCK, 0, "leak point %zu is not finite", i);
            return false;
        }
        pmf_put_f32s(&b, points[i], 3);
    }
    put_string(&b, classname);
    return pmf_buf_take(&b, LEAK_BLOCK, out, size, err);
}

bool pmf_leak_read(const pmf_file *f, pmf_leak *out, pmf_error *err)
{
    *out = (pmf_leak){ 0 };
    uint8_t *bytes;
    pmf_cursor c;
    if (!open_extension(f, PMF_LEAK_EXTENSION, LEAK_BLOCK, &bytes, &c, err))
        return false;
    if (!bytes)
        return true;
    out->bytes_ = bytes;
    size_t at = c.pos;
    out->level = pmf_read_u8(&c, "leak level");
    uint32_t count = pmf_read_u32(&c, "leak point count");
    if (!c.failed && out->level >= f->level_count)
        pmf_cursor_fail_at(&c, at, "the leak is on level %u, the file has %u", out->level, f->level_count);
    if (!c.failed && pmf_cursor_fits(&c, count, 12, "leak points")
        && !(out->points = malloc(count ? (size_t)count * sizeof *out->points : 1)))
        pmf_cursor_fail_at(&c, c.pos, "out of memory for %u points", count);
    for (uint32_t i = 0; i < count && !c.failed; i++) {
        size_t p = c.pos;
        pmf_read_f32s(&c, out->points[i], 3, "leak point");
        if (!c.failed && !finite3(out->points[i]))
            pmf_cursor_fail_at(&c, p, "leak point %u is not finite", i);
    }
    out->point_count = count;
    out->classname = read_string(&c, "leak class");
    if (c.failed || !pmf_cursor_expect_end(&c, "the leak")) {
        pmf_leak_free(out);
        return false;
    }
    out->present = true;
    return true;
}

void pmf_leak_free(pmf_leak *l)
{
    free(l->points);
    free(l->bytes_);
    *l = (pmf_leak){ 0 };
}
