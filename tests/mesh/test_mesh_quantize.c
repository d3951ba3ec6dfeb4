/* test_mesh_quantize.c - the 16-byte vertex (mesh.h, vertex format) against the file: for every
 * chunk of every level of the maps given, each meshed vertex's decoded position is within 0.1 mm
 * of the file's floats and its UV within its batch's bound (half a step plus float rounding:
 * extent / 2^19 repeats). Run on the demo maps and a generated city (CMakeLists.txt). */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "common/check.h"
#include "mesh.h"

#define MAX_POSITION_ERROR 1e-4  /* metres */

typedef struct errors { double position, uv_ratio; uint64_t vertices; } errors;

static void check_chunk(const mesh_chunk *mc, const pmf_chunk *ch, errors *e)
{
    for (uint32_t b = 0; b < mc->batch_count; b++) {
        const mesh_batch *bt = &mc->batches[b];
        for (uint32_t i = bt->first_index; i < bt->first_index + bt->index_count; i++) {
            const mesh_vertex *v = &mc->vertices[mc->indices[i]];
            const pmf_vertex *src = &ch->client.vertices[mc->sources[mc->indices[i]]];
            float xyz[3], uv[2];
            mesh_vertex_position(mc, v, xyz);
            mesh_vertex_uv(bt, v, uv);
            for (int a = 0; a < 3; a++) {
                double d = fabs((double)xyz[a] - src->xyz[a]);
                CHECK(d <= MAX_POSITION_ERROR);
                e->position = fmax(e->position, d);
            }
            for (int a = 0; a < 2; a++) {
                double bound = 0.5 * bt->uv_step[a] + 4.0 * FLT_EPSILON * fmax(fabs(src->uv[a]), 1.0);
                double d = fabs((double)uv[a] - src->uv[a]);
                CHECK(d <= bound);
                e->uv_ratio = fmax(e->uv_ratio, d / bound);
            }
        }
    }
    e->vertices += mc->vertex_count;
}

static void check_map(const char *path)
{
    pmf_error err;
    char line[512];
    pmf_file *f = pmf_open(path, &err);
    CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "  %s\n", pmf_error_format(&err, line, sizeof line));
        return;
    }
    errors e = { 0 };
    uint32_t chunks = 0;
    for (uint32_t level = 0; level < f->level_count; level++) {
        pmf_level lvl;
        CHECK(pmf_level_read(f, level, PMF_PART_COMMON | PMF_PART_CLIENT, &lvl, &err));
        mesh_atlas *atlas = mesh_atlas_create(&(mesh_atlas_desc){ 0 });
        const pmf_level_info *li = &f->levels[level];
        for (uint32_t y = 0; y < li->count_y; y++)
            for (uint32_t x = 0; x < li->count_x; x++)
                for (uint32_t z = 0; z < li->count_z; z++) {
                    pmf_chunk_coord c = { x, y, z };
                    pmf_chunk ch;
                    if (!pmf_chunk_present(f, level, c))
                        continue;
                    CHECK(pmf_chunk_read(f, &lvl, level, c, PMF_PART_COMMON | PMF_PART_CLIENT, &ch, &err));
                    mesh_chunk mc;
                    CHECK(mesh_build_chunk(&lvl, &ch, &(mesh_desc){ .atlas = atlas, .sources = true }, &mc, line,
                                           sizeof line));
                    check_chunk(&mc, &ch, &e);
                    chunks++;
                    mesh_chunk_free(&mc);
                    pmf_chunk_free(&ch);
                }
        mesh_atlas_destroy(atlas);
        pmf_level_free(&lvl);
    }
    CHECK(e.vertices > 0);
    printf("%s: %u chunks, %llu vertices: position error at most %.2f um, UV error at most %.2f of its bound\n",
           path, chunks, (unsigned long long)e.vertices, e.position * 1e6, e.uv_ratio);
    pmf_close(f);
}

int main(int argc, char **argv)
{
    CHECK(argc > 1);
    for (int i = 1; i < argc; i++)
        check_map(argv[i]);
    return check_report("test_mesh_quantize");
}
