/* editor_placement.c - how a point entity's model stands (pmfview.entity_placement, docs/models.md):
 * its `angle` / `angles` ("pitch yaw roll"), `scale`, `skin`, `body`, `sequence`, `frame` and
 * `model` keys, read alike for Quake and GoldSrc; and, for an entity without a `model` key, the
 * model its class's definition shows (`--fgd FILE`, else the FGD the worldspawn's `_tb_def`
 * names). How GoldSrc draws it (pmfview.entity_render): `rendermode`, `renderamt`, `rendercolor`,
 * `framerate`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_clean.h"
#include "common/session.h"
#include "editor_internal.h"
#include "fgd.h"
#include "pmf/pmf_map_info.h"

#define MAX_SCALE 256.0              /* a scale past this (or under its inverse) is a typing slip */
#define MAX_INDEX 65535              /* the largest skin, body, sequence or frame read */
#define ANGLE_UP (-1)                /* `angle` -1 and -2: up and down (Quake's SetMovedir, GoldSrc's parser) */
#define ANGLE_DOWN (-2)
#define MAX_FRAMERATE 1000.0         /* frames a second at most (a sprite's) */

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

/* TrenchBroom's `_tb_def` "external:PATH": the first of its places that opens (as written, in
 * --game DIR, beside the map); "" when none does (one warning) or the key names no file. */
static void tb_def_file(import_ctx *c, char out[EDITOR_PLACE_MAX])
{
    const char *def = editor_kv_get(&c->em->entities[0], "_tb_def");
    out[0] = 0;
    if (!def || strncmp(def, "external:", 9))
        return;  /* none, or "builtin:Quake.fgd": the built-in classes */
    char entry[PMFC_PATH_MAX], places[3][EDITOR_PLACE_MAX], clean[1024];
    const char *base;
    snprintf(entry, sizeof entry, "%s", def + 9);
    int n = editor_wad_places(c->path, c->desc->game_dir, entry, places, &base);
    for (int i = 0; i < n; i++)
        if (editor_file_exists(places[i])) {
            memcpy(out, places[i], EDITOR_PLACE_MAX);
            return;
        }
    if (!c->desc->quiet)
        session_say(PMFC_WARNING, "pmfc: warning: %s: _tb_def \"%s\": neither there, in --game DIR nor beside the map: the built-in classes",
                    c->path, text_clean(def, clean, sizeof clean));
}

fgd *editor_entity_definitions(import_ctx *c)
{
    char tb_def[EDITOR_PLACE_MAX];
    if (!c->desc->fgd_count)
        tb_def_file(c, tb_def);
    if (!c->desc->fgd_count && !tb_def[0])
        return NULL;
    fgd *defs = fgd_new();
    pmf_error err;
    char line[700];
    for (size_t i = 0; defs && i < (c->desc->fgd_count ? c->desc->fgd_count : 1) && !c->failed; i++)
        if (!fgd_add_file(defs, c->desc->fgd_count ? c->desc->fgds[i] : tb_def, &err))
            import_fail(c, "%s", pmf_error_format(&err, line, sizeof line));
    if (!defs)
        import_fail(c, "out of memory for the entity definitions");
    if (c->failed) {
        fgd_free(defs);
        return NULL;
    }
    return defs;
}

/* The model the class's definition shows, for an entity whose `model` key does not name one: its
 * file (or the entity's key it names), and its skin and frame where the entity gives none. */
static void defined_model(import_ctx *c, const fgd *defs, const editor_entity *e, map_entity *me)
{
    fgd_model m;
    if (!defs || me->model[0] || !fgd_class_model(defs, e->classname, &m))
        return;
    const char *file = m.path ? m.path : editor_kv_get(e, m.key);
    if (file)
        editor_copy_name(c, me->model, sizeof me->model, file, e, m.path ? "model" : m.key);
    if (me->skin == PMF_NOT_GIVEN)
        me->skin = m.skin;
    if (me->frame == PMF_NOT_GIVEN)
        me->frame = m.frame;
}

/* A whole number key in 0..most: fallback when absent or wrong (one warning). */
static uint8_t read_byte(import_ctx *c, const editor_entity *e, const char *key, int most, uint8_t fallback)
{
    const char *value = editor_kv_get(e, key);
    double d;
    char wanted[40], kept[24];
    if (!value) return fallback;
    if (read_number(value, &d) && d >= 0 && d <= most && d == floor(d)) return (uint8_t)d;
    snprintf(wanted, sizeof wanted, "a whole number in 0..%d", most);
    snprintf(kept, sizeof kept, "%u kept", fallback);
    warn_value(c, e, key, value, wanted, kept);
    return fallback;
}

/* rendermode, renderamt, rendercolor ("R G B", as GoldSrc's parser: a missing number 0) and framerate.
 * A missing renderamt is 0, as the game's entity starts (its entvars zeroed; Hammer writes no key
 * left empty). */
static void read_render(import_ctx *c, const editor_entity *e, map_entity *me)
{
    me->render_mode = read_byte(c, e, "rendermode", PMF_RENDER_MODES - 1, 0);
    me->render_amount = read_byte(c, e, "renderamt", 255, 0);
    const char *colour = editor_kv_get(e, "rendercolor"), *rate = editor_kv_get(e, "framerate");
    int rgb[3] = { 0, 0, 0 };
    if (colour && (sscanf(colour, "%d %d %d", &rgb[0], &rgb[1], &rgb[2]) < 1 || rgb[0] < 0 || rgb[0] > 255 || rgb[1] < 0
                   || rgb[1] > 255 || rgb[2] < 0 || rgb[2] > 255)) {
        warn_value(c, e, "rendercolor", colour, "three whole numbers in 0..255", "0 0 0 kept");
        rgb[0] = rgb[1] = rgb[2] = 0;
    }
    for (int k = 0; k < 3; k++) me->render_color[k] = (uint8_t)rgb[k];
    double r = -1;
    if (rate && (!read_number(rate, &r) || r < 0 || r > MAX_FRAMERATE)) {
        warn_value(c, e, "framerate", rate, "a number in 0..1000", "the class's own kept");
        r = -1;
    }
    me->framerate = (float)r;
}

void editor_entity_placement(import_ctx *c, const fgd *defs, const editor_entity *e, map_entity *me)
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
    defined_model(c, defs, e, me);
    read_render(c, e, me);
}
