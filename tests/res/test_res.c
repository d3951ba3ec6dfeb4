/* test_res.c - resource resolution: map: archive, game dir, game:, extension order, missing
 * textures (checkerboard, reported once), decode-once cache under threads; the game dir's paks
 * (pak1.pak over pak0.pak, a loose file over both; a damaged pak refuses the game dir). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image_write.h>

#include "common/check.h"
#include "common/programs.h"
#include "pak_build.h"
#include "pmf/paf.h"
#include "pmf/ptf.h"
#include "res/res.h"

static char root[256];

static void mkdir_p(const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            test_make_dir(buf);
            *p = '/';
        }
    test_make_dir(buf);
}

/* A 2x2 RGBA image filled with one colour. */
static void solid(uint8_t px[16], uint8_t r, uint8_t g, uint8_t b, uint8_t a)
{
    for (int i = 0; i < 4; i++) {
        px[i * 4] = r;
        px[i * 4 + 1] = g;
        px[i * 4 + 2] = b;
        px[i * 4 + 3] = a;
    }
}

static void write_ptf(const char *path, const uint8_t px[16])
{
    uint8_t *ptf;
    size_t size;
    pmf_error err;
    CHECK(ptf_encode(px, 2, 2, PTF_FORMAT_AUTO, &ptf, &size, &err));
    CHECK(test_write_file(path, ptf, size));
    free(ptf);
}

static bool texel_is(const res_image *img, uint32_t x, uint32_t y, uint8_t r, uint8_t g, uint8_t b, uint8_t a)
{
    const uint8_t *t = img->rgba + (y * img->width + x) * 4;
    return t[0] == r && t[1] == g && t[2] == b && t[3] == a;
}

typedef struct thread_job { res_context *ctx; const res_image *seen[3]; } thread_job;

static void *load_some(void *arg)
{
    thread_job *job = arg;
    static const char *const paths[3] = { "textures/a", "map:textures/x", "textures/nothing" };
    for (int round = 0; round < 20; round++)
        for (int i = 0; i < 3; i++) {
            pmf_error err;
            res_load_texture(job->ctx, paths[i], &job->seen[i], &err);
        }
    return NULL;
}

static void test_resolver(void)
{
    char game[300], path[400];
    snprintf(game, sizeof game, "%s/games/demo", root);
    snprintf(path, sizeof path, "%s/textures", game);
    mkdir_p(path);
    snprintf(path, sizeof path, "%s/games/other/textures", root);
    mkdir_p(path);

    uint8_t red[16], green[16], blue[16], gray[16];
    solid(red, 255, 0, 0, 255);
    solid(green, 0, 255, 0, 255);
    solid(blue, 0, 0, 255, 128);
    solid(gray, 90, 90, 90, 255);
    /* textures/a.png only; textures/b.png and textures/b.ptf (the .ptf must win) */
    snprintf(path, sizeof path, "%s/textures/a.png", game);
    CHECK(stbi_write_png(path, 2, 2, 4, red, 8));
    snprintf(path, sizeof path, "%s/textures/b.png", game);
    CHECK(stbi_write_png(path, 2, 2, 4, red, 8));
    snprintf(path, sizeof path, "%s/textures/b.ptf", game);
    write_ptf(path, green);
    snprintf(path, sizeof path, "%s/textures/c.bmp", game);
    CHECK(stbi_write_bmp(path, 2, 2, 3, (uint8_t[12]){ 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3 }));
    snprintf(path, sizeof path, "%s/games/other/textures/g.png", root);
    CHECK(stbi_write_png(path, 2, 2, 4, gray, 8));
    snprintf(path, sizeof path, "%s/textures/empty.tga", game);
    CHECK(test_write_file(path, "", 0));
    snprintf(path, sizeof path, "%s/textures/broken.png", game);
    CHECK(test_write_file(path, "not an image", 12));

    /* the map: a PMF (no levels) whose embedded PAF archive holds textures/x.ptf */
    uint8_t *ptf, *arc;
    size_t ptf_size, arc_size;
    pmf_error err = {0};
    CHECK(ptf_encode(blue, 2, 2, PTF_FORMAT_AUTO, &ptf, &ptf_size, &err));
    paf_writer *w = paf_writer_create();
    CHECK(paf_writer_add_file(w, "textures/x.ptf", ptf, ptf_size, &err));
    CHECK(paf_writer_finish(w, &arc, &arc_size, &err));
    paf_writer_destroy(w);
    free(ptf);
    pmf_header header = { .name = "res test", .description = "", .authors = "", .compiler = "test_res" };
    pmf_writer *pw = pmf_writer_create(&header, &(pmf_data_desc){ .archive = { arc, arc_size } }, &err);
    uint8_t *file = NULL;
    size_t file_size = 0;
    CHECK(pw && pmf_writer_finish_memory(pw, &file, &file_size, &err));
    pmf_writer_destroy(pw);
    free(arc);
    pmf_file *map = pmf_open_memory(file, file_size, "demo.pmf", &err);
    CHECK(map && map->archive.size == arc_size);

    res_context *ctx = res_create(&(res_desc){ .game_dir = game, .map = map });
    CHECK(ctx != NULL);
    const res_image *img = NULL, *again = NULL;

    CHECK_EQ(res_load_texture(ctx, "map:textures/x", &img, &err), RES_OK);
    CHECK(img->width == 2 && img->height == 2 && texel_is(img, 1, 1, 0, 0, 255, 128));
    CHECK_EQ(res_load_texture(ctx, "map:textures/x", &again, &err), RES_OK);
    CHECK(again == img); /* decoded once, cached */
    CHECK_EQ(res_load_texture(ctx, "map:textures/x.ptf", &img, &err), RES_OK);

    CHECK_EQ(res_load_texture(ctx, "textures/a", &img, &err), RES_OK);
    CHECK(texel_is(img, 0, 0, 255, 0, 0, 255));
    CHECK_EQ(res_load_texture(ctx, "self:textures/a.png", &img, &err), RES_OK);
    CHECK_EQ(res_load_texture(ctx, ":textures/a", &img, &err), RES_OK);
    CHECK_EQ(res_load_texture(ctx, "textures/b", &img, &err), RES_OK);
    CHECK(texel_is(img, 1, 0, 0, 255, 0, 255)); /* .ptf before .png */
    CHECK_EQ(res_load_texture(ctx, "textures/b.png", &img, &err), RES_OK);
    CHECK(texel_is(img, 1, 0, 255, 0, 0, 255));
    CHECK_EQ(res_load_texture(ctx, "textures/c", &img, &err), RES_OK);
    CHECK(texel_is(img, 0, 0, 1, 2, 3, 255));
    CHECK_EQ(res_load_texture(ctx, "game:other/textures/g", &img, &err), RES_OK);
    CHECK(texel_is(img, 1, 1, 90, 90, 90, 255));

    /* missing: the checkerboard, reported once */
    CHECK_EQ(res_load_texture(ctx, "textures/nothing", &img, &err), RES_MISSING);
    fprintf(stderr, "  expected: %s\n", err.message);
    CHECK(strstr(err.message, "not found") != NULL);
    CHECK(img->width == 64 && img->height == 64);
    CHECK(texel_is(img, 0, 0, 255, 0, 255, 255) && texel_is(img, 7, 7, 255, 0, 255, 255));
    CHECK(texel_is(img, 8, 0, 0, 0, 0, 255) && texel_is(img, 0, 8, 0, 0, 0, 255));
    CHECK(texel_is(img, 8, 8, 255, 0, 255, 255) && texel_is(img, 63, 0, 0, 0, 0, 255));
    CHECK_EQ(res_load_texture(ctx, "textures/nothing", &again, &err), RES_MISSING_REPORTED);
    CHECK(again == img && strstr(err.message, "not found") != NULL);
    CHECK_EQ(res_load_texture(ctx, "map:textures/nothing", &img, &err), RES_MISSING);
    /* a prefetch (a stream worker) decodes without reporting: the first load still says why */
    res_prefetch_texture(ctx, "textures/nothing2");
    CHECK_EQ(res_load_texture(ctx, "textures/nothing2", &img, &err), RES_MISSING);
    CHECK(strstr(err.message, "not found") != NULL);
    CHECK_EQ(res_load_texture(ctx, "textures/nothing2", &img, &err), RES_MISSING_REPORTED);
    /* ... and a prefetched texture comes with its mipmaps (2x2: one level, 1x1) */
    res_prefetch_texture(ctx, "game:other/textures/g.png");
    CHECK_EQ(res_load_texture(ctx, "game:other/textures/g.png", &img, &err), RES_OK);
    CHECK(img->mip_levels == 1 && img->mips && img->mips[0] == 90 && img->mips[3] == 255);
    /* released by the renderer, prefetched again, loaded again: decoded again, whole */
    res_release_texture(ctx, "game:other/textures/g.png");
    res_prefetch_texture(ctx, "game:other/textures/g.png");
    CHECK_EQ(res_load_texture(ctx, "game:other/textures/g.png", &img, &err), RES_OK);
    CHECK(img->rgba != NULL && img->mip_levels == 1);
    CHECK_EQ(res_load_texture(ctx, "textures/broken.png", &img, &err), RES_MISSING);
    CHECK(strcmp(err.block, "texture") == 0);
    CHECK_EQ(res_load_texture(ctx, "textures/empty", &img, &err), RES_MISSING);
    CHECK(strstr(err.message, "empty") != NULL);
    CHECK_EQ(res_load_texture(ctx, "../games/demo/textures/a", &img, &err), RES_MISSING);
    CHECK_EQ(res_load_texture(ctx, "internal:textures/a", &img, &err), RES_MISSING);
    CHECK(strstr(err.message, "unavailable") != NULL);
    CHECK_EQ(res_load_texture(ctx, "nosuch:textures/a", &img, &err), RES_MISSING);
    CHECK_EQ(res_load_texture(ctx, "custom:ab/textures/a", &img, &err), RES_MISSING);

    /* threads share the cache: everyone sees the very same images */
    pthread_t threads[4];
    thread_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (thread_job){ .ctx = ctx };
        pthread_create(&threads[i], NULL, load_some, &jobs[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    for (int i = 1; i < 4; i++)
        CHECK(memcmp(jobs[i].seen, jobs[0].seen, sizeof jobs[0].seen) == 0);
    res_destroy(ctx);

    /* user: and custom: resolve under the user directory; map: without a map is unavailable */
    snprintf(path, sizeof path, "%s/user/downloads/player/abcd/efgh/01234567/tex", root);
    mkdir_p(path);
    snprintf(path, sizeof path, "%s/user/downloads/player/abcd/efgh/01234567/tex/y.png", root);
    CHECK(stbi_write_png(path, 2, 2, 4, gray, 8));
    snprintf(path, sizeof path, "%s/user/resources", root);
    mkdir_p(path);
    snprintf(path, sizeof path, "%s/user/resources/z.ptf", root);
    write_ptf(path, green);
    snprintf(path, sizeof path, "%s/user", root);
    ctx = res_create(&(res_desc){ .user_dir = path });
    CHECK_EQ(res_load_texture(ctx, "custom:abcd/efgh/01234567/tex/y", &img, &err), RES_OK);
    CHECK_EQ(res_load_texture(ctx, "user:z", &img, &err), RES_OK);
    CHECK_EQ(res_load_texture(ctx, "textures/a", &img, &err), RES_MISSING); /* no game dir */
    CHECK_EQ(res_load_texture(ctx, "map:textures/x", &img, &err), RES_MISSING);
    res_destroy(ctx);
    pmf_close(map);
    free(file);
}

/* res_image_build_mips: every level down to 1x1 (max(1, side / 2) each), a rounded 2x2
 * average for even sides, Mesa's bilinear blit weights for odd ones; rebuilt after a fit. */
static void test_mips(void)
{
    uint8_t px[4 * 2 * 4];
    const uint8_t red[8] = { 0, 1, 10, 255, 100, 200, 3, 2 };  /* red channel of the 4x2 image */
    for (int i = 0; i < 8; i++) {
        px[i * 4 + 0] = red[i];
        px[i * 4 + 1] = (uint8_t)(i * 30);
        px[i * 4 + 2] = 7;
        px[i * 4 + 3] = 255;
    }
    res_image img = { .width = 4, .height = 2, .rgba = malloc(sizeof px) };
    memcpy(img.rgba, px, sizeof px);
    CHECK(res_image_build_mips(&img));
    CHECK_EQ(img.mip_levels, 2u); /* 2x1, 1x1 */
    /* texel (0,0) of level 1: lerp(lerp(0, 1), lerp(100, 200)) = lerp(1, 150) = 76 (each lerp
     * rounded: a + ((b - a) * 128 + 128 >> 8)) */
    CHECK_EQ(img.mips[0], 76);
    CHECK_EQ(img.mips[4], 68);    /* lerp(lerp(10, 255) = 133, lerp(3, 2) = 3) */
    CHECK_EQ(img.mips[1], 75);    /* green: lerp(lerp(0, 30) = 15, lerp(120, 150) = 135) */
    CHECK_EQ(img.mips[3], 255);
    CHECK_EQ(img.mips[8], 72);    /* level 2: lerp(76, 68) */
    /* a fit to 2 halves the image and rebuilds the chain from the new level 0 */
    CHECK(res_image_fit(&img, 2) && img.width == 2 && img.height == 1 && img.rgba[0] == 76 && img.rgba[4] == 68);
    CHECK(img.mips == NULL && img.mip_levels == 0);
    CHECK(res_image_build_mips(&img) && img.mip_levels == 1 && img.mips[0] == 72);
    res_image_free(&img);

    /* 3x1 -> 1x1 samples the middle texel alone (blit centre at 1.5 = texel 1's centre) */
    const uint8_t odd[12] = { 5, 5, 5, 5, 77, 77, 77, 77, 200, 200, 200, 200 };
    img = (res_image){ .width = 3, .height = 1, .rgba = malloc(sizeof odd) };
    memcpy(img.rgba, odd, sizeof odd);
    CHECK(res_image_build_mips(&img) && img.mip_levels == 1 && img.mips[0] == 77 && img.mips[3] == 77);
    res_image_free(&img);

    /* a 1x1 image has no chain */
    img = (res_image){ .width = 1, .height = 1, .rgba = calloc(1, 4) };
    CHECK(res_image_build_mips(&img) && img.mip_levels == 0 && img.mips == NULL);
    res_image_free(&img);
}

/* A 2x2 PTF of one colour in memory (ptf_encode's: free it). */
static uint8_t *ptf_of(uint8_t r, uint8_t g, uint8_t b, size_t *size)
{
    uint8_t px[16], *ptf = NULL;
    pmf_error err;
    solid(px, r, g, b, 255);
    CHECK(ptf_encode(px, 2, 2, PTF_FORMAT_AUTO, &ptf, size, &err));
    return ptf;
}

/* quake/id1: pak0.pak holds textures/p, q and only0 (red, red, green); pak1.pak textures/P
 * (blue: names compare without case); a loose textures/q.ptf (gray). The engines' order: pak1
 * over pak0, the loose file over both. Then a damaged pak2.pak refuses the whole game dir. */
static void test_game_paks(void)
{
    char game[300], path[400];
    snprintf(game, sizeof game, "%s/quake/id1", root);
    snprintf(path, sizeof path, "%s/textures", game);
    mkdir_p(path);
    size_t red_size, green_size, blue_size, gray_size;
    uint8_t *red = ptf_of(255, 0, 0, &red_size), *green = ptf_of(0, 255, 0, &green_size);
    uint8_t *blue = ptf_of(0, 0, 255, &blue_size), *gray = ptf_of(90, 90, 90, &gray_size);
    const pak_build_file pak0[] = { { "textures/p.ptf", red, red_size }, { "textures/q.ptf", red, red_size },
                                    { "textures/only0.ptf", green, green_size } };
    const pak_build_file pak1[] = { { "textures/P.PTF", blue, blue_size } };
    snprintf(path, sizeof path, "%s/pak0.pak", game);
    CHECK(pak_build_write(path, pak0, 3));
    snprintf(path, sizeof path, "%s/pak1.pak", game);
    CHECK(pak_build_write(path, pak1, 1));
    snprintf(path, sizeof path, "%s/textures/q.ptf", game);
    CHECK(test_write_file(path, gray, gray_size));

    pmf_error err = {0};
    res_context *ctx = res_create(&(res_desc){ .game_dir = game });
    CHECK(ctx && res_game_ok(ctx, &err));
    const res_image *img = NULL;
    CHECK_EQ(res_load_texture(ctx, "textures/p", &img, &err), RES_OK);
    CHECK(texel_is(img, 0, 0, 0, 0, 255, 255), "pak1 over pak0: %u %u %u", img->rgba[0], img->rgba[1], img->rgba[2]);
    CHECK_EQ(res_load_texture(ctx, "self:textures/q", &img, &err), RES_OK);
    CHECK(texel_is(img, 1, 1, 90, 90, 90, 255), "loose over the paks: %u %u %u", img->rgba[0], img->rgba[1], img->rgba[2]);
    CHECK_EQ(res_load_texture(ctx, "textures/only0", &img, &err), RES_OK);
    CHECK(texel_is(img, 0, 1, 0, 255, 0, 255), "pak0 alone: %u %u %u", img->rgba[0], img->rgba[1], img->rgba[2]);
    CHECK_EQ(res_load_texture(ctx, "textures/none", &img, &err), RES_MISSING);
    CHECK(strstr(err.message, "in its paks") != NULL, "%s", err.message);
    res_destroy(ctx);

    /* a directory reaching past the file's end */
    snprintf(path, sizeof path, "%s/pak2.pak", game);
    CHECK(test_write_file(path, "PACK\x0c\0\0\0\0\x19\0\0", 12));
    ctx = res_create(&(res_desc){ .game_dir = game });
    CHECK(ctx && !res_game_ok(ctx, &err) && strstr(err.file, "pak2.pak"), "%s", err.file);
    CHECK_EQ(res_load_texture(ctx, "textures/p", &img, &err), RES_MISSING);
    CHECK(strstr(err.file, "pak2.pak") != NULL, "%s", err.file);
    res_destroy(ctx);
    free(red);
    free(green);
    free(blue);
    free(gray);
}

int main(void)
{
    if (!test_temp_dir(root, sizeof root, "pmfview-res")) {
        perror("temporary directory");
        return 1;
    }
    test_resolver();
    test_mips();
    test_game_paks();
    CHECK(test_remove_tree(root));
    return check_report("test_res");
}
