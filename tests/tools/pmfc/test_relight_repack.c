/* test_relight_repack.c - a kept level (relight_build.c) taken back after its dynamic light, or its
 * fast light, moved to other chunks (a room of 12 m in chunks of 4 m): the chunks whose lightmaps
 * (dynamic) or cubes (fast) that changes are built again, and the level is then the one a build
 * for the moved light makes (every lightmap's size, every face's block, every cube, vertex and
 * normal byte for byte), though no other chunk was built again; a kept chunk to build again whose
 * face is not whole (a NaN) is refused ("damaged"), not built.
 * Usage: test_relight_repack */
#include <math.h>

#include "../../fuzz/fuzz_relight_level.h"
#include "common/check.h"
#include "csg/csg.h"
#include "unwrap/unwrap.h"
#include "relight_room.h"

static map_def map;
static level_build layout;

/* The source parsed and its level laid out (as relight_fuzz_map_load does). */
static bool load(void)
{
    static const pmfc_compile_desc quiet = { .message = relight_fuzz_quiet };
    session_begin(&quiet, NULL);
    map_init(&map);
    if (!parse_source("repack.pms", relight_room_source, sizeof relight_room_source - 1, &map) || map.level_count != 1) return false;
    layout = (level_build){ .map = &map, .def = &map.levels[0], .threads = 1 };
    layout.def->samples = PMFC_SAMPLES;
    return !level_layout(&layout);
}

static level_build laid_out(void)
{
    level_build lb = layout;
    uint32_t side = lb.nx > lb.nz ? lb.nx : lb.nz;
    level_window(&lb, 0, 0, side, side, 0);
    return lb;
}

/* The stages before the bake, as compile_levels.c's build_chunks runs them. */
static void build(level_build *lb)
{
    level_faces(lb);
    level_clip_to_chunks(lb);
    size_t n = level_chunk_count(lb);
    for (size_t c = 0; c < n; c++)
        if (lb->chunks[c].present) chunk_unwrap(lb, &lb->chunks[c]);
    for (size_t c = 0; c < n; c++)
        if (lb->chunks[c].present) chunk_octree(lb, &lb->chunks[c]);
    for (size_t c = 0; c < n; c++)
        if (lb->chunks[c].present) chunk_octree_emit(lb, &lb->chunks[c]);
}

static bool same_bytes(const void *a, const void *b, size_t size) { return !size || !memcmp(a, b, size); }

static bool same_chunk(const chunk_build *a, const chunk_build *b)
{
    if (a->present != b->present || a->lightmap_count != b->lightmap_count || a->face_count != b->face_count ||
        a->cube_count != b->cube_count || a->vert_count != b->vert_count || a->used_count != b->used_count)
        return false;
    for (int k = 0; k < a->lightmap_count; k++)
        if (a->lightmaps[k].size_exp != b->lightmaps[k].size_exp) return false;
    for (size_t k = 0; k < a->face_count; k++) {
        const chunk_face *x = &a->faces[k], *y = &b->faces[k];
        if (x->lightmap != y->lightmap || x->lm_x != y->lm_x || x->lm_y != y->lm_y || x->lm_w != y->lm_w ||
            x->lm_h != y->lm_h || x->lm_seed != y->lm_seed)
            return false;
    }
    return same_bytes(a->cubes, b->cubes, a->cube_count * sizeof *a->cubes) &&
           same_bytes(a->ccubes, b->ccubes, a->cube_count * sizeof *a->ccubes) &&
           same_bytes(a->verts, b->verts, a->vert_count * sizeof *a->verts) &&
           same_bytes(a->normals, b->normals, a->vert_count * sizeof *a->normals) &&
           same_bytes(a->used_mats, b->used_mats, (size_t)a->used_count * sizeof *a->used_mats);
}

/* Whether the light at the light's place reaches the chunk as the stages read it: a dynamic light
 * the chunk, a fast light which of its faces (their bits hashed). */
static uint64_t reached(const level_build *lb, const light_def *light, const chunk_build *cb)
{
    if (light->kind == BAKE_LIGHT_DYNAMIC) return chunk_dynamic_lit(lb, cb);
    uint64_t h = 0;
    for (size_t k = 0; k < cb->face_count; k++) h = h * 31 + 1 + reaches_fast_light(lb->def, cb->faces[k].p, cb->faces[k].n);
    return h;
}

/* The chunks the light reaches otherwise at `from` than at `to`; *one: one of them. */
static size_t changed_chunks(const level_build *lb, light_def *light, v3 from, v3 to, chunk_build **one)
{
    size_t count = 0;
    for (size_t c = 0; c < level_chunk_count(lb); c++) {
        if (!lb->chunks[c].present) continue;
        light->pos = from;
        uint64_t before = reached(lb, light, &lb->chunks[c]);
        light->pos = to;
        if (before != reached(lb, light, &lb->chunks[c])) {
            *one = &lb->chunks[c];
            count++;
        }
    }
    return count;
}

/* The level built with the light at `from` and kept, then taken back for the light at `to`:
 * the changed chunks built again, the level the build's for `to` in every chunk. With `damage`,
 * a face of a changed chunk is a NaN in the kept block: refused, nothing built. */
static void move_light(light_def *light, v3 from, v3 to, bool damage)
{
    level_build kept = laid_out(), fresh = laid_out(), taken = laid_out();
    light->pos = from;
    build(&kept);
    chunk_build *one = NULL;
    size_t changed = changed_chunks(&kept, light, from, to, &one);
    printf("%s light: %zu chunks of %g m, %zu reached otherwise at one place than at the other\n",
           light->kind == BAKE_LIGHT_DYNAMIC ? "dynamic" : "fast", level_chunk_count(&kept), kept.S, changed);
    CHECK(changed >= 2);
    if (one && damage) one->faces[0].p[0].x = NAN;
    light->pos = from;
    relight_level rl = { 0 };
    relight_build_keep(&rl, &kept);
    CHECK(rl.built != NULL);
    light->pos = to;
    build(&fresh);
    bool whole = relight_build_restore(&rl, &taken);
    if (damage) {
        CHECK(!whole && rl.built == NULL && rl.built_repacked == 0);
        CHECK(taken.faces == NULL && taken.chunks[0].faces == NULL);
    } else {
        CHECK(whole);
        CHECK_EQ(rl.built_repacked, changed);
        size_t same = 0;
        for (size_t c = 0; c < level_chunk_count(&fresh); c++) same += same_chunk(&taken.chunks[c], &fresh.chunks[c]);
        printf("  built again: %zu chunks; the level as built for the moved light in %zu of %zu chunks\n", rl.built_repacked,
               same, level_chunk_count(&fresh));
        CHECK_EQ(same, level_chunk_count(&fresh));
        CHECK(rl.built != NULL);  /* kept again as built now */
    }
    level_build_free(&taken);
    level_build_free(&kept);
    level_build_free(&fresh);
    xfree(rl.built);
}

int main(void)
{
    CHECK(load());
    level_def *def = layout.def;
    light_def *dynamic = NULL, *fast = NULL;
    for (size_t i = 0; i < def->light_count; i++) {
        if (def->lights[i].kind == BAKE_LIGHT_DYNAMIC) dynamic = &def->lights[i];
        if (def->lights[i].kind == BAKE_LIGHT_FAST) fast = &def->lights[i];
    }
    CHECK(dynamic && fast);
    if (!dynamic || !fast) TEST_DONE();
    move_light(dynamic, v3_make(-4, 1.5, -4), v3_make(4, 1.5, 4), false);
    move_light(fast, v3_make(4, 1.5, -4), v3_make(-4, 1.5, 4), false);
    move_light(dynamic, v3_make(-4, 1.5, -4), v3_make(4, 1.5, 4), true);
    TEST_DONE();
}
