/* fuzz_studio.c - libFuzzer target: open any bytes as a GoldSrc studio model and build the meshes
 * of its first bodies and skins, and of its first sequences' first frames. When the model's textures are in a texture file, the bytes after
 * the header's length (the model's own size, as the seeds write it) are opened as that file and
 * attached. Errors must format to one clean line; every corner of a mesh lies within its bounds,
 * every texture place is finite and every triangle's texture among the mesh's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "studio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_mesh(const studio_mesh *mesh)
{
    for (size_t c = 0; c < (size_t)mesh->triangle_count * 3; c++) {
        for (int a = 0; a < 3; a++) {
            float p = mesh->positions[3 * c + a];
            if (!(p >= mesh->mins[a] && p <= mesh->maxs[a])) {
                fprintf(stderr, "corner %zu axis %d at %g, outside %g..%g\n", c, a, p, mesh->mins[a], mesh->maxs[a]);
                abort();
            }
        }
        if (!isfinite(mesh->uvs[2 * c]) || !isfinite(mesh->uvs[2 * c + 1]) || mesh->triangle_textures[c / 3] >= mesh->texture_count) {
            fprintf(stderr, "corner %zu: texture place not finite or texture %u of %u\n", c, mesh->triangle_textures[c / 3], mesh->texture_count);
            abort();
        }
    }
    for (uint32_t k = 0; k < mesh->texture_count; k++)
        if (!mesh->textures[k].rgba || !mesh->textures[k].width || !mesh->textures[k].height) {
            fprintf(stderr, "texture %u empty\n", k);
            abort();
        }
}

/* The header's length: where the texture file starts in the input, or the end. */
static size_t model_length(const uint8_t *data, size_t size)
{
    if (size < 76)
        return size;
    uint32_t n = (uint32_t)data[72] | (uint32_t)data[73] << 8 | (uint32_t)data[74] << 16 | (uint32_t)data[75] << 24;
    return n < size ? n : size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmf_error err;
    char line[600];
    size_t length = model_length(data, size);
    studio_file *m = studio_open_memory(data, length, "fuzz.mdl", &err), *t = NULL;
    if (!m) {
        fuzz_check_line(pmf_error_format(&err, line, sizeof line));
        return 0;
    }
    if (studio_get_info(m)->external_textures && length < size) {
        t = studio_open_memory(data + length, size - length, "fuzzT.mdl", &err);
        if (!t || !studio_attach_textures(m, t, &err))
            fuzz_check_line(pmf_error_format(&err, line, sizeof line));
    }
    for (uint32_t k = 0; k < 4; k++) {
        studio_mesh mesh;
        if (!studio_build_mesh(m, k, k / 2, &mesh, &err)) {
            fuzz_check_line(pmf_error_format(&err, line, sizeof line));
            continue;
        }
        check_mesh(&mesh);
        studio_mesh_free(&mesh);
    }
    for (uint32_t k = 0; k < 4 && k < studio_get_info(m)->sequence_count; k++) {
        studio_mesh mesh;
        if (!studio_build_sequence_mesh(m, k, k + 1, 0, 0, &mesh, &err)) {
            fuzz_check_line(pmf_error_format(&err, line, sizeof line));
            continue;
        }
        check_mesh(&mesh);
        studio_mesh_free(&mesh);
    }
    studio_close(m);
    studio_close(t);
    return 0;
}
