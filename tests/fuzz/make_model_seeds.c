/* make_model_seeds.c - writes the seed corpus of fuzz_pak, fuzz_mdl, fuzz_studio or fuzz_spr:
 * `make_model_seeds pak|mdl|studio|spr PROGS_DIR DIR`. pak: archives built in code (empty, two
 * files, a name twice, a real sprite inside); mdl and spr: the real models and sprites of PROGS_DIR
 * (../shared/data/lq/progs, read there, never stored here), and for spr the GoldSrc sprites of
 * fixtures/spr_build in each render mode; studio: the models of fixtures/studio_build (a texture
 * file after its model, as fuzz_studio reads it, and alone). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/programs.h"
#include "pak_build.h"
#include "spr_build.h"
#include "studio_build.h"

static int write_seed(const char *dir, const char *name, const void *data, size_t size)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return test_write_file(path, data, size);
}

static int copy_kind(const char *from, const char *to, const char *suffix)
{
    DIR *d = opendir(from);
    struct dirent *e;
    int ok = d != NULL;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, suffix))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", from, e->d_name);
        size_t size;
        uint8_t *bytes = test_read_file(path, &size);
        ok &= bytes && write_seed(to, e->d_name, bytes, size);
        free(bytes);
    }
    if (d)
        closedir(d);
    return ok;
}

static int pak_seed(const char *to, const char *name, const pak_build_file *files, size_t count)
{
    uint8_t *bytes;
    size_t size;
    if (!pak_build_bytes(files, count, &bytes, &size))
        return 0;
    int ok = write_seed(to, name, bytes, size);
    free(bytes);
    return ok;
}

static int pak_seeds(const char *progs, const char *to)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/s_bubble.spr", progs);
    size_t size;
    uint8_t *sprite = test_read_file(path, &size);
    const pak_build_file two[] = { { "maps/start.bsp", "BSP", 3 }, { "gfx/palette.lmp", "\1\2\3", 3 } };
    const pak_build_file twice[] = { { "a.txt", "first", 5 }, { "A.TXT", "second", 6 }, { "a\\b.txt", "c", 1 } };
    const pak_build_file real[] = { { "progs/s_bubble.spr", sprite, sprite ? size : 0 } };
    int ok = sprite && pak_seed(to, "empty.pak", NULL, 0) && pak_seed(to, "two.pak", two, 2)
          && pak_seed(to, "twice.pak", twice, 3) && pak_seed(to, "sprite.pak", real, 1);
    free(sprite);
    return ok;
}

static int goldsrc_seeds(const char *to)
{
    int ok = 1;
    for (int mode = 0; mode < 4; mode++) {
        uint8_t *bytes = NULL;
        size_t size;
        char name[32];
        snprintf(name, sizeof name, "goldsrc_mode%d.spr", mode);
        ok &= spr_build(2, 3, mode, mode == 3 ? 2 : 1, &bytes, &size) && write_seed(to, name, bytes, size);
        free(bytes);
    }
    return ok;
}

static int studio_seeds(const char *to)
{
    static const char *const names[] = { "built.mdl", "group1.mdl", "split.mdl", "walk.mdl" };
    static const unsigned options[] = { 0, STUDIO_BUILD_GROUP1, STUDIO_BUILD_EXTERNAL, STUDIO_BUILD_SEQUENCE1 };
    int ok = 1;
    for (int k = 0; k < 4; k++) {
        uint8_t *model = NULL, *textures = NULL;
        size_t size, textures_size = 0;
        ok &= studio_build(options[k], &model, &size, &textures, &textures_size);
        uint8_t *both = malloc(size + textures_size);
        if (ok && both) {
            memcpy(both, model, size);
            if (textures_size)
                memcpy(both + size, textures, textures_size);
            ok &= write_seed(to, names[k], both, size + textures_size);
        }
        if (ok && textures)
            ok &= write_seed(to, "splitT.mdl", textures, textures_size);
        ok &= both != NULL;
        free(both);
        free(model);
        free(textures);
    }
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: make_model_seeds pak|mdl|studio|spr PROGS_DIR DIR\n", stderr);
        return 1;
    }
    int ok;
    if (!strcmp(argv[1], "pak"))
        ok = pak_seeds(argv[2], argv[3]);
    else if (!strcmp(argv[1], "mdl"))
        ok = copy_kind(argv[2], argv[3], ".mdl");
    else if (!strcmp(argv[1], "studio"))
        ok = studio_seeds(argv[3]);
    else
        ok = copy_kind(argv[2], argv[3], ".spr") && goldsrc_seeds(argv[3]);
    return ok ? 0 : 1;
}
