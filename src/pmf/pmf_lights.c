/* pmf_lights.c - encoder and decoder of the `pmfview.lights` extension (pmf_lights.h). */
#include <math.h>
#include <stdlib.h>

#include "pmf_lights.h"
#include "pmf_internal.h"

#define BLOCK "extension " PMF_LIGHTS_EXTENSION
#define LIGHT_FIXED_BYTES (3 + 4 + 6 * 4 + 3 + 5 * 4)  /* everything but the name */

static bool finite_light(const pmf_light_info *l)
{
    float v[] = { l->position[0], l->position[1], l->position[2], l->direction[0], l->direction[1], l->direction[2],
                  l->intensity, l->range, l->cos_inner, l->cos_outer, l->size };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

bool pmf_lights_encode(const pmf_light_info *lights, size_t count, uint8_t **out, size_t *size, pmf_error *err)
{
    *out = NULL;
    *size = 0;
    if (count > UINT32_MAX) {
        pmf_error_set(err, "(writer)", BLOCK, 0, "%zu lights do not fit a u32 count", count);
        return false;
    }
    pmf_buf b = { 0 };
    pmf_put_bytes(&b, PMF_LIGHTS_EXTENSION, sizeof PMF_LIGHTS_EXTENSION);
    pmf_put_u32(&b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        const pmf_light_info *l = &lights[i];
        if (!finite_light(l)) {
            pmf_buf_free(&b);
            pmf_error_set(err, "(writer)", BLOCK, 0, "light %zu has a number that is not finite", i);
            return false;
        }
        pmf_put_u8(&b, l->level);
        pmf_put_u8(&b, l->kind);
        pmf_put_u8(&b, l->shape);
        pmf_put_u32(&b, l->id);
        pmf_put_f32s(&b, l->position, 3);
        pmf_put_f32s(&b, l->direction, 3);
        pmf_put_bytes(&b, l->color, 3);
        pmf_put_f32(&b, l->intensity);
        pmf_put_f32(&b, l->range);
        pmf_put_f32(&b, l->cos_inner);
        pmf_put_f32(&b, l->cos_outer);
        pmf_put_f32(&b, l->size);
        const char *name = l->name ? l->name : "";
        pmf_put_bytes(&b, name, strlen(name) + 1);
    }
    return pmf_buf_take(&b, BLOCK, out, size, err);
}

#define MODELS_BLOCK "extension " PMF_LIGHT_MODELS_EXTENSION
#define FALLOFF_COUNT 6                                /* LIGHT_FALLOFF_COUNT */
#define CONE_HLRAD_BIT 0x80                            /* the falloff byte's: LIGHT_CONE_HLRAD */

bool pmf_light_models_encode(const pmf_light_info *lights, size_t count, uint8_t **out, size_t *size, pmf_error *err)
{
    *out = NULL;
    *size = 0;
    bool any = false;
    for (size_t i = 0; i < count && !any; i++)
        any = lights[i].falloff || lights[i].cone || lights[i].falloff_distance != 0.0f || lights[i].anglescale != 0.0f
              || lights[i].style;
    if (!any)
        return true;
    pmf_buf b = { 0 };
    pmf_put_bytes(&b, PMF_LIGHT_MODELS_EXTENSION, sizeof PMF_LIGHT_MODELS_EXTENSION);
    pmf_put_u32(&b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(lights[i].falloff_distance) || !isfinite(lights[i].anglescale) || lights[i].falloff >= FALLOFF_COUNT
            || lights[i].cone > 1) {
            pmf_buf_free(&b);
            pmf_error_set(err, "(writer)", MODELS_BLOCK, 0, "light %zu has a model that is not finite or known", i);
            return false;
        }
        pmf_put_u8(&b, (uint8_t)(lights[i].falloff | (lights[i].cone ? CONE_HLRAD_BIT : 0)));
        pmf_put_f32(&b, lights[i].falloff_distance);
        pmf_put_f32(&b, lights[i].anglescale);
        pmf_put_u8(&b, lights[i].style);
    }
    return pmf_buf_take(&b, MODELS_BLOCK, out, size, err);
}

static bool decode_models(pmf_cursor *c, pmf_lights *out)
{
    pmf_take(c, sizeof PMF_LIGHT_MODELS_EXTENSION, "extension name");
    size_t at = c->pos;
    uint32_t count = pmf_read_u32(c, "light count");
    if (!c->failed && count != out->count)
        return pmf_cursor_fail_at(c, at, "%u light models for %u lights", count, out->count);
    for (uint32_t i = 0; i < count && !c->failed; i++) {
        pmf_light_info *l = &out->list[i];
        at = c->pos;
        uint8_t falloff = pmf_read_u8(c, "light falloff");
        l->falloff = falloff & (uint8_t)~CONE_HLRAD_BIT;
        l->cone = (falloff & CONE_HLRAD_BIT) != 0;
        l->falloff_distance = pmf_read_f32(c, "light falloff distance");
        l->anglescale = pmf_read_f32(c, "light anglescale");
        l->style = pmf_read_u8(c, "light style");
        if (!c->failed && (l->falloff >= FALLOFF_COUNT || !isfinite(l->falloff_distance) || !isfinite(l->anglescale)))
            return pmf_cursor_fail_at(c, at, "light %u has falloff %u (known: 0..%d) or a number that is not finite", i,
                                      l->falloff, FALLOFF_COUNT - 1);
    }
    return !c->failed && pmf_cursor_expect_end(c, "the light models");
}

static bool decode(pmf_cursor *c, const pmf_file *f, pmf_lights *out)
{
    pmf_take(c, sizeof PMF_LIGHTS_EXTENSION, "extension name");
    uint32_t count = pmf_read_u32(c, "light count");
    if (c->failed || !pmf_cursor_fits(c, count, LIGHT_FIXED_BYTES + 1, "lights"))
        return false;
    out->list = calloc(count ? count : 1, sizeof *out->list);
    if (!out->list)
        return pmf_cursor_fail_at(c, c->pos, "out of memory for %u lights", count);
    for (uint32_t i = 0; i < count && !c->failed; i++) {
        pmf_light_info *l = &out->list[i];
        size_t at = c->pos;
        l->level = pmf_read_u8(c, "light level");
        l->kind = pmf_read_u8(c, "light kind");
        l->shape = pmf_read_u8(c, "light shape");
        l->id = pmf_read_u32(c, "light id");
        pmf_read_f32s(c, l->position, 3, "light position");
        pmf_read_f32s(c, l->direction, 3, "light direction");
        const uint8_t *rgb = pmf_take(c, 3, "light colour");
        if (rgb)
            memcpy(l->color, rgb, 3);
        l->intensity = pmf_read_f32(c, "light intensity");
        l->range = pmf_read_f32(c, "light range");
        l->cos_inner = pmf_read_f32(c, "light inner cone");
        l->cos_outer = pmf_read_f32(c, "light outer cone");
        l->size = pmf_read_f32(c, "light size");
        if (c->failed)
            return false;
        if (l->level >= f->level_count)
            return pmf_cursor_fail_at(c, at, "light %u is on level %u, the file has %u", i, l->level, f->level_count);
        if (l->kind > PMF_LIGHT_FAST || l->shape > PMF_LIGHT_SUN)
            return pmf_cursor_fail_at(c, at + 1, "light %u has kind %u / shape %u (known: 0..2)", i, l->kind, l->shape);
        if (!finite_light(l))
            return pmf_cursor_fail_at(c, at + 7, "light %u has a number that is not finite", i);
        size_t name_at = c->pos;
        const char *name = (const char *)c->data + c->pos;
        const char *nul = memchr(name, 0, c->size - c->pos);
        if (!nul)
            return pmf_cursor_fail_at(c, name_at, "light %u name: no NUL before the end of the extension", i);
        pmf_take(c, (size_t)(nul - name) + 1, "light name");
        l->name = name;
        out->count = i + 1;
    }
    return pmf_cursor_expect_end(c, "the lights");
}

bool pmf_lights_read(const pmf_file *f, pmf_lights *out, pmf_error *err)
{
    *out = (pmf_lights){ 0 };
    uint8_t *bytes;
    unsigned i;
    if (!pmf_extension_read(f, PMF_LIGHTS_EXTENSION, &bytes, &i, BLOCK, err))
        return false;
    if (!bytes)
        return true;
    out->bytes_ = bytes;
    pmf_cursor c = pmf_cursor_make(bytes, (size_t)f->extensions[i].size, f->extensions[i].offset, f->name, BLOCK, err);
    if (!decode(&c, f, out)) {
        pmf_lights_free(out);
        return false;
    }
    uint8_t *models;
    if (!pmf_extension_read(f, PMF_LIGHT_MODELS_EXTENSION, &models, &i, MODELS_BLOCK, err)) {
        pmf_lights_free(out);
        return false;
    }
    if (models) {
        pmf_cursor m = pmf_cursor_make(models, (size_t)f->extensions[i].size, f->extensions[i].offset, f->name, MODELS_BLOCK, err);
        bool ok = decode_models(&m, out);
        free(models);
        if (!ok) {
            pmf_lights_free(out);
            return false;
        }
    }
    return true;
}

void pmf_lights_free(pmf_lights *lights)
{
    free(lights->list);
    free(lights->bytes_);
    *lights = (pmf_lights){ 0 };
}
