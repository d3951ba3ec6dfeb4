/* editor_lights.c - an editor map's lights, read the way its game reads them (docs/rmf.md
 * "Lights", docs/map.md "Lights by dialect"):
 *   GoldSrc   light, light_spot, light_environment (hlrad's keys: _light "R G B BRIGHTNESS",
 *             _cone, _cone2, _diffuse_light, _spread; a light_spot with _sky is a sun too; a
 *             targetname makes a light switchable, a style 1..63 a dynamic light that plays the
 *             style's pattern);
 *   Quake     every light* class (ericw-tools' light: `light` value, `wait`, `delay` falloff modes,
 *             `_color`, spotlights by `mangle` or `target`, `style` and switchable lights) and the
 *             worldspawn's minlight;
 *   every dialect: the worldspawn's sky light as ericw-tools reads it (the sun `_sunlight`, the
 *             domes `_sunlight2` and `_sunlight3`) and its ambient occlusion switches (`_dirt`,
 *             `_sunlight_dirt`, `_sunlight2_dirt`, `_minlight_dirt`, a light's `_dirt`). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/session.h"
#include "base/pmf_budget.h"
#include "base/pmf_os.h"
#include "base/text_clean.h"
#include "common/memory.h"
#include "csg/csg.h"
#include "editor_internal.h"
#include "fill/fill.h"
#include "light_model.h"
#include "rad.h"

/* hlrad's light model (docs/pmfc-lighting.md "GoldSrc sources"), in bytes of stored light before
 * its x 2 and gamma (bake_desc.store_*): a light of value v (the brightest channel of _light)
 * adds v^3 / 10 x cos / (d^2 x _fade) at d units (d >= 1); a light_environment adds v x cos as the
 * sun and its sky v / 2 x the cosine-weighted share of the whole sphere that sees sky (v / 8 on
 * open ground), _diffuse_light in place of v when set. */
#define HLRAD_NEAR_UNITS 1.0         /* nearer than this a light counts as this far */
#define HLRAD_CUT 0.05               /* bytes: a light reaches as far as it adds this much */
#define HLRAD_MAX_REACH_UNITS 65536.0 /* past the largest editor grid */
#define HLRAD_SKY_SHARE (1.0 / 8.0)  /* v / 2 x the sphere's cosine-weighted quarter above open ground */
#define LIGHT_RADIUS_UNITS 4.0       /* a light's size without `_deviance` */
#define SUN_RADIUS_DEGREES 1.0       /* the sun's angular radius without `_sunlight_penumbra` */
#define MAX_BRIGHTNESS 100000.0

/* Quake's light (ericw-tools' defaults). */
#define QUAKE_DEFAULT_LIGHT 300.0
#define QUAKE_ANGLESCALE 0.5
#define QUAKE_FALLOFF_UNITS 128.0    /* where the inverse falloffs give the light's value */
#define QUAKE_SPOT_ANGLE 40.0        /* a spotlight's cone without `angle` (ericw-tools' default) */
#define QUAKE_INFINITE_UNITS 65536.0 /* delay 3: no falloff, as far as any map goes */
#define QUAKE_RANGE 0.5              /* stored bytes per unit of light: ericw-tools' `_range` (-range) */
#define QUAKE_GATE 0.01              /* a light reaches as far as its value passes this (ericw-tools' -gate 0.001) */
#define QUAKE_STYLED_GATE 1.0        /* a styled light's: half a byte stored */

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Yaw and pitch (degrees, Quake's and Half-Life's axes) as a unit vector. */
static v3 angles_vector(double yaw, double pitch)
{
    double y = yaw * M_PI / 180, p = pitch * M_PI / 180;
    return v3_make(cos(y) * cos(p), sin(y) * cos(p), sin(p));
}

/* The direction an entity points, read as Half-Life does: yaw from `angle` (else `angles`' yaw),
 * -1 straight up, -2 straight down; pitch from `pitch` when non-zero, else `angles`' pitch. */
static v3 entity_direction(const editor_entity *e)
{
    double angles[3] = { 0, 0, 0 };
    editor_kv_numbers(e, "angles", angles, 3);
    double yaw = editor_kv_number(e, "angle", 0);
    if (yaw == -1) return v3_make(0, 0, 1);
    if (yaw == -2) return v3_make(0, 0, -1);
    if (yaw == 0) yaw = angles[1];
    double pitch = editor_kv_number(e, "pitch", 0);
    if (pitch == 0) pitch = angles[0];
    return angles_vector(yaw, pitch);
}

/* "R G B BRIGHTNESS" (colour 0..255 scaled by brightness / 255), "R G B" (each an intensity of its
 * own) or "V" (grey), as hlrad reads it. Colour normalised to its brightest channel;
 * *brightness = that channel's value. */
static void goldsrc_light_value(const editor_entity *e, const char *key, double fallback, uint8_t color[3], double *brightness)
{
    double v[4];
    int n = editor_kv_numbers(e, key, v, 4);
    double rgb[3] = { fallback, fallback, fallback };
    if (n == 1) rgb[0] = rgb[1] = rgb[2] = v[0];
    else if (n == 3) { rgb[0] = v[0]; rgb[1] = v[1]; rgb[2] = v[2]; }
    else if (n == 4) for (int k = 0; k < 3; k++) rgb[k] = v[k] / 255.0 * v[3];
    double top = fmax(rgb[0], fmax(rgb[1], rgb[2]));
    if (!(top > 0) || !isfinite(top)) {
        memset(color, 0, 3);
        *brightness = 0;
        return;
    }
    for (int k = 0; k < 3; k++) color[k] = (uint8_t)lround(fmax(0, rgb[k]) / top * 255);
    /* far past any real light (hlrad's brightest are a few thousand) */
    *brightness = fmin(top, MAX_BRIGHTNESS);
}

/* ---- ambient occlusion switches (ericw-tools') ------------------------------------------------ */

/* Dirt switch `key` of e: 1 on, any other non-zero value off (-1); 0, none or no entity: `fallback`. */
static int dirt_switch(const editor_entity *e, const char *key, int fallback)
{
    double v = e ? editor_kv_number(e, key, 0) : 0;
    return v >= 1 ? 1 : v != 0 ? -1 : fallback;
}

/* The worldspawn's `_dirt` and whether any light of the map asks for dirt: its own switch, else
 * `_dirt` (the sun's `_sunlight_dirt`, the domes' `_sunlight2_dirt`, minlight's `_minlight_dirt`,
 * a light entity's `_dirt`). */
static void dirt_plan(import_ctx *c)
{
    const editor_entity *w = &c->em->entities[0];
    c->dirt_default = dirt_switch(w, "_dirt", -1);
    bool on = c->dirt_default == 1;
    static const char *const world_keys[] = { "_sunlight_dirt", "_sunlight2_dirt", "_minlight_dirt" };
    for (size_t k = 0; k < sizeof world_keys / sizeof *world_keys; k++)
        on = on || dirt_switch(w, world_keys[k], c->dirt_default) == 1;
    for (size_t i = 1; i < c->em->entity_count && !on; i++) {
        const editor_entity *e = &c->em->entities[i];
        on = e->point && !strncasecmp(e->classname, "light", 5) && dirt_switch(e, "_dirt", c->dirt_default) == 1;
    }
    c->dirt_on = on;
}

/* Whether ambient occlusion leaves a light alone: its switch (`key` of e, else `_dirt`) is off,
 * and the map darkens some other light or the switch is its own (so that pmfc --dirt still
 * darkens every light of a map that sets none). */
static bool no_dirt(const import_ctx *c, const editor_entity *e, const char *key)
{
    int own = dirt_switch(e, key, 0);
    return (own ? own : c->dirt_default) != 1 && (c->dirt_on || own != 0);
}

/* The ID of an earlier styled light of the level that plays and switches with l (the same style,
 * targetname and start state), else 0: the game animates a style's lights as one, so they are
 * one dynamic light whose layers hold their light summed (docs/pmfc.md "Light styles"). */
static uint32_t style_group_id(const import_ctx *c, const light_def *l)
{
    for (size_t i = 0; i < c->level->light_count; i++) {
        const light_def *o = &c->level->lights[i];
        if (o != l && o->kind == BAKE_LIGHT_DYNAMIC && o->style == l->style && o->enabled == l->enabled
            && !strcmp(o->name, l->name))
            return o->id;
    }
    return 0;
}

/* A switchable light (a targetname) or a styled one becomes a dynamic light the viewer can
 * toggle (and plays its style's pattern, pmf_light_styles.h); the others are static. */
static void light_kind(import_ctx *c, light_def *l, const editor_entity *e, int style)
{
    const char *target = editor_kv_get(e, "targetname");
    bool named = target && *target;
    if (!named && style <= 0) {
        l->kind = BAKE_LIGHT_STATIC;
        return;
    }
    l->kind = BAKE_LIGHT_DYNAMIC;
    /* Half-Life's and Quake's flag 1 (START_OFF) */
    l->enabled = !(named && (e->spawnflags & 1));
    l->style = style > 0 ? style : 0;
    if (named) snprintf(l->name, sizeof l->name, "%s", target);
    else snprintf(l->name, sizeof l->name, "style %d", style);
    uint32_t group = l->style ? style_group_id(c, l) : 0;
    l->id = group ? group : ++c->next_dynamic_id;
}

/* ---- GoldSrc --------------------------------------------------------------------------------- */

static void goldsrc_light(import_ctx *c, const editor_entity *e, bool spot)
{
    uint8_t color[3];
    double brightness;
    goldsrc_light_value(e, "_light", 200, color, &brightness);
    if (!(brightness > 0)) return;
    light_def *l = PUSH(c->level->lights, c->level->light_count, c->level->light_cap);
    l->shape = spot ? BAKE_SHAPE_SPOT : BAKE_SHAPE_POINT;
    l->pos = editor_to_world(c, e->origin);
    memcpy(l->color, color, 3);
    /* inverse square (ZHLT's _falloff 2, the default) or inverse linear (_falloff 1): the
     * baker's modes hold (ref / d)^2 and ref / d at their value for d < ref / 4 */
    double fade = editor_kv_number(e, "_fade", 1);
    if (!(fade > 0)) fade = 1;
    double emitted = brightness * brightness * brightness / 10.0 / fade;   /* bytes x units^falloff */
    double ref_units = 4 * HLRAD_NEAR_UNITS;
    l->falloff_distance = (float)(ref_units * c->s);
    if ((int)editor_kv_number(e, "_falloff", 2) == 1) {
        l->falloff = LIGHT_FALLOFF_INVERSE;
        l->brightness = (float)(emitted / ref_units / 255.0);
        l->range = (float)(fmin(emitted / HLRAD_CUT, HLRAD_MAX_REACH_UNITS) * c->s);
    } else {
        l->falloff = LIGHT_FALLOFF_INVERSE2;
        l->brightness = (float)(emitted / (ref_units * ref_units) / 255.0);
        l->range = (float)(sqrt(emitted / HLRAD_CUT) * c->s);
    }
    l->radius = (float)(clampd(editor_kv_number(e, "_deviance", LIGHT_RADIUS_UNITS), 0, 1024) * c->s);
    l->enabled = true;
    l->no_dirt = no_dirt(c, e, "_dirt");
    if (spot) {
        l->direction = editor_dir_to_world(entity_direction(e));
        double inner = clampd(editor_kv_number(e, "_cone", 30), 0, 90);
        double outer = clampd(editor_kv_number(e, "_cone2", 45), inner, 90);
        l->cos_inner = (float)cos(inner * M_PI / 180);
        l->cos_outer = (float)cos(outer * M_PI / 180);
        if (l->cos_outer >= l->cos_inner) l->cos_outer = l->cos_inner - 1e-4f;
        l->cone = LIGHT_CONE_HLRAD;
    }
    /* hlrad bakes a styled light into its style's lightmap, which the engine animates */
    light_kind(c, l, e, (int)clampd(editor_kv_number(e, "style", 0), 0, 63));
}

static void goldsrc_sun(import_ctx *c, const editor_entity *e)
{
    uint8_t color[3];
    double brightness;
    goldsrc_light_value(e, "_light", 200, color, &brightness);
    light_def *l = PUSH(c->level->lights, c->level->light_count, c->level->light_cap);
    l->kind = BAKE_LIGHT_STATIC;
    l->shape = BAKE_SHAPE_SUN;
    l->direction = editor_dir_to_world(entity_direction(e));
    memcpy(l->color, color, 3);
    l->brightness = (float)(brightness / 255.0);
    /* the sun's size: hlrad's `_spread`, else ericw-tools' `_sunlight_penumbra` here or on worldspawn */
    double penumbra = editor_kv_number(e, "_spread", editor_kv_number(e, "_sunlight_penumbra",
                                       editor_kv_number(&c->em->entities[0], "_sunlight_penumbra", SUN_RADIUS_DEGREES)));
    l->radius = (float)(clampd(penumbra, 0, 45) * M_PI / 180);
    l->enabled = true;
    l->no_dirt = no_dirt(c, e, "_dirt");
    /* sky light: _diffuse_light when set, else the sun's own value, as hlrad reads it */
    uint8_t sky[3];
    double sky_brightness;
    if (editor_kv_get(e, "_diffuse_light")) {
        goldsrc_light_value(e, "_diffuse_light", 0, sky, &sky_brightness);
    } else {
        memcpy(sky, color, 3);
        sky_brightness = brightness;
    }
    /* several light_environments add their skies, as hlrad's do */
    for (int k = 0; k < 3; k++) c->level->sky_light[k] += (float)(sky[k] / 255.0 * sky_brightness / 255.0 * HLRAD_SKY_SHARE);
    c->has_sun = true;
    memcpy(c->sun_color, color, 3);
}

/* ---- Quake ----------------------------------------------------------------------------------- */

/* `_color` (or a sun's colour key): 0..255, or 0..1 when every channel is (ericw-tools' rule); white
 * without one. */
static void quake_color(const editor_entity *e, const char *key, uint8_t color[3])
{
    double v[3];
    if (editor_kv_numbers(e, key, v, 3) != 3 || !(v[0] >= 0 && v[1] >= 0 && v[2] >= 0)) {
        memset(color, 255, 3);
        return;
    }
    if (v[0] <= 1 && v[1] <= 1 && v[2] <= 1)
        for (int k = 0; k < 3; k++) v[k] *= 255;
    double top = fmax(v[0], fmax(v[1], v[2]));
    if (!(top > 0)) {
        memset(color, 255, 3);
        return;
    }
    for (int k = 0; k < 3; k++) color[k] = (uint8_t)lround(clampd(v[k] / top * 255, 0, 255));
}

/* ericw-tools' `_anglescale` (or `_anglesense`) of e, else the worldspawn's, else 0.5. Its 0 means
 * no angle term at all; the light model's 0 means plain n . l, so the least is a hair over 0. */
static double quake_anglescale(const import_ctx *c, const editor_entity *e)
{
    const editor_entity *world = &c->em->entities[0];
    double world_value = editor_kv_number(world, "_anglescale", editor_kv_number(world, "_anglesense", QUAKE_ANGLESCALE));
    return clampd(editor_kv_number(e, "_anglescale", world_value), 1e-6, 1);
}

/* The entity named by `target`'s targetname, or NULL. */
static const editor_entity *find_target(const import_ctx *c, const editor_entity *e)
{
    const char *target = editor_kv_get(e, "target");
    if (!target || !*target) return NULL;
    for (size_t i = 1; i < c->em->entity_count; i++) {
        const char *name = editor_kv_get(&c->em->entities[i], "targetname");
        if (name && !strcmp(name, target)) return &c->em->entities[i];
    }
    return NULL;
}

/* ericw-tools' worldspawn `_range`: the lightmap holds light x range (0.5 by default: a light of
 * 255 stores 128, which the engine shows at full brightness; the quake look doubles it back). */
static double quake_range(const import_ctx *c)
{
    return clampd(editor_kv_number(&c->em->entities[0], "_range", QUAKE_RANGE), 0, 100);
}

/* A Quake light: its value at a point is value x angle term x falloff, stored as value x `_range`
 * / 255 in the lightmap (the quake look shows it overbright). `aim` (world, or NULL): a copy of a
 * `_surface_spotlight` template, a spotlight along its face's normal. */
static void quake_light(import_ctx *c, const editor_entity *e, const v3 *aim)
{
    /* `light`: a value, or Half-Life's form "R G B" / "R G B VALUE" (ericw-tools reads both) */
    double parts[4];
    const char *key = editor_kv_get(e, "light") ? "light" : "_light";
    int n = editor_kv_numbers(e, key, parts, 4);
    double value = n == 1 ? parts[0] : n == 4 ? parts[3] : QUAKE_DEFAULT_LIGHT;
    if (n == 3 && fmax(parts[0], fmax(parts[1], parts[2])) > 1) value = fmax(parts[0], fmax(parts[1], parts[2]));
    if (!(fabs(value) > 0)) return;
    light_def *l = PUSH(c->level->lights, c->level->light_count, c->level->light_cap);
    l->shape = BAKE_SHAPE_POINT;
    l->pos = editor_to_world(c, e->origin);
    quake_color(e, n >= 3 && !editor_kv_get(e, "_color") ? key : "_color", l->color);
    double v = fmin(fabs(value), MAX_BRIGHTNESS);
    l->brightness = (float)(v * quake_range(c) / 255.0);
    l->anglescale = (float)quake_anglescale(c, e);
    l->radius = (float)(clampd(editor_kv_number(e, "_deviance", 0), 0, 1024) * c->s);
    l->enabled = true;
    l->no_dirt = no_dirt(c, e, "_dirt");
    double wait = editor_kv_number(e, "wait", 1);
    if (!(wait > 0)) wait = 1;
    int delay = (int)editor_kv_number(e, "delay", 0);
    /* a static light reaches as far as ericw-tools' gate: on lqdm5 hundreds of lights of 30 over a
     * pool, each adding 0.1 at the ceiling 300 units up, give it 60. A styled light's layer keeps
     * what reaches a byte: its layer is stored, and summed with others, in bytes. */
    const char *name = editor_kv_get(e, "targetname");
    double gate = (name && *name) || editor_kv_number(e, "style", 0) >= 1 ? QUAKE_STYLED_GATE : QUAKE_GATE;
    /* `wait` scales the distance in every falloff (ericw-tools' atten): the inverse ones give the
     * light's value at 128 / wait units */
    double ref_units = QUAKE_FALLOFF_UNITS / wait;
    l->falloff_distance = (float)(ref_units * c->s);
    double range_units;
    switch (delay) {
    case 1:
        l->falloff = LIGHT_FALLOFF_INVERSE;
        range_units = v / gate * ref_units;             /* where value x ref / d falls to the gate */
        break;
    case 2:
        l->falloff = LIGHT_FALLOFF_INVERSE2;
        range_units = sqrt(v / gate) * ref_units;
        break;
    case 3:
        l->falloff = LIGHT_FALLOFF_NONE;
        range_units = QUAKE_INFINITE_UNITS;
        break;
    case 5:
        l->falloff = LIGHT_FALLOFF_INVERSE2A;
        range_units = (sqrt(v / gate) - 1) * ref_units;
        break;
    default:
        /* linear: value - distance x wait, or to `_falloff` units */
        l->falloff = LIGHT_FALLOFF_LINEAR;
        range_units = editor_kv_number(e, "_falloff", 0) > 0 ? editor_kv_number(e, "_falloff", 0) : v / wait;
        break;
    }
    l->range = (float)(clampd(range_units, 1, QUAKE_INFINITE_UNITS) * c->s);
    /* a spotlight: `mangle`, aimed at its target, or a `_surface_spotlight` copy; `angle` the cone */
    const editor_entity *target = find_target(c, e);
    double mangle[3];
    bool has_mangle = editor_kv_numbers(e, "mangle", mangle, 3) >= 2;
    if (aim || has_mangle || target) {
        v3 dir = has_mangle ? angles_vector(mangle[0], mangle[1])
                 : target   ? v3_normalize(v3_make(target->origin[0] - e->origin[0], target->origin[1] - e->origin[1],
                                                   target->origin[2] - e->origin[2]))
                            : v3_make(0, 0, -1);
        double angle = clampd(editor_kv_number(e, "angle", QUAKE_SPOT_ANGLE), 1, 179);
        double soft = clampd(editor_kv_number(e, "_softangle", 0), 0, angle);
        l->shape = BAKE_SHAPE_SPOT;
        l->direction = aim ? *aim : editor_dir_to_world(dir);
        l->cos_outer = (float)cos(angle / 2 * M_PI / 180);
        l->cos_inner = (float)cos((soft > 0 ? soft : angle) / 2 * M_PI / 180);
        if (l->cos_outer >= l->cos_inner) l->cos_outer = l->cos_inner - 1e-4f;
    }
    light_kind(c, l, e, (int)clampd(editor_kv_number(e, "style", 0), 0, 63));
}

/* The worldspawn's minlight (`light`, `_minlight`), Quake's ambient term. */
static void quake_minlight(import_ctx *c)
{
    const editor_entity *w = &c->em->entities[0];
    double minlight = editor_kv_number(w, "light", editor_kv_number(w, "_minlight", 0));
    uint8_t color[3];
    quake_color(w, "_minlight_color", color);
    for (int k = 0; k < 3; k++) c->level->ambient[k] = (float)(clampd(minlight, 0, 255) * quake_range(c) / 255.0 * color[k] / 255.0);
    c->level->ambient_no_dirt = no_dirt(c, w, "_minlight_dirt");
    c->level->ambient_floor = true;
}

void editor_brush_minlight(const import_ctx *c, const editor_entity *owner, float out[3])
{
    double minlight = owner && c->em->game != EDITOR_GAME_GOLDSRC ? editor_kv_number(owner, "_minlight", 0) : 0;
    if (minlight < 0) {
        out[0] = out[1] = out[2] = -1;   /* ericw-tools' -1: no minlight on its faces at all */
        return;
    }
    uint8_t color[3];
    quake_color(owner ? owner : &c->em->entities[0], "_minlight_color", color);
    for (int k = 0; k < 3; k++) out[k] = (float)(fmin(minlight, MAX_BRIGHTNESS) * quake_range(c) / 255.0 * color[k] / 255.0);
}

/* ---- the worldspawn's sky light (ericw-tools', every dialect) ------------------------------- */

/* The sun: `_sunlight` toward `_sun_mangle` / `_sunlight_mangle` (yaw, pitch; straight down by
 * default), `_sunlight_color`, `_sunlight_penumbra` (its angular radius, degrees). The domes:
 * `_sunlight2` from every direction above the horizon, `_sunlight3` from below it, coloured by
 * `_sunlight2_color` / `_sunlight_color2` and `_sunlight3_color` / `_sunlight_color3`,
 * `_sunsamples` directions each. All three weigh the angle of incidence by `_anglescale`, and
 * reach a face only through open sky. */
static void worldspawn_sky(import_ctx *c)
{
    const editor_entity *w = &c->em->entities[0];
    level_def *level = c->level;
    double anglescale = quake_anglescale(c, w);
    /* a GoldSrc map's sky keys keep the scale they had (hlrad stores its own way) */
    double range = c->em->game == EDITOR_GAME_GOLDSRC ? 1.0 : quake_range(c);
    double sun = editor_kv_number(w, "_sunlight", 0);
    if (sun > 0) {
        light_def *l = PUSH(level->lights, level->light_count, level->light_cap);
        l->kind = BAKE_LIGHT_STATIC;
        l->shape = BAKE_SHAPE_SUN;
        double mangle[3] = { 0, -90, 0 };
        editor_kv_numbers(w, editor_kv_get(w, "_sun_mangle") ? "_sun_mangle" : "_sunlight_mangle", mangle, 3);
        l->direction = editor_dir_to_world(angles_vector(mangle[0], mangle[1]));
        quake_color(w, "_sunlight_color", l->color);
        l->brightness = (float)(fmin(sun, MAX_BRIGHTNESS) * range / 255.0);
        l->anglescale = (float)anglescale;
        l->radius = (float)(clampd(editor_kv_number(w, "_sunlight_penumbra", 0), 0, 45) * M_PI / 180);
        l->enabled = true;
        l->no_dirt = no_dirt(c, w, "_sunlight_dirt");
        c->has_sun = true;
        memcpy(c->sun_color, l->color, 3);
    }
    static const char *const dome_keys[2][3] = { { "_sunlight2", "_sunlight2_color", "_sunlight_color2" },
                                                 { "_sunlight3", "_sunlight3_color", "_sunlight_color3" } };
    for (int d = 0; d < 2; d++) {
        double value = editor_kv_number(w, dome_keys[d][0], 0);
        if (!(value > 0)) continue;
        uint8_t color[3];
        quake_color(w, editor_kv_get(w, dome_keys[d][1]) ? dome_keys[d][1] : dome_keys[d][2], color);
        bake_dome *dome = &level->sky_domes[d];
        for (int k = 0; k < 3; k++) dome->color[k] = (float)(color[k] / 255.0 * fmin(value, MAX_BRIGHTNESS) * range / 255.0);
        dome->anglescale = (float)anglescale;
        dome->no_dirt = no_dirt(c, w, "_sunlight2_dirt");
    }
    level->dome_samples = (int)clampd(editor_kv_number(w, "_sunsamples", 0), 0, 1024);
}

void editor_import_lights(import_ctx *c)
{
    dirt_plan(c);
    worldspawn_sky(c);
    if (c->em->game != EDITOR_GAME_GOLDSRC) quake_minlight(c);
    for (size_t i = 1; i < c->em->entity_count; i++) {
        const editor_entity *e = &c->em->entities[i];
        const char *cls = e->classname;
        if (!e->point) continue;
        if (c->em->game == EDITOR_GAME_GOLDSRC) {
            /* hlrad: a light_spot with `_sky` set is a light_environment */
            bool sky = !strcasecmp(cls, "light_environment") || (!strcasecmp(cls, "light_spot") && editor_kv_number(e, "_sky", 0) != 0);
            if (sky) goldsrc_sun(c, e);
            else if (!strcasecmp(cls, "light")) goldsrc_light(c, e, false);
            else if (!strcasecmp(cls, "light_spot")) goldsrc_light(c, e, true);
        } else if (!strncasecmp(cls, "light", 5) && !editor_kv_get(e, "_surface")) {
            quake_light(c, e, NULL);   /* a _surface light is a template (editor_import_texture_lights) */
        }
    }
}

/* ---- texture lights ------------------------------------------------------------------------- */

#define TEXLIGHT_SPACING_UNITS 64.0  /* hlrad's patch size: one emitter per piece this wide */
#define SURFACE_SPACING_UNITS 128.0  /* ericw-tools' surface light subdivision (-surflight_subdivide) */
#define SURFACE_OFFSET_UNITS 2.0     /* ericw-tools' _surface_offset */
#define SURFACE_MIN_CUT_UNITS 8.0    /* GLQuake's subdivision leaves no piece narrower */
#define QBSP_SUBDIVIDE_TEXELS 240.0  /* qbsp -subdivide: a face wider is chopped ... */
#define QBSP_CHOP_TEXELS 224.0       /* ... this far from its low side (the 240 less qbsp's 16 of margin) */
#define TEXLIGHT_OFFSET_UNITS 1.0    /* an hlrad emitter sits this far off its face */
#define TEXLIGHT_MAX_PER_FACE 256    /* larger faces get emitters further apart */
#define TEXLIGHT_MAX_TOTAL 8192      /* and so do all of a map's when they would be more */

/* A texture that emits: hlrad's value (lights.rad, info_texlights) or a Quake light template. */
typedef struct texlight {
    char name[EDITOR_TEXTURE_MAX];
    uint8_t color[3];
    double value;                    /* hlrad: bytes of light per unit of area over pi */
    const editor_entity *surface;    /* Quake: the _surface light copied onto its faces */
} texlight;

typedef struct texlight_set { texlight *list; size_t count, cap; } texlight_set;

static texlight *texlight_find(texlight_set *set, const char *name)
{
    for (size_t i = 0; i < set->count; i++)
        if (!strcasecmp(set->list[i].name, name)) return &set->list[i];
    return NULL;
}

/* A new entry, named in upper case as the textures' materials are. */
static texlight *texlight_new(texlight_set *set, const char *name)
{
    texlight *t = PUSH(set->list, set->count, set->cap);
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof t->name; n++) t->name[n] = (char)toupper((unsigned char)name[n]);
    t->name[n] = 0;
    return t;
}

/* One "R G B V" / "R G B" / "V" value for a texture (a later one replaces it, as in hlrad). */
static void texlight_add(texlight_set *set, const char *name, const double *v, int n)
{
    double rgb[3];
    if (n == 1) rgb[0] = rgb[1] = rgb[2] = v[0];
    else if (n == 3) for (int k = 0; k < 3; k++) rgb[k] = v[k];
    else if (n == 4) for (int k = 0; k < 3; k++) rgb[k] = v[k] / 255.0 * v[3];
    else return;
    double top = fmax(rgb[0], fmax(rgb[1], rgb[2]));
    if (!(top > 0) || !isfinite(top) || !*name) return;
    texlight *t = texlight_find(set, name);
    if (!t) t = texlight_new(set, name);
    for (int k = 0; k < 3; k++) t->color[k] = (uint8_t)lround(fmax(0, rgb[k]) / top * 255);
    t->value = fmin(top, MAX_BRIGHTNESS);
    t->surface = NULL;
}

static void rad_entry(void *set, const char *name, const double *values, int count)
{
    texlight_add(set, name, values, count);
}

/* A lights.rad file (src/rad); true when it was read. */
static bool read_rad(texlight_set *set, const char *path)
{
    return rad_read(path, rad_entry, set);
}

/* lights.rad in --game DIR, loose or in a pak, when there is one. */
static void read_game_rad(import_ctx *c, texlight_set *set)
{
    size_t size = 0;
    uint8_t *text = editor_read_game_file(c, "lights.rad", (uint64_t)16 << 20, &size);
    if (text) rad_read_memory((const char *)text, size, rad_entry, set);
    pmf_budget_free(text);
}

/* GoldSrc: --rad FILE, else lights.rad beside the map, then in --game DIR (loose or in a pak);
 * the map's own MAPNAME.rad beside it after those; info_texlights' keys last. Quake: the _surface
 * lights. */
static void collect_texlights(import_ctx *c, texlight_set *set)
{
    if (c->em->game != EDITOR_GAME_GOLDSRC) {
        for (size_t i = 1; i < c->em->entity_count; i++) {
            const editor_entity *e = &c->em->entities[i];
            const char *tex = editor_kv_get(e, "_surface");
            if (!e->point || strncasecmp(e->classname, "light", 5) || !tex || !*tex) continue;
            texlight *t = texlight_find(set, tex);
            if (!t) t = texlight_new(set, tex);
            t->surface = e;
        }
        return;
    }
    char dir[PMFC_PATH_MAX], path[PMFC_PATH_MAX + 64];
    const char *slash = strrchr(c->path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - c->path) : 1, slash ? c->path : ".");
    if (c->desc->rad) {
        if (!read_rad(set, c->desc->rad) && !c->desc->quiet) {
            char clean[PMFC_PATH_MAX];
            session_say(PMFC_WARNING, "pmfc: warning: --rad %s: cannot be read", text_clean(c->desc->rad, clean, sizeof clean));
        }
    } else {
        snprintf(path, sizeof path, "%s/lights.rad", dir);
        if (!read_rad(set, path)) read_game_rad(c, set);
    }
    const char *base = slash ? slash + 1 : c->path, *dot = strrchr(base, '.');
    snprintf(path, sizeof path, "%s/%.*s.rad", dir, dot ? (int)(dot - base) : (int)strlen(base), base);
    read_rad(set, path);
    for (size_t i = 1; i < c->em->entity_count; i++) {
        const editor_entity *e = &c->em->entities[i];
        if (strcasecmp(e->classname, "info_texlights")) continue;
        for (uint32_t k = 0; k < e->kv_count; k++) {
            const char *key = e->kv[k].key;
            if (!strcasecmp(key, "classname") || !strcasecmp(key, "origin") || !strcasecmp(key, "angles")) continue;
            double v[4];
            texlight_add(set, key, v, editor_kv_numbers(e, key, v, 4));
        }
    }
}

/* The texture a material shows: its name up to the look suffix ("NAME#m5,a255"). */
static void material_texture(const material_def *m, char *out, size_t size)
{
    size_t n = strcspn(m->name, "#");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), m->name);
}

/* hlrad's texture light on one piece of a face: area A (units^2) of value v adds
 * v x A / pi x cos x cos' / d^2 bytes; the emitter's cos' is the spot's 90-degree smooth cone. */
static void emit_texlight(import_ctx *c, const texlight *t, v3 at, v3 normal, double area)
{
    light_def *l = PUSH(c->level->lights, c->level->light_count, c->level->light_cap);
    l->kind = BAKE_LIGHT_STATIC;
    l->shape = BAKE_SHAPE_SPOT;
    l->pos = at;
    l->direction = normal;
    l->cos_inner = 1.0f - 1e-4f;
    l->cos_outer = 0.0f;
    memcpy(l->color, t->color, 3);
    double emitted = t->value * area / M_PI, ref_units = 4 * HLRAD_NEAR_UNITS;
    l->falloff = LIGHT_FALLOFF_INVERSE2;
    l->falloff_distance = (float)(ref_units * c->s);
    l->brightness = (float)(emitted / (ref_units * ref_units) / 255.0);
    l->range = (float)(sqrt(emitted / HLRAD_CUT) * c->s);
    l->enabled = true;
    l->no_dirt = no_dirt(c, NULL, "_dirt");
    snprintf(l->name, sizeof l->name, "texlight %.*s", (int)sizeof l->name - 10, t->name);
}

/* Pieces of a face polygon (world metres) on a grid `spacing` metres wide across its plane:
 * each piece's centre and area (hlrad's texture lights). */
static void emit_face(import_ctx *c, const texlight *t, const poly *p, v3 n, double spacing)
{
    v3 hint = fabs(n.y) > 0.9 ? v3_make(0, 0, 1) : v3_make(0, 1, 0);
    v3 u = v3_normalize(v3_cross(hint, n)), w = v3_cross(n, u);
    double u0 = 1e30, u1 = -1e30, w0 = 1e30, w1 = -1e30;
    for (int k = 0; k < p->n; k++) {
        u0 = fmin(u0, v3_dot(p->p[k], u)); u1 = fmax(u1, v3_dot(p->p[k], u));
        w0 = fmin(w0, v3_dot(p->p[k], w)); w1 = fmax(w1, v3_dot(p->p[k], w));
    }
    while (ceil((u1 - u0) / spacing) * ceil((w1 - w0) / spacing) > TEXLIGHT_MAX_PER_FACE) spacing *= 2;
    int nu = (int)fmax(1, ceil((u1 - u0) / spacing)), nw = (int)fmax(1, ceil((w1 - w0) / spacing));
    double du = (u1 - u0) / nu, dw = (w1 - w0) / nw;
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nw; j++) {
            /* the polygon inside this cell of the grid */
            poly cell = *p, in;
            plane cuts[4] = { { u, u0 + i * du }, { v3_scale(u, -1), -(u0 + (i + 1) * du) },
                              { w, w0 + j * dw }, { v3_scale(w, -1), -(w0 + (j + 1) * dw) } };
            bool any = true;
            for (int k = 0; k < 4 && any; k++) {
                poly_split(&cell, cuts[k], n, &in, NULL);
                cell = in;
                any = cell.n >= 3;
            }
            double area = any ? poly_area(&cell) : 0;
            if (!(area > 1e-8)) continue;
            v3 mid = v3_make(0, 0, 0);
            for (int k = 0; k < cell.n; k++) mid = v3_add(mid, v3_scale(cell.p[k], 1.0 / cell.n));
            emit_texlight(c, t, v3_add(mid, v3_scale(n, TEXLIGHT_OFFSET_UNITS * c->s)), n, area / (c->s * c->s));
        }
}

/* Whether p (world metres) lies inside a brush of the level other than `own`: a face there meets
 * another brush, and qbsp keeps no face where a liquid meets the floor or the next brush of it. */
static bool inside_other_brush(const level_def *l, const brush *own, v3 p)
{
    for (size_t i = 0; i < l->brush_count; i++)
        if (&l->brushes[i] != own && brush_holds_point(l, &l->brushes[i], p, 0)) return true;
    return false;
}

/* ericw-tools' _surface: a copy of the template light over each piece of the face, cut as
 * GLQuake subdivides a surface (light's SubdividePolygon): on each axis of the map in turn, at the
 * multiple of SURFACE_SPACING_UNITS nearest the middle of the piece's bounds unless that leaves a
 * side narrower than SURFACE_MIN_CUT_UNITS, until no cut is left; each copy stands
 * `_surface_offset` units in front of its piece's centroid. */
static void emit_surface_copies(import_ctx *c, const texlight *t, const brush *own, const poly *p, v3 n)
{
    /* the map's axes in world metres (editor_to_world) */
    static const v3 axes[3] = { { { 1, 0, 0 } }, { { 0, 0, -1 } }, { { 0, 1, 0 } } };
    for (int a = 0; a < 3; a++) {
        double lo = 1e30, hi = -1e30;
        for (int k = 0; k < p->n; k++) {
            lo = fmin(lo, v3_dot(p->p[k], axes[a]) / c->s);
            hi = fmax(hi, v3_dot(p->p[k], axes[a]) / c->s);
        }
        double m = SURFACE_SPACING_UNITS * floor((lo + hi) / 2 / SURFACE_SPACING_UNITS + 0.5);
        if (hi - m < SURFACE_MIN_CUT_UNITS || m - lo < SURFACE_MIN_CUT_UNITS) continue;
        poly front, back;
        poly_split(p, (plane){ axes[a], m * c->s }, n, &front, &back);
        if (front.n >= 3) emit_surface_copies(c, t, own, &front, n);
        if (back.n >= 3) emit_surface_copies(c, t, own, &back, n);
        return;
    }
    /* the area-weighted centroid of the fan from the first corner */
    v3 mid = v3_make(0, 0, 0);
    double total = 0;
    for (int k = 1; k + 1 < p->n; k++) {
        double area = v3_dot(v3_cross(v3_sub(p->p[k], p->p[0]), v3_sub(p->p[k + 1], p->p[0])), n) / 2;
        mid = v3_add(mid, v3_scale(v3_add(p->p[0], v3_add(p->p[k], p->p[k + 1])), area / 3));
        total += area;
    }
    if (!(total > 1e-12)) return;
    double offset = editor_kv_number(t->surface, "_surface_offset", 0);
    v3 at = v3_add(v3_scale(mid, 1 / total), v3_scale(n, (offset != 0 ? offset : SURFACE_OFFSET_UNITS) * c->s));
    if (inside_other_brush(c->level, own, at)) return;
    editor_entity copy = *t->surface;
    copy.origin[0] = at.x / c->s; copy.origin[1] = -at.z / c->s; copy.origin[2] = at.y / c->s;
    quake_light(c, &copy, editor_kv_number(t->surface, "_surface_spotlight", 0) != 0 ? &n : NULL);
}

/* qbsp's SubdivideFace (with -splitturb liquids too): along the texture's u axis, then its v, a
 * piece wider than QBSP_SUBDIVIDE_TEXELS loses QBSP_CHOP_TEXELS from its low side until none is;
 * each piece goes on to emit_surface_copies. `texels` are the axes' texels per metre. */
static void qbsp_chop(import_ctx *c, const texlight *t, const brush *own, const poly *p, v3 n, const v3 texels[2], int axis)
{
    if (axis == 2) {
        emit_surface_copies(c, t, own, p, n);
        return;
    }
    double length = sqrt(v3_dot(texels[axis], texels[axis])), lo = 1e30, hi = -1e30;
    for (int k = 0; k < p->n; k++) {
        lo = fmin(lo, v3_dot(p->p[k], texels[axis]));
        hi = fmax(hi, v3_dot(p->p[k], texels[axis]));
    }
    if (!(length > 0) || ceil(hi) - floor(lo) <= QBSP_SUBDIVIDE_TEXELS) {
        qbsp_chop(c, t, own, p, n, texels, axis + 1);
        return;
    }
    poly front, back;
    poly_split(p, (plane){ v3_scale(texels[axis], 1 / length), (lo + QBSP_CHOP_TEXELS) / length }, n, &front, &back);
    if (back.n >= 3) qbsp_chop(c, t, own, &back, n, texels, axis + 1);
    if (front.n >= 3) qbsp_chop(c, t, own, &front, n, texels, axis);
}

typedef struct emitting_face { const texlight *t; poly p; v3 n; } emitting_face;

/* The map's texture of that name (any case), or NULL. */
static const editor_texture *editor_texture_named(const import_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->texture_count; i++)
        if (!strcasecmp(c->textures[i].name, name)) return &c->textures[i];
    return NULL;
}

size_t editor_import_texture_lights(import_ctx *c)
{
    texlight_set set = { 0 };
    collect_texlights(c, &set);
    size_t before = c->level->light_count;
    level_def *l = c->level;
    emitting_face *faces = NULL;
    size_t face_count = 0, face_cap = 0;
    double pieces = 0;   /* at the usual spacing */
    for (size_t i = 0; i < l->brush_count && set.count; i++) {
        const brush *b = &l->brushes[i];
        for (uint32_t k = 0; k < b->side_count; k++) {
            const brush_side *side = &brush_sides(l, b)[k];
            if (side->material < 0) continue;
            char tex[EDITOR_TEXTURE_MAX];
            material_texture(&c->map->materials[side->material], tex, sizeof tex);
            const texlight *t = texlight_find(&set, tex);
            poly p;
            if (!t || !brush_side_poly(l, b, k, &p)) continue;
            /* a sealed map's faces only the void sees light nothing (fill.h) */
            if (l->fill && !fill_face_seen(l->fill, p.p, p.n, side->pl.n)) continue;
            if (t->surface) {
                /* as many copies as light makes, however many that is, over the faces qbsp cut */
                const tex_proj *tp = side->tex >= 0 ? &l->tex_projs[side->tex] : NULL;
                const editor_texture *et = editor_texture_named(c, tex);
                v3 texels[2] = { v3_make(0, 0, 0), v3_make(0, 0, 0) };
                if (tp && et) {
                    texels[0] = v3_scale(tp->u, et->width);
                    texels[1] = v3_scale(tp->v, et->height);
                }
                qbsp_chop(c, t, b, &p, side->pl.n, texels, 0);
                continue;
            }
            emitting_face *f = PUSH(faces, face_count, face_cap);
            *f = (emitting_face){ t, p, side->pl.n };
            pieces += fmax(1, poly_area(&p) / (TEXLIGHT_SPACING_UNITS * TEXLIGHT_SPACING_UNITS * c->s * c->s));
        }
    }
    /* a map with acres of glowing texture gets its emitters further apart, not a million lights */
    double spread = pieces > TEXLIGHT_MAX_TOTAL ? sqrt(pieces / TEXLIGHT_MAX_TOTAL) : 1;
    for (size_t i = 0; i < face_count; i++)
        emit_face(c, faces[i].t, &faces[i].p, faces[i].n, TEXLIGHT_SPACING_UNITS * c->s * spread);
    xfree(faces);
    xfree(set.list);
    return c->level->light_count - before;
}
