/* test_pmf_lights.c - the `pmfview.lights` extension: encode -> writer -> reader -> decode gives
 * every field back (other extensions skipped), no extension = 0 lights, non-finite numbers are
 * refused by the encoder, and a damaged blob (every cut, a bad kind, a level the file lacks, a
 * name without NUL) gives one error naming the extension and the file offset of the bad byte. */
#include <math.h>
#include <string.h>

#include "pmf_lights.h"
#include "sample_map.h"
#include "test_util.h"

#define LIGHT_BYTES 54  /* everything of a light but its name: 3 bytes, a u32, 6 floats, RGB, 5 floats */

/* Writes the kitchen sink (3 levels) with extensions exts; returns the opened file (from *mem). */
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
    pmf_file *f = ok ? pmf_open_memory(*mem, size, "lights.pmf", &err) : NULL;
    CHECK(f, "open: %s", ok ? err.message : "not written");
    return f;
}

static const pmf_light_info sample[] = {
    { 0, PMF_LIGHT_STATIC, PMF_LIGHT_POINT, 0, { 1.5f, 2, -3 }, { 0, 0, 0 }, { 255, 200, 100 }, 1.33f, 22.86f, 0, 0, 0, 0, 0, 0, 0, "", 0 },
    { 1, PMF_LIGHT_DYNAMIC, PMF_LIGHT_SPOT, 7, { -10, 4.5f, 2 }, { 0, -1, 0 }, { 10, 20, 30 }, 0.5f, 8, 0.866f, 0.707f, 0.1f, 0, 0, 0, 0,
      "lamp \xc3\xa9", 1 },
    { 2, PMF_LIGHT_FAST, PMF_LIGHT_POINT, 255, { -0.0f, 1e-30f, 3e30f }, { 0, 0, 0 }, { 1, 2, 3 }, 2, 3, 0, 0, 0, 0, 0, 0, 0, "neon", 0 },
    { 0, PMF_LIGHT_STATIC, PMF_LIGHT_SUN, 0, { 0, 0, 0 }, { 0.6f, -0.8f, 0 }, { 255, 244, 224 }, 1, 0, 0, 0, 0, 0, 0, 0, 0, "sun", 0 },
};
#define SAMPLE_COUNT (sizeof sample / sizeof sample[0])

static void test_round_trip(void)
{
    uint8_t *blob;
    size_t size;
    pmf_error err;
    CHECK(pmf_lights_encode(sample, SAMPLE_COUNT, &blob, &size, &err), "encode: %s", err.message);
    size_t want = 15 + 4;
    for (size_t i = 0; i < SAMPLE_COUNT; i++)
        want += LIGHT_BYTES + strlen(sample[i].name) + 1;
    CHECK(size == want, "blob is %zu bytes, want %zu", size, want);
    CHECK(!memcmp(blob, "pmfview.lights\0\x04\0\0\0", 19), "blob starts with the name, NUL and u32 count 4");
    const pmf_blob exts[] = { { (const uint8_t *)"other.ext\0junk", 14 }, { blob, size } };
    uint8_t *mem;
    pmf_file *f = write_with(exts, 2, &mem);
    if (f) {
        pmf_lights out;
        CHECK(pmf_lights_read(f, &out, &err), "read: %s", err.message);
        CHECK(out.count == SAMPLE_COUNT, "count %u", out.count);
        for (size_t i = 0; i < SAMPLE_COUNT && i < out.count; i++) {
            const pmf_light_info *a = &sample[i], *b = &out.list[i];
            CHECK(a->level == b->level && a->kind == b->kind && a->shape == b->shape && a->id == b->id, "light %zu kind", i);
            CHECK(!memcmp(a->position, b->position, sizeof a->position) && !memcmp(a->direction, b->direction, sizeof a->direction),
                  "light %zu position / direction", i);
            CHECK(!memcmp(a->color, b->color, 3), "light %zu colour", i);
            CHECK(a->intensity == b->intensity && a->range == b->range && a->cos_inner == b->cos_inner &&
                      a->cos_outer == b->cos_outer && a->size == b->size,
                  "light %zu numbers", i);
            CHECK(!strcmp(a->name, b->name), "light %zu name '%s'", i, b->name);
        }
        CHECK(out.count > 2 && signbit(out.list[2].position[0]), "-0 keeps its sign");
        pmf_lights_free(&out);
        pmf_close(f);
    }
    free(mem);
    free(blob);

    f = write_with(exts, 1, &mem);
    if (f) {
        pmf_lights out;
        CHECK(pmf_lights_read(f, &out, &err) && out.count == 0 && !out.list, "no extension: 0 lights");
        pmf_close(f);
    }
    free(mem);

    /* the light models: a falloff mode, and hlrad's cone in the falloff byte's top bit */
    pmf_light_info modelled[SAMPLE_COUNT];
    memcpy(modelled, sample, sizeof modelled);
    modelled[1].falloff = 3;
    modelled[1].falloff_distance = 0.1f;
    uint8_t *models;
    size_t models_size;
    CHECK(pmf_lights_encode(modelled, SAMPLE_COUNT, &blob, &size, &err) &&
              pmf_light_models_encode(modelled, SAMPLE_COUNT, &models, &models_size, &err) && models,
          "encode models: %s", err.message);
    const pmf_blob both[] = { { blob, size }, { models, models_size } };
    f = write_with(both, 2, &mem);
    if (f) {
        pmf_lights out;
        CHECK(pmf_lights_read(f, &out, &err) && out.count == SAMPLE_COUNT, "read models: %s", err.message);
        for (size_t i = 0; i < out.count; i++)
            CHECK(out.list[i].falloff == modelled[i].falloff && out.list[i].cone == modelled[i].cone,
                  "light %zu: falloff %u cone %u, want %u %u", i, out.list[i].falloff, out.list[i].cone, modelled[i].falloff,
                  modelled[i].cone);
        pmf_lights_free(&out);
        pmf_close(f);
    }
    free(mem);
    free(blob);
    free(models);

    pmf_light_info nan_light = sample[0];
    nan_light.range = NAN;
    CHECK(!pmf_lights_encode(&nan_light, 1, &blob, &size, &err) && strstr(err.message, "not finite"), "NaN refused");
}

/* A damaged blob fails with block "extension pmfview.lights" and the file offset of the bad
 * byte (blob offset + at, or any offset inside the blob when at is SIZE_MAX). */
static void expect_damage(const char *what, const uint8_t *bytes, size_t size, size_t at)
{
    const pmf_blob exts[] = { { (const uint8_t *)"ext0", 4 }, { bytes, size } };
    uint8_t *mem;
    pmf_file *f = write_with(exts, 2, &mem);
    if (!f) {
        free(mem);
        return;
    }
    pmf_lights out;
    pmf_error err;
    memset(&err, 0, sizeof err);
    bool ok = pmf_lights_read(f, &out, &err);
    CHECK(!ok, "%s: accepted", what);
    if (!ok) {
        uint64_t base = f->extensions[1].offset;
        CHECK(!strcmp(err.block, "extension pmfview.lights"), "%s: block '%s'", what, err.block);
        if (at == SIZE_MAX)
            CHECK(err.offset >= base && err.offset <= base + size, "%s: offset %llu outside the blob", what,
                  (unsigned long long)err.offset);
        else
            CHECK(err.offset == base + at, "%s: offset %llu, want %llu (%s)", what, (unsigned long long)err.offset,
                  (unsigned long long)(base + at), err.message);
        CHECK(out.count == 0 && !out.list, "%s: lights left behind", what);
    }
    pmf_close(f);
    free(mem);
}

static void test_damaged(void)
{
    uint8_t *blob;
    size_t size;
    pmf_error err;
    if (!pmf_lights_encode(sample, SAMPLE_COUNT, &blob, &size, &err))
        return;
    /* every cut after the name: a count, a light or a name runs past the end */
    for (size_t cut = 15; cut < size; cut++) {
        char what[64];
        snprintf(what, sizeof what, "cut at %zu of %zu", cut, size);
        expect_damage(what, blob, cut, SIZE_MAX);
    }
    const size_t first = 15 + 4; /* the first light */
    uint8_t copy[512];
    memcpy(copy, blob, size);
    copy[first + 1] = 3; /* kind 3 */
    expect_damage("unknown kind", copy, size, first + 1);
    memcpy(copy, blob, size);
    copy[first] = 9; /* level 9 of a 3-level file */
    expect_damage("level the file lacks", copy, size, first);
    memcpy(copy, blob, size);
    memcpy(copy + 15, "\x01\0\0\0", 4); /* one light, then all the others' bytes as trailing junk */
    expect_damage("bytes after the last light", copy, size, SIZE_MAX);
    free(blob);

    /* one light whose name runs to the end of the extension */
    pmf_light_info named = sample[1];
    if (pmf_lights_encode(&named, 1, &blob, &size, &err)) {
        expect_damage("name without NUL", blob, size - 1, first + LIGHT_BYTES);
        free(blob);
    }
}

int main(void)
{
    test_round_trip();
    test_damaged();
    TEST_DONE();
}
