/* texture.c - textures a map carries: procedural ones drawn here (stb_perlin), image files
 * (stb_image); all encoded as PTF into the map's embedded PAF archive as textures/NAME.ptf. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image.h>
#include <stb_perlin.h>

#include "base/escape.h"
#include "common/session.h"
#include "memory.h"
#include "pmf/paf.h"
#include "pmf/ptf.h"
#include "texture.h"
#include "world.h"

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352dU;
    x ^= x >> 15; x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* 0..1 from integer cell coordinates */
static double cell_random(uint32_t seed, int a, int b)
{
    return hash32(seed * 0x9E3779B9u ^ hash32((uint32_t)a * 73856093u ^ (uint32_t)b * 19349663u)) / 4294967295.0;
}

/* Tileable fractal noise in about -1..1 over u, v in [0, 1): base frequency f (power of two). */
static double fbm(double u, double v, int f, int octaves, uint32_t seed)
{
    double sum = 0, amp = 1, norm = 0;
    for (int o = 0; o < octaves && f <= 256; o++, f *= 2, amp *= 0.5) {
        sum += amp * stb_perlin_noise3_seed((float)(u * f), (float)(v * f), (float)(seed % 97) * 0.37f + 0.5f, f, f, 0, (int)seed);
        norm += amp;
    }
    return sum / norm;
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
static double smooth(double e0, double e1, double x) { double t = clamp01((x - e0) / (e1 - e0)); return t * t * (3 - 2 * t); }

static void put(uint8_t *px, const uint8_t a[3], const uint8_t b[3], double t, double shade, double alpha)
{
    for (int c = 0; c < 3; c++) {
        double v = (a[c] + (b[c] - a[c]) * clamp01(t)) * shade;
        px[c] = (uint8_t)lrint(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    px[3] = (uint8_t)lrint(clamp01(alpha) * 255);
}

typedef void (*recipe_fn)(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed);

static void r_noise(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    (void)n;
    put(px, c2, c1, fbm(u, v, 4, 5, seed) * 0.7 + 0.5, 1, 1);
}

static void r_bricks(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    double rows = 8, cols = 4, mortar = fmax(1.0 / n, 1.0 / 64);
    int row = (int)floor(v * rows);
    double bu = u * cols + (row & 1 ? 0.5 : 0);
    int col = (int)floor(bu);
    double fu = bu - col, fv = v * rows - row;
    bool in_mortar = fu < mortar * cols || fv < mortar * rows;
    double grain = fbm(u, v, 16, 3, seed) * 0.12;
    if (in_mortar) {
        put(px, c2, c2, 0, 1 + grain, 1);
        return;
    }
    double tint = 0.82 + 0.3 * cell_random(seed, col % (int)cols, row);
    put(px, c1, c1, 0, tint + grain, 1);
}

static void r_tiles(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    double k = 4, grout = fmax(1.0 / n, 1.0 / 64) * k;
    double fu = u * k - floor(u * k), fv = v * k - floor(v * k);
    if (fu < grout || fv < grout) {
        put(px, c2, c2, 0, 1, 1);
        return;
    }
    double tint = 0.92 + 0.12 * cell_random(seed, (int)(u * k), (int)(v * k));
    put(px, c1, c1, 0, tint + fbm(u, v, 8, 3, seed) * 0.05, 1);
}

static void r_planks(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    double rows = 4, gap = fmax(1.0 / n, 1.0 / 128) * rows;
    int row = (int)floor(v * rows);
    double fv = v * rows - row;
    double shift = cell_random(seed, 0, row);
    double pu = u + shift;
    pu -= floor(pu);
    if (fv < gap || pu < 1.0 / n) {
        put(px, c2, c2, 0, 1, 1);
        return;
    }
    double grain = fbm(u, v * 0.25 + row * 0.25, 4, 4, seed + (uint32_t)row);
    double rings = 0.5 + 0.5 * sin((v * rows * 6 + grain * 6) * 3.14159);
    put(px, c1, c2, rings * 0.35, 0.9 + 0.2 * cell_random(seed, 1, row), 1);
}

static void r_checker(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    (void)n; (void)seed;
    int k = ((int)floor(u * 8) + (int)floor(v * 8)) & 1;
    put(px, c1, c2, k, 1, 1);
}

static void r_stripes(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    (void)n; (void)u; (void)seed;
    put(px, c1, c2, (int)floor(v * 8) & 1, 1, 1);
}

static void r_glow(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    (void)n; (void)seed;
    double d = sqrt((u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5)) * 2;
    double t = clamp01(1 - d);
    uint8_t black[3] = { 0, 0, 0 };
    /* a bright core in c1 over a c2 halo */
    double core = smooth(0.45, 0.9, t);
    uint8_t mid[3];
    for (int c = 0; c < 3; c++) mid[c] = (uint8_t)lrint(c2[c] + (c1[c] - c2[c]) * core);
    put(px, black, mid, t * t * (2 - t), 1, 1);
}

static void r_water(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    (void)n;
    double w = fbm(u, v, 4, 4, seed);
    double ripple = fabs(fbm(u + w * 0.1, v, 8, 3, seed + 7));
    put(px, c1, c2, smooth(0.0, 0.5, ripple) * 0.6 + w * 0.15, 1, 1);
}

static void r_clouds(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    (void)n;
    double d = fbm(u, v, 4, 6, seed) * 0.8 + 0.5;
    double a = smooth(0.5, 0.85, d);
    put(px, c2, c1, smooth(0.45, 1.0, d), 1, a);
}

static void r_sky(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    (void)n;
    double haze = fbm(u, v, 4, 3, seed) * 0.03;
    put(px, c1, c2, pow(v, 1.6) + haze, 1, 1);
}

static void r_panel(uint8_t *px, double u, double v, uint32_t n, const uint8_t c1[3], const uint8_t c2[3], uint32_t seed)
{
    double k = 2, line = fmax(1.0 / n, 1.0 / 128) * k;
    double fu = u * k - floor(u * k), fv = v * k - floor(v * k);
    double shade = 1 + fbm(u, v, 8, 4, seed) * 0.08;
    if (fu < line || fv < line) { put(px, c2, c2, 0, 1, 1); return; }
    if (fu < line * 2 || fv < line * 2) { put(px, c1, c1, 0, 1.18, 1); return; }
    double rx = fu < 0.5 ? fu - 0.08 : fu - 0.92, ry = fv < 0.5 ? fv - 0.08 : fv - 0.92;
    if (rx * rx + ry * ry < 0.0009) { put(px, c1, c1, 0, 1.3, 1); return; }
    put(px, c1, c1, 0, shade, 1);
}

static const struct { const char *name; recipe_fn fn; } recipes[] = {
    { "noise", r_noise }, { "bricks", r_bricks }, { "tiles", r_tiles }, { "planks", r_planks },
    { "checker", r_checker }, { "stripes", r_stripes }, { "glow", r_glow }, { "water", r_water },
    { "clouds", r_clouds }, { "sky", r_sky }, { "panel", r_panel },
};

const char *texture_procedural(texture_def *tex, const char *kind, uint32_t size,
                               const uint8_t color[3], const uint8_t color2[3], uint32_t seed)
{
    recipe_fn fn = NULL;
    for (size_t i = 0; i < sizeof recipes / sizeof recipes[0]; i++)
        if (!strcmp(recipes[i].name, kind)) fn = recipes[i].fn;
    if (!fn) {
        static char msg[160];
        snprintf(msg, sizeof msg, "unknown procedural kind '%s' (noise, bricks, tiles, planks, checker, stripes, glow, water, clouds, sky, panel)", kind);
        return msg;
    }
    tex->width = tex->height = size;
    tex->rgba = xmalloc((size_t)size * size * 4);
    for (uint32_t y = 0; y < size; y++)
        for (uint32_t x = 0; x < size; x++)
            fn(tex->rgba + ((size_t)y * size + x) * 4, (x + 0.5) / size, (y + 0.5) / size, size, color, color2, seed);
    return NULL;
}

/* data NULL: the file at path, else size bytes at data (path names them for errors). */
static const char *image_load(texture_def *tex, const char *path, const uint8_t *data, size_t size, bool any_size)
{
    static char msg[PMFC_PATH_MAX * 2 + 64];
    int w, h, n;
    uint8_t *px = data ? (size <= INT_MAX ? stbi_load_from_memory(data, (int)size, &w, &h, &n, 4) : NULL)
                       : stbi_load(path, &w, &h, &n, 4);
    if (!px) {
        snprintf(msg, sizeof msg, "cannot load '%s': %s", path, stbi_failure_reason());
        return msg;
    }
    bool pow2 = !(w & (w - 1)) && !(h & (h - 1));
    if (w <= 0 || h <= 0 || (!any_size && !pow2) || w > (1 << PTF_MAX_SIDE_EXP) || h > (1 << PTF_MAX_SIDE_EXP)) {
        stbi_image_free(px);
        snprintf(msg, sizeof msg, "'%s' is %dx%d; image sides must be powers of two", path, w, h);
        return msg;
    }
    tex->width = (uint32_t)w;
    tex->height = (uint32_t)h;
    escape_hold hold;
    escape_hold_take(&hold, stbi_image_free, px); /* stb's, not the ledger's: freed if xmalloc leaves */
    tex->rgba = xmalloc((size_t)w * h * 4);
    memcpy(tex->rgba, px, (size_t)w * h * 4);
    escape_hold_let_go(&hold);
    stbi_image_free(px);
    return NULL;
}

const char *texture_image(texture_def *tex, const char *path)
{
    return image_load(tex, path, NULL, 0, false);
}

const char *texture_image_any(texture_def *tex, const char *path)
{
    return image_load(tex, path, NULL, 0, true);
}

const char *texture_image_memory_any(texture_def *tex, const uint8_t *data, size_t size, const char *name)
{
    return image_load(tex, name, data, size, true);
}

bool textures_archive(const map_def *map, uint8_t **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    if (!map->texture_count) return true;
    paf_writer *w = paf_writer_create();
    pmf_error err;
    bool ok = w != NULL;
    for (size_t i = 0; ok && i < map->texture_count; i++) {
        const texture_def *t = &map->textures[i];
        uint8_t *ptf;
        size_t ptf_size;
        ok = ptf_encode(t->rgba, t->width, t->height, PTF_FORMAT_AUTO, &ptf, &ptf_size, &err);
        if (!ok) break;
        char path[PMFC_NAME_MAX + 16];
        snprintf(path, sizeof path, "textures/%s.ptf", t->name);
        ok = paf_writer_add_file(w, path, ptf, ptf_size, &err);
        free(ptf);
    }
    if (ok) ok = paf_writer_finish(w, out, size, &err);
    if (!ok) {
        char buf[768];
        session_say(PMFC_ERROR, "pmfc: texture archive: %s", pmf_error_format(&err, buf, sizeof buf));
    }
    paf_writer_destroy(w);
    return ok;
}
