/* editor_import.c - an editor map (editor.h) becomes pmfc's world model (conventions §5,
 * docs/rmf.md, docs/map.md): brushes with the editor's texture projection, the game's tool
 * textures, lights (editor_lights.c), start cameras, the point entities, the outside fill and its
 * leak (fill.c), and coarser luxels where the map would need more than pmfc bakes. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/session.h"
#include "base/text_clean.h"
#include "chunks/chunks.h"
#include "common/memory.h"
#include "csg/csg.h"
#include "editor_internal.h"
#include "fgd.h"
#include "fill/fill.h"
#include "pmf/pmf_map_info.h"

#define EDITOR_EYE_HEIGHT 28.0       /* units above a player start's origin */
#define EDITOR_AMBIENT 0.03f          /* Quake maps: a floor under their minlight */

#define EDITOR_PHONG_ANGLE 45.0      /* smoothing angle without worldspawn `_phong_angle` */
#define EDITOR_DIRT_DEPTH_UNITS 128.0 /* ambient occlusion's reach without `_dirtdepth` */
#define EDITOR_DIRT_SCALE 1.0         /* and its strength without `_dirtscale` (ericw-tools') */
#define EDITOR_UNITS_PER_LUXEL 16.0  /* Half-Life's and Quake's lightmap density */
#define HLRAD_PATCH_LUXELS 4         /* hlrad bounces light between patches of -chop 64 units: 4 luxels */
#define EDITOR_MIN_CUBE 0.0625       /* metres: detailed brushwork needs small cubes to fit */
#define EDITOR_COORD_LIMIT 32768.0   /* units: the largest editor grid (832 m at the default scale) */
/* hlcsg's tolerances: two planes whose normals differ by no more in each component, and their
 * distances by no more units, are one plane */
#define EDITOR_NORMAL_EPS 1e-5
#define EDITOR_DIST_EPS 0.01

/* ---- small helpers --------------------------------------------------------------------- */

void import_fail(import_ctx *c, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char clean[1024];
    session_say(PMFC_ERROR, "pmfc: %s", text_clean(msg, clean, sizeof clean));
    c->failed = true;
}

void editor_note_cut(import_ctx *c, const char *value, size_t keep, const editor_entity *e, const char *key)
{
    size_t len = strlen(value);
    if (len < keep) return;
    if (!c->cut_count++) {
        char entity[96] = "";
        if (e) snprintf(entity, sizeof entity, "entity %u (%.48s) ", e->index, e->classname);
        snprintf(c->cut_first, sizeof c->cut_first, "%s%s \"%.40s...\", %zu bytes", entity, key, value, len);
    }
}

void editor_copy_name(import_ctx *c, char *dst, size_t size, const char *value, const editor_entity *e, const char *key)
{
    snprintf(dst, size, "%s", value);
    editor_note_cut(c, value, size, e, key);
}

const char *editor_kv_get(const editor_entity *e, const char *key)
{
    for (uint32_t i = 0; i < e->kv_count; i++)
        if (!strcasecmp(e->kv[i].key, key)) return e->kv[i].value;
    return NULL;
}

double editor_kv_number(const editor_entity *e, const char *key, double fallback)
{
    const char *v = editor_kv_get(e, key);
    if (!v) return fallback;
    char *end;
    double d = strtod(v, &end);
    return end != v && isfinite(d) ? d : fallback;
}

int editor_kv_numbers(const editor_entity *e, const char *key, double *out, int n)
{
    const char *v = editor_kv_get(e, key);
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

void editor_map_group_brushes(editor_map *em)
{
    /* a counting sort by entity keeps each entity's brushes in the order they came */
    for (size_t i = 0; i < em->entity_count; i++) em->entities[i].brush_count = 0;
    for (size_t i = 0; i < em->brush_count; i++) em->entities[em->brushes[i].entity].brush_count++;
    uint32_t next = 0;
    for (size_t i = 0; i < em->entity_count; i++) {
        em->entities[i].first_brush = next;
        next += em->entities[i].brush_count;
    }
    editor_brush *sorted = xmalloc((em->brush_count ? em->brush_count : 1) * sizeof *sorted);
    uint32_t *fill = xcalloc(em->entity_count ? em->entity_count : 1, sizeof *fill);
    for (size_t i = 0; i < em->brush_count; i++) {
        const editor_entity *e = &em->entities[em->brushes[i].entity];
        sorted[e->first_brush + fill[em->brushes[i].entity]++] = em->brushes[i];
    }
    xfree(em->brushes);
    em->brushes = sorted;
    em->brush_cap = em->brush_count;
    xfree(fill);
}

void editor_map_free(editor_map *em)
{
    for (size_t i = 0; i < em->entity_count; i++) xfree(em->entities[i].kv);
    xfree(em->entities);
    xfree(em->brushes);
    xfree(em->faces);
    xfree(em->cameras);
    memset(em, 0, sizeof *em);
}

/* Where a brush is, for a message: "entity 3 (func_wall) brush 2, " then "line 40" (.map),
 * "solid 37, byte 1234" (RMF: the solid's number in the file) or "leaf 12" / "face 7" (BSP); k is its
 * number in its entity. */
static const char *brush_where(const import_ctx *c, const editor_brush *b, uint32_t k, char *buf, size_t size)
{
    const editor_entity *e = &c->em->entities[b->entity];
    int n = snprintf(buf, size, "entity %u (%.64s) brush %u, ", e->index, e->classname[0] ? e->classname : "no classname", k);
    if (n < 0 || (size_t)n >= size) return buf;
    if (c->em->format == EDITOR_FORMAT_RMF)
        snprintf(buf + n, size - n, "solid %u, byte %llu", b->index, (unsigned long long)b->offset);
    else if (c->em->format == EDITOR_FORMAT_BSP)
        snprintf(buf + n, size - n, "%s %u", b->exact ? "face" : "leaf", b->index);
    else
        snprintf(buf + n, size - n, "line %d", b->line);
    return buf;
}

const char *editor_entity_where(const import_ctx *c, const editor_entity *e, char *buf, size_t size)
{
    if (c->em->format == EDITOR_FORMAT_RMF)
        snprintf(buf, size, "entity %u, byte %llu", e->index, (unsigned long long)e->offset);
    else
        snprintf(buf, size, "entity %u, line %d", e->index, e->line);
    return buf;
}

/* ---- what a face shows (conventions §5, docs/map.md) ------------------------------------- */

static bool name_in(const char *name, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!strcasecmp(name, list[i])) return true;
    return false;
}

/* The texture's base name: Quake 2's and id Tech 3's paths ("e1u1/floor1_3") end in it. */
static const char *base_name(const char *texture)
{
    const char *slash = strrchr(texture, '/');
    return slash ? slash + 1 : texture;
}

static bool is_tool_texture(editor_game game, const char *texture)
{
    static const char *const goldsrc[] = { "clip", "null", "origin", "aaatrigger", "hint", "skip", "bevel", "solidhint",
                                           "boundingbox", "clipbevel", "cliphull1", "cliphull2", "cliphull3", "splitface" };
    static const char *const quake[] = { "clip", "skip", "hint", "hintskip", "trigger", "origin", "null", "nodraw",
                                         "*trigger", "waterskip", "slimeskip", "lavaskip", "aaatrigger", "noclip" };
    const char *name = base_name(texture);
    if (game == EDITOR_GAME_GOLDSRC) return name_in(name, goldsrc, sizeof goldsrc / sizeof goldsrc[0]);
    return name_in(name, quake, sizeof quake / sizeof quake[0]);
}

/* Tool textures of faces that draw nothing on a brush that is still solid, sealing the map and
 * hiding what it covers: ZHLT's NULL, Quake's skip / nodraw / null. */
static bool is_solid_tool_texture(editor_game game, const char *texture)
{
    static const char *const goldsrc[] = { "null" };
    static const char *const quake[] = { "skip", "nodraw", "null" };
    const char *name = base_name(texture);
    if (game == EDITOR_GAME_GOLDSRC) return name_in(name, goldsrc, sizeof goldsrc / sizeof goldsrc[0]);
    return name_in(name, quake, sizeof quake / sizeof quake[0]);
}

static bool is_sky_texture(editor_game game, const editor_face *f)
{
    const char *name = base_name(f->texture);
    if (game == EDITOR_GAME_QUAKE2) return (f->flags & EDITOR_SURF_SKY) != 0;
    if (game == EDITOR_GAME_QUAKE) return !strncasecmp(name, "sky", 3);
    return !strcasecmp(name, "sky");
}

/* Quake 2 faces that draw nothing: tool flags and clip contents. */
static bool q2_nodraw(const editor_face *f)
{
    return (f->flags & (EDITOR_SURF_NODRAW | EDITOR_SURF_HINT | EDITOR_SURF_SKIP))
        || (f->contents & (EDITOR_CONTENTS_PLAYERCLIP | EDITOR_CONTENTS_MONSTERCLIP | EDITOR_CONTENTS_ORIGIN));
}

/* Brush entities that are volumes only: none of their faces is drawn. */
static bool is_volume_class(const char *cls)
{
    static const char *const volumes[] = { "func_ladder", "func_buyzone", "func_bomb_target", "func_hostage_rescue",
                                           "func_vip_safetyzone", "func_escapezone", "func_clip", "func_areaportal" };
    if (!strncasecmp(cls, "trigger_", 8)) return true;
    return name_in(cls, volumes, sizeof volumes / sizeof volumes[0]);
}

/* Brush entities the compilers merge into the world (TrenchBroom's groups and layers, detail):
 * their brushes are the world's, drawn, lit and shadowing as its own. */
static bool is_world_class(const char *cls)
{
    return !strcasecmp(cls, "func_group") || !strncasecmp(cls, "func_detail", 11);
}

/* Whether the brushes of an entity (the world: owner NULL) seal the map against the void: the
 * world's and its groups'. Quake's qbsp lets the void through detail (func_detail and its
 * _illusionary, _wall, _fence kin) as through any brush entity; hlbsp seals with func_detail. */
static bool is_sealing_class(editor_game game, const editor_entity *owner)
{
    if (!owner) return true;
    if (!strncasecmp(owner->classname, "func_detail", 11)) return game == EDITOR_GAME_GOLDSRC;
    return is_world_class(owner->classname);
}

/* ---- brushes ----------------------------------------------------------------------------- */

/* Quake's texture axes for a plane (TextureAxisFromPlane), rotated by `angle` degrees: what
 * Quake's standard .map and RMF before 2.2 mean, as they store no axes. */
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

/* The editors' projection, u = (p . U / scale_u + shift_u) / width with p in units, written for p
 * in world metres: p_units . U = p_world . (U.x, U.z, -U.y) / s. */
static tex_proj editor_projection(const import_ctx *c, const editor_face *f, const editor_texture *t)
{
    v3 u, v;
    if (f->has_axes) {
        u = v3_make(f->u_axis[0], f->u_axis[1], f->u_axis[2]);
        v = v3_make(f->v_axis[0], f->v_axis[1], f->v_axis[2]);
    } else {
        quake_axes(v3_make(f->normal[0], f->normal[1], f->normal[2]), f->rotation, &u, &v);
    }
    double su = f->scale[0] != 0 && isfinite(f->scale[0]) ? f->scale[0] : 1;
    double sv = f->scale[1] != 0 && isfinite(f->scale[1]) ? f->scale[1] : 1;
    tex_proj tp;
    tp.u = v3_scale(editor_dir_to_world(u), 1.0 / (c->s * su * t->width));
    tp.v = v3_scale(editor_dir_to_world(v), 1.0 / (c->s * sv * t->height));
    tp.ou = f->shift[0] / t->width;
    tp.ov = f->shift[1] / t->height;
    return tp;
}

/* Whether two outward planes are one plane, the same way (same = true) or facing each other:
 * hlcsg's and qbsp's tolerances. */
static bool same_plane(const editor_face *a, const editor_face *b, bool same)
{
    double sign = same ? 1 : -1;
    for (int k = 0; k < 3; k++)
        if (fabs(a->normal[k] - sign * b->normal[k]) > EDITOR_NORMAL_EPS) return false;
    return fabs(a->dist - sign * b->dist) <= EDITOR_DIST_EPS;
}

/* Why a brush cannot be a solid, or NULL (docs/map.md "Bad brushes"): too few or too many planes,
 * a plane or (RMF) a vertex outside the editor's grid, (RMF) a face turned into the solid, two
 * faces on one plane. A BSP's leaves
 * repeat their nodes' planes: only an editor's brush is held to the last rule. */
static const char *brush_fault(const import_ctx *c, const editor_brush *b, char *why, size_t size)
{
    if (b->face_count < 4) {
        snprintf(why, size, "%u plane(s), fewer than the 4 that enclose a solid", b->face_count);
        return why;
    }
    /* a face's polygon starts as a square cut by every other side: it must fit a poly */
    if (b->face_count > POLY_MAX - 4) {
        snprintf(why, size, "%u faces, more than the %d one brush may have", b->face_count, POLY_MAX - 4);
        return why;
    }
    const editor_face *faces = &c->em->faces[b->first_face];
    for (uint32_t i = 0; i < b->face_count; i++) {
        bool finite = isfinite(faces[i].dist) && fabs(faces[i].dist) <= EDITOR_COORD_LIMIT * 2;
        for (int a = 0; a < 3; a++) finite = finite && isfinite(faces[i].normal[a]);
        if (!finite) {
            snprintf(why, size, "face %u's plane lies %g units from the origin, outside the editor's grid (+-%g units)",
                     faces[i].index, faces[i].dist, EDITOR_COORD_LIMIT);
            return why;
        }
    }
    for (int a = 0; a < 3 && b->has_bounds; a++)
        if (!(fabs(b->lo[a]) <= EDITOR_COORD_LIMIT && fabs(b->hi[a]) <= EDITOR_COORD_LIMIT)) {
            snprintf(why, size, "a vertex at %g units, outside the editor's grid (+-%g units)",
                     fabs(b->lo[a]) > EDITOR_COORD_LIMIT ? b->lo[a] : b->hi[a], EDITOR_COORD_LIMIT);
            return why;
        }
    if (b->inward) {
        snprintf(why, size, "face %u's plane points wind into the solid its vertices draw", b->inward_face);
        return why;
    }
    if (c->em->format == EDITOR_FORMAT_BSP) return NULL;
    for (uint32_t i = 0; i < b->face_count; i++)
        for (uint32_t j = i + 1; j < b->face_count; j++) {
            if (same_plane(&faces[i], &faces[j], true)) {
                snprintf(why, size, "faces %u and %u lie on the same plane", faces[i].index, faces[j].index);
                return why;
            }
            if (same_plane(&faces[i], &faces[j], false)) {
                snprintf(why, size, "faces %u and %u lie on the same plane facing each other: it has no thickness",
                         faces[i].index, faces[j].index);
                return why;
            }
        }
    return NULL;
}

/* A bad brush costs that brush, not the map: one warning, as hlcsg and qbsp give. */
static void drop_brush(const import_ctx *c, const editor_brush *b, uint32_t k, const char *why)
{
    if (c->desc->quiet) return;
    char where[192], line[1024], clean[1536];
    snprintf(line, sizeof line, "%s: %s: %s: brush left out", c->path, brush_where(c, b, k, where, sizeof where), why);
    session_say(PMFC_WARNING, "pmfc: warning: %s", text_clean(line, clean, sizeof clean));
}

/* Whether a brush entity's brushes block light: hlrad's and light's lights pass through every
 * model but the world unless it asks to cast shadows, `zhlt_lightflags` with 2 (opaque) in
 * GoldSrc, `_shadow 1` in Quake. */
static bool casts_shadow(const import_ctx *c, const editor_entity *owner)
{
    if (c->em->game == EDITOR_GAME_GOLDSRC) {
        const char *flags = editor_kv_get(owner, "zhlt_lightflags");
        return flags && (atoi(flags) & 2);
    }
    const char *shadow = editor_kv_get(owner, "_shadow");
    return shadow && atoi(shadow) != 0;
}

/* Brush k of an entity (the world: owner NULL). */
static void import_brush(import_ctx *c, const editor_brush *eb, uint32_t k, const editor_entity *owner)
{
    char why[192];
    if (brush_fault(c, eb, why, sizeof why)) {
        drop_brush(c, eb, k, why);
        c->level->faces.lost[FACE_LOSS_BAD_BRUSH] += eb->face_count;
        return;
    }
    const char *cls = owner ? owner->classname : "";
    bool volume = is_volume_class(cls);
    render_look look = editor_entity_look(owner);
    v3 lo, hi;
    if (eb->has_bounds) {
        lo = editor_to_world(c, eb->lo);
        hi = editor_to_world(c, eb->hi);
        for (int a = 0; a < 3; a++) {
            double l = fmin(lo.e[a], hi.e[a]), h = fmax(lo.e[a], hi.e[a]);
            lo.e[a] = l;
            hi.e[a] = h;
        }
    } else {
        double limit = EDITOR_COORD_LIMIT * c->s;
        lo = v3_make(-limit, -limit, -limit);
        hi = v3_make(limit, limit, limit);
    }
    level_def *l = c->level;
    /* the planes first: a brush that is no solid is left out before it loads any texture */
    brush *b = brush_begin(l, BRUSH_CONVEX, lo, hi);
    for (uint32_t i = 0; i < eb->face_count; i++) {
        const editor_face *f = &c->em->faces[eb->first_face + i];
        v3 n = v3_make(f->normal[0], f->normal[1], f->normal[2]);
        v3 wn = editor_dir_to_world(n);
        double p0[3] = { n.x * f->dist, n.y * f->dist, n.z * f->dist };
        brush_add_side(l, b, (plane){ wn, v3_dot(wn, editor_to_world(c, p0)) }, BRUSH_SIDE_NODRAW, -1);
    }
    b->line = c->em->format == EDITOR_FORMAT_RMF ? (int)eb->index : eb->line;
    if (!brush_finish(l, b)) {
        /* a BSP's leaves may be slivers its compiler kept: only an editor's brush is said */
        if (c->em->format != EDITOR_FORMAT_BSP) drop_brush(c, eb, k, "its planes enclose nothing (an empty solid)");
        l->faces.lost[FACE_LOSS_BAD_BRUSH] += eb->face_count;
        return;
    }
    double limit = EDITOR_COORD_LIMIT * c->s;
    for (int a = 0; a < 3; a++)
        if (!(b->lo.e[a] >= -limit && b->hi.e[a] <= limit)) {
            /* in-range points on planes that enclose something far larger: a damaged brush */
            snprintf(why, sizeof why, "its planes enclose a solid reaching outside the editor's grid (+-%g units)",
                     EDITOR_COORD_LIMIT);
            drop_brush(c, eb, k, why);
            l->faces.lost[FACE_LOSS_BAD_BRUSH] += eb->face_count;
            l->side_count = b->first_side;
            l->brush_count--;
            return;
        }
    /* what each side shows (the brush stays the level's last: textures and materials leave it) */
    bool drawn = false, sky = false, liquid = false, solid_tool = false;
    uint64_t lost[FACE_LOSS_COUNT] = { 0 };
    for (uint32_t i = 0; i < eb->face_count && !c->failed; i++) {
        const editor_face *f = &c->em->faces[eb->first_face + i];
        solid_tool = solid_tool || is_solid_tool_texture(c->em->game, f->texture);
        brush_side *side = &brush_sides(l, b)[i];
        if (is_sky_texture(c->em->game, f)) {
            side->material = BRUSH_SIDE_SKY;
            sky = true;
            lost[FACE_LOSS_SKY]++;
        } else if (volume) {
            lost[FACE_LOSS_VOLUME]++;
        } else if (is_tool_texture(c->em->game, f->texture) || (c->em->game == EDITOR_GAME_QUAKE2 && q2_nodraw(f))) {
            lost[FACE_LOSS_TOOL]++;
        } else {
            int t = editor_use_texture(c, f->texture);
            if (t < 0) return;
            render_look face_look = look;
            if (c->em->game == EDITOR_GAME_QUAKE2) {
                /* Quake 2's surface flags say what the texture name does elsewhere */
                if (f->contents & (EDITOR_CONTENTS_WATER | EDITOR_CONTENTS_SLIME | EDITOR_CONTENTS_LAVA)) face_look.liquid = true;
                if (f->flags & (EDITOR_SURF_TRANS33 | EDITOR_SURF_TRANS66)) {
                    face_look.mode = 2;
                    face_look.amount = f->flags & EDITOR_SURF_TRANS33 ? 85 : 170;
                }
            }
            side->material = editor_material(c, t, face_look);
            liquid = liquid || (c->map->materials[side->material].flags & PMF_MATERIAL_LIQUID);
            tex_proj *tp = PUSH(l->tex_projs, l->tex_proj_count, l->tex_proj_cap);
            *tp = editor_projection(c, f, &c->textures[t]);
            side->tex = (int)(l->tex_proj_count - 1);
            drawn = true;
        }
    }
    bool world = !owner || is_world_class(cls);
    if (!drawn && !sky && !(solid_tool && world && !volume)) {
        /* clip, trigger, hint...: nothing drawn, and it hides nothing (a world brush of NULL or
         * skip draws nothing too, but is solid: it seals the map and hides what it covers) */
        l->side_count = b->first_side;
        l->brush_count--;
        for (int k = 0; k < FACE_LOSS_COUNT; k++) l->faces.lost[k] += lost[k];
        return;
    }
    /* world brushes are solid; brush entities are separate models in the games: they hide no
     * world face (a door keeps the frame's faces) */
    b->opaque = world;
    b->shadowless = !world && !casts_shadow(c, owner);
    editor_brush_minlight(c, owner, b->minlight);
    b->exact = eb->exact;
    for (uint32_t i = 0; i < b->side_count && b->opaque; i++) {
        int m = brush_sides(l, b)[i].material;
        if (m >= 0 && !material_opaque(&c->map->materials[m])) b->opaque = false;
    }
    /* what seals the map against the void: solid brushes of the world and its groups, and the
     * sky (the sky is outside) */
    bool *seal = grow((void **)&c->seals, &c->seal_count, &c->seal_cap, sizeof *c->seals);
    *seal = (is_sealing_class(c->em->game, owner) && !liquid) || sky;
    for (int k = 0; k < FACE_LOSS_COUNT; k++) l->faces.lost[k] += lost[k];
}

/* ---- point entities ------------------------------------------------------------------------ */

/* Classes that place a player (docs/rmf.md "Start cameras"): Half-Life and its mods', Quake's,
 * Quake 2's and Quake 3's spawn points and team spawns, under any mod's prefix. */
bool editor_places_player(const char *cls)
{
    static const char *const suffixes[] = { "_player_start", "_player_spawn", "_player_begin", "_playerstart",
                                            "_playerspawn", "_player_deathmatch", "_player_coop", "_teamspawn",
                                            "_team_spawn", "_spawnpoint", "_spawn_point" };
    static const char *const exact[] = { "info_vip_start", "info_team_start", "info_ctfspawn", "info_tfdetect_spawn",
                                         "team_ctf_redplayer", "team_ctf_blueplayer", "team_ctf_redspawn",
                                         "team_ctf_bluespawn", "testplayerstart", "info_survivor_position" };
    if (!strncasecmp(cls, "info_player_", 12) && cls[12]) return strcasecmp(cls, "info_player_intermission") != 0;
    size_t len = strlen(cls);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && !strcasecmp(cls + len - n, suffixes[i])) return true;
    }
    return name_in(cls, exact, sizeof exact / sizeof exact[0]);
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

/* A map with no inside at all (a prefab, a lone brush): a camera standing back from its brushes,
 * looking down at their centre from in front (yaw 0 looks along -Z), so they are what is seen. */
static void add_overview_camera(import_ctx *c)
{
    const level_def *l = c->level;
    if (!l->brush_count) {
        add_camera(c, "origin", v3_make(0, EDITOR_EYE_HEIGHT * c->s, 0), 0, 0);
        return;
    }
    v3 lo = l->brushes[0].lo, hi = l->brushes[0].hi;
    for (size_t i = 1; i < l->brush_count; i++) {
        for (int a = 0; a < 3; a++) {
            lo.e[a] = fmin(lo.e[a], l->brushes[i].lo.e[a]);
            hi.e[a] = fmax(hi.e[a], l->brushes[i].hi.e[a]);
        }
    }
    v3 centre = v3_scale(v3_add(lo, hi), 0.5), size = v3_sub(hi, lo);
    double reach = fmax(fmax(size.x, size.y), size.z);
    v3 eye = v3_make(centre.x, hi.y + reach * 0.35, hi.z + reach * 0.9);
    double pitch = -atan2(eye.y - centre.y, eye.z - centre.z) * 180 / M_PI;
    add_camera(c, "overview", eye, 0, pitch);
}

/* The player starts: info_player_start first, then every other class that places a player, each
 * group in file order; the eye 28 units over the origin, lowered to the origin when that point is
 * inside a solid (a low ceiling). */
static void import_player_starts(import_ctx *c, const fill_grid *fill)
{
    uint32_t numbers[2] = { 0, 0 };
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 1; i < c->em->entity_count; i++) {
            const editor_entity *e = &c->em->entities[i];
            bool start = !strcasecmp(e->classname, "info_player_start");
            if (!e->point || start != (pass == 0) || (!start && !editor_places_player(e->classname))) continue;
            double angles[3] = { 0, 0, 0 };
            editor_kv_numbers(e, "angles", angles, 3);
            double yaw = editor_kv_get(e, "angle") ? editor_kv_number(e, "angle", 0) : angles[1];
            double eye[3] = { e->origin[0], e->origin[1], e->origin[2] + EDITOR_EYE_HEIGHT };
            v3 pos = editor_to_world(c, eye);
            if (fill && fill_point_solid(fill, pos) && !fill_point_solid(fill, editor_to_world(c, e->origin)))
                pos = editor_to_world(c, e->origin);
            char name[PMFC_NAME_MAX];
            const char *target = editor_kv_get(e, "targetname");
            if (target && *target) snprintf(name, sizeof name, "%s", target);
            else snprintf(name, sizeof name, "%s %u", e->classname, ++numbers[pass]);
            add_camera(c, name, pos, remainder(yaw - 90, 360), 0);
        }
}

static void import_docinfo_cameras(import_ctx *c)
{
    for (size_t i = 0; i < c->em->camera_count && !c->failed; i++) {
        const editor_camera *cam = &c->em->cameras[i];
        bool inside = true;
        for (int a = 0; a < 3; a++)
            inside = inside && fabs(cam->eye[a]) <= EDITOR_COORD_LIMIT && fabs(cam->look[a]) <= EDITOR_COORD_LIMIT;
        if (!inside) {
            import_fail(c, "%s: docinfo camera %zu: a position outside the editor's grid (+-%g units)", c->path, i,
                        EDITOR_COORD_LIMIT);
            return;
        }
        v3 eye = editor_to_world(c, cam->eye), look = editor_to_world(c, cam->look);
        v3 d = v3_sub(look, eye);
        double len = sqrt(v3_dot(d, d));
        char name[32];
        snprintf(name, sizeof name, "camera %zu", i + 1);
        if (len > 0) add_camera(c, name, eye, atan2(-d.x, -d.z) * 180 / M_PI, asin(d.y / len) * 180 / M_PI);
        else add_camera(c, name, eye, 0, 0);
    }
}

/* The point entities, for the viewer (pmfview.entities) and the fill: only they stand in space. A
 * group with no brush (TrenchBroom writes an empty group or layer as a func_group without origin)
 * is a brush entity, placed nowhere: the void reaches no such thing. */
static void import_entities(import_ctx *c, fill_point **points, size_t *count)
{
    size_t cap = 0;
    fgd *defs = editor_entity_definitions(c);
    for (size_t i = 1; i < c->em->entity_count && !c->failed; i++) {
        const editor_entity *e = &c->em->entities[i];
        if (!e->point || is_world_class(e->classname)) continue;
        map_entity *me = PUSH(c->map->entities, c->map->entity_count, c->map->entity_cap);
        me->pos = editor_to_world(c, e->origin);
        editor_copy_name(c, me->classname, sizeof me->classname, e->classname, e, "classname");
        const char *target = editor_kv_get(e, "targetname");
        editor_copy_name(c, me->targetname, sizeof me->targetname, target ? target : "", e, "targetname");
        editor_entity_placement(c, defs, e, me);
        fill_point *p = grow((void **)points, count, &cap, sizeof **points);
        p->pos = me->pos;
        p->classname = e->classname;
    }
    fgd_free(defs);
}

/* ---- the outside fill ---------------------------------------------------------------------- */

/* Floods the void around the map: a leak keeps every face and is said once (pmfview.leak keeps
 * the way in); a sealed map loses the faces only the void sees. As in qbsp and hlbsp, no entity
 * in empty space (none at all, or each inside a solid brush) fills nothing and keeps every face,
 * said once when the map encloses space. No player start: a camera inside. A BSP keeps every
 * face, and one its compiler sealed leaks nowhere (docs/bsp.md). */
static fill_grid *outside_fill(import_ctx *c, const fill_point *points, size_t count)
{
    level_def *l = c->level;
    fill_grid *g = fill_build(&(fill_desc){ .level = l, .seals = c->seals, .entities = points, .entity_count = count,
                                            .units = c->s });
    if (!g) return NULL;
    /* a compiled map's faces are the ones its compiler kept, and its compiler's verdict stands */
    bool compiled = c->em->format == EDITOR_FORMAT_BSP;
    if (compiled && c->em->sealed) return g;
    fill_leak_info leak;
    if (!fill_occupied(g)) {
        /* said where the fill would have taken something (a map enclosing empty space), even
         * with --quiet: what is kept is not what a sealed map shows */
        if (fill_sealed(g))
            session_say(PMFC_WARNING, "pmfc: warning: no entities in empty space -- no filling performed (%s): every face is kept",
                    count ? "each point entity stands inside a solid brush" : "the map has no point entity");
    } else if (fill_leak(g, &leak)) {
        const fill_point *e = &points[leak.entity];
        double u[3] = { e->pos.x / c->s, -e->pos.z / c->s, e->pos.y / c->s }; /* back in editor units */
        char cls[PMFC_NAME_MAX * 4];
        if (!c->desc->quiet)
            session_say(PMFC_WARNING, "pmfc: warning: leak: the void reaches %s at %g %g %g", text_clean(e->classname, cls, sizeof cls),
                    round(u[0]), round(u[1]), round(u[2]));
        c->map->leak = true;
        snprintf(c->map->leak_class, sizeof c->map->leak_class, "%s", e->classname);
        c->map->leak_points = leak.points;
        c->map->leak_point_count = leak.point_count;
    } else if (fill_sealed(g) && !compiled) {
        l->fill = g;
    }
    return g;
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

static const char *game_name(editor_game game)
{
    return game == EDITOR_GAME_GOLDSRC ? "GoldSrc" : game == EDITOR_GAME_QUAKE ? "Quake" : "Quake 2";
}

/* The source's format with its game, named once: "GoldSrc RMF 2.2", "Quake .map (standard)",
 * "Quake 2 .map", "GoldSrc BSP v30" (a BSP's label names its game). */
static const char *source_name(const editor_map *em, char *buf, size_t size)
{
    const char *game = game_name(em->game);
    switch (em->format) {
    case EDITOR_FORMAT_RMF: snprintf(buf, size, "%s RMF %.1f", game, (double)em->version); break;
    case EDITOR_FORMAT_MAP_STANDARD: snprintf(buf, size, "%s .map (standard)", game); break;
    case EDITOR_FORMAT_MAP_VALVE: snprintf(buf, size, "%s .map (Valve 220)", game); break;
    case EDITOR_FORMAT_MAP_QUAKE2:
        snprintf(buf, size, em->game == EDITOR_GAME_QUAKE2 ? "%s .map" : "%s .map (Quake 2)", game);
        break;
    case EDITOR_FORMAT_BSP: snprintf(buf, size, "%s", em->format_label ? em->format_label : "BSP"); break;
    }
    return buf;
}

/* How the level stores and bounces light: hlrad's way for GoldSrc, ericw-tools' for Quake. */
static void level_light_storage(const editor_map *em, level_def *l)
{
    if (em->game == EDITOR_GAME_GOLDSRC) {
        /* hlrad's storage: no ambient term, its light x 2 through gamma 0.5 (docs/pmfc-lighting.md) */
        l->store_scale = PMF_HLRAD_STORE_SCALE;
        l->store_gamma = PMF_HLRAD_STORE_GAMMA;
        l->bounce_no_sky_loss = true;
        l->bounce_cell = HLRAD_PATCH_LUXELS;
    } else {
        l->ambient[0] = l->ambient[1] = l->ambient[2] = EDITOR_AMBIENT;
        l->liquids_two_sided = true;    /* ericw-tools lights a liquid from both sides, without dirt */
        /* ericw-tools' bounce: every face reflects grey 127 / 255 of its mean light, spread as
         * value x area x cos x cos' / d^2 at half `_bouncescale`; against a diffuse surface's
         * cos x cos' / (pi d^2), that is a reflectivity of 127 / 255 x 0.5 x pi */
        double bounce_scale = fmin(fmax(editor_kv_number(&em->entities[0], "_bouncescale", 1), 0), 4);
        if (em->game == EDITOR_GAME_QUAKE) l->bounce_albedo = (float)fmin(127.0 / 255.0 * 0.5 * M_PI * bounce_scale, 1);
    }
}

/* The import's summary line: what the source held and what is drawn. */
static void report_import(const import_ctx *c, const char *format)
{
    const editor_map *em = c->em;
    const level_def *l = c->level;
    const map_def *map = c->map;
    if (em->format == EDITOR_FORMAT_RMF) {
        session_say(PMFC_NOTE, "pmfc: RMF %.1f, %u solids, %u faces, %zu brushes drawn, %zu lights, %zu start cameras",
                (double)em->version, em->source_solids, em->source_faces, l->brush_count, l->light_count, map->camera_count);
    } else if (em->format == EDITOR_FORMAT_BSP) {
        size_t drawn = 0;   /* the faces drawn, a brush each (brush.exact) */
        for (size_t i = 0; i < l->brush_count; i++)
            drawn += l->brushes[i].exact && l->brushes[i].side_count && l->sides[l->brushes[i].first_side].material >= 0;
        session_say(PMFC_NOTE, "pmfc: %s, %u faces, %zu drawn, %u solid leaves, %zu lights, %zu start cameras", format,
                em->source_faces, drawn, em->source_solids, l->light_count, map->camera_count);
    } else {
        session_say(PMFC_NOTE, "pmfc: %s, %u brushes, %u faces, %zu brushes drawn, %zu lights, %zu start cameras", format,
                em->source_solids, em->source_faces, l->brush_count, l->light_count, map->camera_count);
    }
}

bool editor_import(const char *path, const editor_map *em, const editor_import_desc *desc, map_def *map)
{
    import_ctx c = { .path = path, .desc = desc, .map = map, .em = em };
    c.s = desc->scale > 0 ? desc->scale : EDITOR_DEFAULT_SCALE;
    const editor_entity *world = &em->entities[0];
    char format[64];
    name_from_path(path, map->name, sizeof map->name);
    source_name(em, format, sizeof format);
    snprintf(map->description, sizeof map->description, "Compiled from a %s%s", format, strstr(format, ".map") ? "" : " map");
    snprintf(map->source_format, sizeof map->source_format, "%s", format);
    map->look = em->game == EDITOR_GAME_GOLDSRC ? PMF_LOOK_GOLDSRC : PMF_LOOK_QUAKE;
    level_def *l = PUSH(map->levels, map->level_count, map->level_cap);
    c.level = l;
    snprintf(l->name, sizeof l->name, "world");
    l->chunk_exp = -1;
    l->luxel_density = 1.0 / (EDITOR_UNITS_PER_LUXEL * c.s);
    level_light_storage(em, l);
    l->sky_faces_only = true;                    /* hlrad and light: the sky shines in through sky brushes */
    l->min_cube = EDITOR_MIN_CUBE;
    l->allow_empty = true;
    l->faces.source = em->source_faces;
    for (int k = 0; k < FACE_LOSS_COUNT; k++) l->faces.lost[k] = em->lost_faces[k];
    l->keep_origin = true;                       /* the editor's origin is the world origin */

    const char *wad_key = editor_kv_get(world, "wad");
    if (!wad_key) wad_key = editor_kv_get(world, "_wad");
    editor_open_textures(&c, wad_key);
    editor_read_texture_types(&c);

    for (size_t i = 0; i < em->entity_count && !c.failed; i++) {
        const editor_entity *e = &em->entities[i];
        for (uint32_t k = 0; k < e->brush_count && !c.failed; k++)
            import_brush(&c, &em->brushes[e->first_brush + k], k, i ? e : NULL);
    }
    fill_point *points = NULL;
    size_t point_count = 0;
    for (size_t i = 1; i < em->entity_count && !c.failed; i++) {
        const editor_entity *e = &em->entities[i];
        char where[96];
        if (e->point && !(fabs(e->origin[0]) <= EDITOR_COORD_LIMIT && fabs(e->origin[1]) <= EDITOR_COORD_LIMIT
                          && fabs(e->origin[2]) <= EDITOR_COORD_LIMIT))
            import_fail(&c, "%s: %s: origin outside the editor's grid (+-%g units)", path, editor_entity_where(&c, e, where, sizeof where),
                        EDITOR_COORD_LIMIT);
    }
    if (!c.failed) {
        import_entities(&c, &points, &point_count);
        editor_import_lights(&c);
    }
    if (!c.failed) {
        fill_grid *fill = outside_fill(&c, points, point_count);
        import_player_starts(&c, fill);
        import_docinfo_cameras(&c);
        v3 pos;
        double yaw;
        if (!c.failed && !map->camera_count) {
            if (fill && fill_camera(fill, EDITOR_EYE_HEIGHT * c.s, &pos, &yaw)) add_camera(&c, "inside", pos, yaw, 0);
            else add_overview_camera(&c);
        }
        if (fill != l->fill) fill_free(fill);
        /* smoothing and dirt: worldspawn keys as ericw-tools spells them */
        double phong = fmin(fmax(editor_kv_number(world, "_phong_angle", EDITOR_PHONG_ANGLE), 0), 180);
        for (size_t i = 0; i < map->material_count; i++) map->materials[i].smooth_angle = phong;
        /* ericw-tools' -dirt 1 (pmfc --dirt on a Quake map): its depth and full scale */
        double dirt_scale = em->game == EDITOR_GAME_GOLDSRC ? PMFC_DIRT_STRENGTH : EDITOR_DIRT_SCALE;
        double dirt_depth = fmin(fmax(editor_kv_number(world, "_dirtdepth", EDITOR_DIRT_DEPTH_UNITS), 0), 4096) * c.s;
        dirt_scale = fmin(fmax(editor_kv_number(world, "_dirtscale", dirt_scale), 0), 1);
        if (c.dirt_on) {
            l->dirt_distance = (float)dirt_depth;
            l->dirt_strength = (float)dirt_scale;
        }
        if (em->game != EDITOR_GAME_GOLDSRC) {
            l->dirt_flag_distance = (float)dirt_depth;
            l->dirt_flag_strength = (float)dirt_scale;
        }
        const char *skyname = editor_kv_get(world, "skyname");
        if (!skyname) skyname = editor_kv_get(world, "sky");
        editor_import_sky(&c, skyname && *skyname ? skyname : "desert");
    }
    if (!c.failed) editor_import_texture_lights(&c);
    if (!c.failed && !l->light_count && !level_sky_lit(l) && !em->prelit) {
        /* no light: shown fullbright, as the games show a map compiled without light */
        l->fullbright = true;
        if (!desc->quiet) session_say(PMFC_NOTE, "pmfc: note: no lights: fullbright");
    }
    if (!c.failed && !l->fullbright) {
        double limit = desc->max_luxels > 0 ? desc->max_luxels : PMFC_MAX_LEVEL_LUXELS;
        level_fit fit = level_fit_luxels(l, limit);
        if (fit.faces && !desc->quiet)
            session_say(PMFC_WARNING, "pmfc: warning: the map needs more lightmap luxels than pmfc bakes (%.3g): %zu faces get coarser luxels, the coarsest %g units apart",
                    limit, fit.faces, EDITOR_UNITS_PER_LUXEL * fit.coarsest);
    }
    if (!c.failed && !em->source_faces && !desc->quiet)
        session_say(PMFC_WARNING, "pmfc: warning: the map has no brush: its level is empty (entities only)");
    if (!c.failed)
        editor_report_missing(&c);
    if (!c.failed && c.cut_count && !desc->quiet) {
        char clean[sizeof c.cut_first * 4];
        session_say(PMFC_WARNING, "pmfc: warning: %zu name(s) longer than the %d bytes a compiled map keeps, cut short; the first: %s",
                c.cut_count, PMFC_NAME_MAX - 1, text_clean(c.cut_first, clean, sizeof clean));
    }
    if (!c.failed && !desc->quiet) report_import(&c, format);
    xfree(points);
    xfree(c.seals);
    editor_materials_free(&c);
    return !c.failed;
}
