/* parse.c - the .pms source format (docs/pmfc.md): one statement per line, `#` comments,
 * "quoted strings", blocks opened by a trailing `{` and closed by a line `}`. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "common/session.h"
#include "chunks/chunks.h"
#include "common/memory.h"
#include "common/texture.h"
#include "common/world.h"
#include "csg/csg.h"
#include "pms.h"
#include "pmf_os.h"
#include "text_clean.h"

#define PMFC_MAX_SOURCE_BYTES (64 << 20)
#define PMFC_MAX_TEXELS (4.0 * 4096 * 4096) /* 256 MiB of RGBA: memory stays bounded by this, not by the source */
#define PMFC_MAX_NUMBER 1e10           /* no quantity of a source comes near: 1e38 is a typo or an attack */

#define MAX_TOKENS 128

enum { SCOPE_TOP, SCOPE_MATERIAL, SCOPE_LEVEL, SCOPE_SKY };

typedef struct parser {
    const char *path;
    char dir[PMFC_PATH_MAX];
    int line;
    map_def *map;
    int scope;
    material_def *material;
    level_def *level;
    sky_def *sky;
    char *tok[MAX_TOKENS];
    int ntok, pos;
    double texels;                       /* of every texture so far */
    bool failed;
} parser;

static void perr(parser *p, const char *fmt, ...)
{
    if (p->failed) return;
    char raw[1024];
    int n = snprintf(raw, sizeof raw, "%s:%d: ", p->path, p->line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
    va_end(ap);
    /* messages quote the source's words: no control byte of theirs reaches the terminal */
    char clean[4 * sizeof raw];
    session_say(PMFC_ERROR, "%s", text_clean(raw, clean, sizeof clean));
    p->failed = true;
}

/* Splits a line into tokens in place. */
static bool tokenize(parser *p, char *s)
{
    p->ntok = 0;
    p->pos = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
        if (!*s || *s == '#') break;
        if (p->ntok == MAX_TOKENS) {
            perr(p, "too many words on one line (at most %d)", MAX_TOKENS);
            return false;
        }
        if (*s == '"') {
            char *out = ++s;
            p->tok[p->ntok++] = out;
            while (*s && *s != '"') {
                if (*s == '\\' && (s[1] == '"' || s[1] == '\\')) s++;
                *out++ = *s++;
            }
            if (*s != '"') {
                perr(p, "unterminated string");
                return false;
            }
            s++;
            *out = 0;
            continue;
        }
        p->tok[p->ntok++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') s++;
        if (*s) *s++ = 0;
    }
    return true;
}

static bool more(const parser *p) { return p->pos < p->ntok; }
static const char *peek(const parser *p) { return more(p) ? p->tok[p->pos] : ""; }

static const char *word(parser *p, const char *what)
{
    if (!more(p)) {
        perr(p, "expected %s", what);
        return "";
    }
    return p->tok[p->pos++];
}

static double number(parser *p, const char *what)
{
    const char *s = word(p, what);
    if (p->failed) return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v)) {
        perr(p, "expected %s (a number), got '%s'", what, s);
        return 0;
    }
    if (fabs(v) > PMFC_MAX_NUMBER) {
        perr(p, "%s %g is too large (at most %g)", what, v, PMFC_MAX_NUMBER);
        return 0;
    }
    return v;
}

static double number_in(parser *p, const char *what, double lo, double hi)
{
    double v = number(p, what);
    if (!p->failed && (v < lo || v > hi)) perr(p, "%s %g is out of range (%g..%g)", what, v, lo, hi);
    return v;
}

static uint8_t byte(parser *p, const char *what) { return (uint8_t)lrint(number_in(p, what, 0, 255)); }

static void rgb(parser *p, uint8_t out[3], const char *what)
{
    for (int i = 0; i < 3; i++) out[i] = byte(p, what);
}

/* A position: within the reach of the PMF chunk grid at its largest chunks (2^12 m), 4096 chunks
 * across in X and Z and 256 in Y, around the origin. */
static v3 point(parser *p, const char *what)
{
    static const double reach[3] = { 2048.0 * 4096, 128.0 * 4096, 2048.0 * 4096 };
    v3 r;
    for (int i = 0; i < 3 && !p->failed; i++) {
        r.e[i] = number(p, what);
        if (!p->failed && fabs(r.e[i]) > reach[i])
            perr(p, "%c coordinate %g is beyond the format's reach (%g..%g m)", "XYZ"[i], r.e[i], -reach[i], reach[i]);
    }
    return p->failed ? v3_make(0, 0, 0) : r;
}

static void name_copy(parser *p, char *dst, size_t size, const char *src, const char *what)
{
    if (strlen(src) >= size) {
        perr(p, "%s '%s' is too long (at most %zu bytes)", what, src, size - 1);
        return;
    }
    /* names reach maps and messages: no control characters, valid UTF-8 (what the sanitiser keeps) */
    char *shown = xmalloc(4 * size + 1);
    bool clean = strcmp(text_clean(src, shown, 4 * size + 1), src) == 0;
    xfree(shown);
    if (!clean) {
        perr(p, "%s '%s' holds a control character or invalid UTF-8", what, src);
        return;
    }
    strcpy(dst, src);
}

static bool is_number(const char *s)
{
    char *end;
    strtod(s, &end);
    return *s && !*end;
}

static void end_of_line(parser *p)
{
    if (more(p)) perr(p, "unexpected '%s'", peek(p));
}

static bool block_open(parser *p)
{
    if (more(p) && !strcmp(peek(p), "{") && p->pos == p->ntok - 1) {
        p->pos++;
        return true;
    }
    perr(p, "expected '{' at the end of the line");
    return false;
}

static int face_from(const char *s)
{
    static const char *names[PMF_FACE_COUNT] = { "+x", "+y", "+z", "-x", "-y", "-z" };
    for (int f = 0; f < PMF_FACE_COUNT; f++)
        if (!strcmp(s, names[f])) return f;
    return -1;
}

static int material_ref(parser *p, const char *what)
{
    const char *s = word(p, what);
    if (p->failed) return -1;
    int m = map_find_material(p->map, s);
    if (m < 0) perr(p, "unknown material '%s'", s);
    return m;
}

/* A texture reference: a texture of this map (-> map:textures/NAME) or any resource path. */
static void texture_ref(parser *p, char *out)
{
    const char *s = word(p, "a texture name");
    if (p->failed) return;
    if (!strcmp(s, "none")) {
        out[0] = 0;
        return;
    }
    if (strchr(s, ':') || strchr(s, '/')) {
        name_copy(p, out, PMFC_PATH_MAX, s, "texture path");
        return;
    }
    for (size_t i = 0; i < p->map->texture_count; i++)
        if (!strcmp(p->map->textures[i].name, s)) {
            snprintf(out, PMFC_PATH_MAX, "map:textures/%s", s);
            return;
        }
    perr(p, "unknown texture '%s'", s);
}

/* ---- top level ------------------------------------------------------------------------- */

/* Counts a texture's texels against what a map may hold (PMFC_MAX_TEXELS). */
static bool texels_fit(parser *p, double texels)
{
    p->texels += texels;
    if (p->texels > PMFC_MAX_TEXELS)
        perr(p, "the textures so far hold %.0f texels, more than a map may (%.0f: 4 of 4096x4096)", p->texels,
             PMFC_MAX_TEXELS);
    return !p->failed;
}

static void parse_texture(parser *p)
{
    const char *name = word(p, "a texture name");
    if (p->failed) return;
    for (size_t i = 0; i < p->map->texture_count; i++)
        if (!strcmp(p->map->textures[i].name, name)) {
            perr(p, "texture '%s' is defined twice", name);
            return;
        }
    texture_def *t = PUSH(p->map->textures, p->map->texture_count, p->map->texture_cap);
    name_copy(p, t->name, sizeof t->name, name, "texture name");
    const char *kind = word(p, "'procedural' or 'image'");
    const char *msg = NULL;
    if (!strcmp(kind, "procedural")) {
        const char *recipe = word(p, "a procedural kind");
        double size = number(p, "a size");
        uint8_t color[3] = { 200, 200, 200 }, color2[3] = { 60, 60, 60 };
        uint32_t seed = 1;
        while (more(p) && !p->failed) {
            const char *k = word(p, "a texture option");
            if (!strcmp(k, "color")) rgb(p, color, "a colour component");
            else if (!strcmp(k, "color2")) rgb(p, color2, "a colour component");
            else if (!strcmp(k, "seed")) seed = (uint32_t)number_in(p, "a seed", 0, 4294967295.0);
            else perr(p, "unknown texture option '%s'", k);
        }
        if (p->failed) return;
        if (size < 1 || size > 4096 || (uint32_t)size & ((uint32_t)size - 1) || size != floor(size)) {
            perr(p, "texture size %g must be a power of two (1..4096)", size);
            return;
        }
        if (!texels_fit(p, size * size)) return;
        msg = texture_procedural(t, recipe, (uint32_t)size, color, color2, seed);
    } else if (!strcmp(kind, "image")) {
        const char *file = word(p, "an image path");
        end_of_line(p);
        if (p->failed) return;
        char path[PMFC_PATH_MAX * 2];
        if (file[0] == '/') snprintf(path, sizeof path, "%s", file);
        else snprintf(path, sizeof path, "%s%s", p->dir, file);
        msg = texture_image(t, path);
        if (!msg && !texels_fit(p, (double)t->width * t->height)) return;
    } else {
        perr(p, "expected 'procedural' or 'image', got '%s'", kind);
    }
    if (msg) perr(p, "texture '%s': %s", name, msg);
}

static void parse_physics(parser *p)
{
    const char *name = word(p, "a physics material name");
    physics_def *d = NULL;
    for (size_t i = 0; i < p->map->physics_count; i++)
        if (!strcmp(p->map->physics[i].name, name)) d = &p->map->physics[i];
    if (!d) {
        d = PUSH(p->map->physics, p->map->physics_count, p->map->physics_cap);
        name_copy(p, d->name, sizeof d->name, name, "physics material name");
        d->pm.friction = 1;
        d->pm.traction = 1;
    }
    while (more(p) && !p->failed) {
        const char *k = word(p, "a physics option");
        if (!strcmp(k, "friction") || !strcmp(k, "maxspeed")) d->pm.friction = (float)number(p, k);
        else if (!strcmp(k, "traction")) d->pm.traction = (float)number(p, k);
        else if (!strcmp(k, "bounce")) d->pm.bounce = (float)number(p, k);
        else if (!strcmp(k, "notsolid")) d->pm.flags |= PMF_PHYSICS_NOT_SOLID;
        else if (!strcmp(k, "damage")) {
            d->pm.damage_min_speed = (float)number(p, "a minimum speed");
            d->pm.damage_base = (float)number(p, "a base damage");
            d->pm.damage_per_speed = (float)number(p, "a damage per m/s");
        } else perr(p, "unknown physics option '%s'", k);
    }
}

static void parse_sound_material(parser *p)
{
    const char *name = word(p, "a sound material name");
    sound_def *d = NULL;
    for (size_t i = 0; i < p->map->sound_count; i++)
        if (!strcmp(p->map->sounds[i].name, name)) d = &p->map->sounds[i];
    if (!d) {
        d = PUSH(p->map->sounds, p->map->sound_count, p->map->sound_cap);
        name_copy(p, d->name, sizeof d->name, name, "sound material name");
    }
    while (more(p) && !p->failed) {
        const char *k = word(p, "a sound option");
        if (!strcmp(k, "volume")) d->sm.volume_dampening = (float)number(p, k);
        else if (!strcmp(k, "frequency")) d->sm.frequency_dampening = (float)number(p, k);
        else perr(p, "unknown sound material option '%s'", k);
    }
}

static void material_props(parser *p, material_def *m)
{
    while (more(p) && !p->failed) {
        const char *k = word(p, "a material property");
        if (!strcmp(k, "texture")) texture_ref(p, m->texture);
        else if (!strcmp(k, "frame")) {
            if (m->frame_count == PMFC_MAX_FRAMES) perr(p, "at most %d extra frames", PMFC_MAX_FRAMES);
            else texture_ref(p, m->frames[m->frame_count++]);
        } else if (!strcmp(k, "advance")) m->advance_us = (uint32_t)lrint(number_in(p, "seconds", 0, 4000) * 1e6);
        else if (!strcmp(k, "scroll")) {
            m->scroll[0] = (float)number(p, "U per second");
            m->scroll[1] = (float)number(p, "V per second");
        } else if (!strcmp(k, "color")) rgb(p, m->color, "a colour component");
        else if (!strcmp(k, "alpha")) m->alpha = byte(p, "alpha");
        else if (!strcmp(k, "emission")) rgb(p, m->emission, "an emission component");
        else if (!strcmp(k, "shading")) m->shading = byte(p, "shading");
        else if (!strcmp(k, "shine")) m->shine = byte(p, "shine");
        else if (!strcmp(k, "smooth")) m->smooth_angle = number_in(p, "a smoothing angle (degrees)", 0, 180);
        else if (!strcmp(k, "matcap")) texture_ref(p, m->matcap);
        else if (!strcmp(k, "wave")) {
            for (int a = 0; a < 3; a++) m->wave.velocity[a] = (float)number(p, "a wave velocity");
            m->wave.wind_influence = (float)number(p, "a wind influence");
            m->wave.offset = (float)number(p, "a wave offset");
            m->wave.scale = (float)number(p, "a wave scale");
        } else if (!strcmp(k, "transparent")) m->flags |= PMF_MATERIAL_TRANSPARENT;
        else if (!strcmp(k, "liquid")) m->flags |= PMF_MATERIAL_LIQUID;
        else if (!strcmp(k, "additive")) m->render_mode = PMF_RENDMODE_ADD;
        else if (!strcmp(k, "doublesided")) m->double_sided = true;
        else if (!strcmp(k, "type")) name_copy(p, m->type, sizeof m->type, word(p, "a type"), "material type");
        else if (!strcmp(k, "scale")) m->tex_scale = number_in(p, "metres per repeat", 1e-3, 1e6);
        else if (!strcmp(k, "physics")) {
            const char *n = word(p, "a physics material");
            m->physics = -1;
            for (size_t i = 0; i < p->map->physics_count; i++)
                if (!strcmp(p->map->physics[i].name, n)) m->physics = (int)i;
            if (m->physics < 0) perr(p, "unknown physics material '%s'", n);
        } else if (!strcmp(k, "sound")) {
            const char *n = word(p, "a sound material");
            m->sound = -1;
            for (size_t i = 0; i < p->map->sound_count; i++)
                if (!strcmp(p->map->sounds[i].name, n)) m->sound = (int)i;
            if (m->sound < 0) perr(p, "unknown sound material '%s'", n);
        } else if (!strcmp(k, "{") && p->pos == p->ntok) {
            p->scope = SCOPE_MATERIAL;
        } else perr(p, "unknown material property '%s'", k);
    }
}

static void parse_material(parser *p)
{
    const char *name = word(p, "a material name");
    if (p->failed) return;
    if (map_find_material(p->map, name) >= 0) {
        perr(p, "material '%s' is defined twice", name);
        return;
    }
    if (p->map->material_count >= 65535) {
        perr(p, "too many materials");
        return;
    }
    material_def *m = PUSH(p->map->materials, p->map->material_count, p->map->material_cap);
    name_copy(p, m->name, sizeof m->name, name, "material name");
    memset(m->color, 255, 3);
    m->alpha = 255;
    m->shading = 255;
    m->tex_scale = 1;
    m->line = p->line;
    p->material = m;
    material_props(p, m);
}

static void parse_level(parser *p)
{
    const char *name = word(p, "a level name");
    if (p->failed || !block_open(p)) return;
    if (p->map->level_count >= 255) {
        perr(p, "too many levels");
        return;
    }
    level_def *l = PUSH(p->map->levels, p->map->level_count, p->map->level_cap);
    name_copy(p, l->name, sizeof l->name, name, "level name");
    l->chunk_exp = -1;
    l->luxel_density = 4;
    l->ambient[0] = l->ambient[1] = l->ambient[2] = 0.05f;
    l->line = p->line;
    p->level = l;
    p->scope = SCOPE_LEVEL;
}

static void parse_top(parser *p)
{
    const char *k = word(p, "a statement");
    if (!strcmp(k, "map") || !strcmp(k, "name")) name_copy(p, p->map->name, sizeof p->map->name, word(p, "a map name"), "map name");
    else if (!strcmp(k, "description")) name_copy(p, p->map->description, sizeof p->map->description, word(p, "a description"), "description");
    else if (!strcmp(k, "authors")) name_copy(p, p->map->authors, sizeof p->map->authors, word(p, "authors"), "authors");
    else if (!strcmp(k, "gamemode")) {
        while (more(p) && !p->failed) {
            const char *g = word(p, "a gamemode");
            if (p->map->gamemode_count == PMF_MAX_GAMEMODES) perr(p, "at most %d gamemodes", PMF_MAX_GAMEMODES);
            else if (!*g || strlen(g) > PMF_MAX_GAMEMODE_LEN) perr(p, "gamemode '%s' must be 1..%d bytes", g, PMF_MAX_GAMEMODE_LEN);
            else strcpy(p->map->gamemodes[p->map->gamemode_count++], g);
        }
        return;
    } else if (!strcmp(k, "texture")) { parse_texture(p); return; }
    else if (!strcmp(k, "physics")) { parse_physics(p); return; }
    else if (!strcmp(k, "sound_material")) { parse_sound_material(p); return; }
    else if (!strcmp(k, "material")) { parse_material(p); return; }
    else if (!strcmp(k, "level")) { parse_level(p); return; }
    else {
        perr(p, "unknown statement '%s'", k);
        return;
    }
    end_of_line(p);
}

/* ---- inside a level ---------------------------------------------------------------------- */

typedef struct brush_opts {
    int material[PMF_FACE_COUNT];
    int slope;
    int floor, ceiling, walls;     /* rooms */
    double thickness;
    double scale, offset[2];
    int rise;
    bool open[PMF_FACE_COUNT];
    bool door[PMF_FACE_COUNT];
    double door_w[PMF_FACE_COUNT], door_h[PMF_FACE_COUNT], door_off[PMF_FACE_COUNT];
} brush_opts;

static void brush_options(parser *p, brush_opts *o, bool room, bool wedge)
{
    while (more(p) && !p->failed) {
        const char *k = word(p, "a solid option");
        int f = face_from(k);
        if (!strcmp(k, "material")) {
            int m = material_ref(p, "a material");
            for (int i = 0; i < PMF_FACE_COUNT; i++) o->material[i] = m;
            o->slope = o->floor = o->ceiling = o->walls = m;
        } else if (f >= 0 && !room) o->material[f] = material_ref(p, "a material");
        else if (!strcmp(k, "top") && !room) o->material[PMF_FACE_POS_Y] = material_ref(p, "a material");
        else if (!strcmp(k, "bottom") && !room) o->material[PMF_FACE_NEG_Y] = material_ref(p, "a material");
        else if (!strcmp(k, "sides") && !room) {
            int m = material_ref(p, "a material");
            o->material[PMF_FACE_POS_X] = o->material[PMF_FACE_NEG_X] = o->material[PMF_FACE_POS_Z] = o->material[PMF_FACE_NEG_Z] = m;
        } else if (!strcmp(k, "slope") && wedge) o->slope = material_ref(p, "a material");
        else if (!strcmp(k, "rise") && wedge) {
            const char *d = word(p, "a direction (+x, -x, +z or -z)");
            o->rise = face_from(d);
            if (o->rise < 0 || o->rise % 3 == 1) perr(p, "a wedge rises toward +x, -x, +z or -z, not '%s'", d);
        } else if (!strcmp(k, "floor") && room) o->floor = material_ref(p, "a material");
        else if (!strcmp(k, "ceiling") && room) o->ceiling = material_ref(p, "a material");
        else if (!strcmp(k, "walls") && room) o->walls = material_ref(p, "a material");
        else if (!strcmp(k, "thickness") && room) o->thickness = number_in(p, "a thickness", 1e-3, 1e6);
        else if (!strcmp(k, "open") && room) {
            const char *d = word(p, "a side");
            f = face_from(d);
            if (f < 0) perr(p, "unknown side '%s'", d);
            else o->open[f] = true;
        } else if (!strcmp(k, "door") && room) {
            const char *d = word(p, "a wall (+x, -x, +z or -z)");
            f = face_from(d);
            if (f < 0 || f % 3 == 1) { perr(p, "a door goes in wall +x, -x, +z or -z, not '%s'", d); return; }
            if (o->door[f]) { perr(p, "one door per wall"); return; }
            o->door[f] = true;
            o->door_w[f] = number_in(p, "a door width", 0.01, 1e6);
            o->door_h[f] = number_in(p, "a door height", 0.01, 1e6);
            o->door_off[f] = is_number(peek(p)) ? number(p, "a door offset") : 0;
        } else if (!strcmp(k, "scale")) o->scale = number_in(p, "metres per repeat", 1e-3, 1e6);
        else if (!strcmp(k, "offset")) {
            o->offset[0] = number(p, "a U offset");
            o->offset[1] = number(p, "a V offset");
        } else perr(p, "unknown option '%s'", k);
    }
}

static void bounds_of(v3 a, v3 b, v3 *lo, v3 *hi)
{
    for (int i = 0; i < 3; i++) {
        lo->e[i] = fmin(a.e[i], b.e[i]);
        hi->e[i] = fmax(a.e[i], b.e[i]);
    }
}

static void add_box(parser *p, v3 lo, v3 hi, const int material[PMF_FACE_COUNT], const brush_opts *o)
{
    for (int a = 0; a < 3; a++)
        if (hi.e[a] - lo.e[a] < 1e-4) return; /* nothing left of a wall split by a door */
    brush *b = brush_box(p->level, lo, hi, material);
    b->tex_scale = o->scale;
    b->tex_offset[0] = o->offset[0];
    b->tex_offset[1] = o->offset[1];
    b->line = p->line;
    b->opaque = true;
    for (int f = 0; f < PMF_FACE_COUNT; f++) b->opaque = b->opaque && material_opaque(&p->map->materials[material[f]]);
}

static bool materials_set(parser *p, const int *m, int n)
{
    for (int i = 0; i < n; i++)
        if (m[i] < 0) {
            perr(p, "a solid needs a material for every face (give 'material NAME')");
            return false;
        }
    return true;
}

static void parse_solid(parser *p, const char *kind)
{
    v3 a = point(p, "a corner coordinate"), c = point(p, "a corner coordinate"), lo, hi;
    bounds_of(a, c, &lo, &hi);
    for (int i = 0; i < 3 && !p->failed; i++)
        if (hi.e[i] - lo.e[i] < 1e-3) perr(p, "the %s is flat along %c", kind, "XYZ"[i]);
    brush_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < PMF_FACE_COUNT; i++) o.material[i] = -1;
    o.slope = o.floor = o.ceiling = o.walls = -1;
    o.rise = -1;
    o.thickness = 0.25;
    bool room = !strcmp(kind, "room"), wedge = !strcmp(kind, "wedge");
    brush_options(p, &o, room, wedge);
    if (p->failed) return;
    if (!strcmp(kind, "box")) {
        if (materials_set(p, o.material, PMF_FACE_COUNT)) add_box(p, lo, hi, o.material, &o);
    } else if (wedge) {
        if (o.rise < 0) { perr(p, "a wedge needs 'rise +x|-x|+z|-z'"); return; }
        if (!materials_set(p, o.material, PMF_FACE_COUNT) || !materials_set(p, &o.slope, 1)) return;
        brush *b = brush_wedge(p->level, lo, hi, o.rise, o.material, o.slope);
        b->tex_scale = o.scale;
        b->tex_offset[0] = o.offset[0];
        b->tex_offset[1] = o.offset[1];
        b->line = p->line;
        b->opaque = material_opaque(&p->map->materials[o.slope]);
        for (int f = 0; f < PMF_FACE_COUNT; f++) b->opaque = b->opaque && material_opaque(&p->map->materials[o.material[f]]);
    } else {
        int mats[3] = { o.floor, o.ceiling, o.walls };
        if (!materials_set(p, mats, 3)) return;
        double t = o.thickness;
        for (int a = 0; a < 3; a++)
            if (hi.e[a] - lo.e[a] <= 2 * t) { perr(p, "the room is thinner than its walls"); return; }
        int m[PMF_FACE_COUNT];
        for (int f = 0; f < PMF_FACE_COUNT; f++) m[f] = o.floor;
        if (!o.open[PMF_FACE_NEG_Y]) add_box(p, lo, v3_make(hi.x, lo.y + t, hi.z), m, &o);
        for (int f = 0; f < PMF_FACE_COUNT; f++) m[f] = o.ceiling;
        if (!o.open[PMF_FACE_POS_Y]) add_box(p, v3_make(lo.x, hi.y - t, lo.z), hi, m, &o);
        for (int f = 0; f < PMF_FACE_COUNT; f++) m[f] = o.walls;
        double y0 = lo.y + t, y1 = hi.y - t;
        for (int f = 0; f < PMF_FACE_COUNT; f++) {
            if (f % 3 == 1 || o.open[f]) continue;
            int axis = f % 3, along = axis == 0 ? 2 : 0;
            v3 wlo = lo, whi = hi;
            wlo.y = y0; whi.y = y1;
            if (f < 3) wlo.e[axis] = hi.e[axis] - t; else whi.e[axis] = lo.e[axis] + t;
            if (axis == 2) { wlo.x = lo.x + t; whi.x = hi.x - t; } /* Z walls fit between the X walls */
            if (!o.door[f]) { add_box(p, wlo, whi, m, &o); continue; }
            double mid = (wlo.e[along] + whi.e[along]) / 2 + o.door_off[f];
            double d0 = mid - o.door_w[f] / 2, d1 = mid + o.door_w[f] / 2, top = fmin(y0 + o.door_h[f], y1);
            if (d0 < wlo.e[along] || d1 > whi.e[along]) { perr(p, "the door does not fit in its wall"); return; }
            v3 l = wlo, h = whi;
            h.e[along] = d0;
            add_box(p, l, h, m, &o);
            l = wlo; h = whi;
            l.e[along] = d1;
            add_box(p, l, h, m, &o);
            l = wlo; h = whi;
            l.e[along] = d0; h.e[along] = d1; l.y = top;
            add_box(p, l, h, m, &o);
        }
    }
}

static void parse_light(parser *p)
{
    const char *kind = word(p, "static, dynamic or fast");
    light_def *l = PUSH(p->level->lights, p->level->light_count, p->level->light_cap);
    l->line = p->line;
    memset(l->color, 255, 3);
    l->brightness = 1;
    l->range = 10;
    l->radius = (float)PMFC_LIGHT_RADIUS;
    l->intensity = 255;
    l->enabled = true;
    if (!strcmp(kind, "static")) l->kind = BAKE_LIGHT_STATIC;
    else if (!strcmp(kind, "dynamic")) l->kind = BAKE_LIGHT_DYNAMIC;
    else if (!strcmp(kind, "fast")) l->kind = BAKE_LIGHT_FAST;
    else { perr(p, "expected static, dynamic or fast, got '%s'", kind); return; }
    if (l->kind != BAKE_LIGHT_STATIC) l->id = (uint32_t)number_in(p, "a light ID", 0, 4294967295.0);
    bool at = false;
    while (more(p) && !p->failed) {
        const char *k = word(p, "a light option");
        if (!strcmp(k, "at")) { l->pos = point(p, "a coordinate"); at = true; }
        else if (!strcmp(k, "color")) rgb(p, l->color, "a colour component");
        else if (!strcmp(k, "brightness")) l->brightness = (float)number_in(p, "a brightness", 0, 1e6);
        else if (!strcmp(k, "range")) l->range = (float)number_in(p, "a range", 0.01, 1e6);
        else if (!strcmp(k, "radius")) l->radius = (float)number_in(p, "a light radius", 0, 1e3);
        else if (!strcmp(k, "intensity") && l->kind == BAKE_LIGHT_FAST) l->intensity = byte(p, "an intensity");
        else if (!strcmp(k, "off") && l->kind != BAKE_LIGHT_STATIC) l->enabled = false;
        else if (!strcmp(k, "preserve") && l->kind != BAKE_LIGHT_STATIC) l->preserve = true;
        else if (!strcmp(k, "name")) {
            const char *name = word(p, "a light name");
            if (p->failed) break;
            if (strlen(name) >= sizeof l->name) perr(p, "light name '%s' is too long", name);
            else strcpy(l->name, name);
        }
        else perr(p, "unknown light option '%s'", k);
    }
    if (!p->failed && !at) perr(p, "a light needs 'at X Y Z'");
    for (size_t i = 0; i + 1 < p->level->light_count && !p->failed; i++) {
        const light_def *o = &p->level->lights[i];
        if (l->kind != BAKE_LIGHT_STATIC && o->kind == l->kind && o->id == l->id)
            perr(p, "%s light ID %u is already used on line %d", kind, l->id, o->line);
    }
}

/* `sun toward X Y Z [color R G B] [brightness B] [size DEG] [sky R G B]`: parallel light travelling
 * along (X, Y, Z), entering through open sides; `sky` is the sky dome's colour (none without). */
static void parse_sun(parser *p)
{
    light_def *l = PUSH(p->level->lights, p->level->light_count, p->level->light_cap);
    l->line = p->line;
    l->kind = BAKE_LIGHT_STATIC;
    l->shape = BAKE_SHAPE_SUN;
    memset(l->color, 255, 3);
    l->brightness = 1;
    l->radius = (float)(PMFC_SUN_SIZE * M_PI / 180);
    l->enabled = true;
    bool toward = false;
    while (more(p) && !p->failed) {
        const char *k = word(p, "a sun option");
        if (!strcmp(k, "toward")) {
            v3 d = point(p, "a direction component");
            if (!p->failed && !(v3_dot(d, d) > 1e-12)) perr(p, "the sun's direction is zero");
            else l->direction = v3_normalize(d);
            toward = true;
        } else if (!strcmp(k, "color")) rgb(p, l->color, "a colour component");
        else if (!strcmp(k, "brightness")) l->brightness = (float)number_in(p, "a brightness", 0, 1e6);
        else if (!strcmp(k, "size")) l->radius = (float)(number_in(p, "the sun's angular radius (degrees)", 0, 45) * M_PI / 180);
        else if (!strcmp(k, "sky")) {
            uint8_t c[3];
            rgb(p, c, "a sky colour component");
            for (int i = 0; i < 3; i++) p->level->sky_light[i] = c[i] / 255.0f;
        } else perr(p, "unknown sun option '%s'", k);
    }
    if (!p->failed && !toward) perr(p, "a sun needs 'toward X Y Z'");
}

static bool env_exists(const level_def *l, int kind, const char *name)
{
    if (kind == REGION_SKY) { for (size_t i = 0; i < l->sky_count; i++) if (!strcmp(l->skies[i].name, name)) return true; }
    if (kind == REGION_SOUND) { for (size_t i = 0; i < l->sound_env_count; i++) if (!strcmp(l->sound_envs[i].name, name)) return true; }
    if (kind == REGION_WEATHER) { for (size_t i = 0; i < l->weather_count; i++) if (!strcmp(l->weathers[i].name, name)) return true; }
    if (kind == REGION_GRAVITY) { for (size_t i = 0; i < l->gravity_count; i++) if (!strcmp(l->gravities[i].name, name)) return true; }
    return false;
}

static int env_kind(parser *p, const char *s)
{
    if (!strcmp(s, "sky")) return REGION_SKY;
    if (!strcmp(s, "sound")) return REGION_SOUND;
    if (!strcmp(s, "weather")) return REGION_WEATHER;
    if (!strcmp(s, "gravity")) return REGION_GRAVITY;
    perr(p, "expected sky, sound, weather or gravity, got '%s'", s);
    return -1;
}

static const char *env_name(parser *p, int kind)
{
    const char *name = word(p, "an environment name");
    if (!p->failed && !env_exists(p->level, kind, name))
        perr(p, "unknown %s environment '%s'", (const char *[]){ "sky", "sound", "weather", "gravity" }[kind], name);
    return name;
}

/* The name of a new environment: not yet used, and short enough. */
static const char *new_env_name(parser *p, int kind)
{
    const char *name = word(p, "an environment name");
    if (p->failed) return NULL;
    if (env_exists(p->level, kind, name)) perr(p, "environment '%s' is defined twice", name);
    else if (strlen(name) >= PMFC_NAME_MAX) perr(p, "environment name '%s' is too long", name);
    return p->failed ? NULL : name;
}

/* `sky NAME {`: a sky environment, its properties on the block's lines (parse_sky_line). */
static void parse_sky_env(parser *p)
{
    level_def *l = p->level;
    if (l->sky_count >= 255) { perr(p, "too many sky environments"); return; }
    const char *name = new_env_name(p, REGION_SKY);
    if (!name) return;
    sky_def *s = PUSH(l->skies, l->sky_count, l->sky_cap);
    strcpy(s->name, name);
    for (int f = 0; f < PMF_FACE_COUNT; f++) s->skybox[f] = -1;
    s->cloud_top = s->cloud_bottom = -1;
    s->line = p->line;
    if (block_open(p)) {
        p->sky = s;
        p->scope = SCOPE_SKY;
    }
}

/* `sound_env NAME [lowpass F] [highpass F] [reverb DELAY FEEDBACK MIX LOWPASS HIGHPASS]`: a sound
 * environment. */
static void parse_sound_env(parser *p)
{
    level_def *l = p->level;
    if (l->sound_env_count >= 255) { perr(p, "too many sound environments"); return; }
    const char *name = new_env_name(p, REGION_SOUND);
    if (!name) return;
    sound_env_def *e = PUSH(l->sound_envs, l->sound_env_count, l->sound_env_cap);
    strcpy(e->name, name);
    while (more(p) && !p->failed) {
        const char *o = word(p, "a sound environment option");
        if (!strcmp(o, "lowpass")) e->env.low_pass = (float)number(p, o);
        else if (!strcmp(o, "highpass")) e->env.high_pass = (float)number(p, o);
        else if (!strcmp(o, "reverb")) {
            e->env.reverb_delay = (float)number(p, "a reverb delay");
            e->env.reverb_feedback = (float)number(p, "a reverb feedback");
            e->env.reverb_mix = (float)number(p, "a reverb mix");
            e->env.reverb_low_pass = (float)number(p, "a reverb low pass");
            e->env.reverb_high_pass = (float)number(p, "a reverb high pass");
        } else perr(p, "unknown sound environment option '%s'", o);
    }
}

/* `weather NAME [wind X Y Z] [wind_seed N] ...`: a weather environment (docs/pmfc.md). */
static void parse_weather_env(parser *p)
{
    level_def *l = p->level;
    if (l->weather_count >= 255) { perr(p, "too many weather environments"); return; }
    const char *name = new_env_name(p, REGION_WEATHER);
    if (!name) return;
    weather_def *e = PUSH(l->weathers, l->weather_count, l->weather_cap);
    strcpy(e->name, name);
    while (more(p) && !p->failed) {
        const char *o = word(p, "a weather option");
        if (!strcmp(o, "wind")) for (int a = 0; a < 3; a++) e->env.wind[a] = (float)number(p, "a wind component");
        else if (!strcmp(o, "wind_seed")) e->env.wind_dir_seed = (uint32_t)number_in(p, "a seed", 0, 4294967295.0);
        else if (!strcmp(o, "wind_randomness")) for (int a = 0; a < 3; a++) e->env.wind_dir_randomness[a] = (float)number(p, "a randomness");
        else if (!strcmp(o, "wind_noise")) e->env.wind_dir_noise_speed = (float)number(p, "a noise speed");
        else if (!strcmp(o, "speed_seed")) e->env.wind_speed_seed = (uint32_t)number_in(p, "a seed", 0, 4294967295.0);
        else if (!strcmp(o, "speed_randomness")) e->env.wind_speed_randomness = (float)number(p, "a randomness");
        else if (!strcmp(o, "speed_noise")) e->env.wind_speed_noise_speed = (float)number(p, "a noise speed");
        else perr(p, "unknown weather option '%s'", o);
    }
}

static void parse_level_line(parser *p)
{
    level_def *l = p->level;
    const char *k = word(p, "a statement");
    if (!strcmp(k, "box") || !strcmp(k, "wedge") || !strcmp(k, "room")) { parse_solid(p, k); return; }
    if (!strcmp(k, "light")) { parse_light(p); return; }
    if (!strcmp(k, "sun")) { parse_sun(p); return; }
    if (!strcmp(k, "sky")) { parse_sky_env(p); return; }
    if (!strcmp(k, "sound_env")) { parse_sound_env(p); return; }
    if (!strcmp(k, "weather")) { parse_weather_env(p); return; }
    if (!strcmp(k, "chunk_size")) {
        if (!strcmp(peek(p), "auto")) { p->pos++; l->chunk_exp = -1; }
        else l->chunk_exp = (int)number_in(p, "a chunk size exponent", 2, 12);
    } else if (!strcmp(k, "ambient")) {
        uint8_t c[3];
        rgb(p, c, "an ambient component");
        for (int i = 0; i < 3; i++) l->ambient[i] = c[i] / 255.0f;
    } else if (!strcmp(k, "dirt")) {
        l->dirt_distance = (float)PMFC_DIRT_DISTANCE;
        l->dirt_strength = (float)PMFC_DIRT_STRENGTH;
        while (more(p) && !p->failed) {
            const char *o = word(p, "a dirt option");
            if (!strcmp(o, "distance")) l->dirt_distance = (float)number_in(p, "a dirt distance", 0, 1e3);
            else if (!strcmp(o, "strength")) l->dirt_strength = (float)number_in(p, "a dirt strength", 0, 1);
            else perr(p, "unknown dirt option '%s'", o);
        }
    } else if (!strcmp(k, "luxels")) l->luxel_density = number_in(p, "luxels per metre", 0.05, 64);
    else if (!strcmp(k, "vis_cell")) l->vis_cell = number_in(p, "a cell size", 0.5, 4096);
    else if (!strcmp(k, "min_cube")) l->min_cube = number_in(p, "a cube size", 0.01, 4096);
    else if (!strcmp(k, "vis_rays")) l->vis_rays = (int)number_in(p, "rays per pair", 1, 4096);
    else if (!strcmp(k, "visibility")) {
        const char *v = word(p, "on or off");
        if (!strcmp(v, "on") || !strcmp(v, "off")) l->no_visibility = !strcmp(v, "off");
        else perr(p, "expected on or off, got '%s'", v);
    }
    else if (!strcmp(k, "flags")) {
        while (more(p) && !p->failed) {
            const char *f = word(p, "a flag");
            if (!strcmp(f, "keep_velocity")) l->flags |= PMF_LEVEL_KEEP_VELOCITY;
            else if (!strcmp(f, "keep_chunk_offset")) l->flags |= PMF_LEVEL_KEEP_CHUNK_OFFSET;
            else if (!strcmp(f, "keep_inchunk_offset")) l->flags |= PMF_LEVEL_KEEP_INCHUNK_OFFSET;
            else perr(p, "unknown level flag '%s'", f);
        }
    } else if (!strcmp(k, "air_physics")) {
        const char *n = word(p, "a physics material");
        bool found = false;
        for (size_t i = 0; i < p->map->physics_count; i++) found = found || !strcmp(p->map->physics[i].name, n);
        if (!found) perr(p, "unknown physics material '%s'", n);
        else name_copy(p, l->air_physics, sizeof l->air_physics, n, "name");
    } else if (!strcmp(k, "gravity")) {
        if (l->gravity_count >= 255) { perr(p, "too many gravity environments"); return; }
        const char *name = new_env_name(p, REGION_GRAVITY);
        if (!name) return;
        gravity_def *e = PUSH(l->gravities, l->gravity_count, l->gravity_cap);
        strcpy(e->name, name);
        for (int a = 0; a < 3; a++) e->env.gravity[a] = (float)number(p, "a gravity component");
    } else if (!strcmp(k, "default")) {
        int kind = env_kind(p, word(p, "sky, sound, weather or gravity"));
        if (p->failed) return;
        const char *name = env_name(p, kind);
        char *dst = kind == REGION_SKY ? l->default_sky : kind == REGION_SOUND ? l->default_sound
                  : kind == REGION_WEATHER ? l->default_weather : l->default_gravity;
        name_copy(p, dst, PMFC_NAME_MAX, name, "name");
    } else if (!strcmp(k, "region")) {
        int kind = env_kind(p, word(p, "sky, sound, weather or gravity"));
        if (p->failed) return;
        const char *name = env_name(p, kind);
        region_def *r = PUSH(l->regions, l->region_count, l->region_cap);
        r->kind = kind;
        r->line = p->line;
        name_copy(p, r->env, sizeof r->env, name, "name");
        v3 a = point(p, "a corner coordinate"), b = point(p, "a corner coordinate");
        bounds_of(a, b, &r->lo, &r->hi);
    } else if (!strcmp(k, "load")) {
        region_def *r = PUSH(l->regions, l->region_count, l->region_cap);
        r->kind = REGION_LOAD;
        r->line = p->line;
        v3 a = point(p, "a corner coordinate"), b = point(p, "a corner coordinate");
        bounds_of(a, b, &r->lo, &r->hi);
        const char *act = word(p, "'activate'");
        if (!p->failed && strcmp(act, "activate")) { perr(p, "expected 'activate', got '%s'", act); return; }
        a = point(p, "a corner coordinate");
        b = point(p, "a corner coordinate");
        bounds_of(a, b, &r->act_lo, &r->act_hi);
    } else {
        perr(p, "unknown statement '%s' in a level", k);
        return;
    }
    end_of_line(p);
}

static void parse_sky_line(parser *p)
{
    sky_def *s = p->sky;
    const char *k = word(p, "a sky property");
    int f = face_from(k);
    if (f >= 0) s->skybox[f] = material_ref(p, "a material");
    else if (!strcmp(k, "all")) {
        int m = material_ref(p, "a material");
        for (f = 0; f < PMF_FACE_COUNT; f++) s->skybox[f] = m;
    } else if (!strcmp(k, "clouds_top")) s->cloud_top = material_ref(p, "a material");
    else if (!strcmp(k, "clouds_bottom")) s->cloud_bottom = material_ref(p, "a material");
    else if (!strcmp(k, "skybox3d")) {
        s->skybox_point = point(p, "a coordinate");
        s->has_3d = true;
    } else {
        perr(p, "unknown sky property '%s'", k);
        return;
    }
    end_of_line(p);
}

static void check_level_cost(parser *p, const level_def *l)
{
    level_cost cost = level_lightmap_cost(l);
    if (cost.luxels > PMFC_MAX_LEVEL_LUXELS)
        perr(p, "level '%s' needs about %.3g lightmap luxels at %g per metre, more than pmfc bakes (%.3g; the largest solid, "
                "line %d, needs %.3g): lower 'luxels' or make the solids smaller",
             l->name, cost.luxels, l->luxel_density, PMFC_MAX_LEVEL_LUXELS, l->brushes[cost.largest].line, cost.largest_luxels);
}

bool parse_source(const char *name, const char *text, size_t size, map_def *map)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.path = name;
    p.map = map;
    const char *slash = strrchr(name, '/');
    if (slash && (size_t)(slash - name + 1) < sizeof p.dir) memcpy(p.dir, name, (size_t)(slash - name + 1));
    char *line = NULL;
    size_t cap = 0;
    for (size_t at = 0; !p.failed && at < size;) {
        const char *nl = memchr(text + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (text + at)) + 1 : size - at;
        p.line++;
        if (memchr(text + at, 0, len)) {
            perr(&p, "NUL byte in the source");
            break;
        }
        if (len + 1 > cap) {
            cap = len + 1;
            line = xrealloc(line, cap);
        }
        /* tokenize works in place on a NUL-terminated copy of the line */
        memcpy(line, text + at, len);
        line[len] = 0;
        at += len;
        if (!tokenize(&p, line) || !p.ntok) continue;
        if (!strcmp(p.tok[0], "}") && p.ntok == 1) {
            if (p.scope == SCOPE_TOP) perr(&p, "'}' without a block");
            else if (p.scope == SCOPE_SKY) p.scope = SCOPE_LEVEL;
            else {
                if (p.scope == SCOPE_LEVEL && !p.level->brush_count) perr(&p, "level '%s' has no solids", p.level->name);
                else if (p.scope == SCOPE_LEVEL) check_level_cost(&p, p.level);
                p.scope = SCOPE_TOP;
            }
            continue;
        }
        switch (p.scope) {
        case SCOPE_TOP: parse_top(&p); break;
        case SCOPE_MATERIAL: material_props(&p, p.material); break;
        case SCOPE_LEVEL: parse_level_line(&p); break;
        case SCOPE_SKY: parse_sky_line(&p); break;
        }
    }
    xfree(line);
    if (!p.failed && p.scope != SCOPE_TOP) {
        p.line++;
        perr(&p, "missing '}' at the end of the file");
    }
    if (!p.failed && !map->level_count) perr(&p, "the map has no level");
    return !p.failed;
}

bool parse_file(const char *path, map_def *map)
{
    /* a FIFO or directory is refused without waiting for a writer */
    pmf_os_file_info st;
    int fd = pmf_os_open_regular(path, &st);
    FILE *f = fd >= 0 ? pmf_os_fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd < 0 && (errno == EISDIR || errno == ENODEV)) session_say(PMFC_ERROR, "%s: not a regular file", path);
        else session_say(PMFC_ERROR, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    if (st.size > PMFC_MAX_SOURCE_BYTES) {
        session_say(PMFC_ERROR, "%s: source larger than 64 MiB", path);
        fclose(f);
        return false;
    }
    escape_hold hold;
    escape_hold_take(&hold, escape_release_file, f); /* over the budget, f is closed on the way out */
    char *text = xmalloc((size_t)st.size + 1);
    size_t size = fread(text, 1, (size_t)st.size, f);
    bool read_ok = !ferror(f);
    escape_hold_let_go(&hold);
    fclose(f);
    bool ok = read_ok && parse_source(path, text, size, map);
    if (!read_ok) session_say(PMFC_ERROR, "%s: cannot read: %s", path, strerror(errno));
    xfree(text);
    return ok;
}
