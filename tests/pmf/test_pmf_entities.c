/* test_pmf_entities.c - the `pmfview.entities`, `pmfview.entity_placement` and
 * `pmfview.entity_render` extensions: encode -> writer -> reader gives every field of all three
 * back in one list; without the placement or the render keys the defaults (and no render
 * extension written when every entity keeps them); a placement whose count is not the entities',
 * or with a scale that is not positive, a rendermode past 5, fails naming the extension and the
 * byte. */
#include <math.h>
#include <string.h>

#include "pmf_map_info.h"
#include "sample_map.h"
#include "test_util.h"

static const pmf_entity_info entities[] = {
    { 0, { 1.5f, 0.6f, -2.0f }, "env_sprite", "", { 30, -90, 5 }, 1.5f, 2, PMF_NOT_GIVEN, 7, 3, "", 5, 128, { 255, 0, 9 }, 15 },
    { 2, { -8, 0, 4 }, "misc_model", "barrel", { 0, 0, 0 }, 1, PMF_NOT_GIVEN, 1, PMF_NOT_GIVEN, PMF_NOT_GIVEN,
      "progs/barrel.mdl", 0, 0, { 0, 0, 0 }, -1 },
};

/* The kitchen sink (3 levels) with extensions exts, opened from *mem. */
static pmf_file *write_with(const pmf_blob *exts, uint16_t count, uint8_t **mem)
{
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_KITCHEN_SINK);
    m.data.extensions = exts;
    m.data.extension_count = count;
    size_t size = 0;
    pmf_error err;
    *mem = NULL;
    bool ok = sample_map_write_memory(&m, mem, &size, &err);
    sample_map_free(&m);
    CHECK(ok, "write: %s", err.message);
    pmf_file *f = ok ? pmf_open_memory(*mem, size, "ents.pmf", &err) : NULL;
    CHECK(f, "open: %s", ok ? err.message : "not written");
    return f;
}

/* Reads the entities of a file holding exts: true when they read, out filled. */
static bool read_with(const pmf_blob *exts, uint16_t count, pmf_entities *out, pmf_error *err, uint64_t *placement_at)
{
    uint8_t *mem;
    pmf_file *f = write_with(exts, count, &mem);
    bool ok = f && pmf_entities_read(f, out, err);
    *placement_at = f && count > 1 ? f->extensions[1].offset : 0;
    pmf_close(f);
    free(mem);
    return ok;
}

static void test_round_trip(void)
{
    uint8_t *list, *placement, *render, *none;
    size_t list_size, placement_size, render_size, none_size;
    pmf_error err;
    if (!pmf_entities_encode(entities, 2, &list, &list_size, &err)
        || !pmf_entity_placement_encode(entities, 2, &placement, &placement_size, &err)
        || !pmf_entity_render_encode(entities, 2, &render, &render_size, &err)
        || !pmf_entity_render_encode(entities + 1, 1, &none, &none_size, &err)) {
        check_fail("encode: %s", err.message);
        return;
    }
    CHECK(placement_size == sizeof PMF_PLACEMENT_EXTENSION + 4 + 2 * 33 + strlen("progs/barrel.mdl"), "%zu bytes",
          placement_size);
    CHECK(render_size == sizeof PMF_RENDER_EXTENSION + 4 + 2 * 9, "%zu bytes", render_size);
    CHECK(!none && !none_size, "the defaults alone write no render extension");
    const pmf_blob exts[] = { { list, list_size }, { placement, placement_size }, { render, render_size } };
    pmf_entities out;
    uint64_t at;
    CHECK(read_with(exts, 3, &out, &err, &at), "read: %s", err.message);
    for (uint32_t i = 0; i < out.count && i < 2; i++) {
        const pmf_entity_info *a = &entities[i], *b = &out.list[i];
        CHECK(a->render_mode == b->render_mode && a->render_amount == b->render_amount
              && !memcmp(a->render_color, b->render_color, 3) && a->framerate == b->framerate,
              "entity %u: rendermode %u renderamt %u framerate %g", i, b->render_mode, b->render_amount, (double)b->framerate);
    }
    pmf_entities_free(&out);
    CHECK(read_with(exts, 2, &out, &err, &at), "read: %s", err.message);
    CHECK(out.count == 2 && out.list[0].render_mode == 0 && out.list[0].render_amount == 0 && out.list[0].framerate == -1,
          "render defaults");
    CHECK_EQ(out.count, 2);
    for (uint32_t i = 0; i < out.count && i < 2; i++) {
        const pmf_entity_info *a = &entities[i], *b = &out.list[i];
        CHECK(!strcmp(a->classname, b->classname) && !strcmp(a->model, b->model), "entity %u: %s %s", i, b->classname, b->model);
        CHECK(!memcmp(a->angles, b->angles, sizeof a->angles) && a->scale == b->scale, "entity %u angles, scale", i);
        CHECK(a->skin == b->skin && a->body == b->body && a->sequence == b->sequence && a->frame == b->frame,
              "entity %u: %d %d %d %d", i, b->skin, b->body, b->sequence, b->frame);
    }
    pmf_entities_free(&out);

    /* a map compiled before the placement: the defaults */
    CHECK(read_with(exts, 1, &out, &err, &at), "read: %s", err.message);
    CHECK(out.count == 2 && out.list[1].scale == 1 && out.list[1].skin == PMF_NOT_GIVEN && out.list[1].frame == PMF_NOT_GIVEN
          && out.list[1].angles[1] == 0 && !strcmp(out.list[1].model, ""), "defaults");
    pmf_entities_free(&out);
    free(list);
    free(placement);
    free(render);
}

/* A placement of the wrong count, then one with a scale of 0 (written by hand): refused. */
static void test_damaged(void)
{
    uint8_t *list, *placement;
    size_t list_size, placement_size;
    pmf_error err;
    if (!pmf_entities_encode(entities, 2, &list, &list_size, &err)
        || !pmf_entity_placement_encode(entities, 1, &placement, &placement_size, &err)) {
        check_fail("encode: %s", err.message);
        return;
    }
    const pmf_blob exts[] = { { list, list_size }, { placement, placement_size } };
    pmf_entities out;
    uint64_t at;
    CHECK(!read_with(exts, 2, &out, &err, &at) && !strcmp(err.block, "extension pmfview.entity_placement")
          && err.offset == at + sizeof PMF_PLACEMENT_EXTENSION && strstr(err.message, "1 entities placed, pmfview.entities has 2"),
          "count: %s, byte %llu", err.message, (unsigned long long)err.offset);
    CHECK_EQ(out.count, 0);
    free(placement);

    pmf_entity_info flat[2];
    memcpy(flat, entities, sizeof flat);
    flat[1].scale = 0;
    CHECK(!pmf_entity_placement_encode(flat, 2, &placement, &placement_size, &err) && strstr(err.message, "not finite and positive"),
          "the writer refuses a scale of 0");
    flat[1].scale = 1;
    if (!pmf_entity_placement_encode(flat, 2, &placement, &placement_size, &err)) {
        check_fail("encode: %s", err.message);
        free(list);
        return;
    }
    const size_t second = sizeof PMF_PLACEMENT_EXTENSION + 4 + 33;   /* the second entity's angles */
    const float zero = 0;
    memcpy(placement + second + 12, &zero, 4);
    const pmf_blob damaged[] = { { list, list_size }, { placement, placement_size } };
    CHECK(!read_with(damaged, 2, &out, &err, &at) && err.offset == at + second && strstr(err.message, "entity 1 has an angle or scale"),
          "scale 0: %s, byte %llu", err.message, (unsigned long long)err.offset);
    free(placement);
    flat[0].render_mode = 6;
    CHECK(!pmf_entity_render_encode(flat, 2, &placement, &placement_size, &err) && strstr(err.message, "rendermode 6"),
          "the writer refuses rendermode 6");
    flat[0].render_mode = 5;
    uint8_t *render;
    size_t render_size;
    if (!pmf_entity_render_encode(flat, 2, &render, &render_size, &err)) {
        check_fail("encode: %s", err.message);
        free(list);
        return;
    }
    render[sizeof PMF_RENDER_EXTENSION + 4 + 9] = 7;   /* the second entity's rendermode */
    const pmf_blob bad_mode[] = { { list, list_size }, { render, render_size } };
    CHECK(!read_with(bad_mode, 2, &out, &err, &at) && err.offset == at + sizeof PMF_RENDER_EXTENSION + 4 + 9
              && strstr(err.message, "entity 1 has rendermode 7"),
          "rendermode 7: %s, byte %llu", err.message, (unsigned long long)err.offset);
    free(render);
    free(list);
}

int main(void)
{
    test_round_trip();
    test_damaged();
    TEST_DONE();
}
