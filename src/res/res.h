/* res.h - resource resolution and texture loading (docs/resources.md). No GL: uploading is the
 * renderer's job.
 *
 * Resource paths follow PlatinumSrc (../shared/specs/resource-paths.txt), plus our `map:`:
 *   "textures/brick", "self:textures/brick"  -> <game dir>/textures/brick.*, loose or in its paks
 *                                               (a loose file over pakN.pak over ... pak0.pak: src/pak/pak.h)
 *   "game:NAME/textures/brick"               -> <base dir>/games/NAME/textures/brick.*
 *   "internal:textures/brick"                -> <instance dir>/resources/textures/brick.*
 *   "user:textures/brick"                    -> <user dir>/resources/textures/brick.*
 *   "custom:AAAA/BBBB/CCCCCCCC/textures/x"   -> <user dir>/downloads/player/AAAA/BBBB/CCCCCCCC/textures/x.*
 *   "map:textures/brick"                     -> textures/brick.* in the map's embedded PAF archive
 * A path without an extension tries .ptf, .png, .jpg, .tga, .bmp in that order (the first that
 * exists wins, even if it then fails to decode). Components "." / ".." and absolute paths are
 * refused. The file's content decides its decoder (PTF, PNG, JPEG and BMP by their magic, else TGA: image.c).
 *
 * Usage:
 *   res_desc desc = { .game_dir = "games/demo", .map = pmf };
 *   res_context *ctx = res_create(&desc);
 *   const res_image *img;  pmf_error err;
 *   res_status st = res_load_texture(ctx, "map:textures/brick", &img, &err);
 *   if (st == RES_MISSING) print the error (once per path); img is then the checkerboard
 *   ...
 *   res_destroy(ctx);                           // frees every image it handed out
 *
 * res_load_texture may be called from any number of threads at once.
 */
#ifndef PMF_RES_H
#define PMF_RES_H

#include "pmf/pmf.h"

/* RGBA8 texels, row 0 = the image's first stored row (the top row of a PNG). */
typedef struct res_image {
    uint32_t width, height;
    uint8_t *rgba;                   /* width * height * 4 bytes */
    uint32_t stored_width, stored_height; /* as in the file, before RES_MAX_TEXTURE_SIDE (0 = the same) */
    /* The mipmap chain below rgba (res_image_build_mips), levels 1..mip_levels one after another,
     * each max(1, side / 2) of the one above; NULL / 0 = not built (a 1x1 image has none). */
    uint8_t *mips;
    uint32_t mip_levels;
} res_image;

/* Zero means default. A directory left NULL makes its prefix unavailable (loads report it). */
typedef struct res_desc {
    const char *game_dir;            /* self: and unprefixed paths (pmfview --game DIR) */
    const char *base_dir;            /* game:NAME/ -> <base>/games/NAME/; NULL = <game dir>/../.. */
    const char *instance_dir;        /* internal: -> <instance>/resources/ */
    const char *user_dir;            /* user: -> <user>/resources/, custom: -> <user>/downloads/player/ */
    const pmf_file *map;             /* map: -> its embedded archive; kept alive by the caller */
} res_desc;

typedef struct res_context res_context;

/* Copies the directory strings and opens the game directory's paks. NULL only when out of memory. */
res_context *res_create(const res_desc *desc);
/* False with err when the game directory is no directory or one of its paks is damaged (then
 * every self: load fails with that err). */
bool res_game_ok(const res_context *ctx, pmf_error *err);
void res_destroy(res_context *ctx);

typedef enum res_status {
    RES_OK = 0,                      /* *image is the texture */
    RES_MISSING = 1,                 /* first failure for this path: *image = checkerboard, *err says why */
    RES_MISSING_REPORTED = 2,        /* same failure again: *image = checkerboard, *err repeats it */
} res_status;

/* Resolves, decodes (once per context, with its mipmap chain) and returns the texture at path.
 * *image stays valid until res_destroy. Never returns a NULL image unless out of memory (then
 * RES_MISSING). */
res_status res_load_texture(res_context *ctx, const char *path, const res_image **image, pmf_error *err);
/* Decodes path into the cache when it has never been asked for, so that the res_load_texture
 * that follows (the renderer's, on the GL thread) finds it ready: the stream workers call it for
 * the materials of the chunks they mesh. A failure is kept for that res_load_texture to report. */
void res_prefetch_texture(res_context *ctx, const char *path);

/* The largest side a texture keeps after decoding: larger ones are halved (as a mipmap level)
 * until they fit, so the cache and the GPU hold at most 16 MiB per texture (docs/memory.md). */
#define RES_MAX_TEXTURE_SIDE 2048u
/* Halves img until both sides are <= max_side (dropping its mipmap chain when it does). False
 * (img unchanged) when out of memory. */
bool res_image_fit(res_image *img, uint32_t max_side);
/* (Re)builds img's mipmap chain down to 1x1, each level filtered from the one above as Mesa's
 * glGenerateMipmap does (a bilinear blit at the texel centres, 8-bit weights: a rounded 2x2
 * average for even sides). False when out of memory. */
bool res_image_build_mips(res_image *img);
/* Halves path's cached texels until they fit max_side (a texture the budget cannot take whole),
 * its mipmap chain rebuilt. */
bool res_fit_texture(res_context *ctx, const char *path, uint32_t max_side);
/* The caller has uploaded path's texels: they are freed (a later load decodes again). */
void res_release_texture(res_context *ctx, const char *path);

/* Decodes PTF, PNG, JPEG, TGA or BMP bytes (chosen by content) to RGBA8; name is for errors. An
 * image larger than RES_MAX_TEXTURE_SIDE comes out reduced as it is decoded, row by row (a box
 * filter by powers of two; JPEG scaled by its decoder first), so its full size is never held but
 * by an interlaced PNG, a BMP or a TGA (decoded whole, charged to the memory budget first);
 * stored_width / stored_height give the file's size. What a decode holds is charged to the
 * budget: one that does not fit fails ("... more than the memory budget leaves"). */
bool res_image_decode(const void *data, size_t size, const char *name, res_image *out, pmf_error *err);
/* The same with another limit than RES_MAX_TEXTURE_SIDE. */
bool res_image_decode_fit(const void *data, size_t size, const char *name, uint32_t max_side, res_image *out,
                          pmf_error *err);
void res_image_free(res_image *img);

/* The missing-texture image: 64x64, 8x8-texel cells, magenta (255,0,255,255) where
 * (x/8 + y/8) is even, black (0,0,0,255) elsewhere. Free with res_image_free. */
bool res_checkerboard(res_image *out);

#endif
