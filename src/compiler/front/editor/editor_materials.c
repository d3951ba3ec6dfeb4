/* editor_materials.c - the editor front end's textures (WAD3 and WAD2 files, texture folders, Quake 2
 * .wal files; stand-ins for those found nowhere),
 * materials (render modes, liquids, physics, Half-Life's sound kinds) and sky (conventions §5,
 * docs/rmf.md). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/escape.h"
#include "common/session.h"
#include "base/pmf_budget.h"
#include "base/pmf_os.h"
#include "base/text_clean.h"
#include "common/memory.h"
#include "common/texture.h"
#include "editor_internal.h"

#define EDITOR_STANDIN_SIZE 64
#define EDITOR_ANIM_ADVANCE_US 100000   /* 10 frames per second */

static void upper_copy(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++) dst[i] = (char)toupper((unsigned char)src[i]);
    dst[i] = 0;
}

static void push_name(char ***list, size_t *count, size_t *cap, const char *name)
{
    for (size_t i = 0; i < *count; i++)
        if (!strcasecmp((*list)[i], name)) return;
    char **slot = grow((void **)list, count, cap, sizeof **list);
    *slot = xmalloc(strlen(name) + 1);
    strcpy(*slot, name);
}

static void free_names(char **list, size_t count)
{
    for (size_t i = 0; i < count; i++) xfree(list[i]);
    xfree(list);
}

/* Half-Life's liquids begin with '!' (or are water*), Quake's with '*'. */
static bool is_liquid_texture(const char *name)
{
    return name[0] == '!' || name[0] == '*' || !strncasecmp(name, "water", 5);
}

/* ---- WADs and textures ------------------------------------------------------------------ */

bool editor_file_exists(const char *path)
{
    pmf_os_file_info st;
    return pmf_os_stat(path, &st) == 0 && st.regular;
}

static void release_game(void *fs) { game_fs_close(fs); }

/* --game DIR as the engines see it: its loose files over pakN.pak over ... over pak0.pak. A pak
 * that is damaged fails the compile with its one line. */
static void open_game(import_ctx *c)
{
    if (!c->desc->game_dir) return;
    pmf_error err;
    c->game = game_fs_open(c->desc->game_dir, &err);
    if (!c->game) {
        char line[1024];
        import_fail(c, "%s", pmf_error_format(&err, line, sizeof line));
        return;
    }
    escape_hold_take(&c->game_hold, release_game, c->game);
}

uint8_t *editor_read_game_file(import_ctx *c, const char *path, uint64_t limit, size_t *size)
{
    if (!c->game) return NULL;
    pmf_error err;
    uint8_t *bytes = NULL;
    int r = game_fs_read(c->game, path, limit, &bytes, size, &err);
    if (r < 0) {
        char line[1024];
        import_fail(c, "%s", pmf_error_format(&err, line, sizeof line));
    }
    return r > 0 ? bytes : NULL;
}

/* A WAD from its file, or (data not NULL) from memory it keeps until editor_materials_free. */
static bool open_wad_from(import_ctx *c, const char *path, const char *shown, uint8_t *data, size_t size)
{
    pmf_error err;
    wad_file *w = data ? wad_open_memory(data, size, path, &err) : wad_open(path, &err);
    if (!w) {
        char line[1024];
        import_fail(c, "%s", pmf_error_format(&err, line, sizeof line));
        pmf_budget_free(data);
        return false;
    }
    c->wads = xrealloc(c->wads, (c->wad_count + 1) * sizeof *c->wads);
    c->wad_names = xrealloc(c->wad_names, (c->wad_count + 1) * sizeof *c->wad_names);
    c->wad_bytes = xrealloc(c->wad_bytes, (c->wad_count + 1) * sizeof *c->wad_bytes);
    c->wad_bytes[c->wad_count] = data;
    c->wads[c->wad_count] = w;
    c->wad_names[c->wad_count] = xmalloc(strlen(shown) + 1);
    strcpy(c->wad_names[c->wad_count], shown);
    c->wad_count++;
    return true;
}

int editor_wad_places(const char *map_path, const char *game_dir, char *entry, char places[3][EDITOR_PLACE_MAX],
                      const char **base)
{
    while (*entry == ' ') entry++;
    size_t len = strlen(entry);
    while (len && entry[len - 1] == ' ') entry[--len] = 0;
    if (!len) return 0;
    for (char *p = entry; *p; p++)
        if (*p == '\\') *p = '/';
    *base = strrchr(entry, '/') ? strrchr(entry, '/') + 1 : entry;
    char dir[PMFC_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", map_path);
    char *slash = strrchr(dir, '/');
    if (slash) slash[1] = 0;
    else dir[0] = 0;
    int n = 0;
    snprintf(places[n++], EDITOR_PLACE_MAX, "%s", entry);
    if (game_dir) snprintf(places[n++], EDITOR_PLACE_MAX, "%s/%s", game_dir, *base);
    snprintf(places[n++], EDITOR_PLACE_MAX, "%s%s", dir, *base);
    return n;
}

/* The worldspawn `wad` key's WADs, each from the first of its places that opens. */
static void open_worldspawn_wads(import_ctx *c, const char *list)
{
    char *copy = xmalloc(strlen(list) + 1);
    strcpy(copy, list);
    for (char *save = NULL, *item = strtok_r(copy, ";", &save); item && !c->failed; item = strtok_r(NULL, ";", &save)) {
        char places[3][EDITOR_PLACE_MAX];
        const char *base;
        int n = editor_wad_places(c->path, c->desc->game_dir, item, places, &base);
        if (!n) continue;
        bool found = false;
        for (int k = 0; k < n && !found && !c->failed; k++)
            if (editor_file_exists(places[k])) found = open_wad_from(c, places[k], places[k], NULL, 0);
        /* then in --game DIR's paks (a loose one was a place above) */
        size_t size;
        uint8_t *data = found || c->failed ? NULL : editor_read_game_file(c, base, PAK_MAX_READ, &size);
        if (data) found = open_wad_from(c, base, base, data, size);
        if (!found && !c->failed) push_name(&c->missing_wads, &c->missing_wad_count, &c->missing_wad_cap, base);
    }
    xfree(copy);
}

/* FNV-1a of a name, case-insensitive. */
static uint32_t name_hash(const char *name)
{
    uint32_t hash = 2166136261u;
    for (const char *p = name; *p; p++) hash = (hash ^ (uint8_t)toupper((unsigned char)*p)) * 16777619u;
    return hash;
}

/* The last bytes of a name cut to fit size bytes become the whole name's hash, so that two long
 * names sharing their first bytes stay two names. */
static void end_in_hash(char *cut, size_t size, const char *whole, const char *mark)
{
    size_t len = strlen(cut), room = size - 9 - strlen(mark);
    snprintf(cut + (len < room ? len : room), size - (len < room ? len : room), "%s%08x", mark, name_hash(whole));
}

/* A resource-safe file name for a texture: lower case, anything but [a-z0-9_-] as _XX. */
static void texture_file_name(const char *name, char *out, size_t size)
{
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)name;
    for (; *p && o + 4 < size; p++) {
        if (isalnum(*p) || *p == '_' || *p == '-') out[o++] = (char)tolower(*p);
        else o += (size_t)snprintf(out + o, size - o, "_%02x", *p);
    }
    out[o] = 0;
    if (*p) end_in_hash(out, size, name, "_");
}

static uint32_t next_pow2(uint32_t v)
{
    uint32_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

/* Adds a texture to the map: power-of-two sides as PTF wants, by nearest-neighbour resampling of
 * any other size (each source texel keeps a block of whole texels, so the look is kept). */
static int add_map_texture(import_ctx *c, const char *name, uint32_t w, uint32_t h, const uint8_t *rgba)
{
    texture_def *t = PUSH(c->map->textures, c->map->texture_count, c->map->texture_cap);
    texture_file_name(name, t->name, sizeof t->name);
    t->width = next_pow2(w);
    t->height = next_pow2(h);
    t->rgba = xmalloc((size_t)t->width * t->height * 4);
    for (uint32_t y = 0; y < t->height; y++)
        for (uint32_t x = 0; x < t->width; x++) {
            uint32_t sx = (uint32_t)((uint64_t)x * w / t->width), sy = (uint32_t)((uint64_t)y * h / t->height);
            memcpy(t->rgba + ((size_t)y * t->width + x) * 4, rgba + ((size_t)sy * w + sx) * 4, 4);
        }
    return (int)(c->map->texture_count - 1);
}

/* A checker in a colour derived from the name, for a texture found in no WAD. */
static int add_standin(import_ctx *c, const char *name)
{
    uint32_t hash = name_hash(name);
    uint8_t a[3] = { (uint8_t)(96 + (hash & 127)), (uint8_t)(96 + ((hash >> 8) & 127)), (uint8_t)(96 + ((hash >> 16) & 127)) };
    uint8_t *rgba = xmalloc(EDITOR_STANDIN_SIZE * EDITOR_STANDIN_SIZE * 4);
    for (int y = 0; y < EDITOR_STANDIN_SIZE; y++)
        for (int x = 0; x < EDITOR_STANDIN_SIZE; x++) {
            bool dark = ((x / 16) + (y / 16)) & 1;
            uint8_t *px = rgba + ((size_t)y * EDITOR_STANDIN_SIZE + x) * 4;
            for (int k = 0; k < 3; k++) px[k] = dark ? (uint8_t)(a[k] / 2) : a[k];
            px[3] = 255;
        }
    int i = add_map_texture(c, name, EDITOR_STANDIN_SIZE, EDITOR_STANDIN_SIZE, rgba);
    c->map->textures[i].standin = true;
    xfree(rgba);
    return i;
}

/* A Quake 2 .wal from --game DIR's textures/ (loose or in a pak): 1 loaded, 0 none, -1 damaged. */
static int load_wal(import_ctx *c, const char *name, wad_texture *out)
{
    char path[PMFC_PATH_MAX];
    snprintf(path, sizeof path, "textures/%s.wal", name);
    for (char *p = path; *p; p++) *p = (char)tolower((unsigned char)*p);
    size_t size;
    uint8_t *data = editor_read_game_file(c, path, 64u << 20, &size);
    if (!data) return c->failed ? -1 : 0;
    pmf_error err;
    int r = wad_decode_wal(data, size, path, "texture", c->palette, out, &err);
    pmf_budget_free(data);
    if (r < 0) {
        char line[1024];
        import_fail(c, "%s", pmf_error_format(&err, line, sizeof line));
    }
    return r;
}

/* TrenchBroom's loose texture folders (worldspawn `_tb_textures`, ';'-separated, relative to
 * --game DIR or to the map): NAME.png / .tga / .jpg / .bmp in one of them. */
static int load_folder_texture(import_ctx *c, const char *name, texture_def *out)
{
    static const char *const exts[] = { "png", "tga", "jpg", "jpeg", "bmp", "PNG", "TGA", "JPG", "BMP" };
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    for (size_t d = 0; d < c->folder_count; d++)
        for (int n = 0; n < 2; n++)
            for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++) {
                char path[PMFC_PATH_MAX * 3];
                snprintf(path, sizeof path, "%s/%s.%s", c->folders[d], n ? base : name, exts[e]);
                if (!editor_file_exists(path)) continue;
                const char *msg = texture_image_any(out, path);
                if (!msg) return 1;
                session_say(PMFC_WARNING, "pmfc: warning: texture %s: %s", path, msg);
                return 0;
            }
    return 0;
}

/* Loads `name` from the first WAD that has it (a WAD2's through the palette): 1 loaded, 0 in
 * none, -1 a damaged WAD. */
static int load_wad_texture(import_ctx *c, const char *name, wad_texture *out)
{
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    for (size_t i = 0; i < c->em->embedded_count; i++) {
        const editor_embedded_texture *e = &c->em->embedded[i];
        if (strcasecmp(e->name, name)) continue;
        /* GoldSrc's carry their palette; Quake's index the game's */
        pmf_error err;
        const uint8_t *palette = c->em->game == EDITOR_GAME_GOLDSRC ? NULL : c->palette;
        if (wad_decode_miptex(e->miptex, e->size, e->offset, c->path, "embedded texture", e->name, palette, out, &err) < 0) {
            char line[1024];
            import_fail(c, "%s", pmf_error_format(&err, line, sizeof line));
            return -1;
        }
        return 1;
    }
    for (size_t i = 0; i < c->wad_count; i++) {
        pmf_error err;
        int r = wad_load_texture_palette(c->wads[i], name, c->palette, out, &err);
        if (r == 0 && base != name) r = wad_load_texture_palette(c->wads[i], base, c->palette, out, &err);
        if (r < 0) {
            char line[1024];
            import_fail(c, "%s", pmf_error_format(&err, line, sizeof line));
            return -1;
        }
        if (r > 0) return 1;
    }
    return 0;
}

/* The texture from wherever it is: the WADs, Quake 2's .wal files, the texture folders (RGBA in
 * *out, xfree'd by the caller); 1 found, 0 nowhere, -1 damaged. */
static int find_texture(import_ctx *c, const char *name, texture_def *out)
{
    wad_texture wt;
    int r = load_wad_texture(c, name, &wt);
    if (r == 0 && c->em->game == EDITOR_GAME_QUAKE2) r = load_wal(c, name, &wt);
    if (r > 0) {
        out->width = wt.width;
        out->height = wt.height;
        out->rgba = xmalloc((size_t)wt.width * wt.height * 4);
        memcpy(out->rgba, wt.rgba, (size_t)wt.width * wt.height * 4);
        wad_texture_free(&wt);
        return 1;
    }
    return r < 0 ? -1 : load_folder_texture(c, name, out);
}

/* The first frame's character of an animation frame's name ("+NNAME": '0' for +0..+9, 'A' for
 * the alternate set +A..+J), or 0 when the name is no frame. */
static char animation_first(const char *upper_name)
{
    if (upper_name[0] != '+' || !upper_name[1] || !upper_name[2]) return 0;
    if (upper_name[1] >= '0' && upper_name[1] <= '9') return '0';
    if (upper_name[1] >= 'A' && upper_name[1] <= 'J') return 'A';
    return 0;
}

/* The texture a face names, loaded on first use. "+NNAME" animation frames all resolve to their
 * animation, "+0NAME", and the alternate set's "+aNAME" .. "+jNAME" to "+ANAME" (conventions §5).
 * Returns an index in c->textures, or -1 on failure. */
int editor_use_texture(import_ctx *c, const char *raw)
{
    char name[64];
    /* a face the editor saved with no texture name (Worldcraft 0.8 does) still needs a file name */
    upper_copy(name, sizeof name, raw[0] ? raw : "unnamed");
    char first = animation_first(name);
    bool frame = first != 0;
    if (frame) name[1] = first;
    if (strlen(raw) >= sizeof name) {
        end_in_hash(name, sizeof name, raw + (frame ? 2 : 0), "~");   /* an animation's frames alike */
        upper_copy(name, sizeof name, name);
    }
    for (size_t i = 0; i < c->texture_count; i++)
        if (!strcmp(c->textures[i].name, name)) return (int)i;
    editor_note_cut(c, raw, sizeof name, NULL, "texture");
    editor_texture *t = PUSH(c->textures, c->texture_count, c->texture_cap);
    snprintf(t->name, sizeof t->name, "%s", name);
    texture_def found = { 0 };
    int r = find_texture(c, name, &found);
    if (r < 0) return -1;
    t = &c->textures[c->texture_count - 1];
    if (r == 0) {
        t->missing = true;
        t->width = t->height = EDITOR_STANDIN_SIZE;
        t->texture = add_standin(c, name);
        push_name(&c->missing_textures, &c->missing_texture_count, &c->missing_texture_cap, name);
        return (int)(c->texture_count - 1);
    }
    t->width = found.width;
    t->height = found.height;
    t->texture = add_map_texture(c, name, found.width, found.height, found.rgba);
    xfree(found.rgba);
    if (first) {
        /* the animation's frames: +0NAME, +1NAME, ... (+ANAME, +BNAME, ...) for as long as they
         * are found */
        t->frames[t->frame_count++] = t->texture;
        for (int k = 1; k < EDITOR_ANIM_FRAMES; k++) {
            char frame[64];
            snprintf(frame, sizeof frame, "%s", name);
            frame[1] = (char)(first + k);
            texture_def next_frame = { 0 };
            r = find_texture(c, frame, &next_frame);
            if (r < 0) return -1;
            if (r == 0) break;
            /* frames draw with the first frame's UVs: keep its size */
            int index = add_map_texture(c, frame, next_frame.width, next_frame.height, next_frame.rgba);
            xfree(next_frame.rgba);
            t = &c->textures[c->texture_count - 1];
            t->frames[t->frame_count++] = index;
        }
    }
    return (int)(c->texture_count - 1);
}

/* Quake's palette from --game DIR's gfx/palette.lmp, Quake 2's from its pics/colormap.pcx (its
 * last 768 bytes), loose or in a pak, else pmfview's own (palette.c). */
static void read_palette(import_ctx *c)
{
    editor_builtin_palette(c->palette);
    size_t size;
    uint8_t *data = editor_read_game_file(c, "gfx/palette.lmp", 1u << 20, &size);
    if (data && size >= 768) {
        memcpy(c->palette, data, 768);
        c->game_palette = true;
    }
    pmf_budget_free(data);
    if (c->game_palette || c->failed) return;
    data = editor_read_game_file(c, "pics/colormap.pcx", 16u << 20, &size);
    if (data && size >= 128 + 769 && data[size - 769] == 0x0C) {
        memcpy(c->palette, data + size - 768, 768);
        c->game_palette = true;
    }
    pmf_budget_free(data);
}

/* `_tb_textures`: each folder as written under --game DIR, else beside the map. */
static void open_texture_folders(import_ctx *c, const char *list)
{
    char *copy = xmalloc(strlen(list) + 1);
    strcpy(copy, list);
    char dir[PMFC_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", c->path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    for (char *save = NULL, *item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        while (*item == ' ') item++;
        if (!*item || strstr(item, "..")) continue;
        for (int k = 0; k < 2; k++) {
            const char *root = k == 0 ? c->desc->game_dir : dir;
            if (!root) continue;
            char path[PMFC_PATH_MAX * 2];
            snprintf(path, sizeof path, "%s/%s", root, item);
            pmf_os_file_info st;
            if (pmf_os_stat(path, &st) != 0 || !st.directory) continue;
            char **slot = grow((void **)&c->folders, &c->folder_count, &c->folder_cap, sizeof *c->folders);
            *slot = xmalloc(strlen(path) + 1);
            strcpy(*slot, path);
            break;
        }
    }
    xfree(copy);
}

void editor_open_textures(import_ctx *c, const char *wad_key)
{
    open_game(c);
    read_palette(c);
    /* an explicit --wad must open: wad_open names what is wrong (missing, a FIFO, damaged) */
    for (size_t i = 0; i < c->desc->wad_count && !c->failed; i++) open_wad_from(c, c->desc->wads[i], c->desc->wads[i], NULL, 0);
    if (wad_key && !c->failed) open_worldspawn_wads(c, wad_key);
    const char *folders = editor_kv_get(&c->em->entities[0], "_tb_textures");
    if (folders) open_texture_folders(c, folders);
}

/* ---- materials ------------------------------------------------------------------------- */


render_look editor_entity_look(const editor_entity *e)
{
    render_look look = { .amount = 255 };
    if (!e) return look;
    look.not_solid = e->classname && !strcasecmp(e->classname, "func_illusionary");
    look.liquid = e->classname && !strcasecmp(e->classname, "func_water");
    int mode = (int)editor_kv_number(e, "rendermode", 0);
    if (mode >= 1 && mode <= 5) {
        look.mode = mode;
        double amt = editor_kv_number(e, "renderamt", 0);  /* missing: the game's 0, the entity unseen */
        look.amount = amt > 0 ? amt < 255 ? (int)amt : 255 : 0;
        double rgb[3];
        if (editor_kv_numbers(e, "rendercolor", rgb, 3) == 3)
            for (int k = 0; k < 3; k++) look.color[k] = (uint8_t)(rgb[k] > 0 ? rgb[k] < 255 ? rgb[k] : 255 : 0);
    } else {
        /* Quake engines' entity alpha (FitzQuake's protocol): 0 is the default, opaque */
        double alpha = editor_kv_number(e, "alpha", 0);
        if (alpha > 0 && alpha < 1) look.amount = (int)lround(alpha * 255);
    }
    if (e->classname && !strcasecmp(e->classname, "func_conveyor")) {
        double speed = editor_kv_number(e, "speed", 0);
        speed = speed != 0 && isfinite(speed) ? fmax(-1e6, fmin(1e6, speed)) : 100; /* Half-Life's default */
        look.conveyor = (float)speed;
    }
    return look;
}

/* The physics material of a name, made on first use: "default" (solid) exists in every map. */
static int physics_material(import_ctx *c, const char *name, uint8_t flags, float friction)
{
    for (size_t i = 0; i < c->map->physics_count; i++)
        if (!strcmp(c->map->physics[i].name, name)) return (int)i;
    physics_def *p = PUSH(c->map->physics, c->map->physics_count, c->map->physics_cap);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->pm.flags = flags;
    p->pm.friction = friction;
    p->pm.traction = 1;
    return (int)(c->map->physics_count - 1);
}

/* Half-Life's surface kinds (materials.txt letters) as sound materials: how much a surface of
 * that kind dampens sound's volume and high frequencies (docs/rmf.md). */
static const struct { char type; const char *name; float volume, frequency; } hl_sound_kinds[] = {
    { 'C', "concrete", 0.30f, 0.20f }, { 'M', "metal", 0.10f, 0.05f },    { 'D', "dirt", 0.60f, 0.50f },
    { 'V', "vent", 0.20f, 0.10f },     { 'G', "grate", 0.20f, 0.10f },    { 'T', "tile", 0.15f, 0.10f },
    { 'S', "slosh", 0.50f, 0.40f },    { 'W', "wood", 0.40f, 0.30f },     { 'P', "computer", 0.25f, 0.15f },
    { 'Y', "glass", 0.05f, 0.05f },    { 'F', "flesh", 0.80f, 0.70f },    { 'N', "snow", 0.70f, 0.60f },
};

/* The texture's kind as Half-Life finds it: materials.txt names compared on their first 12
 * characters, after the texture's '+N' / '-N' prefix or its '{' / '!' (pm_shared's rule). */
static int sound_material(import_ctx *c, const char *texture)
{
    const char *t = texture;
    if ((t[0] == '+' || t[0] == '-') && t[1]) t += 2;
    else if (t[0] == '{' || t[0] == '!') t += 1;
    char type = 0;
    for (size_t i = 0; i < c->type_count && !type; i++)
        if (!strncasecmp(c->types[i].name, t, 12)) type = c->types[i].type;
    for (size_t k = 0; type && k < sizeof hl_sound_kinds / sizeof hl_sound_kinds[0]; k++) {
        if (hl_sound_kinds[k].type != type) continue;
        for (size_t i = 0; i < c->map->sound_count; i++)
            if (!strcmp(c->map->sounds[i].name, hl_sound_kinds[k].name)) return (int)i;
        sound_def *d = PUSH(c->map->sounds, c->map->sound_count, c->map->sound_cap);
        snprintf(d->name, sizeof d->name, "%s", hl_sound_kinds[k].name);
        d->sm.volume_dampening = hl_sound_kinds[k].volume;
        d->sm.frequency_dampening = hl_sound_kinds[k].frequency;
        return (int)(c->map->sound_count - 1);
    }
    return 0; /* "default" */
}

#define EDITOR_TEXT_FILE_MAX ((uint64_t)16 << 20)

/* --game DIR's sound/materials.txt (loose or in a pak), when there is one: "TYPE NAME" lines,
 * // comments. */
void editor_read_texture_types(import_ctx *c)
{
    size_t size = 0;
    uint8_t *text = editor_read_game_file(c, "sound/materials.txt", EDITOR_TEXT_FILE_MAX, &size);
    for (size_t at = 0; text && at < size;) {
        char line[256];
        size_t n = 0;
        while (at < size && text[at] != '\n') {
            if (n + 1 < sizeof line) line[n++] = (char)text[at];
            at++;
        }
        at++;
        line[n] = 0;
        char type, name[64];
        if (line[0] == '/' || sscanf(line, " %c %63s", &type, name) != 2) continue;
        hl_texture_type *t = PUSH(c->types, c->type_count, c->type_cap);
        t->type = (char)toupper((unsigned char)type);
        snprintf(t->name, sizeof t->name, "%.12s", name);
    }
    pmf_budget_free(text);
}

/* A render mode's variant of a material: its name's suffix (unique per look). Solid (4) shows
 * every texel a '{' texture keeps at full opacity unless renderamt is 0 (then nothing). */
static void look_suffix(char *out, size_t size, const render_look *look)
{
    int amount = look->mode == 4 ? (look->amount ? 255 : 0) : look->amount;
    size_t n = 0;
    if (look->mode == 1) n = (size_t)snprintf(out, size, "#m1,a%d,c%02X%02X%02X", amount, look->color[0], look->color[1], look->color[2]);
    else if (look->mode) n = (size_t)snprintf(out, size, "#m%d,a%d", look->mode, amount);
    else if (amount < 255) n = (size_t)snprintf(out, size, "#a%d", amount);
    else out[0] = 0;
    if (look->conveyor != 0 && n < size) snprintf(out + n, size - n, "#scroll%g", look->conveyor);
}

/* How the game draws a render mode (the Valve developer wiki's "Render modes (GoldSrc)"): colour
 * (1) the rendercolor in place of the texture, texture (2) the texture, both translucent by
 * renderamt; glow (3, meant for sprites, on a brush as additive) and additive (5) add the texture
 * scaled by renderamt; all four fullbright. Solid (4) is lit with its '{' holes; Quake's alpha
 * lit and translucent. A conveyor's "scroll" textures move along their u axis at its speed. */
static void apply_look(material_def *m, const render_look *look, const editor_texture *t)
{
    int mode = look->mode;
    if (mode == 1 || mode == 2 || mode == 4 || (mode == 0 && look->amount < 255)) {
        m->flags |= PMF_MATERIAL_TRANSPARENT;
        m->alpha = (uint8_t)(mode == 4 ? (look->amount ? 255 : 0) : look->amount);
    }
    if (mode == 1) {
        m->texture[0] = 0;               /* untextured: the colour alone */
        m->frame_count = 0;
        m->advance_us = 0;
        memcpy(m->color, look->color, 3);
    }
    if (mode == 3 || mode == 5) {
        m->render_mode = PMF_RENDMODE_ADD;
        memset(m->color, look->amount, 3); /* ADD adds out whole (conventions §3): renderamt scales it */
    }
    if (mode == 1 || mode == 2 || mode == 3 || mode == 5) m->shading = 0;
    if (look->conveyor != 0 && !strncmp(t->name, "SCROLL", 6) && t->width)
        m->scroll[0] = -look->conveyor / (float)t->width; /* Half-Life moves s back at speed texels a second */
}

int editor_material(import_ctx *c, int tex, render_look look)
{
    const editor_texture *t = &c->textures[tex];
    bool liquid = look.liquid || is_liquid_texture(t->name);
    bool alpha_test = t->name[0] == '{';
    if (strncmp(t->name, "SCROLL", 6)) look.conveyor = 0;
    char name[PMFC_NAME_MAX + 64], suffix[64];
    look_suffix(suffix, sizeof suffix, &look);
    snprintf(name, sizeof name, "%s%s", t->name, suffix);
    if (liquid && !is_liquid_texture(t->name)) snprintf(name + strlen(name), sizeof name - strlen(name), "#liquid");
    if (look.not_solid && !liquid) snprintf(name + strlen(name), sizeof name - strlen(name), "#nonsolid");
    int found = map_find_material(c->map, name);
    if (found >= 0) return found;
    material_def *m = PUSH(c->map->materials, c->map->material_count, c->map->material_cap);
    snprintf(m->name, sizeof m->name, "%s", name);
    memset(m->color, 255, 3);
    m->alpha = 255;
    m->shading = 255;
    m->tex_scale = 1;
    snprintf(m->texture, sizeof m->texture, "map:textures/%s", c->map->textures[t->texture].name);
    for (int k = 1; k < t->frame_count && k <= PMFC_MAX_FRAMES; k++)
        snprintf(m->frames[m->frame_count++], sizeof m->frames[0], "map:textures/%s", c->map->textures[t->frames[k]].name);
    if (m->frame_count) m->advance_us = EDITOR_ANIM_ADVANCE_US;
    /* '{' textures' holes: the transparent palette colour has texel alpha 0, and a transparent
     * material's alpha is multiplied by the texel's (conventions §3) */
    if (alpha_test) m->flags |= PMF_MATERIAL_TRANSPARENT;
    apply_look(m, &look, t);
    if (liquid) m->flags |= PMF_MATERIAL_LIQUID;
    /* physics: liquids are swum through (at most 3 m/s), func_illusionary walked through */
    if (liquid) m->physics = physics_material(c, "water", PMF_PHYSICS_NOT_SOLID, 3.0f);
    else if (look.not_solid) m->physics = physics_material(c, "nonsolid", PMF_PHYSICS_NOT_SOLID, 1e6f);
    m->sound = sound_material(c, t->name);
    return (int)(c->map->material_count - 1);
}

/* ---- sky --------------------------------------------------------------------------------- */

/* The six skybox materials: NAME{rt,up,ft,lf,dn,bk} from --game DIR/gfx/env/ for PMF's +X, +Y,
 * +Z, -X, -Y, -Z (Hammer x, z, -y: Quake's rt is +X, bk +Y, up +Z), else a generated sky tinted
 * like the sun. */
/* Half-Life's up and down images lie on the sky cube as Quake 2's tables put them (up: its top
 * toward -X, its right toward +Z; down: its top toward +X, its right toward +Z, in world axes);
 * PMF's +Y and -Y faces have their top toward -Z and their right toward +X (docs/materials.md).
 * So the up image is mirrored across its main diagonal, the down image across the other one. */
static void sky_cap_turn(texture_def *t, bool up)
{
    uint32_t w = t->width, h = t->height;
    uint8_t *out = xmalloc((size_t)w * h * 4);
    for (uint32_t y = 0; y < w; y++)          /* the result is h wide and w tall */
        for (uint32_t x = 0; x < h; x++) {
            uint32_t sx = up ? y : w - 1 - y, sy = up ? x : h - 1 - x;
            memcpy(out + ((size_t)y * h + x) * 4, t->rgba + ((size_t)sy * w + sx) * 4, 4);
        }
    xfree(t->rgba);
    t->rgba = out;
    t->width = h;
    t->height = w;
}

void editor_import_sky(import_ctx *c, const char *skyname)
{
    static const char *const suffix[PMF_FACE_COUNT] = { "rt", "up", "ft", "lf", "dn", "bk" };
    sky_def *s = PUSH(c->level->skies, c->level->sky_count, c->level->sky_cap);
    snprintf(s->name, sizeof s->name, "sky");
    snprintf(c->level->default_sky, sizeof c->level->default_sky, "sky");
    s->cloud_top = s->cloud_bottom = -1;
    int textures[PMF_FACE_COUNT];
    bool found = c->game != NULL;
    for (int f = 0; f < PMF_FACE_COUNT && found && !c->failed; f++) {
        static const char *const ext[] = { "tga", "bmp", "TGA", "BMP" };
        bool got = false;
        for (size_t e = 0; e < sizeof ext / sizeof ext[0] && !got && !c->failed; e++) {
            char path[PMFC_PATH_MAX * 2];
            snprintf(path, sizeof path, "gfx/env/%s%s.%s", skyname, suffix[f], ext[e]);
            size_t size = 0;
            uint8_t *bytes = editor_read_game_file(c, path, PAK_MAX_READ, &size);
            if (!bytes) continue;
            char shown[PMFC_PATH_MAX * 3];
            snprintf(shown, sizeof shown, "%s/%s", c->desc->game_dir, path);
            texture_def tmp = { 0 };
            const char *msg = texture_image_memory_any(&tmp, bytes, size, shown);
            pmf_budget_free(bytes);
            if (msg) {
                session_say(PMFC_WARNING, "pmfc: warning: sky image %s: %s", shown, msg);
                break;
            }
            if (f == PMF_FACE_POS_Y || f == PMF_FACE_NEG_Y) sky_cap_turn(&tmp, f == PMF_FACE_POS_Y);
            char name[64];
            snprintf(name, sizeof name, "sky_%s%s", skyname, suffix[f]);
            textures[f] = add_map_texture(c, name, tmp.width, tmp.height, tmp.rgba);
            xfree(tmp.rgba);
            got = true;
        }
        found = got;
    }
    if (!found) {
        /* generated: the sun's tint over a blue sky, lighter toward the horizon */
        uint8_t tint[3] = { 255, 244, 224 };
        if (c->has_sun) memcpy(tint, c->sun_color, 3);
        uint8_t top[3], horizon[3];
        static const uint8_t blue[3] = { 70, 120, 200 }, haze[3] = { 190, 210, 230 };
        for (int k = 0; k < 3; k++) {
            top[k] = (uint8_t)(blue[k] * (128 + tint[k] / 2) / 255);
            horizon[k] = (uint8_t)(haze[k] * (128 + tint[k] / 2) / 255);
        }
        texture_def side = { 0 }, up = { 0 }, down = { 0 };
        texture_procedural(&side, "sky", 64, top, horizon, 1);
        texture_procedural(&up, "sky", 64, top, top, 1);
        texture_procedural(&down, "sky", 64, horizon, horizon, 1);
        int ts = add_map_texture(c, "sky_generated_side", side.width, side.height, side.rgba);
        int tu = add_map_texture(c, "sky_generated_up", up.width, up.height, up.rgba);
        int td = add_map_texture(c, "sky_generated_down", down.width, down.height, down.rgba);
        xfree(side.rgba); xfree(up.rgba); xfree(down.rgba);
        for (int f = 0; f < PMF_FACE_COUNT; f++) textures[f] = f == PMF_FACE_POS_Y ? tu : f == PMF_FACE_NEG_Y ? td : ts;
    }
    for (int f = 0; f < PMF_FACE_COUNT; f++) {
        char name[PMFC_NAME_MAX];
        snprintf(name, sizeof name, "#SKY%d", f);
        material_def *m = PUSH(c->map->materials, c->map->material_count, c->map->material_cap);
        snprintf(m->name, sizeof m->name, "%s", name);
        memset(m->color, 255, 3);
        m->alpha = 255;
        m->tex_scale = 1;
        snprintf(m->texture, sizeof m->texture, "map:textures/%s", c->map->textures[textures[f]].name);
        s->skybox[f] = (int)(c->map->material_count - 1);
    }
}

void editor_report_missing(const import_ctx *c)
{
    if (c->missing_wad_count) {
        session_line line = { 0 };
        session_line_add(&line, "pmfc: warning: %zu WAD file(s) of the map's wad key not found (looked as written, in --game DIR and beside the map):", c->missing_wad_count);
        for (size_t i = 0; i < c->missing_wad_count; i++) {
            char clean[512];
            session_line_add(&line, "%s %s", i ? "," : "", text_clean(c->missing_wads[i], clean, sizeof clean));
        }
        session_line_say(&line, PMFC_WARNING);
    }
    if (c->missing_texture_count) {
        session_line line = { 0 };
        session_line_add(&line, "pmfc: warning: %zu texture(s) found in no WAD or texture folder, drawn as checkers:", c->missing_texture_count);
        for (size_t i = 0; i < c->missing_texture_count; i++) {
            char clean[256];
            session_line_add(&line, "%s %s", i ? "," : "", c->missing_textures[i][0] ? text_clean(c->missing_textures[i], clean, sizeof clean) : "\"\"");
        }
        session_line_say(&line, PMFC_WARNING);
    }
}

void editor_materials_free(import_ctx *c)
{
    for (size_t i = 0; i < c->wad_count; i++) {
        wad_close(c->wads[i]);
        pmf_budget_free(c->wad_bytes[i]);
        xfree(c->wad_names[i]);
    }
    xfree(c->wads);
    xfree(c->wad_names);
    xfree(c->wad_bytes);
    if (c->game) {
        escape_hold_let_go(&c->game_hold);
        game_fs_close(c->game);
    }
    free_names(c->missing_wads, c->missing_wad_count);
    free_names(c->folders, c->folder_count);
    free_names(c->missing_textures, c->missing_texture_count);
    xfree(c->textures);
    xfree(c->types);
}
