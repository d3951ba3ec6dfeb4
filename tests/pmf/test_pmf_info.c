/* test_pmf_info.c - `pmfview info` on written maps: `test_pmf_info PMFVIEW MODE`, MODE one of
 *   json     the JSON object holds the kitchen sink's header, levels and totals
 *   text     the human summary names the same things
 *   damaged  a damaged map gives exactly one stderr line starting "pmfview:", exit 2
 *   usage    --help (stdout, 0), no FILE / unknown option (1), missing file (2)
 *   cameras  a map carrying the pmfview.cameras extension: `cameras` in JSON and text, per-level
 *            `bounds` against the vertices the map was built from, none = [], a damaged one = exit 2
 *   hostile  names with ESC sequences, C1 controls and bad UTF-8: no control byte reaches the
 *            terminal (shown as \xNN), --json stays valid UTF-8 with U+FFFD per bad byte */
#include <cjson/cJSON.h>
#include <string.h>
#include <unistd.h>

#include "block_patch.h"
#include "common/programs.h"
#include "pmf_cameras.h"
#include "sample_map.h"
#include "test_util.h"
#include "text_clean.h"

static const char *pmfview;
static char dir[128];

typedef struct run_result {
    int status;
    char *out, *err;
    size_t out_size, err_size;
} run_result;

static char *slurp(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    char *buf = calloc(1, 1 << 20);
    *size = fp ? fread(buf, 1, (1 << 20) - 1, fp) : 0;
    if (fp)
        fclose(fp);
    return buf;
}

/* Runs pmfview with args (words split at spaces), capturing stdout and stderr. */
static run_result run(const char *args)
{
    char out[600], err[600];
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    run_result r = { test_run_words(NULL, pmfview, args, out, err), NULL, NULL, 0, 0 };
    r.out = slurp(out, &r.out_size);
    r.err = slurp(err, &r.err_size);
    return r;
}

static void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

static bool write_map(const char *path, int variant)
{
    sample_map m;
    sample_map_build(&m, variant);
    pmf_error err;
    bool ok = sample_map_write_file(&m, path, &err);
    sample_map_free(&m);
    CHECK(ok, "write %s: %s", path, err.message);
    return ok;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    CHECK(cJSON_IsNumber(v), "'%s' is not a number", key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    CHECK(cJSON_IsString(v), "'%s' is not a string", key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static const char *item_str(const cJSON *o, const char *key, int i)
{
    const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, key), i);
    return cJSON_IsString(v) ? v->valuestring : "(missing)";
}

static void test_json(const char *map)
{
    char args[700];
    snprintf(args, sizeof args, "info %s --json", map);
    run_result r = run(args);
    CHECK(r.status == 0, "exit %d: %s", r.status, r.err);
    CHECK(r.err_size == 0, "stderr: %s", r.err);
    cJSON *root = cJSON_Parse(r.out);
    CHECK(root != NULL, "stdout is not one JSON object: %.200s", r.out);
    if (root) {
        CHECK(!strcmp(str(root, "name"), "Kitchen Sink"), "name");
        CHECK(!strcmp(str(root, "description"), "Every structure of PMF 0.0"), "description");
        CHECK(!strcmp(str(root, "authors"), "pmfview tests"), "authors");
        CHECK(!strcmp(str(root, "compiler"), "sample_map.c"), "compiler");
        CHECK(!strcmp(str(root, "created"), "2023-11-14T22:13:20Z"), "created %s", str(root, "created"));
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "gamemodes")) == 4 &&
                  !strcmp(item_str(root, "gamemodes", 1), "coop"), "gamemodes");
        CHECK(num(root, "archive_size") == 12 && num(root, "global_entities") == 3, "archive, entities");
        const cJSON *levels = cJSON_GetObjectItem(root, "levels");
        CHECK(cJSON_GetArraySize(levels) == 3, "3 levels");
        const cJSON *l0 = cJSON_GetArrayItem(levels, 0);
        if (l0) {
            CHECK(num(l0, "flags") == 7 && num(l0, "chunk_size_exp") == 5, "level 0 flags, chunk size");
            const cJSON *cc = cJSON_GetObjectItem(l0, "chunk_counts"), *ce = cJSON_GetObjectItem(l0, "center");
            CHECK(num(cc, "x") == 3 && num(cc, "y") == 2 && num(cc, "z") == 2, "chunk_counts");
            CHECK(num(ce, "x") == 1 && num(ce, "y") == 0 && num(ce, "z") == 1, "center");
            CHECK(num(l0, "present_chunks") == 3, "present_chunks");
            CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(l0, "materials")) == 10 &&
                      !strcmp(item_str(l0, "materials", 2), "water"), "materials");
            CHECK(num(l0, "cubes") == 9 && num(l0, "vertices") == 78 && num(l0, "lightmaps") == 3 &&
                      num(l0, "dynamic_lights") == 2 && num(l0, "fast_lights") == 2, "level 0 totals");
            CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(l0, "sky_environments")) == 2 &&
                      !strcmp(item_str(l0, "sky_environments", 1), "space"), "sky_environments");
            const cJSON *big = cJSON_GetObjectItem(l0, "largest");
            const cJSON *at = cJSON_GetObjectItem(big, "client_chunk"), *lit = cJSON_GetObjectItem(big, "lightmap_layer_chunk");
            CHECK(num(big, "client_bytes") == 1863 && num(big, "lightmap_layer_bytes") == 132, "largest: %g, %g",
                  num(big, "client_bytes"), num(big, "lightmap_layer_bytes"));
            CHECK(num(at, "x") == 1 && num(at, "y") == 0 && num(at, "z") == 1 && num(lit, "x") == 1 && num(lit, "z") == 1,
                  "largest chunks at (1,0,1)");
            CHECK(cJSON_GetObjectItem(l0, "chunks") == NULL, "chunks listed only with --chunks");
        }
        const cJSON *l2 = cJSON_GetArrayItem(levels, 2);
        if (l2)
            CHECK(num(l2, "present_chunks") == 0 && num(l2, "cubes") == 0 && num(l2, "flags") == 4, "level 2");
        cJSON_Delete(root);
    }
    run_free(&r);
}

/* --chunks: every present chunk of the kitchen sink's level 0 with its blocks, lightmaps and
 * layers (chunk (1,0,1): a 4 x 4 and a 2 x 2 lightmap, 60 bytes, two dynamic lights with
 * three layers, 72 bytes), in grid order, as JSON and as text. */
static void test_chunks(const char *map)
{
    char args[700];
    snprintf(args, sizeof args, "info %s --json --chunks", map);
    run_result r = run(args);
    CHECK(r.status == 0, "exit %d: %s", r.status, r.err);
    cJSON *root = cJSON_Parse(r.out);
    const cJSON *chunks = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "levels"), 0), "chunks");
    CHECK(cJSON_GetArraySize(chunks) == 3, "3 chunks listed: %.300s", r.out);
    const cJSON *c = cJSON_GetArrayItem(chunks, 1), *at = cJSON_GetObjectItem(c, "coord");
    const cJSON *dec = cJSON_GetObjectItem(c, "decompressed");
    CHECK(num(at, "x") == 1 && num(at, "y") == 0 && num(at, "z") == 1, "chunk 1 is (1,0,1)");
    CHECK(num(dec, "common") == 562 && num(dec, "client") == 1863 && num(dec, "server") == 147, "(1,0,1) blocks");
    CHECK(num(c, "lightmaps") == 2 && num(c, "lightmap_bytes") == 60 && num(c, "dynamic_lights") == 2 &&
              num(c, "layers") == 3 && num(c, "layer_bytes") == 72, "(1,0,1) lightmaps and layers");
    cJSON_Delete(root);
    run_free(&r);
    snprintf(args, sizeof args, "info %s --chunks", map);
    r = run(args);
    CHECK(r.status == 0 && strstr(r.out, "  chunks:           3\n    (0,0,0): blocks 48 / 129 / 9 bytes (common / client / server; ")
              && strstr(r.out, "    (1,0,1): blocks 562 / 1863 / 147 bytes (") &&
              strstr(r.out, "compressed), 2 lightmaps 60 bytes, 2 dynamic lights, 3 layers 72 bytes\n"),
          "text --chunks:\n%s", r.out);
    run_free(&r);
}

static void test_text(const char *map)
{
    char args[700];
    snprintf(args, sizeof args, "info %s", map);
    run_result r = run(args);
    CHECK(r.status == 0, "exit %d: %s", r.status, r.err);
    static const char *const lines[] = {
        "name:         Kitchen Sink\n",
        "created:      2023-11-14T22:13:20Z\n",
        "gamemodes:    4: deathmatch, coop, fifteen_chars_x, \"\"\n",
        "archive:      12 bytes\n",
        "extensions:   3 (bytes: 4, 0, 16)\n",
        "levels:       3\n",
        "level 0:\n  flags:            0x07 (keep in-chunk offset, keep chunk offset, keep velocity)\n",
        "  grid:             3 x 2 x 2 (x, y, z)\n  center:           (1, 0, 1)\n  present chunks:   3 of 12\n",
        "  materials:        10: stone, glass, water, sky_px,",
        "  cubes:            9\n  vertices:         78\n  lightmaps:        3\n  dynamic lights:   2\n  fast lights:      2\n",
        /* what each chunk takes: the decoded sizes (compressed ones follow the LZ4 library) */
        "  largest chunk:    client block 1863 bytes (",
        "at (1,0,1); lightmaps + layers 132 bytes at (1,0,1)\n",
        "  sky environments: 2: day, space\n",
        "level 2:\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        CHECK(strstr(r.out, lines[i]) != NULL, "stdout lacks:\n%s\nstdout:\n%s", lines[i], r.out);
    run_free(&r);
}

static void expect_one_error_line(const char *args, int status, const char *needle)
{
    run_result r = run(args);
    CHECK(r.status == status, "%s: exit %d, expected %d", args, r.status, status);
    CHECK(!strncmp(r.err, "pmfview: ", 9), "%s: stderr '%s'", args, r.err);
    char *nl = strchr(r.err, '\n');
    CHECK(nl && nl[1] == 0, "%s: not exactly one line: '%s'", args, r.err);
    CHECK(strstr(r.err, needle) != NULL, "%s: stderr '%s' lacks '%s'", args, r.err, needle);
    CHECK(r.out_size == 0, "%s: stdout '%s'", args, r.out);
    run_free(&r);
}

static void test_damaged(void)
{
    char small[600], bad[600], args[700];
    snprintf(small, sizeof small, "%s/small.pmf", dir);
    if (!write_map(small, SAMPLE_MAP_SMALL))
        return;
    size_t size;
    uint8_t *file = (uint8_t *)slurp(small, &size);

    /* a vertex range past the end, deep inside a chunk's client block */
    static const pmf_chunk_coord rich = { 1, 0, 0 };
    test_bytes client = block_get(file, size, (block_ref){ 0, &rich, 1 });
    static const uint8_t cube5[] = { 0xFF, 42, 0, 0, 0, 0x05 };
    size_t at = 0;
    while (client.data && at + sizeof cube5 <= client.size && memcmp(client.data + at, cube5, sizeof cube5))
        at++;
    CHECK(client.data && at + sizeof cube5 <= client.size, "test setup: cube 5 not found");
    client.data[at + 1] = 47;
    test_bytes b = block_replace(file, size, (block_ref){ 0, &rich, 1 }, client.data, client.size, (uint32_t)client.size);
    snprintf(bad, sizeof bad, "%s/bad.pmf", dir);
    FILE *fp = fopen(bad, "wb");
    fwrite(b.data, 1, b.size, fp);
    fclose(fp);
    char needle[200];
    snprintf(needle, sizeof needle, "bad.pmf: level 0 chunk (1,0,0) client data, byte %zu: cube 5: vertices 47..55", at + 1);
    snprintf(args, sizeof args, "info %s", bad);
    expect_one_error_line(args, 2, needle);
    snprintf(args, sizeof args, "info --json %s", bad);
    expect_one_error_line(args, 2, needle);

    /* a cut file */
    fp = fopen(bad, "wb");
    fwrite(file, 1, size / 2, fp);
    fclose(fp);
    snprintf(args, sizeof args, "info %s", bad);
    expect_one_error_line(args, 2, "bad.pmf: ");
    unlink(bad);
    unlink(small);
    free(b.data);
    free(client.data);
    free(file);
}

static void test_usage(void)
{
    run_result r = run("info --help");
    CHECK(r.status == 0 && strstr(r.out, "usage: pmfview info FILE [--json]") && r.err_size == 0, "--help: %d '%s'", r.status,
          r.out);
    run_free(&r);
    expect_one_error_line("info", 1, "no FILE");
    expect_one_error_line("info --frobnicate x.pmf", 1, "unknown option");
    char args[700];
    snprintf(args, sizeof args, "info %s/does-not-exist.pmf", dir);
    expect_one_error_line(args, 2, "does-not-exist.pmf: file, byte 0: cannot open");
}

/* Writes the kitchen sink with the sample's own extensions plus a cameras blob; the expected
 * bounds of each level come from the vertices it was built from. */
static bool write_camera_map(const char *path, const uint8_t *blob, size_t blob_size, double bounds[][2][3])
{
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_KITCHEN_SINK);
    pmf_blob exts[8];
    uint16_t n = m.data.extension_count;
    memcpy(exts, m.data.extensions, n * sizeof *exts);
    exts[n++] = (pmf_blob){ blob, blob_size };
    m.data.extensions = exts;
    m.data.extension_count = n;
    for (uint32_t l = 0; bounds && l < m.level_count; l++) {
        const pmf_level *lvl = &m.levels[l].level;
        double side = (double)(1u << lvl->chunk_size_exp);
        bool any = false;
        for (uint32_t c = 0; c < m.levels[l].chunk_count; c++) {
            const pmf_chunk *ch = &m.levels[l].chunks[c];
            uint32_t grid[3] = { ch->coord.x, ch->coord.y, ch->coord.z }, centre[3] = { lvl->center.x, lvl->center.y, lvl->center.z };
            for (uint32_t v = 0; v < ch->client.vertex_count; v++, any = true)
                for (int k = 0; k < 3; k++) {
                    double w = ((double)grid[k] - centre[k]) * side + ch->client.vertices[v].xyz[k];
                    if (!any || w < bounds[l][0][k])
                        bounds[l][0][k] = w;
                    if (!any || w > bounds[l][1][k])
                        bounds[l][1][k] = w;
                }
        }
    }
    pmf_error err;
    bool ok = sample_map_write_file(&m, path, &err);
    sample_map_free(&m);
    CHECK(ok, "write %s: %s", path, err.message);
    return ok;
}

static void test_cameras(const char *map)
{
    const pmf_camera cams[] = {
        { "spawn", 0, { 1.5f, 0.7112f, -3.25f }, -90.0f, 0.0f },
        { "upstairs", 1, { -10.0f, 4.5f, 2.0f }, 135.0f, -20.5f },
        { "esc\x1b[31mred", 0, { 0, 0, 0 }, 0, 0 },
    };
    uint8_t *blob;
    size_t size;
    pmf_error err;
    CHECK(pmf_cameras_encode(cams, 3, &blob, &size, &err), "encode: %s", err.message);
    double bounds[SAMPLE_MAX_LEVELS][2][3];
    if (!write_camera_map(map, blob, size, bounds)) {
        free(blob);
        return;
    }
    char args[700];
    snprintf(args, sizeof args, "info %s --json", map);
    run_result r = run(args);
    CHECK(r.status == 0, "exit %d: %s", r.status, r.err);
    cJSON *root = cJSON_Parse(r.out);
    CHECK(root != NULL, "stdout is not JSON: %.200s", r.out);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "cameras");
    CHECK(cJSON_GetArraySize(arr) == 3, "3 cameras");
    for (int i = 0; i < 3 && i < cJSON_GetArraySize(arr); i++) {
        const cJSON *c = cJSON_GetArrayItem(arr, i), *pos = cJSON_GetObjectItem(c, "position");
        CHECK(!strcmp(str(c, "name"), cams[i].name), "camera %d name '%s'", i, str(c, "name"));
        CHECK(num(c, "level") == cams[i].level && num(c, "yaw") == cams[i].yaw && num(c, "pitch") == cams[i].pitch,
              "camera %d level, yaw, pitch", i);
        CHECK(cJSON_GetArraySize(pos) == 3, "camera %d position has 3 numbers", i);
        for (int k = 0; k < 3; k++)
            CHECK((float)cJSON_GetArrayItem(pos, k)->valuedouble == cams[i].pos[k], "camera %d position[%d]", i, k);
    }
    /* The shortest decimal: 0.7112, not 0.71119999885559082. */
    CHECK(strstr(r.out, "0.7112,") || strstr(r.out, "0.7112 "), "0.7112 printed as written: %.400s", strstr(r.out, "\"cameras\""));
    const cJSON *levels = cJSON_GetObjectItem(root, "levels");
    for (int l = 0; l < 2; l++) {
        const cJSON *b = cJSON_GetObjectItem(cJSON_GetArrayItem(levels, l), "bounds");
        const cJSON *mn = cJSON_GetObjectItem(b, "min"), *mx = cJSON_GetObjectItem(b, "max");
        CHECK(cJSON_GetArraySize(mn) == 3 && cJSON_GetArraySize(mx) == 3, "level %d bounds", l);
        for (int k = 0; k < 3 && cJSON_GetArraySize(mn) == 3 && cJSON_GetArraySize(mx) == 3; k++)
            CHECK(cJSON_GetArrayItem(mn, k)->valuedouble == bounds[l][0][k] &&
                      cJSON_GetArrayItem(mx, k)->valuedouble == bounds[l][1][k],
                  "level %d bounds[%d] %g..%g, want %g..%g", l, k, cJSON_GetArrayItem(mn, k)->valuedouble,
                  cJSON_GetArrayItem(mx, k)->valuedouble, bounds[l][0][k], bounds[l][1][k]);
    }
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(levels, 2), "bounds")), "level 2 (no chunks): bounds null");
    cJSON_Delete(root);
    run_free(&r);

    snprintf(args, sizeof args, "info %s", map);
    r = run(args);
    CHECK(r.status == 0, "text: exit %d", r.status);
    char bounds_line[300];
    snprintf(bounds_line, sizeof bounds_line, "  bounds:           (%g, %g, %g) to (%g, %g, %g) m\n", bounds[0][0][0],
             bounds[0][0][1], bounds[0][0][2], bounds[0][1][0], bounds[0][1][1], bounds[0][1][2]);
    const char *lines[] = {
        "cameras:      3\n  1: spawn (level 0) at 1.5, 0.7112, -3.25 yaw -90 pitch 0\n"
        "  2: upstairs (level 1) at -10, 4.5, 2 yaw 135 pitch -20.5\n  3: esc",
        "[31mred (level 0) at 0, 0, 0 yaw 0 pitch 0\n",
        bounds_line,
        "  bounds:           none (no vertices)\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        CHECK(strstr(r.out, lines[i]) != NULL, "stdout lacks:\n%s\nstdout:\n%s", lines[i], r.out);
    CHECK(!memchr(r.out, 0x1b, r.out_size), "an escape byte reached the terminal");
    run_free(&r);

    /* A count past the end: exit 2, one line naming the extension and the count's file offset. */
    blob[16] = 200;
    if (write_camera_map(map, blob, size, NULL)) {
        pmf_file *f = pmf_open(map, &err);
        CHECK(f != NULL, "open");
        char needle[200];
        snprintf(needle, sizeof needle, "extension pmfview.cameras, byte %llu: 200 cameras need at least",
                 f ? (unsigned long long)f->extensions[3].offset + 17 : 0ull);
        pmf_close(f);
        snprintf(args, sizeof args, "info %s --json", map);
        expect_one_error_line(args, 2, needle);
    }
    free(blob);

    /* No extension: an empty array. */
    if (write_map(map, SAMPLE_MAP_KITCHEN_SINK)) {
        snprintf(args, sizeof args, "info %s --json", map);
        r = run(args);
        root = cJSON_Parse(r.out);
        arr = cJSON_GetObjectItemCaseSensitive(root, "cameras");
        CHECK(cJSON_IsArray(arr) && cJSON_GetArraySize(arr) == 0, "no extension: cameras []");
        cJSON_Delete(root);
        run_free(&r);
    }
}

/* True when s[0..size) is valid UTF-8 with no control byte but '\n' (and '\t' when tabs) */
static bool terminal_safe_tabs(const char *s, size_t size, bool tabs)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < size;) {
        unsigned char c = p[i];
        size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!len || i + len > size || (c < 0x20 && c != '\n' && !(tabs && c == '\t')) || c == 0x7F || (c == 0xC2 && p[i + 1] < 0xA0))
            return false;
        for (size_t k = 1; k < len; k++)
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

static bool terminal_safe(const char *s, size_t size)
{
    return terminal_safe_tabs(s, size, false);
}

static void test_hostile(void)
{
    /* ESC [2J (clear screen), a lone C1 CSI byte, C1 CSI as UTF-8, bytes never valid, a cut sequence */
    static const char evil_name[] = "evil\x1b[2J\x9b\xc2\x9b\xff\xfe end\xe2\x82";
    static const char evil_desc[] = "clip\x1b]52;c;ZXZpbA==\x07 ok \xc3\xa9";
    static const char evil_material[] = "mat\x1b[31m\xc0\xaf";
    static const char evil_authors[] = "del\x7f author"; /* DEL (issue 22) */

    char buf[200];
    pmf_error perr = { .offset = 7 };
    snprintf(perr.file, sizeof perr.file, "f\x1b[2J.pmf");
    snprintf(perr.block, sizeof perr.block, "level 0 common data");
    snprintf(perr.message, sizeof perr.message, "material '%s' \xc2\x9b\nbad", evil_material);
    pmf_error_format(&perr, buf, sizeof buf);
    CHECK(!strcmp(buf, "f\\x1B[2J.pmf: level 0 common data, byte 7: material 'mat\\x1B[31m\\xC0\\xAF' \\xC2\\x9B\\x0Abad"),
          "pmf_error_format: '%s'", buf);
    pmf_error_format(&perr, buf, 12); /* cut at a whole escape, never inside one */
    CHECK(!strcmp(buf, "f\\x1B[2J.pm"), "pmf_error_format cut: '%s'", buf);

    char map[600], args[1400];
    snprintf(map, sizeof map, "%s/hostile.pmf", dir);
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_SMALL);
    m.header.name = evil_name;
    m.header.description = evil_desc;
    m.header.authors = evil_authors;
    sample_level *sl = &m.levels[0];
    const char *old = sl->level.common.materials[0].name;
    sl->level.common.materials[0].name = evil_material;
    for (uint32_t c = 0; c < sl->chunk_count; c++) /* chunks name the materials they use */
        for (unsigned u = 0; u < sl->chunks[c].common.used_material_count; u++)
            if (!strcmp(sl->chunks[c].common.used_materials[u], old))
                sl->chunks[c].common.used_materials[u] = evil_material;
    bool ok = sample_map_write_file(&m, map, &perr);
    sample_map_free(&m);
    CHECK(ok, "write %s: %s", map, perr.message);

    snprintf(args, sizeof args, "info %s", map);
    run_result r = run(args);
    CHECK(r.status == 0, "info: exit %d: %s", r.status, r.err);
    CHECK(terminal_safe(r.out, r.out_size), "info: control bytes or bad UTF-8 on stdout:\n%s", r.out);
    CHECK(strstr(r.out, "name:         evil\\x1B[2J\\x9B\\xC2\\x9B\\xFF\\xFE end\\xE2\\x82\n") != NULL, "info name:\n%s", r.out);
    CHECK(strstr(r.out, "description:  clip\\x1B]52;c;ZXZpbA==\\x07 ok \xc3\xa9\n") != NULL, "info description:\n%s", r.out);
    CHECK(strstr(r.out, ": mat\\x1B[31m\\xC0\\xAF, ") != NULL, "info material:\n%s", r.out);
    CHECK(strstr(r.out, "authors:      del\\x7F author\n") != NULL, "info authors:\n%s", r.out);
    run_free(&r);

    snprintf(args, sizeof args, "info %s --json", map);
    r = run(args);
    CHECK(r.status == 0, "info --json: exit %d: %s", r.status, r.err);
    CHECK(terminal_safe_tabs(r.out, r.out_size, true), "info --json: control bytes or bad UTF-8 on stdout:\n%s", r.out);
    cJSON *root = cJSON_Parse(r.out);
    CHECK(root != NULL, "stdout is not one JSON object: %.300s", r.out);
    if (root) {
        CHECK(!strcmp(str(root, "name"), "evil\x1b[2J\xef\xbf\xbd\xc2\x9b\xef\xbf\xbd\xef\xbf\xbd end\xef\xbf\xbd\xef\xbf\xbd"),
              "json name '%s'", str(root, "name"));
        CHECK(!strcmp(str(root, "description"), evil_desc), "json description '%s'", str(root, "description"));
        CHECK(!strcmp(str(root, "authors"), evil_authors), "json authors '%s'", str(root, "authors"));
        CHECK(strstr(r.out, "\"del\\u007f author\"") != NULL, "json authors not escaped:\n%.400s", r.out);
        const cJSON *l0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "levels"), 0);
        CHECK(l0 && !strcmp(item_str(l0, "materials", 0), "mat\x1b[31m\xef\xbf\xbd\xef\xbf\xbd"), "json material '%s'",
              l0 ? item_str(l0, "materials", 0) : "(no level)");
        cJSON_Delete(root);
    }
    run_free(&r);

    /* a hostile file name in the error line (Windows' command lines are UTF-16: a name that is
     * not UTF-8, such as this one, cannot even be passed there) */
#ifndef _WIN32
    snprintf(args, sizeof args, "info %s/gone\x1b[2J\x9b.pmf", dir);
    r = run(args);
    CHECK(r.status == 2 && terminal_safe(r.err, r.err_size) && strstr(r.err, "gone\\x1B[2J\\x9B.pmf: file, byte 0: "),
          "missing hostile name: exit %d, stderr '%s'", r.status, r.err);
    run_free(&r);
#endif
    unlink(map);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: test_pmf_info PMFVIEW json|text|chunks|damaged|usage|cameras|hostile\n", stderr);
        return 2;
    }
    pmfview = argv[1];
    if (!test_temp_dir(dir, sizeof dir, "pmf_info")) {
        perror("mkdtemp");
        return 1;
    }
    char map[600];
    snprintf(map, sizeof map, "%s/kitchen.pmf", dir);
    const char *mode = argv[2];
    if (!strcmp(mode, "json") && write_map(map, SAMPLE_MAP_KITCHEN_SINK))
        test_json(map);
    else if (!strcmp(mode, "text") && write_map(map, SAMPLE_MAP_KITCHEN_SINK))
        test_text(map);
    else if (!strcmp(mode, "chunks") && write_map(map, SAMPLE_MAP_KITCHEN_SINK))
        test_chunks(map);
    else if (!strcmp(mode, "damaged"))
        test_damaged();
    else if (!strcmp(mode, "usage"))
        test_usage();
    else if (!strcmp(mode, "cameras"))
        test_cameras(map);
    else if (!strcmp(mode, "hostile"))
        test_hostile();
    unlink(map);
    char path[700];
    snprintf(path, sizeof path, "%s/stdout", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/stderr", dir);
    unlink(path);
    rmdir(dir);
    TEST_DONE();
}
