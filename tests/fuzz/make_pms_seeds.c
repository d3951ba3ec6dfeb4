/* make_pms_seeds.c - writes fuzz_pms' seed corpus: `make_pms_seeds ASSETS_DIR DIR` copies the
 * demo map sources (every statement the format has) and adds small sources of its own: the
 * docs' tiny map, one with explicit chunk size, sky and entities of a level, and the refusals
 * kept as regressions (coordinates past the format's reach, an unterminated string). */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ok = true;

static void seed(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "make_pms_seeds: cannot write %s\n", path);
        ok = false;
    }
}

static void copy_sources(const char *assets, const char *dir)
{
    DIR *d = opendir(assets);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".pms") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", assets, e->d_name);
        FILE *f = fopen(path, "rb");
        char *text = malloc(1 << 20);
        size_t size = f && text ? fread(text, 1, 1 << 20, f) : 0;
        if (f)
            fclose(f);
        if (size)
            seed(dir, e->d_name, text, size);
        else
            ok = false;
        free(text);
    }
    if (d)
        closedir(d);
    else
        ok = false, fprintf(stderr, "make_pms_seeds: cannot list %s\n", assets);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: make_pms_seeds ASSETS_DIR DIR\n", stderr);
        return 1;
    }
    copy_sources(argv[1], argv[2]);
    static const char tiny[] =
        "map \"Tiny\"\n"
        "texture stone procedural noise 64 color 160 160 160 color2 90 90 90\n"
        "material stone texture stone scale 2\n"
        "level main {\n"
        "    box -8 -1 -8 8 0 8 material stone         # a floor\n"
        "    room -4 0 -4 4 3 4 material stone door +z 1.2 2.2\n"
        "    light static at 0 2.5 0 color 255 230 200 range 10\n"
        "}\n";
    seed(argv[2], "tiny.pms", tiny, sizeof tiny - 1);
    static const char far[] = "map \"Far\"\nlevel main {\n    chunk_size 4\n    box 1e38 0 0 1e38 1 1\n}\n";
    seed(argv[2], "far.pms", far, sizeof far - 1);
    static const char wide[] = "map \"Wide\"\nlevel main {\n    box -32768 -1 -32768 32768 0 32768\n}\n";
    seed(argv[2], "wide.pms", wide, sizeof wide - 1);
    static const char cut[] = "map \"Cut\ndescription \"a \\\" quote\"\nlevel x {\n";
    seed(argv[2], "cut.pms", cut, sizeof cut - 1);
    return ok ? 0 : 2;
}
