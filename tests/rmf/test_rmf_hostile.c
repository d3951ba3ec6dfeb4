/* test_rmf_hostile.c - damaged and hostile RMF files: every prefix of several files and thousands
 * of seeded byte flips end in success or one clean error line, never a crash; counts meant to
 * exhaust memory are refused before allocation and named; errors name the object as a level
 * designer finds it and never echo raw bytes; 100000 nested groups are read without recursion and
 * with memory in proportion to the file.
 * usage: test_rmf_hostile SHARED_RMF_DIR WORK_DIR */
#include <stdio.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "common/programs.h"
#include "rmf_build.h"
#include "rmf_compare.h"
#include "rmf_test_util.h"

static const char *maps_dir;

/* One line, printable ASCII only. */
static bool clean_line(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7F)
            return false;
    return true;
}

/* Touches every byte the map holds, so ASan sees any bad pointer. */
static void touch(const rmf_object *o, size_t depth, void *user)
{
    (void)depth;
    size_t *sum = user;
    for (uint32_t f = 0; f < o->face_count; f++) {
        *sum += strlen(o->faces[f].texture);
        for (uint32_t v = 0; v < o->faces[f].vertex_count; v++)
            *sum += (size_t)(o->faces[f].vertices[v][0] != 0);
    }
    for (uint32_t i = 0; i < o->visgroup_count; i++)
        *sum += (size_t)o->visgroups[i];
    if (o->kind == RMF_ENTITY || o->kind == RMF_WORLD) {
        *sum += strlen(o->entity.classname);
        for (uint32_t i = 0; i < o->entity.kv_count; i++)
            *sum += strlen(o->entity.kv[i].key) + strlen(o->entity.kv[i].value);
    }
}

typedef struct outcome { uint32_t ok, failed, bad_lines, rewritten, rewrite_differs; } outcome;

/* Reads any bytes: true, or false with a clean one-line error inside the file. What reads, in a
 * version the writer knows, is written again and must read back the same. */
static void read_any(const uint8_t *data, size_t size, outcome *out)
{
    rmf_map map;
    pmf_error err;
    memset(&err, 0, sizeof err);
    if (rmf_read(data, size, "x.rmf", &map, &err)) {
        size_t sum = 0;
        rmf_walk(&map.world, touch, &sum);
        for (uint32_t i = 0; i < map.path_count; i++)
            for (uint32_t j = 0; j < map.paths[i].node_count; j++)
                sum += map.paths[i].nodes[j].kv_count;
        out->ok++;
        uint8_t *again_data;
        size_t again_size;
        if (rmf_build_map(&map, &again_data, &again_size)) {
            rmf_map again;
            char why[256] = "does not read";
            out->rewritten++;
            bool same = rmf_read(again_data, again_size, "x.rmf", &again, &err) && rmf_compare_maps(&map, &again, why, sizeof why);
            if (!same && out->rewrite_differs++ < 5)
                fprintf(stderr, "  written again: %s\n", why);
            if (same)
                rmf_free(&again);
            free(again_data);
        }
        rmf_free(&map);
        return;
    }
    out->failed++;
    char line[512];
    pmf_error_format(&err, line, sizeof line);
    if (!clean_line(line) || !err.block[0] || !err.message[0] || err.offset > size) {
        if (out->bad_lines++ < 5)
            fprintf(stderr, "  bad error line: %s\n", line);
    }
}

static void test_truncations(void)
{
    static const char *const names[] = { "22.rmf", "08.rmf", "09.rmf", "16.rmf" };
    for (int i = 0; i < 5; i++) {
        uint8_t *data = NULL;
        size_t size = 0;
        char path[1024];
        if (i < 4) {
            snprintf(path, sizeof path, "%s/%s", maps_dir, names[i]);
            data = read_whole_file(path, &size);
        } else {
            CHECK(rmf_build_sample(2.2f, &data, &size));
        }
        CHECK(data != NULL);
        if (!data)
            continue;
        outcome out = { 0 };
        for (size_t len = 0; len <= size; len++)
            read_any(data, len, &out);
        fprintf(stderr, "  %s: %zu prefixes, %u read, %u refused\n", i < 4 ? names[i] : "feature map", size + 1,
                out.ok, out.failed);
        /* only the whole file and, when it has DOCINFO, the file cut just before it are maps */
        CHECK_EQ(out.ok, i == 1 || i == 2 ? 1 : 2);
        CHECK_EQ(out.bad_lines, 0);
        free(data);
    }
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_flips(void)
{
    static const char *const names[] = { "22.rmf", "08.rmf", "09.rmf", "14.rmf", "18.rmf", "decay_test.rmf",
                                         "mess_rat.rmf" };
    uint32_t total = 0;
    for (int i = 0; i < 8; i++) {
        uint8_t *data = NULL;
        size_t size = 0;
        char path[1024];
        if (i < 7) {
            snprintf(path, sizeof path, "%s/%s", maps_dir, names[i]);
            data = read_whole_file(path, &size);
        } else {
            CHECK(rmf_build_sample(2.2f, &data, &size));
        }
        CHECK(data != NULL);
        if (!data || !size)
            continue;
        uint8_t *copy = malloc(size);
        outcome out = { 0 };
        for (int round = 0; round < 1000; round++) {
            memcpy(copy, data, size);
            int flips = 1 + (int)(next_random() % 4);
            for (int f = 0; f < flips; f++) {
                uint64_t r = next_random();
                copy[r % size] ^= (uint8_t)(1 + (r >> 32) % 255);
            }
            read_any(copy, size, &out);
            total++;
        }
        fprintf(stderr, "  %s: 1000 flipped copies, %u read (%u written again alike), %u refused\n",
                i < 7 ? names[i] : "feature map", out.ok, out.rewritten, out.failed);
        CHECK_EQ(out.bad_lines, 0);
        CHECK_EQ(out.rewrite_differs, 0);
        CHECK(out.failed > 0);
        free(copy);
        free(data);
    }
    CHECK_EQ(total, 8000);
}

/* ---- errors that name the object ------------------------------------------------------------- */

static void expect_error(const uint8_t *data, size_t size, const char *where, const char *what_start)
{
    rmf_map map;
    pmf_error err;
    memset(&err, 0, sizeof err);
    bool ok = rmf_read(data, size, "x.rmf", &map, &err);
    CHECK(!ok);
    if (ok) {
        rmf_free(&map);
        return;
    }
    char line[512];
    fprintf(stderr, "  expected error: %s\n", pmf_error_format(&err, line, sizeof line));
    CHECK(clean_line(line));
    if (strcmp(err.block, where) != 0)
        fprintf(stderr, "  where \"%s\", wanted \"%s\"\n", err.block, where);
    CHECK(strcmp(err.block, where) == 0);
    CHECK(strncmp(err.message, what_start, strlen(what_start)) == 0);
}

static void put_i32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)u, p[1] = (uint8_t)(u >> 8), p[2] = (uint8_t)(u >> 16), p[3] = (uint8_t)(u >> 24);
}

/* Position of the first occurrence of needle (n bytes) in data. */
static size_t find(const uint8_t *data, size_t size, const void *needle, size_t n)
{
    const uint8_t *p = test_memmem(data, size, needle, n);
    CHECK(p != NULL);
    return p ? (size_t)(p - data) : 0;
}

static void test_where(void)
{
    uint8_t *data;
    size_t size;
    CHECK(rmf_build_sample(2.2f, &data, &size));
    expect_error(data, 5, "header", "magic needs 3 bytes, 1 are left");
    /* cut short, lists are refused by their count before their items are read */
    expect_error(data, 11 + 3 * 140 + 130, "header", "visgroup count 5 needs 700 bytes, 550 are left");
    expect_error(data, 11 + 5 * 140 + 12, "world", "visgroup id needs 4 bytes, 1 are left");

    /* the light's key 1 (targetname) cut inside */
    size_t key = find(data, size, "\x0btargetname", 11);
    expect_error(data, key + 3, "entity 0 (light) key 1", "key needs 11 bytes");
    uint8_t *copy = malloc(size);
    /* the path's node 1 with a key-value count beyond the file */
    memcpy(copy, data, size);
    size_t node_name = find(copy, size, "n2", 3);
    put_i32(copy + node_name + 128, 5000);
    expect_error(copy, size, "path 0 node 1", "key-value count 5000 needs 10000 bytes");
    /* camera 1 looking at infinity */
    memcpy(copy, data, size);
    put_i32(copy + size - 8, 0x7f800000);
    expect_error(copy, size, "docinfo camera 1", "look-at position is not a finite number");
    /* bytes after the cameras */
    uint8_t *longer = malloc(size + 3);
    memcpy(longer, data, size);
    memset(longer + size, 0, 3);
    expect_error(longer, size + 3, "docinfo camera 1", "3 bytes follow the cameras");
    free(longer);

    /* an unknown object type, its bytes escaped */
    memcpy(copy, data, size);
    size_t type = find(copy, size, "\x0a" "CMapGroup", 10);
    memcpy(copy + type + 1, "CMa\x01\xff\n", 6);
    expect_error(copy, size, "world child 0", "unknown object type \"CMa\\x01\\xff\\x0aoup\"");
    /* a negative child count in group 1 (the nested one) */
    memcpy(copy, data, size);
    size_t inner = find(copy + type + 1, size - type - 1, "\x0a" "CMapGroup", 10) + type + 1;
    put_i32(copy + inner + 11 + 4 + 3, -1);
    expect_error(copy, size, "group 1", "child count -1 is negative");
    /* a solid claiming a child */
    memcpy(copy, data, size);
    size_t solid = find(copy, size, "\x0a" "CMapSolid", 10);
    put_i32(copy + solid + 18, 1);
    expect_error(copy, size, "solid 0", "child count 1: a solid has no children");
    /* a NaN vertex */
    memcpy(copy, data, size);
    size_t wall = find(copy, size, "WALL", 5);
    put_i32(copy + wall + 260 + 44 + 16 + 4 + 12 + 4, 0x7fc00000);
    expect_error(copy, size, "solid 1 face 0", "vertex is not a finite number");
    /* a classname with control and high bytes is escaped in where */
    memcpy(copy, data, size);
    size_t light = find(copy, size, "\x06light", 6);
    memcpy(copy + light + 1, "l\x1b[2J", 5);
    put_i32(copy + light + 7 + 8, 1 << 20);
    expect_error(copy, size, "entity 0 (l\\x1b[2J)", "key-value count 1048576 needs 2097152 bytes");
    /* the type string a world must start with */
    memcpy(copy, data, size);
    copy[11 + 5 * 140 + 1 + 4] = 'G';   /* the world's type string starts after 5 visgroups */
    expect_error(copy, size, "world", "unknown object type \"CMapGorld\"");
    /* versions */
    memcpy(copy, data, size);
    put_i32(copy, 0x40000000);
    expect_error(copy, size, "header", "RMF version 2 is not one of");
    free(copy);
    free(data);

    /* solid 37 face 2, from the brief: a vertex count far beyond the bytes left */
    rmf_build *b = rmf_build_new(NULL);
    for (int i = 0; i < 40; i++)
        rmf_build_box(b, (float[3]){ (float)i * 64, 0, 0 }, (float[3]){ (float)i * 64 + 32, 32, 32 }, "BOX");
    CHECK(rmf_build_finish(b, &data, &size));
    rmf_map map;
    pmf_error err;
    CHECK(rmf_read(data, size, "x.rmf", &map, &err));
    size_t face = map.world.children[37].faces[2].offset;
    size_t left = size - (face + 260 + 44 + 16 + 4);
    rmf_free(&map);
    put_i32(data + face + 260 + 44 + 16, 99999);
    char what[128];
    /* the faces still to come in solid 37 (3) and solids 38, 39 (22 bytes each) are promised */
    snprintf(what, sizeof what, "vertex count 99999 needs 1199988 bytes, %zu are left", left - 3 * 360 - 2 * 21);
    expect_error(data, size, "solid 37 face 2", what);
    free(data);
}

/* ---- counts meant to exhaust memory ---------------------------------------------------------- */

static void test_exhausting_counts(void)
{
    uint8_t *data, *copy;
    size_t size;
    CHECK(rmf_build_sample(2.2f, &data, &size));
    copy = malloc(size);
    rmf_map map;
    pmf_error err;
    CHECK(rmf_read(data, size, "x.rmf", &map, &err));
    const rmf_object *group = &map.world.children[0];
    const rmf_object *floor = &group->children[0];
    struct { size_t at; const char *where, *what; } counts[] = {
        { 7, "header", "visgroup count 2147483647 needs 300647710580 bytes" },
        { map.world.offset + 18, "world", "child count 2147483647 needs" },
        { group->offset + 18, "group 0", "child count 2147483647" },
        { floor->offset + 22, "solid 0", "face count 2147483647 needs" },
        { floor->faces[0].offset + 260 + 44 + 16, "solid 0 face 0", "vertex count 2147483647 needs 25769803764 bytes" },
        { find(data, size, "\x06light", 6) + 7 + 8, "entity 0 (light)", "key-value count 2147483647 needs" },
        { find(data, size, "path_corner", 12) - 128 - 4, "world", "path count 2147483647 needs" },
        { find(data, size, "path_corner", 12) + 128 + 4, "path 0", "node count 2147483647 needs" },
        { size - 2 * 24 - 4, "docinfo", "camera count 2147483647 needs" },
    };
    rmf_free(&map);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        memcpy(copy, data, size);
        put_i32(copy + counts[i].at, 0x7fffffff);
        expect_error(copy, size, counts[i].where, counts[i].what);
    }
    free(copy);
    free(data);

    /* Two nested groups each claiming nearly all the bytes left: the inner one's claim is refused
     * because the outer one's other children are promised the same bytes. */
    rmf_build *b = rmf_build_new(NULL);
    rmf_build_begin_group(b, NULL);
    rmf_build_begin_group(b, NULL);
    rmf_build_end(b);
    for (int i = 0; i < 100; i++)
        rmf_build_box(b, (float[3]){ 0, 0, 0 }, (float[3]){ 1, 1, 1 }, "");
    rmf_build_end(b);
    CHECK(rmf_build_finish(b, &data, &size));
    CHECK(rmf_read(data, size, "x.rmf", &map, &err));
    size_t outer = map.world.children[0].offset, inner = map.world.children[0].children[0].offset;
    rmf_free(&map);
    int32_t claim = (int32_t)((size - inner - 22) / 21) - 10;
    put_i32(data + outer + 18, claim);
    put_i32(data + inner + 18, claim);
    char what[64];
    snprintf(what, sizeof what, "child count %d needs %d bytes", claim, claim * 21);
    expect_error(data, size, "group 1", what);
    free(data);
}

/* ---- deep nesting ---------------------------------------------------------------------------- */

#if !defined(__GLIBC__)
#define HEAP_MEASURED 0 /* mallinfo2 is glibc's */
#elif defined(__SANITIZE_ADDRESS__)
#define HEAP_MEASURED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_MEASURED 0
#endif
#endif
#ifndef HEAP_MEASURED
#define HEAP_MEASURED 1
#endif

static size_t heap_in_use(void)
{
#if HEAP_MEASURED
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
#else
    return 0;
#endif
}

static void test_deep_nesting(void)
{
    enum { DEPTH = 100000 };
    rmf_build *b = rmf_build_new(NULL);
    for (int i = 0; i < DEPTH; i++)
        rmf_build_begin_group(b, NULL);
    rmf_build_box(b, (float[3]){ 0, 0, 0 }, (float[3]){ 16, 16, 16 }, "DEEP");
    for (int i = 0; i < DEPTH; i++)
        rmf_build_end(b);
    uint8_t *data;
    size_t size;
    CHECK(rmf_build_finish(b, &data, &size));
    size_t before = heap_in_use();
    rmf_map map;
    pmf_error err;
    bool ok = rmf_read(data, size, "x.rmf", &map, &err);
    CHECK(ok);
    if (ok) {
        size_t held = heap_in_use() - before;
        size_t deepest = rmf_walk(&map.world, touch, &(size_t){ 0 });
        fprintf(stderr, "  %d nested groups: %zu bytes of file, %zu bytes held (%.1fx), deepest object at %zu\n", DEPTH,
                size, held, (double)held / (double)size, deepest);
        CHECK_EQ(map.group_count, DEPTH);
        CHECK_EQ(map.solid_count, 1);
        CHECK_EQ(deepest, DEPTH + 1);
        if (HEAP_MEASURED)
            CHECK(held <= 8 * size);
        rmf_free(&map);
    }
    /* the same nesting cut short: an error, not a crash. Groups take 22 bytes from byte 33 on, so
     * half the file leaves 8 bytes after group 50055's head, too few for its child. */
    CHECK_EQ(size / 2, 33 + 22 * 50055 + 22 + 8);
    expect_error(data, size / 2, "group 50055", "child count 1 needs 21 bytes, 8 are left");
    free(data);
}

/* The cheapest records per byte: empty key-values (2 bytes each) and faces without vertices. */
static void test_memory_per_byte(void)
{
    enum { KEYS = 200000, FACES = 5000 };
    rmf_kv *kv = malloc(KEYS * sizeof *kv);
    for (int i = 0; i < KEYS; i++)
        kv[i] = (rmf_kv){ "", "" };
    rmf_build *b = rmf_build_new(&(rmf_build_desc){ .version = 0.9f });
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "", .kv = kv, .kv_count = KEYS }, NULL);
    rmf_face *faces = calloc(FACES, sizeof *faces);
    rmf_build_solid(b, faces, FACES, NULL);
    uint8_t *data;
    size_t size;
    CHECK(rmf_build_finish(b, &data, &size));
    size_t before = heap_in_use();
    rmf_map map;
    pmf_error err;
    bool ok = rmf_read(data, size, "x.rmf", &map, &err);
    CHECK(ok);
    if (ok) {
        size_t held = heap_in_use() - before;
        fprintf(stderr, "  %d empty key-values, %d empty faces: %zu bytes of file, %zu bytes held (%.1fx)\n", KEYS, FACES,
                size, held, (double)held / (double)size);
        CHECK_EQ(map.world.children[0].entity.kv_count, KEYS);
        CHECK_EQ(map.face_count, FACES);
        if (HEAP_MEASURED)
            CHECK(held <= 10 * size);
        rmf_free(&map);
    }
    free(data);
    free(faces);
    free(kv);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_rmf_hostile SHARED_RMF_DIR WORK_DIR\n");
        return 1;
    }
    maps_dir = argv[1];
    test_where();
    test_exhausting_counts();
    test_deep_nesting();
    test_memory_per_byte();
    test_truncations();
    test_flips();
    return check_report("test_rmf_hostile");
}
