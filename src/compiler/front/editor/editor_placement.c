/* editor_placement.c - how a point entity's model stands (pmfview.entity_placement, docs/models.md):
 * its `angle` / `angles` ("pitch yaw roll"), `scale`, `skin`, `body`, `sequence`, `frame` and
 * `model` keys, read alike for Quake and GoldSrc. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/text_clean.h"
#include "common/session.h"
#include "editor_internal.h"
#include "pmf/pmf_map_info.h"

#define MAX_SCALE 256.0              /* a scale past this (or under its inverse) is a typing slip */
#define MAX_INDEX 65535              /* the largest skin, body, sequence or frame read */
#define ANGLE_UP (-1)                /* `angle` -1 and -2: up and down (Quake's SetMovedir, GoldSrc's parser) */
#define ANGLE_DOWN (-2)

static void warn_value(import_ctx *c, const editor_entity *e, const char *key, const char *value, const char *wanted,
                       const char *kept)
{
    char where[96], line[512], clean[1024];
    snprintf(line, sizeof line, "%s: %s (%.48s): \"%s\" \"%.40s\" is not %s: %s", c->path,
             editor_entity_where(c, e, where, sizeof where), e->classname, key, value, wanted, kept);
    session_say(PMFC_WARNING, "pmfc: warning: %s", text_clean(line, clean, sizeof clean));
}

/* The whole value as one finite number. */
static bool read_number(const char *value, double *out)
{
    char *end;
    *out = strtod(value, &end);
    while (*end == ' ' || *end == '\t') end++;
    return end != value && !*end && isfinite(*out);
}

static void read_angles(import_ctx *c, const editor_entity *e, float angles[3])
{
    const char *angle = editor_kv_get(e, "angle"), *triple = editor_kv_get(e, "angles");
    double yaw, v[3] = { 0, 0, 0 };
    if (angle) {
        if (!read_number(angle, &yaw)) warn_value(c, e, "angle", angle, "a finite number", "0 0 0 kept");
        else if (yaw == ANGLE_UP || yaw == ANGLE_DOWN) angles[0] = yaw == ANGLE_UP ? 90.0f : -90.0f;
        else angles[1] = (float)remainder(yaw, 360);
        return;
    }
    if (!triple) return;
    char rest[8];
    if (sscanf(triple, "%lf %lf %lf %7s", &v[0], &v[1], &v[2], rest) != 3 || !isfinite(v[0]) || !isfinite(v[1])
        || !isfinite(v[2])) {
        warn_value(c, e, "angles", triple, "three finite numbers", "0 0 0 kept");
        return;
    }
    for (int k = 0; k < 3; k++) angles[k] = (float)remainder(v[k], 360);
}

/* A skin, body, sequence or frame: PMF_NOT_GIVEN when the key is absent or wrong. */
static int32_t read_index(import_ctx *c, const editor_entity *e, const char *key)
{
    const char *value = editor_kv_get(e, key);
    double d;
    if (!value) return PMF_NOT_GIVEN;
    if (read_number(value, &d) && d >= 0 && d <= MAX_INDEX && d == floor(d)) return (int32_t)d;
    warn_value(c, e, key, value, "a whole number in 0..65535", "the class's own kept");
    return PMF_NOT_GIVEN;
}

void editor_entity_placement(import_ctx *c, const editor_entity *e, map_entity *me)
{
    read_angles(c, e, me->angles);
    const char *scale = editor_kv_get(e, "scale");
    double s = 1;
    if (scale && (!read_number(scale, &s) || s < 1 / MAX_SCALE || s > MAX_SCALE)) {
        warn_value(c, e, "scale", scale, "a number in 1/256..256", "1 kept");
        s = 1;
    }
    me->scale = (float)s;
    me->skin = read_index(c, e, "skin");
    me->body = read_index(c, e, "body");
    me->sequence = read_index(c, e, "sequence");
    me->frame = read_index(c, e, "frame");
    const char *model = editor_kv_get(e, "model");
    editor_copy_name(c, me->model, sizeof me->model, model ? model : "", e, "model");
}
