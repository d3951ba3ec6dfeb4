/* res.c - resource path resolution, texture decoding and the per-map texture cache (see res.h). */
#include "res.h"

#include "pmf/paf.h"
#include "pmf/pmf_budget.h"
#include "pmf/ptf.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_RESOURCE_BYTES (256u << 20)  /* a texture file larger than this is refused */
#define CHECKER_SIDE 64u
#define CHECKER_CELL 8u

static const char *const texture_exts[] = { ".ptf", ".png", ".jpg", ".tga", ".bmp" };
enum { TEXTURE_EXT_COUNT = sizeof texture_exts / sizeof texture_exts[0] };

static bool fail(pmf_error *err, const char *file, const char *block, uint64_t offset, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        snprintf(err->file, sizeof err->file, "%s", file);
        snprintf(err->block, sizeof err->block, "%s", block);
        err->offset = offset;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* ---- images (decoding: image.c) ----------------------------------------------------------- */

static bool halve(res_image *img)
{
    uint32_t w = img->width > 1 ? img->width / 2 : 1, h = img->height > 1 ? img->height / 2 : 1;
    uint8_t *out = malloc((size_t)w * h * 4);
    if (!out)
        return false;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t x0 = x * 2 < img->width ? x * 2 : img->width - 1, y0 = y * 2 < img->height ? y * 2 : img->height - 1;
            uint32_t x1 = x0 + 1 < img->width ? x0 + 1 : x0, y1 = y0 + 1 < img->height ? y0 + 1 : y0;
            for (int c = 0; c < 4; c++) {
                unsigned sum = img->rgba[((size_t)y0 * img->width + x0) * 4 + c] + img->rgba[((size_t)y0 * img->width + x1) * 4 + c] +
                               img->rgba[((size_t)y1 * img->width + x0) * 4 + c] + img->rgba[((size_t)y1 * img->width + x1) * 4 + c];
                out[((size_t)y * w + x) * 4 + c] = (uint8_t)((sum + 2) / 4);
            }
        }
    free(img->rgba);
    img->rgba = out;
    img->width = w;
    img->height = h;
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
    bool released;                   /* texels freed after upload (res_release_texture) */
    res_image image;
    pmf_error err;                   /* why it is missing */
} cache_entry;

struct res_context {
    char *game_dir, *base_dir, *instance_dir, *user_dir;
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
              && dup_opt(&ctx->user_dir, desc->user_dir) && res_checkerboard(&ctx->checker);
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
        free(ctx->checker.rgba);
        free(ctx);
        return NULL;
    }
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

void res_destroy(res_context *ctx)
{
    if (!ctx)
        return;
    for (size_t i = 0; i < ctx->slot_count; i++) {
        cache_entry *e = ctx->slots[i];
        if (e) {
            free(e->path);
            res_image_free(&e->image);
            free(e);
        }
    }
    free(ctx->slots);
    free(ctx->archive_bytes);
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
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NOT_FOUND;
    if ((uint64_t)st.st_size > MAX_RESOURCE_BYTES) {
        fail(err, path, "texture", 0, "file of %lld bytes is larger than %u", (long long)st.st_size, MAX_RESOURCE_BYTES);
        return BROKEN;
    }
    FILE *f = fopen(path, "rb");
    uint8_t *buf = malloc((size_t)st.st_size + 1);
    size_t got = f && buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    if (f)
        fclose(f);
    if (!f || !buf || got != (size_t)st.st_size) {
        free(buf);
        fail(err, path, "texture", got, "cannot read the file");
        return BROKEN;
    }
    *bytes = buf;
    *size = got;
    return FOUND;
}

/* Finds rel (+ each texture extension unless it has one) in dir on disk or, for dir == NULL,
 * in the map's archive. *where receives the name used in errors. */
static found find_texture(const res_context *ctx, const char *dir, const char *rel, uint8_t **bytes, size_t *size,
                          char *where, size_t where_size, pmf_error *err)
{
    bool as_is = has_texture_ext(rel);
    for (int i = 0; i < (as_is ? 1 : TEXTURE_EXT_COUNT); i++) {
        const char *ext = as_is ? "" : texture_exts[i];
        found r;
        /* a name too long for the buffer is not looked up truncated: it cannot exist */
        if (dir) {
            if ((size_t)snprintf(where, where_size, "%s/%s%s", dir, rel, ext) >= where_size)
                return NOT_FOUND;
            r = read_disk_file(where, bytes, size, err);
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
                         bool *in_map, pmf_error *err)
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
    *in_map = false;
    *rel_out = rel;
    if (IS("map")) {
        if (!ctx->archive_ok) {
            *err = ctx->archive_err;
            return false;
        }
        *in_map = true;
        return path_is_safe(rel) || fail(err, path, "resource", 0, "bad resource path");
    }
    if (!path_is_safe(rel))
        return fail(err, path, "resource", 0, "bad resource path (absolute, empty, \".\" or \"..\" component)");
    int n = -1;
    const char *missing = NULL;
    if (IS("self")) {
        if (!(missing = ctx->game_dir ? NULL : "no game directory (--game DIR)"))
            n = asprintf(dir_out, "%s", ctx->game_dir);
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

static void release_entry(cache_entry *e)
{
    res_image_free(&e->image);
    e->released = true;
}

/* Resolves and decodes e->path into e (missing + err on failure). */
static void load_entry(const res_context *ctx, cache_entry *e)
{
    char *dir;
    const char *rel;
    bool in_map;
    e->missing = true;
    if (!resolve_root(ctx, e->path, &dir, &rel, &in_map, &e->err))
        return;
    uint8_t *bytes = NULL;
    size_t size = 0;
    char where[PATH_MAX];
    found r = find_texture(ctx, in_map ? NULL : dir, rel, &bytes, &size, where, sizeof where, &e->err);
    if (r == NOT_FOUND) {
        if (in_map)
            fail(&e->err, e->path, "resource", 0, "not found in %s's embedded archive (tried %s%s)", ctx->map->name, rel,
                 has_texture_ext(rel) ? "" : " + .ptf, .png, .jpg, .tga, .bmp");
        else
            fail(&e->err, e->path, "resource", 0, "not found (tried %s/%s%s)", dir, rel,
                 has_texture_ext(rel) ? "" : " + .ptf, .png, .jpg, .tga, .bmp");
    } else if (r == FOUND) {
        e->missing = !res_image_decode(bytes, size, where, &e->image, &e->err);
        if (!e->missing && !res_image_fit(&e->image, RES_MAX_TEXTURE_SIDE)) {
            fail(&e->err, where, "texture", 0, "out of memory for %ux%u texels", e->image.width, e->image.height);
            res_image_free(&e->image);
            e->missing = true;
        }
    }
    free(bytes);
    free(dir);
}

bool res_fit_texture(res_context *ctx, const char *path, uint32_t max_side)
{
    pthread_mutex_lock(&ctx->lock);
    cache_entry *e = *cache_slot(ctx, path);
    bool ok = e && !e->missing && !e->released && res_image_fit(&e->image, max_side);
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

res_status res_load_texture(res_context *ctx, const char *path, const res_image **image, pmf_error *err)
{
    /* One lock around lookup and decode: every texture is decoded exactly once, and
     * stbi_failure_reason() (a global, image.c) is only touched by one thread at a time. */
    pthread_mutex_lock(&ctx->lock);
    res_status status;
    cache_entry **slot = cache_slot(ctx, path);
    cache_entry *e = *slot;
    if (e && e->released) {
        load_entry(ctx, e);
        e->released = false;
        status = e->missing ? RES_MISSING_REPORTED : RES_OK;
    } else if (e) {
        status = e->missing ? RES_MISSING_REPORTED : RES_OK;
    } else {
        status = RES_MISSING;
        if ((ctx->used + 1) * 4 > ctx->slot_count * 3 && cache_grow(ctx))
            slot = cache_slot(ctx, path);
        e = (ctx->used + 1) * 4 <= ctx->slot_count * 3 ? calloc(1, sizeof *e) : NULL;
        if (e && !(e->path = strdup(path))) {
            free(e);
            e = NULL;
        }
        if (e) {
            load_entry(ctx, e);
            *slot = e;
            ctx->used++;
            if (!e->missing)
                status = RES_OK;
        } else {
            fail(err, path, "resource", 0, "out of memory");
        }
    }
    if (e && e->missing && err)
        *err = e->err;
    *image = e && !e->missing ? &e->image : &ctx->checker;
    pthread_mutex_unlock(&ctx->lock);
    return status;
}
