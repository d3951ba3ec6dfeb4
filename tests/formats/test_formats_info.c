/* test_formats_info.c - `pmfview info` on the legacy draft map and PM4 tiles the tests write:
 * `test_formats_info PMFVIEW PMFC MODE`, MODE one of
 *   legacy   --json values of the draft map (format "pmf-legacy"), and the text summary
 *   pm4      --json values of one tile and of a directory of three tiles (format "pm4")
 *   damaged  damaged files: exactly one stderr line "pmfview: FILE: BLOCK, byte N: ...", exit 2;
 *            pmfc names them instead of parsing them as a source */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"
#include "common/programs.h"
#include "format_samples.h"

static const char *pmfview;
static char dir[128];

typedef struct run_result { int status; char out[1 << 16], err[4096]; } run_result;
static run_result result;

static void slurp(const char *path, char *buf, size_t size)
{
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(buf, 1, size - 1, fp) : 0;
    buf[n] = 0;
    if (fp)
        fclose(fp);
}

static run_result *run(const char *program, const char *args)
{
    char out[600], err[600];
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    result.status = test_run_words(NULL, program, args, out, err);
    slurp(out, result.out, sizeof result.out);
    slurp(err, result.err, sizeof result.err);
    return &result;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    CHECK(cJSON_IsNumber(v));
    if (!cJSON_IsNumber(v))
        fprintf(stderr, "  '%s' is not a number\n", key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    CHECK(cJSON_IsString(v));
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void check_box(const cJSON *bounds, const float min[3], const float max[3])
{
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(bounds, "min"), *hi = cJSON_GetObjectItemCaseSensitive(bounds, "max");
    CHECK(cJSON_GetArraySize(lo) == 3 && cJSON_GetArraySize(hi) == 3);
    for (int k = 0; k < 3 && cJSON_GetArraySize(lo) == 3 && cJSON_GetArraySize(hi) == 3; k++) {
        CHECK(cJSON_GetArrayItem(lo, k)->valuedouble == min[k]);
        CHECK(cJSON_GetArrayItem(hi, k)->valuedouble == max[k]);
    }
}

static void write_legacy(const char *path, const legacy_sample_desc *d)
{
    size_t size;
    uint8_t *bytes = legacy_sample_build(d, &size);
    CHECK(bytes && sample_write_file(path, bytes, size));
    free(bytes);
}

static void write_pm4(const char *path)
{
    size_t size;
    uint8_t *bytes = pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
    CHECK(bytes && sample_write_file(path, bytes, size));
    free(bytes);
}

static void test_legacy(void)
{
    char path[256], args[512];
    snprintf(path, sizeof path, "%s/old.pmf", dir);
    write_legacy(path, &(legacy_sample_desc){ .lz4 = true });
    snprintf(args, sizeof args, "info %s --json", path);
    run_result *r = run(pmfview, args);
    CHECK_EQ(r->status, 0);
    cJSON *root = cJSON_Parse(r->out);
    CHECK(root != NULL);
    if (!root) {
        fprintf(stderr, "  stderr: %s\n", r->err);
        return;
    }
    CHECK(!strcmp(str(root, "format"), "pmf-legacy"));
    CHECK(!strcmp(str(root, "version"), "0.0"));
    CHECK(!strcmp(str(root, "name"), "Legacy Sample"));
    CHECK_EQ(num(root, "created_unix"), 1700000000);
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(root, "gamemodes")), 2);
    const cJSON *blocks = cJSON_GetObjectItem(root, "blocks");
    CHECK(!strcmp(str(cJSON_GetObjectItem(blocks, "client"), "compression"), "lz4"));
    CHECK_EQ(num(cJSON_GetObjectItem(blocks, "client"), "bytes"), 4 + LEGACY_TRIANGLES * 84);
    CHECK_EQ(num(cJSON_GetObjectItem(root, "sections"), "size_exp"), 4);
    CHECK_EQ(num(root, "cubes"), LEGACY_CUBES);
    const cJSON *tree = cJSON_GetObjectItem(root, "cubes_in_tree");
    CHECK_EQ(num(tree, "solid"), 2);
    CHECK_EQ(num(tree, "angled"), 1);
    CHECK_EQ(num(tree, "parent"), 1);
    CHECK_EQ(num(tree, "empty"), 5);
    CHECK_EQ(num(root, "lit_cubes"), 2);
    CHECK_EQ(num(root, "triangles"), LEGACY_TRIANGLES);
    const cJSON *mats = cJSON_GetObjectItem(root, "materials");
    CHECK(cJSON_GetArraySize(mats) == 2 && !strcmp(cJSON_GetArrayItem(mats, 1)->valuestring, LEGACY_MAT_B));
    const cJSON *team = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "teams"), 0);
    CHECK(team && !strcmp(str(team, "name"), "red team"));
    check_box(cJSON_GetObjectItem(root, "bounds"), (const float[3]){ -6, -2, -8 }, (const float[3]){ 6, 5, -8 });
    cJSON_Delete(root);

    snprintf(args, sizeof args, "info %s", path);
    r = run(pmfview, args);
    CHECK_EQ(r->status, 0);
    CHECK(strstr(r->out, "legacy PMF draft 0.0") && strstr(r->out, "2 solid, 1 angled") &&
          strstr(r->out, "textures/grey, textures/blue"));
}

static void check_tile(const cJSON *tile, int x, int y)
{
    const cJSON *xy = cJSON_GetObjectItem(tile, "tile");
    CHECK(num(xy, "x") == x && num(xy, "y") == y);
    const cJSON *chunks = cJSON_GetObjectItem(tile, "chunks");
    CHECK_EQ(num(chunks, "MVER"), 1);
    CHECK_EQ(num(chunks, "MSVT"), 8);
    CHECK_EQ(num(chunks, "MSUR"), 2);
    CHECK_EQ(num(chunks, "MSCN"), 3);
    CHECK_EQ(num(chunks, "MPRR"), 2);
    CHECK(!cJSON_GetObjectItem(chunks, "MDBH"));
    CHECK_EQ(num(tile, "unknown_chunks"), 1);
    CHECK_EQ(num(tile, "vertices"), 8);
    CHECK_EQ(num(tile, "surfaces"), 2);
    CHECK_EQ(num(tile, "groups"), 2);
    CHECK_EQ(num(tile, "walkable_surfaces"), 1);
    CHECK_EQ(num(tile, "m2_surfaces"), 1);
    CHECK_EQ(num(tile, "liquid_surfaces"), 1);
    CHECK_EQ(num(tile, "triangles"), 3);
    CHECK_EQ(num(tile, "path_vertices"), 4);
    CHECK_EQ(num(tile, "exterior_points"), 3);
    CHECK_EQ(num(tile, "position_references"), 2);
    check_box(cJSON_GetObjectItem(tile, "bounds"), (const float[3]){ 0, 0, -10 }, (const float[3]){ 20, 12, 1 });
}

static void test_pm4(void)
{
    char path[512], args[1200], tiles[256];
    snprintf(path, sizeof path, "%s/world_12_34.pm4", dir);
    write_pm4(path);
    snprintf(args, sizeof args, "info %s --json", path);
    run_result *r = run(pmfview, args);
    CHECK_EQ(r->status, 0);
    cJSON *root = cJSON_Parse(r->out);
    CHECK(root && !strcmp(str(root, "format"), "pm4"));
    CHECK_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(root, "tiles")), 1);
    check_tile(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "tiles"), 0), 12, 34);
    cJSON_Delete(root);

    snprintf(tiles, sizeof tiles, "%s/tiles", dir);
    test_make_dir(tiles);
    const int xy[3][2] = { { 31, 30 }, { 30, 30 }, { 30, 31 } };
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/map_%d_%d.pm4", tiles, xy[i][0], xy[i][1]);
        write_pm4(path);
    }
    snprintf(args, sizeof args, "info %s --json", tiles);
    r = run(pmfview, args);
    CHECK_EQ(r->status, 0);
    root = cJSON_Parse(r->out);
    CHECK(root && cJSON_IsTrue(cJSON_GetObjectItem(root, "directory")));
    const cJSON *list = cJSON_GetObjectItem(root, "tiles");
    CHECK_EQ(cJSON_GetArraySize(list), 3);
    if (cJSON_GetArraySize(list) == 3) {
        check_tile(cJSON_GetArrayItem(list, 0), 30, 30);
        check_tile(cJSON_GetArrayItem(list, 1), 31, 30);
        check_tile(cJSON_GetArrayItem(list, 2), 30, 31);
    }
    cJSON_Delete(root);
}

/* One line "pmfview: PATH: BLOCK, byte OFFSET: ..." naming `words`, exit 2. */
static void expect_damaged(const char *path, const char *block_offset, const char *words)
{
    char args[512], prefix[512];
    snprintf(args, sizeof args, "info %s --json", path);
    run_result *r = run(pmfview, args);
    CHECK_EQ(r->status, 2);
    snprintf(prefix, sizeof prefix, "pmfview: %s: %s: ", path, block_offset);
    const char *nl = strchr(r->err, '\n');
    bool one_line = nl && !nl[1];
    CHECK(one_line && !strncmp(r->err, prefix, strlen(prefix)) && strstr(r->err, words));
    CHECK(r->out[0] == 0);
    if (!(one_line && !strncmp(r->err, prefix, strlen(prefix)) && strstr(r->err, words)))
        fprintf(stderr, "  stderr: %s  want: %s ... %s\n", r->err, prefix, words);
}

static void test_damaged(const char *pmfc)
{
    char path[256];
    snprintf(path, sizeof path, "%s/props.pmf", dir);
    write_legacy(path, &(legacy_sample_desc){ .props = 2 });
    expect_damaged(path, "shared data, byte 122", "does not define the prop layout");
    snprintf(path, sizeof path, "%s/entities.pmf", dir);
    write_legacy(path, &(legacy_sample_desc){ .entities = 1 });
    expect_damaged(path, "server data, byte 17", "does not define the entity layout");

    size_t size;
    uint8_t *bytes = pm4_sample_build(&(pm4_sample_desc){ 0 }, &size);
    bytes[136 + 8 + 12] = 9; /* MSPI index 3 -> 9 */
    snprintf(path, sizeof path, "%s/bad_1_2.pm4", dir);
    CHECK(sample_write_file(path, bytes, size));
    expect_damaged(path, "chunk MSPI, byte 156", "past the 4 MSPV vertices");
    snprintf(path, sizeof path, "%s/cut.pm4", dir);
    CHECK(sample_write_file(path, bytes, 170));
    expect_damaged(path, "file, byte 164", "past the end of the file");
    free(bytes);

    /* pmfc says what they are instead of "NUL byte in the source" */
    snprintf(path, sizeof path, "%s/cut.pm4", dir);
    char args[512];
    snprintf(args, sizeof args, "%s -o %s/out.pmf", path, dir);
    run_result *r = run(pmfc, args);
    CHECK(r->status == 2 && strstr(r->err, "PM4") && !strstr(r->err, "NUL byte"));
    snprintf(path, sizeof path, "%s/old.pmf", dir);
    snprintf(args, sizeof args, "%s -o %s/out.pmf", path, dir);
    r = run(pmfc, args);
    CHECK(r->status == 2 && strstr(r->err, "legacy PMF draft 0.0") && !strstr(r->err, "NUL byte"));
    if (!strstr(r->err, "legacy PMF draft 0.0"))
        fprintf(stderr, "  pmfc: %s", r->err);
}

int main(int argc, char **argv)
{
    if (argc != 4 || !test_temp_dir(dir, sizeof dir, "formats_info")) {
        fprintf(stderr, "usage: test_formats_info PMFVIEW PMFC legacy|pm4|damaged\n");
        return 2;
    }
    pmfview = argv[1];
    if (!strcmp(argv[3], "legacy"))
        test_legacy();
    else if (!strcmp(argv[3], "pm4"))
        test_pm4();
    else {
        test_legacy(); /* writes old.pmf */
        test_damaged(argv[2]);
    }
    CHECK(test_remove_tree(dir));
    return check_report("test_formats_info");
}
