/* add_cameras.c - `pmf_add_cameras IN.pmf OUT.pmf NAME@LEVEL=X,Y,Z,YAW,PITCH...`: writes IN
 * again (every level and chunk decoded and re-encoded) with a pmfview.cameras extension holding
 * the given start cameras, so tests can give a pmfc-compiled map start cameras. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_cameras.h"
#include "sample_map.h"

int main(int argc, char **argv)
{
    if (argc < 4 || argc - 3 > PMF_CAMERAS_MAX) {
        fputs("usage: pmf_add_cameras IN.pmf OUT.pmf NAME@LEVEL=X,Y,Z,YAW,PITCH...\n", stderr);
        return 1;
    }
    static pmf_camera cams[PMF_CAMERAS_MAX];
    static char names[PMF_CAMERAS_MAX][64];
    int n = argc - 3;
    for (int i = 0; i < n; i++) {
        unsigned level;
        int used = 0;
        if (sscanf(argv[i + 3], "%63[^@]@%u=%f,%f,%f,%f,%f%n", names[i], &level, &cams[i].pos[0], &cams[i].pos[1],
                   &cams[i].pos[2], &cams[i].yaw, &cams[i].pitch, &used) != 7 || argv[i + 3][used] || level > 255) {
            fprintf(stderr, "pmf_add_cameras: bad camera '%s'\n", argv[i + 3]);
            return 1;
        }
        cams[i].name = names[i];
        cams[i].level = (uint8_t)level;
    }
    pmf_error err;
    uint8_t *blob = NULL, *out = NULL;
    size_t blob_size, out_size = 0;
    /* the rewrite copies the file's blocks: open it from memory (pmf_open reads them on demand) */
    uint8_t *whole = NULL;
    size_t whole_size = 0;
    FILE *in = fopen(argv[1], "rb");
    if (in && fseek(in, 0, SEEK_END) == 0) {
        long end = ftell(in);
        whole_size = end > 0 ? (size_t)end : 0;
        whole = malloc(whole_size ? whole_size : 1);
        if (whole && (fseek(in, 0, SEEK_SET) != 0 || fread(whole, 1, whole_size, in) != whole_size)) {
            free(whole);
            whole = NULL;
        }
    }
    if (in)
        fclose(in);
    pmf_file *f = whole ? pmf_open_memory(whole, whole_size, argv[1], &err) : pmf_open(argv[1], &err);
    bool ok = f && pmf_cameras_encode(cams, (size_t)n, &blob, &blob_size, &err) &&
              sample_rewrite_extended(f, &(pmf_blob){ blob, blob_size }, &out, &out_size, &err);
    FILE *fp = ok ? fopen(argv[2], "wb") : NULL;
    ok = fp && fwrite(out, 1, out_size, fp) == out_size;
    if (fp && fclose(fp) != 0)
        ok = false;
    pmf_close(f);
    free(whole);
    free(blob);
    free(out);
    if (!ok) {
        char line[600];
        fprintf(stderr, "pmf_add_cameras: %s\n", fp || !f ? pmf_error_format(&err, line, sizeof line) : argv[2]);
        return 2;
    }
    return 0;
}
