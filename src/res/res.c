/* res.c - resource path resolution, texture decoding and the per-map texture cache (see res.h). */
#include "res.h"

#include "pak/pak.h"
#include "pmf/paf.h"
#include "base/pmf_budget.h"
#include "base/pmf_os.h"
#include "base/pmf_system.h"
#include "pmf/ptf.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_RESOURCE_BYTES (256u << 20)  /* a texture file larger than this is refused */
#define CHECKER_SIDE 64u
#define CHECKER_CELL 8u

static const char *const texture_exts[] = { ".ptf", ".png", ".jpg", ".tga", ".bmp" };
enum { TEXTURE_EXT_COUNT = sizeof texture_exts / sizeof texture_exts[0] };

static bool fail(pmf_error *err, const char *file, const char *block, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pmf_error_vset(err, file, block, offset, fmt, ap);
    va_end(ap);
    return false;
}

/* ---- images (decoding: image.c) ----------------------------------------------------------- */

static uint32_t half_side(uint32_t side) { return side > 1 ? side / 2 : 1; }

/* Where a destination texel samples along one side: texels i0, i1 and i1's weight in 1/256. */
typedef struct half_tap { uint32_t i0, i1, weight; } half_tap;

static void half_taps(uint32_t src_side, uint32_t dst_side, half_tap *taps)
{
    for (uint32_t x = 0; x < dst_side; x++) {
        double u = (x + 0.5) * src_side / dst_side - 0.5;
        uint32_t i = u > 0 ? (uint32_t)u : 0;
        uint32_t weight = u > 0 ? (uint32_t)((u - i) * 256.0 + 0.5) : 0;
        if (weight >= 256) {
            weight -= 256;
            i++;
        }
        taps[x] = (half_tap){ i < src_side ? i : src_side - 1, i + 1 < src_side ? i + 1 : src_side - 1, weight };
    }
}

static int lerp8(int a, int b, int weight) { return a + (((b - a) * weight + 128) >> 8); }

/* dst (half_side(w) x half_side(h)) = src (w x h) filtered as llvmpipe's glGenerateMipmap does
 * (a bilinear blit at the destination texel centres, 8-bit weights, rounded): the same texels,
 * so pictures stay as they were with the GL's mipmaps (for even sides a 2x2 average; a few odd
 * sides over 1000 texels differ by 1 in some texels). */
static bool gl_halve(const uint8_t *src, uint32_t sw, uint32_t sh, uint8_t *dst)
{
    uint32_t w = half_side(sw), h = half_side(sh);
    half_tap *tx = malloc(((size_t)w + h) * sizeof *tx), *ty = tx + w;
    if (!tx)
        return false;
    half_taps(sw, w, tx);
    half_taps(sh, h, ty);
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *r0 = src + (size_t)ty[y].i0 * sw * 4, *r1 = src + (size_t)ty[y].i1 * sw * 4;
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *a = r0 + tx[x].i0 * 4, *b = r0 + tx[x].i1 * 4, *c = r1 + tx[x].i0 * 4, *d = r1 + tx[x].i1 * 4;
            uint8_t *o = dst + ((size_t)y * w + x) * 4;
            for (int k = 0; k < 4; k++)
                o[k] = (uint8_t)lerp8(lerp8(a[k], b[k], (int)tx[x].weight), lerp8(c[k], d[k], (int)tx[x].weight),
                                      (int)ty[y].weight);
        }
    }
    free(tx);
    return true;
}

static bool halve(res_image *img)
{
    uint32_t w = half_side(img->width), h = half_side(img->height);
    uint8_t *out = malloc((size_t)w * h * 4);
    if (!out || !gl_halve(img->rgba, img->width, img->height, out)) {
        free(out);
        return false;
    }
    free(img->rgba);
    img->rgba = out;
    img->width = w;
    img->height = h;
    free(img->mips); /* of the old size */
    img->mips = NULL;
    img->mip_levels = 0;
    return true;
}

bool res_image_build_mips(res_image *img)
{
    free(img->mips);
    img->mips = NULL;
    img->mip_levels = 0;
    size_t bytes = 0;
    uint32_t levels = 0;
    for (uint32_t w = img->width, h = img->height; w > 1 || h > 1; levels++) {
        w = half_side(w);
        h = half_side(h);
        bytes += (size_t)w * h * 4;
    }
    if (!levels)
        return true;
    if (!(img->mips = malloc(bytes)))
        return false;
    const uint8_t *src = img->rgba;
    uint8_t *dst = img->mips;
    for (uint32_t l = 0, w = img->width, h = img->height; l < levels; l++) {
        if (!gl_halve(src, w, h, dst)) {
            free(img->mips);
            img->mips = NULL;
            return false;
        }
        w = half_side(w);
        h = half_side(h);
        src = dst;
        dst += (size_t)w * h * 4;
    }
    img->mip_levels = levels;
    return true;
}

bool res_image_fit(res_image *img, uint32_t max_side)
{
    if (!img->stored_width) {
        img->stored_width = img->width;
        img->stored_height = img->height;
    }
    while (img->width > max_side || img->height > max_side)
        if (!halve(img))
            return false;
    return true;
}

void res_image_free(res_image *img)
{
    free(img->rgba);
    free(img->mips);
    *img = (res_image){0};
}

bool res_checkerboard(res_image *out)
{
    uint8_t *p = malloc(CHECKER_SIDE * CHECKER_SIDE * 4);
    if (!p)
        return false;
    for (uint32_t y = 0; y < CHECKER_SIDE; y++)
        for (uint32_t x = 0; x < CHECKER_SIDE; x++) {
            uint8_t *t = p + (y * CHECKER_SIDE + x) * 4;
            uint8_t on = ((x / CHECKER_CELL + y / CHECKER_CELL) & 1u) == 0 ? 255 : 0;
            t[0] = on;
            t[1] = 0;
            t[2] = on;
            t[3] = 255;
        }
    *out = (res_image){ .width = CHECKER_SIDE, .height = CHECKER_SIDE, .rgba = p };
    return true;
}

/* ---- context -------------------------------------------------------------------------------- */

typedef struct cache_entry {
    char *path;                      /* as requested */
    bool missing;
    bool reported;                   /* missing, and res_load_texture has said why once */
    bool released;                   /* texels freed after upload (res_release_texture) */
    res_image image;
    uint64_t charged;                /* what image holds of the memory budget */
    pmf_error err;                   /* why it is missing */
} cache_entry;

struct res_context {
    char *game_dir, *base_dir, *instance_dir, *user_dir;
    game_fs *game;                   /* game_dir's loose files over its paks; NULL: none, or game_err */
    pmf_error game_err;              /* why game_dir did not open */
    const pmf_file *map;
    uint8_t *archive_bytes;          /* the embedded archive read out of the file (it may change on disk) */
    paf_archive archive;
    bool archive_ok;
    pmf_error archive_err;           /* why map: is unavailable when !archive_ok */
    res_image checker;
    pthread_mutex_t lock;
    cache_entry **slots;             /* open addressing, power-of-two size */
    size_t slot_count, used;
};

static bool dup_opt(char **dst, const char *src)
{
    *dst = NULL;
    return !src || (*dst = strdup(src)) != NULL;
}

res_context *res_create(const res_desc *desc)
{
    static const res_desc zero;
    if (!desc)
        desc = &zero;
    res_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    ctx->slot_count = 64;
    ctx->slots = calloc(ctx->slot_count, sizeof *ctx->slots);
    bool ok = ctx->slots && dup_opt(&ctx->game_dir, desc->game_dir) && dup_opt(&ctx->instance_dir, desc->instance_dir)
              && dup_opt(&ctx->user_dir, desc->user_dir) && res_checkerboard(&ctx->checker)
              && res_image_build_mips(&ctx->checker);
    if (ok && desc->base_dir) {
        ok = dup_opt(&ctx->base_dir, desc->base_dir);
    } else if (ok && desc->game_dir) {
        /* the game dir is <base>/games/<name> */
        if (asprintf(&ctx->base_dir, "%s/../..", desc->game_dir) < 0) {
            ctx->base_dir = NULL;
            ok = false;
        }
    }
    if (!ok || pthread_mutex_init(&ctx->lock, NULL) != 0) {
        free(ctx->slots);
        free(ctx->game_dir);
        free(ctx->base_dir);
        free(ctx->instance_dir);
        free(ctx->user_dir);
        res_image_free(&ctx->checker);
        free(ctx);
        return NULL;
    }
    if (desc->game_dir)
        ctx->game = game_fs_open(desc->game_dir, &ctx->game_err);
    ctx->map = desc->map;
    if (!ctx->map) {
        fail(&ctx->archive_err, "", "resource", 0, "map: resources are unavailable (no map)");
    } else if (ctx->map->archive.size == 0) {
        fail(&ctx->archive_err, ctx->map->name, "embedded archive", ctx->map->archive.offset,
             "the map has no embedded archive");
    } else if (ctx->map->archive.offset > ctx->map->size || ctx->map->archive.size > ctx->map->size - ctx->map->archive.offset) {
        fail(&ctx->archive_err, ctx->map->name, "embedded archive", ctx->map->archive.offset,
             "embedded archive runs past the end of the file");
    } else if (!(ctx->archive_bytes = malloc((size_t)ctx->map->archive.size))) {
        fail(&ctx->archive_err, ctx->map->name, "embedded archive", ctx->map->archive.offset,
             "out of memory for the embedded archive");
    } else if (pmf_file_read(ctx->map, ctx->map->archive.offset, (size_t)ctx->map->archive.size, ctx->archive_bytes,
                             "embedded archive", &ctx->archive_err)) {
        ctx->archive_ok = paf_open(ctx->archive_bytes, (size_t)ctx->map->archive.size, ctx->map->name,
                                   ctx->map->archive.offset, &ctx->archive, &ctx->archive_err);
    }
    return ctx;
}

bool res_game_ok(const res_context *ctx, pmf_error *err)
{
    if (ctx->game_dir && !ctx->game)
        *err = ctx->game_err;
    return !ctx->game_dir || ctx->game;
}

/* The texels and mipmap chain of an image, in bytes. */
static uint64_t image_bytes(const res_image *img)
{
    uint64_t bytes = (uint64_t)img->width * img->height * 4;
    for (uint32_t l = 0, w = img->width, h = img->height; l < img->mip_levels; l++) {
        w = half_side(w);
        h = half_side(h);
        bytes += (uint64_t)w * h * 4;
    }
    return bytes;
}

/* Charges what e's image holds to the memory budget, in place of what it held before. */
static bool charge_entry(cache_entry *e)
{
    pmf_budget_give(e->charged);
    e->charged = image_bytes(&e->image);
    if (pmf_budget_take(e->charged))
        return true;
    e->charged = 0;
    return false;
}

static void free_entry_image(cache_entry *e)
{
    res_image_free(&e->image);
    pmf_budget_give(e->charged);
    e->charged = 0;
}

/* Large texels just freed go back to the kernel: the viewer's allocator keeps freed blocks up to
 * 32 MiB in its heap (scene.c's settle_allocator), and a 2048^2 texture's 21 MiB there is memory
 * the budget no longer counts. */
#define TRIM_AFTER_BYTES (4ull << 20)

static void release_entry(cache_entry *e)
{
    bool large = e->charged >= TRIM_AFTER_BYTES;
    free_entry_image(e);
    e->released = true;
    if (large)
        pmf_release_free_memory();
}

void res_destroy(res_context *ctx)
{
    if (!ctx)
        return;
    for (size_t i = 0; i < ctx->slot_count; i++) {
        cache_entry *e = ctx->slots[i];
        if (e) {
            free(e->path);
            free_entry_image(e);
            free(e);
        }
    }
    free(ctx->slots);
    free(ctx->archive_bytes);
    game_fs_close(ctx->game);
    free(ctx->game_dir);
    free(ctx->base_dir);
    free(ctx->instance_dir);
    free(ctx->user_dir);
    res_image_free(&ctx->checker);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

static size_t hash_path(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    while (*s)
        h = (h ^ (uint8_t)*s++) * 1099511628211ull;
    return (size_t)h;
}

static cache_entry **cache_slot(res_context *ctx, const char *path)
{
    size_t mask = ctx->slot_count - 1, i = hash_path(path) & mask;
    while (ctx->slots[i] && strcmp(ctx->slots[i]->path, path) != 0)
        i = (i + 1) & mask;
    return &ctx->slots[i];
}

static bool cache_grow(res_context *ctx)
{
    size_t old_count = ctx->slot_count;
    cache_entry **old = ctx->slots;
    ctx->slots = calloc(old_count * 2, sizeof *ctx->slots);
    if (!ctx->slots) {
        ctx->slots = old;
        return false;
    }
    ctx->slot_count = old_count * 2;
    for (size_t i = 0; i < old_count; i++)
        if (old[i])
            *cache_slot(ctx, old[i]->path) = old[i];
    free(old);
    return true;
}

/* ---- resolution ------------------------------------------------------------------------------ */

typedef enum found { FOUND, NOT_FOUND, BROKEN } found;

/* Refuses absolute paths, empty components, "." and ".." so no prefix can leave its directory. */
static bool path_is_safe(const char *p)
{
    if (*p == '\0' || *p == '/' || strchr(p, '\\'))
        return false;
    for (;;) {
        size_t len = strcspn(p, "/");
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        if (p[len] == '\0')
            return true;
        p += len + 1;
    }
}

static bool has_texture_ext(const char *p)
{
    size_t len = strlen(p);
    for (int i = 0; i < TEXTURE_EXT_COUNT; i++) {
        size_t n = strlen(texture_exts[i]);
        if (len > n && strcasecmp(p + len - n, texture_exts[i]) == 0)
            return true;
    }
    return len > 5 && strcasecmp(p + len - 5, ".jpeg") == 0;
}

static found read_disk_file(const char *path, uint8_t **bytes, size_t *size, pmf_error *err)
{
    pmf_os_file_info st;
    if (pmf_os_stat(path, &st) != 0 || !st.regular)
        return NOT_FOUND;
    if (st.size > MAX_RESOURCE_BYTES) {
        fail(err, path, "texture", 0, "file of %lld bytes is larger than %u", (long long)st.size, MAX_RESOURCE_BYTES);
        return BROKEN;
    }
    FILE *f = pmf_os_fopen(path, "rb");
    uint8_t *buf = malloc((size_t)st.size + 1);
    size_t got = f && buf ? fread(buf, 1, (size_t)st.size, f) : 0;
    if (f)
        fclose(f);
    if (!f || !buf || got != (size_t)st.size) {
        free(buf);
        fail(err, path, "texture", got, "cannot read the file");
        return BROKEN;
    }
    *bytes = buf;
    *size = got;
    return FOUND;
}

/* Where a path's rest is looked up: a directory on disk, the game directory (its loose files
 * over its paks) or the map's embedded archive. */
typedef enum root { ROOT_DISK, ROOT_GAME, ROOT_MAP } root;

/* Finds rel (+ each texture extension unless it has one) in dir on disk, the game directory or
 * the map's archive. *where receives the name used in errors. */
static found find_texture(const res_context *ctx, root where_from, const char *dir, const char *rel, uint8_t **bytes,
                          size_t *size, char *where, size_t where_size, pmf_error *err)
{
    bool as_is = has_texture_ext(rel);
    for (int i = 0; i < (as_is ? 1 : TEXTURE_EXT_COUNT); i++) {
        const char *ext = as_is ? "" : texture_exts[i];
        found r;
        /* a name too long for the buffer is not looked up truncated: it cannot exist */
        if (where_from == ROOT_DISK) {
            if ((size_t)snprintf(where, where_size, "%s/%s%s", dir, rel, ext) >= where_size)
                return NOT_FOUND;
            r = read_disk_file(where, bytes, size, err);
        } else if (where_from == ROOT_GAME) {
            if ((size_t)snprintf(where, where_size, "%s/%s%s", dir, rel, ext) >= where_size)
                return NOT_FOUND;
            int got = game_fs_read(ctx->game, where + strlen(dir) + 1, MAX_RESOURCE_BYTES, bytes, size, err);
            r = got > 0 ? FOUND : got == 0 ? NOT_FOUND : BROKEN;
        } else {
            if ((size_t)snprintf(where, where_size, "map:%s%s", rel, ext) >= where_size)
                return NOT_FOUND;
            paf_result pr = paf_read(&ctx->archive, where + 4, bytes, size, err);
            r = pr == PAF_FOUND ? FOUND : pr == PAF_NOT_FOUND ? NOT_FOUND : BROKEN;
        }
        if (r != NOT_FOUND)
            return r;
    }
    return NOT_FOUND;
}

/* True when p starts with the ????/????/????????/ of a player's downloads and has more after it. */
static bool has_player_id(const char *p)
{
    static const size_t lens[] = { 4, 4, 8 };
    for (int i = 0; i < 3; i++) {
        if (strcspn(p, "/") != lens[i] || p[lens[i]] != '/')
            return false;
        p += lens[i] + 1;
    }
    return *p != '\0';
}

/* Splits "prefix:rest" and picks the directory (or the archive) the rest is relative to. */
static bool resolve_root(const res_context *ctx, const char *path, char **dir_out, const char **rel_out,
                         root *where_from, pmf_error *err)
{
    const char *colon = strchr(path, ':');
    const char *slash = strchr(path, '/');
    const char *rel = path;
    const char *prefix = "self";
    size_t prefix_len = 4;
    if (colon && (!slash || colon < slash)) {
        prefix = path;
        prefix_len = (size_t)(colon - path);
        rel = colon + 1;
        if (prefix_len == 0) {
            prefix = "self";
            prefix_len = 4;
        }
    }
#define IS(name) (prefix_len == sizeof name - 1 && memcmp(prefix, name, prefix_len) == 0)
    *dir_out = NULL;
    *where_from = ROOT_DISK;
    *rel_out = rel;
    if (IS("map")) {
        if (!ctx->archive_ok) {
            *err = ctx->archive_err;
            return false;
        }
        *where_from = ROOT_MAP;
        return path_is_safe(rel) || fail(err, path, "resource", 0, "bad resource path");
    }
    if (!path_is_safe(rel))
        return fail(err, path, "resource", 0, "bad resource path (absolute, empty, \".\" or \"..\" component)");
    int n = -1;
    const char *missing = NULL;
    if (IS("self")) {
        if (ctx->game_dir && !ctx->game) {
            *err = ctx->game_err;
            return false;
        }
        if (!(missing = ctx->game_dir ? NULL : "no game directory (--game DIR)"))
            n = asprintf(dir_out, "%s", ctx->game_dir);
        *where_from = ROOT_GAME;
    } else if (IS("game")) {
        size_t name_len = strcspn(rel, "/");
        if (rel[name_len] != '/')
            return fail(err, path, "resource", 0, "game: needs a game name and a path (game:NAME/PATH)");
        if (!(missing = ctx->base_dir ? NULL : "no base directory (--game DIR)"))
            n = asprintf(dir_out, "%s/games/%.*s", ctx->base_dir, (int)name_len, rel);
        *rel_out = rel + name_len + 1;
    } else if (IS("internal")) {
        if (!(missing = ctx->instance_dir ? NULL : "no instance directory"))
            n = asprintf(dir_out, "%s/resources", ctx->instance_dir);
    } else if (IS("user")) {
        if (!(missing = ctx->user_dir ? NULL : "no user directory"))
            n = asprintf(dir_out, "%s/resources", ctx->user_dir);
    } else if (IS("custom")) {
        if (!has_player_id(rel))
            return fail(err, path, "resource", 0, "custom: needs a player id path (custom:XXXX/XXXX/XXXXXXXX/PATH)");
        if (!(missing = ctx->user_dir ? NULL : "no user directory"))
            n = asprintf(dir_out, "%s/downloads/player", ctx->user_dir);
    } else {
        return fail(err, path, "resource", 0, "unknown prefix \"%.*s:\"", (int)prefix_len, prefix);
    }
#undef IS
    if (missing)
        return fail(err, path, "resource", 0, "%.*s: resources are unavailable: %s", (int)prefix_len, prefix, missing);
    if (n < 0) {
        *dir_out = NULL;
        return fail(err, path, "resource", 0, "out of memory");
    }
    return true;
}

/* Resolves and decodes e->path into e (missing + err on failure). */
static void load_entry(const res_context *ctx, cache_entry *e)
{
    char *dir;
    const char *rel;
    root where_from;
    e->missing = true;
    if (!resolve_root(ctx, e->path, &dir, &rel, &where_from, &e->err))
        return;
    uint8_t *bytes = NULL;
    size_t size = 0;
    char where[PATH_MAX];
    found r = find_texture(ctx, where_from, dir, rel, &bytes, &size, where, sizeof where, &e->err);
    if (r == NOT_FOUND) {
        if (where_from == ROOT_MAP)
            fail(&e->err, e->path, "resource", 0, "not found in %s's embedded archive (tried %s%s)", ctx->map->name, rel,
                 has_texture_ext(rel) ? "" : " + .ptf, .png, .jpg, .tga, .bmp");
        else
            fail(&e->err, e->path, "resource", 0, "not found (tried %s/%s%s%s)", dir, rel,
                 has_texture_ext(rel) ? "" : " + .ptf, .png, .jpg, .tga, .bmp",
                 where_from == ROOT_GAME ? ", loose and in its paks" : "");
    } else if (r == FOUND) {
        e->missing = !res_image_decode(bytes, size, where, &e->image, &e->err);
        if (!e->missing && (!res_image_fit(&e->image, RES_MAX_TEXTURE_SIDE) || !res_image_build_mips(&e->image))) {
            fail(&e->err, where, "texture", 0, "out of memory for %ux%u texels", e->image.width, e->image.height);
            res_image_free(&e->image);
            e->missing = true;
        } else if (!e->missing && !charge_entry(e)) {
            fail(&e->err, where, "texture", 0, "%ux%u texels and their mipmaps need %llu MiB, more than the memory budget leaves (%llu of %llu MiB in use; see --memory)",
                 e->image.width, e->image.height, (unsigned long long)(image_bytes(&e->image) >> 20),
                 (unsigned long long)(pmf_budget_used() >> 20), (unsigned long long)(pmf_budget_limit() >> 20));
            res_image_free(&e->image);
            e->missing = true;
        }
    }
    if (where_from == ROOT_GAME)
        pmf_budget_free(bytes); /* game_fs's */
    else
        free(bytes);
    free(dir);
}

bool res_fit_texture(res_context *ctx, const char *path, uint32_t max_side)
{
    pthread_mutex_lock(&ctx->lock);
    cache_entry *e = *cache_slot(ctx, path);
    bool ok = e && !e->missing && !e->released && res_image_fit(&e->image, max_side) && res_image_build_mips(&e->image);
    if (ok)
        charge_entry(e); /* smaller than before: what it gave back is more than it takes */
    pthread_mutex_unlock(&ctx->lock);
    return ok;
}

void res_release_texture(res_context *ctx, const char *path)
{
    pthread_mutex_lock(&ctx->lock);
    cache_entry *e = *cache_slot(ctx, path);
    if (e && !e->missing) /* decoded again if asked for again */
        release_entry(e);
    pthread_mutex_unlock(&ctx->lock);
}

/* The entry of path, decoded now when new; NULL when out of memory (err set). Under ctx->lock. */
static cache_entry *entry_for(res_context *ctx, const char *path, pmf_error *err)
{
    cache_entry **slot = cache_slot(ctx, path);
    cache_entry *e = *slot;
    if (e && e->released) {
        load_entry(ctx, e);
        e->released = false;
    } else if (!e) {
        if ((ctx->used + 1) * 4 > ctx->slot_count * 3 && cache_grow(ctx))
            slot = cache_slot(ctx, path);
        e = (ctx->used + 1) * 4 <= ctx->slot_count * 3 ? calloc(1, sizeof *e) : NULL;
        if (e && !(e->path = strdup(path))) {
            free(e);
            e = NULL;
        }
        if (!e) {
            fail(err, path, "resource", 0, "out of memory");
            return NULL;
        }
        load_entry(ctx, e);
        *slot = e;
        ctx->used++;
    }
    return e;
}

res_status res_load_texture(res_context *ctx, const char *path, const res_image **image, pmf_error *err)
{
    /* One lock around lookup and decode: every texture is decoded exactly once, and
     * stbi_failure_reason() (a global, image.c) is only touched by one thread at a time. */
    pthread_mutex_lock(&ctx->lock);
    cache_entry *e = entry_for(ctx, path, err);
    res_status status = RES_MISSING;
    if (e && e->missing) {
        status = e->reported ? RES_MISSING_REPORTED : RES_MISSING;
        e->reported = true;
        if (err)
            *err = e->err;
    } else if (e) {
        status = RES_OK;
    }
    *image = e && !e->missing ? &e->image : &ctx->checker;
    pthread_mutex_unlock(&ctx->lock);
    return status;
}

void res_prefetch_texture(res_context *ctx, const char *path)
{
    pthread_mutex_lock(&ctx->lock);
    if (!*cache_slot(ctx, path))
        entry_for(ctx, path, NULL);
    pthread_mutex_unlock(&ctx->lock);
}
