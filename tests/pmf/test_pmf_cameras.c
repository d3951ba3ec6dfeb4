/* test_pmf_cameras.c - the `pmfview.cameras` extension: encode -> writer -> reader -> decode
 * gives every field back (odd names too, other extensions skipped), no extension = 0 cameras,
 * and damaged blobs give one error naming the extension and the exact file offset. */
#include <math.h>
#include <string.h>

#include "pmf_cameras.h"
#include "sample_map.h"
#include "test_util.h"

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
    pmf_file *f = ok ? pmf_open_memory(*mem, size, "cams.pmf", &err) : NULL;
    CHECK(f, "open: %s", ok ? err.message : "not written");
    return f;
}

static void test_round_trip(void)
{
    static const char long_name[] = "a camera name that is rather long, well past what a HUD line shows, "
                                     "with spaces, punctuation (!?;:) and more than one hundred bytes in all";
    const pmf_camera in[] = {
        { "info_player_start 1", 0, { 1.5f, 0.7112f, -3.25f }, -90.0f, 0.0f },
        { "", 2, { -1e6f, 12345.678f, 0.0f }, 359.99f, -89.5f },
        { "caf\xc3\xa9 \xe2\x98\x85", 1, { 0.1f, 0.2f, 0.3f }, 45.0f, 30.0f },
        { "bad\x01utf8\xff\x1b[31m", 0, { -0.0f, 1e-30f, 3e30f }, -720.0f, 90.0f },
        { long_name, 0, { 8, 9, 10 }, 0.5f, -0.5f },
    };
    const size_t n = sizeof in / sizeof in[0];
    uint8_t *blob;
    size_t size;
    pmf_error err;
    CHECK(pmf_cameras_encode(in, n, &blob, &size, &err), "encode: %s", err.message);
    size_t want = 16 + 1;
    for (size_t i = 0; i < n; i++)
        want += strlen(in[i].name) + 1 + 21;
    CHECK(size == want, "blob is %zu bytes, want %zu", size, want);
    CHECK(!memcmp(blob, "pmfview.cameras\0\x05", 17), "blob starts with the name, NUL and count 5");
    /* Another extension first: the reader must skip it. */
    const pmf_blob exts[] = { { (const uint8_t *)"other.ext\0\x05junk", 15 }, { blob, size } };
    uint8_t *mem;
    pmf_file *f = write_with(exts, 2, &mem);
    pmf_cameras out;
    if (f) {
        CHECK(pmf_cameras_read(f, &out, &err), "read: %s", err.message);
        CHECK(out.count == n, "count %u, want %zu", out.count, n);
        for (size_t i = 0; i < n && i < out.count; i++) {
            const pmf_camera *a = &in[i], *b = &out.list[i];
            CHECK(!strcmp(a->name, b->name), "camera %zu name '%s'", i, b->name);
            CHECK(a->level == b->level, "camera %zu level %u", i, b->level);
            CHECK(!memcmp(a->pos, b->pos, sizeof a->pos), "camera %zu position %g %g %g", i, b->pos[0], b->pos[1], b->pos[2]);
            CHECK(!memcmp(&a->yaw, &b->yaw, 4) && !memcmp(&a->pitch, &b->pitch, 4), "camera %zu yaw %g pitch %g", i, b->yaw, b->pitch);
        }
        CHECK(signbit(out.list[3].pos[0]), "-0 keeps its sign");
        const pmf_camera *first1 = pmf_cameras_first(&out, 1), *first0 = pmf_cameras_first(&out, 0);
        CHECK(first0 == &out.list[0] && first1 == &out.list[2] && !pmf_cameras_first(&out, 9), "first camera per level");
        pmf_cameras_free(&out);
        pmf_close(f);
    }
    free(mem);
    free(blob);

    /* No cameras at all: an empty list still round-trips; no extension at all gives 0. */
    CHECK(pmf_cameras_encode(NULL, 0, &blob, &size, &err) && size == 17, "empty list is 17 bytes");
    free(blob);
    f = write_with(exts, 1, &mem);
    if (f) {
        out.count = 99;
        CHECK(pmf_cameras_read(f, &out, &err) && out.count == 0, "no extension: 0 cameras");
        pmf_close(f);
    }
    free(mem);

    pmf_camera many[256];
    memset(many, 0, sizeof many);
    CHECK(!pmf_cameras_encode(many, 256, &blob, &size, &err) && strstr(err.message, "at most 255"), "256 cameras refused");
    pmf_camera nan_cam = { "x", 0, { NAN, 0, 0 }, 0, 0 };
    CHECK(!pmf_cameras_encode(&nan_cam, 1, &blob, &size, &err) && strstr(err.message, "not finite"), "NaN refused");
}

/* A damaged blob must fail with block "extension pmfview.cameras", the file offset of the bad
 * byte (blob offset + at) and a message holding `words`. */
static void expect_damage(const char *what, const uint8_t *bytes, size_t size, size_t at, const char *words)
{
    const pmf_blob exts[] = { { (const uint8_t *)"ext0", 4 }, { bytes, size } };
    uint8_t *mem;
    pmf_file *f = write_with(exts, 2, &mem);
    if (!f) {
        free(mem);
        return;
    }
    pmf_cameras out;
    pmf_error err;
    memset(&err, 0, sizeof err);
    bool ok = pmf_cameras_read(f, &out, &err);
    CHECK(!ok, "%s: accepted", what);
    if (!ok) {
        char line[1024];
        pmf_error_format(&err, line, sizeof line);
        CHECK(!strcmp(err.block, "extension pmfview.cameras"), "%s: block '%s'", what, err.block);
        CHECK(err.offset == f->extensions[1].offset + at, "%s: offset %llu, want %llu (%s)", what,
              (unsigned long long)err.offset, (unsigned long long)(f->extensions[1].offset + at), line);
        CHECK(strstr(err.message, words) != NULL, "%s: message '%s' lacks '%s'", what, err.message, words);
        CHECK(!strncmp(line, "cams.pmf: extension pmfview.cameras, byte ", 42), "%s: line '%s'", what, line);
        CHECK(out.count == 0, "%s: count left at %u", what, out.count);
    }
    pmf_close(f);
    free(mem);
}

static void test_damaged(void)
{
    uint8_t b[128];
    const size_t head = 16; /* "pmfview.cameras\0" */
    memcpy(b, "pmfview.cameras", head);
    expect_damage("truncated count", b, head, head, "camera count");

    /* One camera "ab" whose name runs to the end of the extension. */
    b[head] = 1;
    memcpy(b + head + 1, "abcdefghijklmnopqrstuvwxyz", 26);
    expect_damage("name without NUL", b, head + 1 + 26, head + 1, "no NUL");

    /* Count 3, room for one camera. */
    b[head] = 3;
    memset(b + head + 1, 0, 22);
    expect_damage("count past the end", b, head + 1 + 22, head + 1, "3 cameras need at least 66 bytes");

    /* Count 2 and two cameras' worth of bytes, but the first name is so long that its level,
     * position and angles are cut short. */
    b[head] = 2;
    memset(b + head + 1, 'x', 44);
    b[head + 1 + 40] = 0;
    expect_damage("camera cut short", b, head + 1 + 44, head + 1 + 41, "camera 0: level, position, yaw and pitch need 21 bytes, 3 left");

    /* A camera on a level the file does not have (the kitchen sink has 3). */
    b[head] = 1;
    memset(b + head + 1, 0, 22);
    b[head + 2] = 3;
    expect_damage("level past the levels", b, head + 1 + 22, head + 2, "level 3, the file has 3");

    /* Trailing bytes after the last camera. */
    b[head + 2] = 0;
    expect_damage("trailing bytes", b, head + 1 + 22 + 5, head + 1 + 22, "5 bytes after");

    /* An infinite yaw. */
    float inf = INFINITY;
    memcpy(b + head + 1 + 1 + 1 + 12, &inf, 4);
    expect_damage("infinite yaw", b, head + 1 + 22, head + 3, "not finite");
}

int main(void)
{
    test_round_trip();
    test_damaged();
    TEST_DONE();
}
