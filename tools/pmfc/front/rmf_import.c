/* rmf_import.c - the RMF front end: a Worldcraft / Hammer map (read by rmf/rmf.h) becomes pmfc's
 * world model (conventions §5): brushes with Hammer's texture projection, lights and start
 * cameras; rmf_materials.c adds the textures, materials and sky. docs/rmf.md is the user's side. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rmf_import.h"
#include "pmf/text_clean.h"

#define RMF_DEFAULT_SCALE 0.0254     /* metres per Hammer unit */
#define RMF_EYE_HEIGHT 28.0          /* units above a player start's origin */

/* The project's reading of Half-Life light values (docs/rmf.md "Lights"). */
#define RMF_LIGHT_INTENSITY_PER_BRIGHTNESS (1.0 / 150.0)
#define RMF_LIGHT_RANGE_UNITS_PER_BRIGHTNESS 4.5
#define RMF_SUN_INTENSITY_PER_BRIGHTNESS (1.0 / 200.0)
#define RMF_SKY_LIGHT_SHARE 0.3      /* sky light without _diffuse_light: this share of the sun's */
#define RMF_AMBIENT 0.03f
#define RMF_LIGHT_RADIUS_UNITS 4.0   /* a light's size without `_deviance` */
#define RMF_SUN_RADIUS_DEGREES 1.0   /* the sun's angular radius without `_sunlight_penumbra` */
#define RMF_PHONG_ANGLE 45.0         /* smoothing angle without worldspawn `_phong_angle` */
#define RMF_DIRT_DEPTH_UNITS 128.0   /* ambient occlusion's reach without `_dirtdepth` */
#define RMF_MAX_BRIGHTNESS 100000.0
#define RMF_UNITS_PER_LUXEL 16.0     /* Half-Life's lightmap density */
#define RMF_MIN_CUBE 0.0625          /* metres: detailed brushwork needs small cubes to fit */
#define RMF_COORD_LIMIT 32768.0      /* units: the largest editor grid (832 m at the default scale) */

/* ---- small helpers --------------------------------------------------------------------- */

void import_fail(import_ctx *c, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char clean[1024];
    fprintf(stderr, "pmfc: %s\n", text_clean(msg, clean, sizeof clean));
    c->failed = true;
}

/* Hammer units (x, y, z) -> world metres (x, z, -y) (conventions §5). */
static v3 to_world(const import_ctx *c, const float p[3])
{
    return v3_make(p[0] * c->s, p[2] * c->s, -(double)p[1] * c->s);
}

/* A direction (no scale) from Hammer axes to world axes. */
static v3 dir_to_world(v3 h)
{
    return v3_make(h.x, h.z, -h.y);
}

const char *kv_get(const rmf_entity *e, const char *key)
{
    for (uint32_t i = 0; i < e->kv_count; i++)
        if (e->kv[i].key && !strcasecmp(e->kv[i].key, key)) return e->kv[i].value ? e->kv[i].value : "";
    return NULL;
}

double kv_number(const rmf_entity *e, const char *key, double fallback)
{
    const char *v = kv_get(e, key);
    if (!v) return fallback;
    char *end;
    double d = strtod(v, &end);
    return end != v && isfinite(d) ? d : fallback;
}

/* Up to n numbers from a key ("pitch yaw roll", "R G B BRIGHTNESS"); returns how many parsed. */
static int kv_numbers(const rmf_entity *e, const char *key, double *out, int n)
{
    const char *v = kv_get(e, key);
    int got = 0;
    while (v && got < n) {
        char *end;
        double d = strtod(v, &end);
        if (end == v || !isfinite(d)) break;
        out[got++] = d;
        v = end;
    }
    return got;
}

/* ---- what a texture name means (conventions §5) ---------------------------------------- */

static bool is_tool_texture(const char *name)
{
    static const char *const tools[] = { "clip", "null", "origin", "aaatrigger", "hint", "skip", "bevel" };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (!strcasecmp(name, tools[i])) return true;
    return false;
}


/* Brush entities that are volumes only: none of their faces is drawn. */
static bool is_volume_class(const char *cls)
{
    static const char *const volumes[] = { "func_ladder", "func_buyzone", "func_bomb_target", "func_hostage_rescue",
                                           "func_vip_safetyzone", "func_escapezone" };
    if (!strncasecmp(cls, "trigger_", 8)) return true;
    for (size_t i = 0; i < sizeof volumes / sizeof volumes[0]; i++)
        if (!strcasecmp(cls, volumes[i])) return true;
    return false;
}

/* ---- brushes ----------------------------------------------------------------------------- */

/* Quake's texture axes for a plane (TextureAxisFromPlane), rotated by `angle` degrees: what
 * editors before RMF 2.2 use, as they store no axes. */
static void quake_axes(v3 n, double angle, v3 *u, v3 *v)
{
    static const double base[6][3][3] = {
        { { 0, 0, 1 }, { 1, 0, 0 }, { 0, -1, 0 } },  /* floor */
        { { 0, 0, -1 }, { 1, 0, 0 }, { 0, -1, 0 } }, /* ceiling */
        { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, -1 } },  /* west wall */
        { { -1, 0, 0 }, { 0, 1, 0 }, { 0, 0, -1 } }, /* east wall */
        { { 0, 1, 0 }, { 1, 0, 0 }, { 0, 0, -1 } },  /* south wall */
        { { 0, -1, 0 }, { 1, 0, 0 }, { 0, 0, -1 } }, /* north wall */
    };
    int best = 0;
    double best_dot = 0;
    for (int i = 0; i < 6; i++) {
        double d = n.x * base[i][0][0] + n.y * base[i][0][1] + n.z * base[i][0][2];
        if (d > best_dot) { best_dot = d; best = i; }
    }
    double vecs[2][3];
    memcpy(vecs[0], base[best][1], sizeof vecs[0]);
    memcpy(vecs[1], base[best][2], sizeof vecs[1]);
    double s, c;
    if (angle == 0) { s = 0; c = 1; }
    else if (angle == 90) { s = 1; c = 0; }
    else if (angle == 180) { s = 0; c = -1; }
    else if (angle == 270) { s = -1; c = 0; }
    else { s = sin(angle * M_PI / 180); c = cos(angle * M_PI / 180); }
    int sv = vecs[0][0] ? 0 : vecs[0][1] ? 1 : 2;
    int tv = vecs[1][0] ? 0 : vecs[1][1] ? 1 : 2;
    for (int i = 0; i < 2; i++) {
        double ns = c * vecs[i][sv] - s * vecs[i][tv];
        double nt = s * vecs[i][sv] + c * vecs[i][tv];
        vecs[i][sv] = ns;
        vecs[i][tv] = nt;
    }
    *u = v3_make(vecs[0][0], vecs[0][1], vecs[0][2]);
    *v = v3_make(vecs[1][0], vecs[1][1], vecs[1][2]);
}

/* Hammer's projection, u = (p . U / scale_u + shift_u) / width with p in units, written for p in
 * world metres: p_units . U = p_world . (U.x, U.z, -U.y) / s. */
static tex_proj hammer_projection(const import_ctx *c, const rmf_face *f, v3 hammer_normal, const rmf_texture *t)
{
    v3 u, v;
    if (f->has_axes) {
        u = v3_make(f->u_axis[0], f->u_axis[1], f->u_axis[2]);
        v = v3_make(f->v_axis[0], f->v_axis[1], f->v_axis[2]);
    } else {
        quake_axes(hammer_normal, f->rotation, &u, &v);
    }
    double su = f->scale[0] != 0 && isfinite(f->scale[0]) ? f->scale[0] : 1;
    double sv = f->scale[1] != 0 && isfinite(f->scale[1]) ? f->scale[1] : 1;
    tex_proj tp;
    tp.u = v3_scale(dir_to_world(u), 1.0 / (c->s * su * t->width));
    tp.v = v3_scale(dir_to_world(v), 1.0 / (c->s * sv * t->height));
    tp.ou = f->shift[0] / t->width;
    tp.ov = f->shift[1] / t->height;
    return tp;
}

/* A solid's coordinates must be finite and inside the editor's grid. */
static bool solid_in_range(import_ctx *c, const rmf_object *o)
{
    for (uint32_t i = 0; i < o->face_count; i++) {
        const rmf_face *f = &o->faces[i];
        for (uint32_t k = 0; k < f->vertex_count + 3; k++) {
            const float *p = k < f->vertex_count ? f->vertices[k] : f->plane[k - f->vertex_count];
            for (int a = 0; a < 3; a++)
                if (!(fabsf(p[a]) <= RMF_COORD_LIMIT)) {
                    import_fail(c, "%s: solid %u face %u, byte %zu: coordinate %g is outside the editor's grid (+-%g units)",
                                c->path, o->index, i, f->offset, (double)p[a], RMF_COORD_LIMIT);
                    return false;
                }
        }
    }
    return true;
}

/* One solid: a brush whose sides are its faces' planes, outward. */
static void import_solid(import_ctx *c, const rmf_object *o, const rmf_entity *owner)
{
    if (!o->face_count || !solid_in_range(c, o)) return;
    /* a face's polygon starts as a square cut by every other side: it must fit a poly */
    if (o->face_count > POLY_MAX - 4) {
        import_fail(c, "%s: solid %u, byte %zu: %u faces, more than the %d one solid may have", c->path, o->index, o->offset,
                    o->face_count, POLY_MAX - 4);
        return;
    }
    render_look look = rmf_entity_look(owner);
    /* the centre of its vertices is inside the convex solid: planes are turned to face away */
    v3 centre = v3_make(0, 0, 0), lo = v3_make(1e30, 1e30, 1e30), hi = v3_make(-1e30, -1e30, -1e30);
    size_t nv = 0;
    for (uint32_t i = 0; i < o->face_count; i++)
        for (uint32_t k = 0; k < o->faces[i].vertex_count; k++, nv++) {
            const float *p = o->faces[i].vertices[k];
            centre = v3_add(centre, v3_make(p[0], p[1], p[2]));
            v3 w = to_world(c, p);
            for (int a = 0; a < 3; a++) {
                lo.e[a] = fmin(lo.e[a], w.e[a]);
                hi.e[a] = fmax(hi.e[a], w.e[a]);
            }
        }
    if (!nv) return;
    centre = v3_scale(centre, 1.0 / (double)nv);
    level_def *l = c->level;
    brush *b = brush_begin(l, BRUSH_CONVEX, lo, hi);   /* sides and textures added below leave it in place */
    bool drawn = false, sky = false;
    for (uint32_t i = 0; i < o->face_count && !c->failed; i++) {
        const rmf_face *f = &o->faces[i];
        v3 p0 = v3_make(f->plane[0][0], f->plane[0][1], f->plane[0][2]);
        v3 p1 = v3_make(f->plane[1][0], f->plane[1][1], f->plane[1][2]);
        v3 p2 = v3_make(f->plane[2][0], f->plane[2][1], f->plane[2][2]);
        v3 n = v3_cross(v3_sub(p2, p0), v3_sub(p1, p0));
        double len = sqrt(v3_dot(n, n));
        if (!(len > 1e-9) || !isfinite(len)) {
            /* a degenerate plane: fall back to the face's polygon */
            if (f->vertex_count < 3) continue;
            p0 = v3_make(f->vertices[0][0], f->vertices[0][1], f->vertices[0][2]);
            n = v3_make(0, 0, 0);
            for (uint32_t k = 1; k + 1 < f->vertex_count; k++) {
                v3 a = v3_sub(v3_make(f->vertices[k][0], f->vertices[k][1], f->vertices[k][2]), p0);
                v3 bb = v3_sub(v3_make(f->vertices[k + 1][0], f->vertices[k + 1][1], f->vertices[k + 1][2]), p0);
                n = v3_add(n, v3_cross(a, bb));
            }
            len = sqrt(v3_dot(n, n));
            if (!(len > 1e-9) || !isfinite(len)) continue;
        }
        n = v3_scale(n, 1.0 / len);
        if (v3_dot(n, centre) > v3_dot(n, p0)) n = v3_scale(n, -1);
        int material = BRUSH_SIDE_NODRAW, tex = -1;
        if (!strcasecmp(f->texture, "sky")) {
            material = BRUSH_SIDE_SKY;
            sky = true;
        } else if (!is_tool_texture(f->texture) && !is_volume_class(owner && owner->classname ? owner->classname : "")) {
            int t = rmf_use_texture(c, f->texture);
            if (t < 0) return;
            material = rmf_material(c, t, look);
            tex_proj *tp = PUSH(l->tex_projs, l->tex_proj_count, l->tex_proj_cap);
            *tp = hammer_projection(c, f, n, &c->textures[t]);
            tex = (int)(l->tex_proj_count - 1);
            drawn = true;
        }
        v3 wn = dir_to_world(n);
        v3 wp = to_world(c, (const float[3]){ (float)p0.x, (float)p0.y, (float)p0.z });
        brush_add_side(l, b, (plane){ wn, v3_dot(wn, wp) }, material, tex);
    }
    b->line = (int)o->index;
    if (!drawn && !sky) {
        /* clip, trigger, hint...: nothing drawn, and it hides nothing */
        l->side_count = b->first_side;
        l->brush_count--;
        return;
    }
    /* world brushes are solid; brush entities are separate models in Half-Life: they hide no
     * world face (a door keeps the frame's faces) */
    b->opaque = !owner;
    for (uint32_t i = 0; i < b->side_count && b->opaque; i++) {
        int m = brush_sides(l, b)[i].material;
        if (m >= 0 && !material_opaque(&c->map->materials[m])) b->opaque = false;
    }
    if (!brush_finish(l, b)) return;
    double limit = RMF_COORD_LIMIT * c->s;
    for (int a = 0; a < 3; a++)
        if (!(b->lo.e[a] >= -limit && b->hi.e[a] <= limit)) {
            /* in-range points on planes that enclose something far larger: a damaged solid */
            import_fail(c, "%s: solid %u, byte %zu: its face planes enclose a solid reaching outside the editor's grid (+-%g units)",
                        c->path, o->index, o->offset, RMF_COORD_LIMIT);
            return;
        }
}

/* ---- point entities ------------------------------------------------------------------------ */

/* The direction an entity points, read as Half-Life does: yaw from `angle` (else `angles`' yaw),
 * -1 straight up, -2 straight down; pitch from `pitch` when non-zero, else `angles`' pitch. */
static v3 entity_direction(const rmf_entity *e)
{
    double angles[3] = { 0, 0, 0 };
    kv_numbers(e, "angles", angles, 3);
    double yaw = kv_number(e, "angle", 0);
    if (yaw == -1) return v3_make(0, 0, 1);
    if (yaw == -2) return v3_make(0, 0, -1);
    if (yaw == 0) yaw = angles[1];
    double pitch = kv_number(e, "pitch", 0);
    if (pitch == 0) pitch = angles[0];
    double y = yaw * M_PI / 180, p = pitch * M_PI / 180;
    return v3_make(cos(y) * cos(p), sin(y) * cos(p), sin(p));
}

/* `_light`: "R G B BRIGHTNESS" (colour 0..255 scaled by brightness / 255), "R G B" (each an
 * intensity of its own) or "V" (grey), as hlrad reads it. Colour normalised to its brightest
 * channel; *brightness = that channel's value. */
static void entity_light_value(const rmf_entity *e, const char *key, double fallback, uint8_t color[3], double *brightness)
{
    double v[4];
    int n = kv_numbers(e, key, v, 4);
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
    *brightness = fmin(top, RMF_MAX_BRIGHTNESS);
}

static void import_light(import_ctx *c, const rmf_entity *e, bool spot)
{
    uint8_t color[3];
    double brightness;
    entity_light_value(e, "_light", 200, color, &brightness);
    if (!(brightness > 0)) return;
    light_def *l = PUSH(c->level->lights, c->level->light_count, c->level->light_cap);
    l->shape = spot ? BAKE_SHAPE_SPOT : BAKE_SHAPE_POINT;
    l->pos = to_world(c, e->origin);
    memcpy(l->color, color, 3);
    l->brightness = (float)(brightness * RMF_LIGHT_INTENSITY_PER_BRIGHTNESS);
    l->range = (float)(brightness * RMF_LIGHT_RANGE_UNITS_PER_BRIGHTNESS * c->s);
    l->radius = (float)(fmin(fmax(kv_number(e, "_deviance", RMF_LIGHT_RADIUS_UNITS), 0), 1024) * c->s);
    l->enabled = true;
    if (spot) {
        l->direction = dir_to_world(entity_direction(e));
        double inner = kv_number(e, "_cone", 30), outer = kv_number(e, "_cone2", 45);
        inner = fmin(fmax(inner, 0), 90);
        outer = fmin(fmax(outer, inner), 90);
        l->cos_inner = (float)cos(inner * M_PI / 180);
        l->cos_outer = (float)cos(outer * M_PI / 180);
        if (l->cos_outer >= l->cos_inner) l->cos_outer = l->cos_inner - 1e-4f;
    }
    const char *target = kv_get(e, "targetname");
    if (target && *target) {
        /* switchable in Half-Life: a dynamic light the viewer can toggle; starts off when flag 1 */
        l->kind = BAKE_LIGHT_DYNAMIC;
        l->id = ++c->next_dynamic_id;
        l->enabled = !(e->spawnflags & 1);
        snprintf(l->name, sizeof l->name, "%s", target);
    } else {
        l->kind = BAKE_LIGHT_STATIC;
    }
}

static void import_sun(import_ctx *c, const rmf_entity *e)
{
    uint8_t color[3];
    double brightness;
    entity_light_value(e, "_light", 200, color, &brightness);
    light_def *l = PUSH(c->level->lights, c->level->light_count, c->level->light_cap);
    l->kind = BAKE_LIGHT_STATIC;
    l->shape = BAKE_SHAPE_SUN;
    l->direction = dir_to_world(entity_direction(e));
    memcpy(l->color, color, 3);
    l->brightness = (float)(brightness * RMF_SUN_INTENSITY_PER_BRIGHTNESS);
    double penumbra = kv_number(e, "_sunlight_penumbra", kv_number(&c->rmf->world.entity, "_sunlight_penumbra", RMF_SUN_RADIUS_DEGREES));
    l->radius = (float)(fmin(fmax(penumbra, 0), 45) * M_PI / 180);
    l->enabled = true;
    /* sky light: _diffuse_light when set, else a share of the sun's */
    uint8_t sky[3];
    double sky_brightness;
    if (kv_get(e, "_diffuse_light")) {
        entity_light_value(e, "_diffuse_light", 0, sky, &sky_brightness);
        sky_brightness *= RMF_SUN_INTENSITY_PER_BRIGHTNESS;
    } else {
        memcpy(sky, color, 3);
        sky_brightness = l->brightness * RMF_SKY_LIGHT_SHARE;
    }
    for (int k = 0; k < 3; k++) c->level->sky_light[k] = (float)(sky[k] / 255.0 * sky_brightness);
    c->has_sun = true;
    memcpy(c->sun_color, color, 3);
}

static void add_camera(import_ctx *c, const char *name, v3 pos, double yaw, double pitch)
{
    start_camera *cam = PUSH(c->map->cameras, c->map->camera_count, c->map->camera_cap);
    snprintf(cam->name, sizeof cam->name, "%s", name);
    cam->level = 0;
    cam->pos = pos;
    cam->yaw = yaw;
    cam->pitch = pitch;
}

static void import_player_starts(import_ctx *c, const char *cls, const rmf_object *const *ents, size_t count)
{
    uint32_t n = 0;
    for (size_t i = 0; i < count; i++) {
        const rmf_entity *e = &ents[i]->entity;
        if (!e->classname || strcasecmp(e->classname, cls)) continue;
        double angles[3] = { 0, 0, 0 };
        kv_numbers(e, "angles", angles, 3);
        double yaw = kv_get(e, "angle") ? kv_number(e, "angle", 0) : angles[1];
        float eye[3] = { e->origin[0], e->origin[1], (float)(e->origin[2] + RMF_EYE_HEIGHT) };
        char name[PMFC_NAME_MAX];
        const char *target = kv_get(e, "targetname");
        if (target && *target) snprintf(name, sizeof name, "%s", target);
        else snprintf(name, sizeof name, "%s %u", cls, ++n);
        add_camera(c, name, to_world(c, eye), remainder(yaw - 90, 360), 0);
    }
}

/* ---- the object tree ------------------------------------------------------------------------ */

static bool object_hidden(const import_ctx *c, const rmf_object *o)
{
    for (uint32_t i = 0; i < o->visgroup_count; i++)
        for (uint32_t k = 0; k < c->rmf->visgroup_count; k++)
            if (c->rmf->visgroups[k].id == o->visgroups[i] && !c->rmf->visgroups[k].visible) return true;
    return false;
}

typedef struct walk_item { const rmf_object *o; const rmf_entity *owner; } walk_item;

/* Every visible solid into brushes (iteratively: groups nest hundreds deep); point entities
 * collected in file order. */
static void walk_objects(import_ctx *c, const rmf_object ***points, size_t *point_count)
{
    walk_item *stack = NULL;
    size_t sp = 0, cap = 0;
    size_t pcap = 0;
    *(walk_item *)grow((void **)&stack, &sp, &cap, sizeof *stack) = (walk_item){ &c->rmf->world, NULL };
    while (sp && !c->failed) {
        walk_item it = stack[--sp];
        const rmf_object *o = it.o;
        if (o->kind != RMF_WORLD && object_hidden(c, o)) continue;
        if (o->kind == RMF_SOLID) {
            import_solid(c, o, it.owner);
            continue;
        }
        const rmf_entity *owner = it.owner;
        if (o->kind == RMF_ENTITY) {
            if (!o->child_count) {
                *(const rmf_object **)grow((void **)points, point_count, &pcap, sizeof **points) = o;
                continue;
            }
            owner = &o->entity;
        }
        /* children pushed last-first so they come off the stack in file order */
        for (uint32_t i = o->child_count; i-- > 0;)
            *(walk_item *)grow((void **)&stack, &sp, &cap, sizeof *stack) = (walk_item){ &o->children[i], owner };
    }
    xfree(stack);
}

/* ---- the whole map ------------------------------------------------------------------------ */

static void name_from_path(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(out, size, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = 0;
    char clean[512];
    snprintf(out, size, "%s", text_clean(out, clean, sizeof clean));
}

static void overview_camera(import_ctx *c)
{
    const level_def *l = c->level;
    v3 lo = v3_make(1e30, 1e30, 1e30), hi = v3_make(-1e30, -1e30, -1e30);
    for (size_t i = 0; i < l->brush_count; i++)
        for (int a = 0; a < 3; a++) {
            lo.e[a] = fmin(lo.e[a], l->brushes[i].lo.e[a]);
            hi.e[a] = fmax(hi.e[a], l->brushes[i].hi.e[a]);
        }
    if (!l->brush_count) lo = hi = v3_make(0, 0, 0);
    v3 centre = v3_scale(v3_add(lo, hi), 0.5), size = v3_sub(hi, lo);
    double r = fmax(1, sqrt(v3_dot(size, size)) * 0.6);
    /* from the +X +Z corner, above, looking down at the centre */
    v3 eye = v3_add(centre, v3_make(r * 0.6, r * 0.5, r * 0.6));
    v3 d = v3_normalize(v3_sub(centre, eye));
    add_camera(c, "overview", eye, atan2(-d.x, -d.z) * 180 / M_PI, asin(d.y) * 180 / M_PI);
}

bool rmf_import(const char *path, const rmf_import_desc *desc, map_def *map)
{
    rmf_map rmf;
    rmf_error rerr;
    if (!rmf_read_file(path, &rmf, &rerr)) {
        char line[1024];
        fprintf(stderr, "pmfc: %s\n", rmf_error_format(&rerr, path, line, sizeof line));
        return false;
    }
    import_ctx c = { .path = path, .desc = desc, .map = map, .rmf = &rmf };
    c.s = desc->scale > 0 ? desc->scale : RMF_DEFAULT_SCALE;
    name_from_path(path, map->name, sizeof map->name);
    snprintf(map->description, sizeof map->description, "Compiled from a Worldcraft/Hammer RMF %.1f map", (double)rmf.version);
    level_def *l = PUSH(map->levels, map->level_count, map->level_cap);
    c.level = l;
    snprintf(l->name, sizeof l->name, "world");
    l->chunk_exp = -1;
    l->luxel_density = 1.0 / (RMF_UNITS_PER_LUXEL * c.s);
    l->ambient[0] = l->ambient[1] = l->ambient[2] = RMF_AMBIENT;
    l->min_cube = RMF_MIN_CUBE;
    l->allow_empty = true;
    l->keep_origin = true;                       /* the Hammer origin is the world origin */

    rmf_open_wads(&c, kv_get(&rmf.world.entity, "wad"));
    rmf_read_texture_types(&c);

    const rmf_object **points = NULL;
    size_t point_count = 0;
    if (!c.failed) walk_objects(&c, &points, &point_count);
    for (size_t i = 0; i < point_count && !c.failed; i++) {
        const rmf_entity *e = &points[i]->entity;
        if (!(fabsf(e->origin[0]) <= RMF_COORD_LIMIT && fabsf(e->origin[1]) <= RMF_COORD_LIMIT && fabsf(e->origin[2]) <= RMF_COORD_LIMIT)) {
            import_fail(&c, "%s: entity %u, byte %zu: origin outside the editor's grid (+-%g units)", path, points[i]->index,
                        points[i]->offset, RMF_COORD_LIMIT);
            break;
        }
        const char *cls = e->classname ? e->classname : "";
        if (!strcasecmp(cls, "light")) import_light(&c, e, false);
        else if (!strcasecmp(cls, "light_spot")) import_light(&c, e, true);
        else if (!strcasecmp(cls, "light_environment")) import_sun(&c, e);
    }
    if (!c.failed) {
        import_player_starts(&c, "info_player_start", points, point_count);
        import_player_starts(&c, "info_player_deathmatch", points, point_count);
        for (uint32_t i = 0; i < rmf.camera_count && !c.failed; i++) {
            bool inside = true;
            for (int a = 0; a < 3; a++)
                inside = inside && fabsf(rmf.cameras[i].eye[a]) <= RMF_COORD_LIMIT && fabsf(rmf.cameras[i].look[a]) <= RMF_COORD_LIMIT;
            if (!inside) {
                import_fail(&c, "%s: docinfo camera %u: a position outside the editor's grid (+-%g units)", path, i, RMF_COORD_LIMIT);
                break;
            }
            v3 eye = to_world(&c, rmf.cameras[i].eye), look = to_world(&c, rmf.cameras[i].look);
            v3 d = v3_sub(look, eye);
            double len = sqrt(v3_dot(d, d));
            char name[32];
            snprintf(name, sizeof name, "camera %u", i + 1);
            if (len > 0) add_camera(&c, name, eye, atan2(-d.x, -d.z) * 180 / M_PI, asin(d.y / len) * 180 / M_PI);
            else add_camera(&c, name, eye, 0, 0);
        }
        /* smoothing and dirt: worldspawn keys as ericw-tools spells them */
        double phong = fmin(fmax(kv_number(&rmf.world.entity, "_phong_angle", RMF_PHONG_ANGLE), 0), 180);
        for (size_t i = 0; i < map->material_count; i++) map->materials[i].smooth_angle = phong;
        if (kv_number(&rmf.world.entity, "_dirt", 0) >= 1) {
            l->dirt_distance = (float)(fmin(fmax(kv_number(&rmf.world.entity, "_dirtdepth", RMF_DIRT_DEPTH_UNITS), 0), 4096) * c.s);
            l->dirt_strength = (float)fmin(fmax(kv_number(&rmf.world.entity, "_dirtscale", PMFC_DIRT_STRENGTH), 0), 1);
        }
        const char *skyname = kv_get(&rmf.world.entity, "skyname");
        rmf_import_sky(&c, skyname && *skyname ? skyname : "desert");
        if (!map->camera_count) overview_camera(&c);
    }
    level_cost cost = level_lightmap_cost(l);
    if (!c.failed && cost.luxels > PMFC_MAX_LEVEL_LUXELS)
        import_fail(&c, "%s: the map needs about %.3g lightmap luxels, more than pmfc bakes (%.3g; the largest, solid %d, needs %.3g)",
                    path, cost.luxels, PMFC_MAX_LEVEL_LUXELS, l->brushes[cost.largest].line, cost.largest_luxels);
    if (!c.failed && !l->brush_count && !desc->quiet)
        fprintf(stderr, "pmfc: warning: no solid of the map is drawn (each is hidden, a tool texture or a volume)\n");

    if (!c.failed)
        rmf_report_missing(&c);
    if (!c.failed && !desc->quiet)
        fprintf(stderr, "pmfc: RMF %.1f, %u solids, %u faces, %zu brushes drawn, %zu lights, %zu start cameras\n",
                (double)rmf.version, rmf.solid_count, rmf.face_count, l->brush_count, l->light_count, map->camera_count);
    xfree(points);
    rmf_materials_free(&c);
    rmf_free(&rmf);
    return !c.failed;
}
