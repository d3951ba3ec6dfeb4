/* bake_bench - times the baker on a large random city: BVH build, shadow rays, a full bake and
 * visibility, in CPU seconds. Not a test (build the target and run it by hand):
 *   bake_bench [blocks] [face split] [lights] [threads] */
#include "bvh.h"
#include "city_soup.h"

#include <math.h>
#include <time.h>

/* Process CPU seconds (all threads): the machine may be shared, so wall time alone misleads. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct ray_job {
    const bvh *tree;
    float extent;
    size_t blocked[64];
} ray_job;

enum { RAYS_PER_JOB = 100000 };

static void ray_batch(void *user, size_t index)
{
    ray_job *job = user;
    uint64_t rng = index * 7919 + 1;
    size_t blocked = 0;
    for (int i = 0; i < RAYS_PER_JOB; i++) {
        float p[3], q[3];
        for (int a = 0; a < 3; a++) {
            p[a] = rng_range(&rng, -job->extent / 2, job->extent / 2);
            q[a] = p[a] + rng_range(&rng, -job->extent / 8, job->extent / 8);
        }
        p[1] = q[1] = fabsf(p[1]) * 0.2f;
        blocked += bvh_segment_occluded(job->tree, p, q, 0.0f, 1.0f, NULL);
    }
    job->blocked[index % 64] += blocked;
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 2000;
    int split = argc > 2 ? atoi(argv[2]) : 8;
    int lights = argc > 3 ? atoi(argv[3]) : 300;
    int threads = argc > 4 ? atoi(argv[4]) : 0;
    float extent = 400.0f;

    city c;
    city_build(&c, 1234, blocks, extent, 0.5f, lights, 24);
    /* Subdivide every box face so the occluders number in the millions, like a big map's. */
    soup_free(&c.occluders);
    for (size_t i = 0; i < c.box_count; i++)
        soup_box_split(&c.occluders, c.boxes[i].min, c.boxes[i].max, split);
    printf("scene: %zu triangles, %zu patches, %zu lightmaps, %zu lights, %zu vertices, %zu probes\n",
           c.occluders.count, c.patch_count, c.lightmap_count, c.light_count, c.vertex_count, c.probe_count);

    double t0 = now();
    bvh tree;
    CHECK(bvh_build((const float (*)[9])c.occluders.tris, c.occluders.count, threads, &tree));
    double t1 = now();
    printf("bvh build: %.3f CPU s, %.2f M triangles per CPU second, %zu nodes (%.1f MB)\n", t1 - t0,
           c.occluders.count / (t1 - t0) * 1e-6, tree.node_count,
           (tree.node_count * sizeof(bvh_node) + tree.triangle_count * 40) / 1048576.0);

    for (int pass = 0; pass < 2; pass++) {
        int n = pass == 0 ? 1 : threads;
        ray_job job = { .tree = &tree, .extent = extent };
        size_t batches = 40;
        t0 = now();
        jobs_parallel_for(batches, n, ray_batch, &job);
        t1 = now();
        size_t blocked = 0;
        for (int i = 0; i < 64; i++)
            blocked += job.blocked[i];
        printf("shadow rays (%s): %.2f M rays per CPU second (%.0f%% blocked)\n", pass == 0 ? "1 thread" : "all threads",
               batches * RAYS_PER_JOB / (t1 - t0) * 1e-6, 100.0 * blocked / (batches * RAYS_PER_JOB));
    }
    bvh_free(&tree);

    bake_desc desc = city_desc(&c, threads);
    bake_result res;
    t0 = now();
    CHECK(bake_run(&desc, &res));
    t1 = now();
    size_t luxels = 0;
    for (size_t i = 0; i < c.patch_count; i++)
        luxels += (size_t)c.patches[i].w * c.patches[i].h;
    printf("bake: %.3f CPU s for %zu luxels, %zu layers, %zu vertices, %zu probes\n", t1 - t0, luxels, res.layer_count,
           c.vertex_count, c.probe_count);
    bake_result_free(&res);

    size_t cell_count = 256;
    vis_box *cells = malloc(cell_count * sizeof *cells);
    CHECK(cells != NULL);
    uint64_t rng = 77;
    for (size_t i = 0; i < cell_count; i++) {
        float x = rng_range(&rng, -extent / 2, extent / 2 - 4), z = rng_range(&rng, -extent / 2, extent / 2 - 4);
        cells[i] = (vis_box){ { x, 0.5f, z }, { x + 4, 4.5f, z + 4 } };
    }
    vis_desc vdesc = {
        .triangles = (const float (*)[9])c.occluders.tris, .triangle_count = c.occluders.count,
        .cells = cells, .cell_count = cell_count, .targets = c.boxes, .target_count = c.box_count,
        .threads = threads,
    };
    vis_result vres;
    t0 = now();
    CHECK(vis_run(&vdesc, &vres));
    t1 = now();
    size_t visible = 0;
    for (size_t i = 0; i < cell_count; i++)
        visible += vres.visible_count[i];
    printf("vis: %.3f CPU s for %zu pairs (%.0f pairs per CPU second), %.1f%% visible\n", t1 - t0, cell_count * c.box_count,
           cell_count * c.box_count / (t1 - t0), 100.0 * visible / (cell_count * c.box_count));
    vis_result_free(&vres, cell_count);
    free(cells);
    city_free(&c);
    return 0;
}
