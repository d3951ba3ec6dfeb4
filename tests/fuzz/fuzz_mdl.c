/* fuzz_mdl.c - libFuzzer target: open any bytes as a Quake model and build the meshes of its first
 * and last frame and skin. Errors must format to one clean line; every corner of a mesh lies
 * within its frame's bounds and every texture place is finite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "mdl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_mesh(const mdl_mesh *mesh)
{
    for (size_t c = 0; c < (size_t)mesh->triangle_count * 3; c++) {
        for (int a = 0; a < 3; a++) {
            float p = mesh->positions[3 * c + a];
            if (!(p >= mesh->mins[a] && p <= mesh->maxs[a])) {
                fprintf(stderr, "corner %zu axis %d at %g, outside %g..%g\n", c, a, p, mesh->mins[a], mesh->maxs[a]);
                abort();
            }
        }
        if (!isfinite(mesh->uvs[2 * c]) || !isfinite(mesh->uvs[2 * c + 1])) {
            fprintf(stderr, "corner %zu's texture place is not finite\n", c);
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t palette[768];
    for (int i = 0; i < 768; i++)
        palette[i] = (uint8_t)(i / 3);
    pmf_error err;
    char line[600];
    mdl_file *m = mdl_open_memory(data, size, "fuzz.mdl", &err);
    if (!m) {
        fuzz_check_line(pmf_error_format(&err, line, sizeof line));
        return 0;
    }
    const mdl_info *info = mdl_get_info(m);
    mdl_find_animation(m, "stand");
    uint32_t last_frame = info->frame_count - 1, last_skin = info->skin_count - 1;
    for (int k = 0; k < 2; k++) {
        mdl_mesh mesh;
        if (!mdl_build_mesh(m, k ? last_frame : 0, k ? last_skin : 0, palette, &mesh, &err)) {
            fuzz_check_line(pmf_error_format(&err, line, sizeof line));
            continue;
        }
        check_mesh(&mesh);
        mdl_mesh_free(&mesh);
    }
    mdl_close(m);
    return 0;
}
