/* fuzz_wad.c - libFuzzer target: open any bytes as a WAD3 and load every texture. Errors must
 * format to one clean line; a texture that decodes must survive being written again (wad_build)
 * and read back texel for texel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "wad.h"
#include "wad_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error_line(const pmf_error *err)
{
    char line[600];
    pmf_error_format(err, line, sizeof line);
    fuzz_check_line(line);
}

/* write(read(t)) reads back as t */
static void check_rewrite(const wad_texture *t)
{
    const char *name = t->name[0] == '{' ? "{T" : "T";
    wad_build *b = wad_build_create();
    uint8_t *bytes = NULL;
    size_t size = 0;
    if (!wad_build_add_rgba(b, name, t->width, t->height, t->rgba) || !wad_build_finish(b, &bytes, &size)) {
        fprintf(stderr, "a decoded %ux%u texture cannot be written again\n", t->width, t->height);
        abort();
    }
    wad_build_destroy(b);
    pmf_error err;
    wad_file *w = wad_open_memory(bytes, size, "fuzz.wad", &err);
    wad_texture again;
    if (!w || wad_load_texture(w, name, &again, &err) != 1 || again.width != t->width || again.height != t->height ||
        memcmp(again.rgba, t->rgba, (size_t)t->width * t->height * 4) != 0) {
        fprintf(stderr, "write(read(texture)) differs: %s\n", err.message);
        abort();
    }
    wad_texture_free(&again);
    wad_close(w);
    free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmf_error err;
    wad_file *w = wad_open_memory(data, size, "fuzz.wad", &err);
    if (!w) {
        check_error_line(&err);
        return 0;
    }
    for (uint32_t i = 0; i < wad_count(w); i++) {
        const char *name = wad_name(w, i);
        wad_animation_frames(w, name);
        wad_texture t;
        int r = wad_load_texture(w, name, &t, &err);
        if (r < 0)
            check_error_line(&err);
        if (r > 0) {
            check_rewrite(&t);
            wad_texture_free(&t);
        }
    }
    wad_close(w);
    return 0;
}
