/* test_relight_cache.c - pmfc's relight cache (pmfc --cache DIR, relight.c) damaged by hand, its
 * checksum sealed again each time so that the reader itself is tried (a cut or flipped byte alone
 * only fails the checksum: pmfc_relight_stale): cut at every byte, each plausible count made too
 * large, written by another version, the cache of another source, and a source whose geometry
 * changed. relight_cache_parse refuses every cut (ASan: no read past the bytes, no leak); through
 * the library, a cache refused is said in one line and the compile is a full one. And a relight
 * says the warnings the full compile said.
 * Usage: test_relight_cache WORKDIR SOURCE_MAP */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/programs.h"
#include "pmfc.h"
#include "relight/relight.h"

static const char *workdir;
static char said[64][600];
static int said_count;

static bool said_warning[64];

static void collect(void *user, pmfc_message_kind kind, const char *line)
{
    (void)user;
    if (said_count >= 64) return;
    said_warning[said_count] = kind == PMFC_WARNING;
    snprintf(said[said_count++], sizeof said[0], "%s", line);
}

/* pmfc SOURCE -o WORKDIR/out.pmf --cache WORKDIR/cache through the library; its lines in said[]. */
static int compile(const char *source, pmfc_result *r)
{
    char out[700], cache[700];
    snprintf(out, sizeof out, "%s/out.pmf", workdir);
    snprintf(cache, sizeof cache, "%s/cache", workdir);
    said_count = 0;
    pmfc_compile_desc desc = { .source = source, .out_path = out, .cache_dir = cache, .threads = 2, .message = collect };
    return pmfc_compile(&desc, r);
}

/* The cache file of the source whose file name starts with prefix, "" when none. */
static void cache_file(const char *prefix, char path[1400])
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/cache", workdir);
    path[0] = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, prefix, strlen(prefix)) && strstr(e->d_name, ".relight"))
            snprintf(path, 1400, "%s/%s", dir, e->d_name);
    if (d) closedir(d);
}

/* The first `content` bytes of cache followed by their checksum, into out (content + 8 bytes). */
static size_t sealed(const uint8_t *cache, size_t content, uint8_t *out)
{
    if (out != cache) memcpy(out, cache, content);
    relight_cache_seal(out, content + 8);
    return content + 8;
}

/* Why relight_cache_parse refuses bytes as the cache of a one-level compile of key, or NULL. */
static const char *parse(const uint8_t *bytes, size_t size, uint64_t key)
{
    relight_cache rc = { .key = key, .level_count = 1 };
    rc.levels = calloc(2, sizeof *rc.levels);
    const char *why = relight_cache_parse(&rc, bytes, size);
    relight_cache_free(&rc);
    return why;
}

/* The lines saying why the cache was not used; that nothing was relit and every stage ran. */
static void check_full(const char *what, const pmfc_result *r, int status, const char *why)
{
    int lines = 0, relit = 0;
    for (int i = 0; i < said_count; i++) {
        relit += !strncmp(said[i], "relit:", 6);
        lines += strstr(said[i], "cache") && strncmp(said[i], "relit:", 6);
    }
    CHECK_EQ(status, 0);
    CHECK(lines == 1, "%s: %d lines about the cache", what, lines);
    for (int i = 0; i < said_count; i++)
        if (strstr(said[i], "cache") && strncmp(said[i], "relit:", 6))
            CHECK(strstr(said[i], why), "%s: '%s' says '%s'", what, said[i], why);
    CHECK(!relit && !r->relit && r->built_levels == 0, "%s: relit %d, %zu levels as cached", what, r->relit, r->built_levels);
}

/* Every cut of the content refused by the reader; a cut at each boundary of the head and at
 * sixteen places in the levels through the library. */
static int case_cuts(const char *source, const uint8_t *cache, size_t size, uint64_t key)
{
    uint8_t *cut = malloc(size + 8);
    size_t refused = 0;
    for (size_t n = 0; n < size - 8; n++) refused += parse(cut, sealed(cache, n, cut), key) != NULL;
    CHECK(refused == size - 8, "%zu of %zu cuts refused", refused, size - 8);
    size_t places[32] = { 0, 7, 8, 12, 16, 24, 32, 33, 41, 49 }, count = 10;
    for (size_t k = 1; k < 16; k++) places[count++] = 49 + (size - 8 - 49) * k / 16;
    char path[1400], what[64];
    cache_file("room", path);
    for (size_t k = 0; k < count; k++) {
        REQUIRE(test_write_file(path, cut, sealed(cache, places[k], cut)));
        pmfc_result r;
        int status = compile(source, &r);
        snprintf(what, sizeof what, "cut to %zu bytes", places[k]);
        check_full(what, &r, status, places[k] < 32 ? "not a relight cache" : "damaged (a level's state is cut short)");
    }
    free(cut);
    return 0;
}

/* Each 8 bytes that could be a count (1..size) made size, 2^32 or 2^64 - 1: read without fault
 * (most are not counts: a light's or a luxel's words, read as they are). */
static void case_counts(const uint8_t *cache, size_t size, uint64_t key)
{
    uint8_t *bytes = malloc(size);
    size_t tried = 0, refused = 0;
    const uint64_t large[] = { size, 1ull << 32, UINT64_MAX };
    for (size_t at = 32; at + 16 <= size; at++) {
        uint64_t v;
        memcpy(&v, cache + at, 8);
        if (v == 0 || v > size) continue;
        for (int k = 0; k < 3; k++) {
            memcpy(bytes, cache, size - 8);
            memcpy(bytes + at, &large[k], 8);
            tried++;
            refused += parse(bytes, sealed(bytes, size - 8, bytes), key) != NULL;
        }
    }
    printf("counts made too large: %zu tried, %zu refused\n", tried, refused);
    CHECK(tried > 0 && refused > 0, "%zu of %zu refused", refused, tried);
    free(bytes);
}

/* The cache written by a version of pmfc after this one: a note, and a full compile. */
static int case_version(const char *source, const uint8_t *cache, size_t size)
{
    uint8_t *bytes = malloc(size);
    memcpy(bytes, cache, size);
    uint32_t version;
    memcpy(&version, bytes + 8, 4);
    version++;
    memcpy(bytes + 8, &version, 4);
    char path[1400];
    cache_file("room", path);
    pmfc_result r;
    REQUIRE(test_write_file(path, bytes, sealed(bytes, size - 8, bytes)));
    int status = compile(source, &r);
    check_full("another version", &r, status, "stale (another version of pmfc wrote it)");
    free(bytes);
    return 0;
}

/* The cache of room.map copied as the one of other.map (the same map under another name). */
static int case_other_source(const char *source, const uint8_t *cache, size_t size)
{
    char other[700], path[1400];
    snprintf(other, sizeof other, "%s/other.map", workdir);
    size_t map_size = 0;
    uint8_t *map = test_read_file(source, &map_size);
    REQUIRE(map && test_write_file(other, map, map_size));
    pmfc_result r;
    CHECK_EQ(compile(other, &r), 0);
    cache_file("other", path);
    REQUIRE(path[0] && test_write_file(path, cache, size));
    int status = compile(other, &r);
    check_full("another source's cache", &r, status, "stale (other options, or another build of pmfc)");
    free(map);
    return 0;
}

/* The floor raised: a cache whole, of another geometry. */
static int case_geometry(const char *source)
{
    size_t size = 0;
    char *map = (char *)test_read_file(source, &size);
    REQUIRE(map);
    static const char from[] = "( 96 32 0 ) ( 96 33 0 ) ( 97 32 0 )", to[] = "( 96 32 8 ) ( 96 33 8 ) ( 97 32 8 )";
    char *floor = strstr(map, from);
    REQUIRE(floor);
    memcpy(floor, to, sizeof to - 1);
    REQUIRE(test_write_file(source, map, size));
    pmfc_result r;
    int status = compile(source, &r);
    check_full("the floor raised", &r, status, "more than light changed");
    free(map);
    return 0;
}

/* The warnings of a compile, one after another, into out. */
static void warnings(char *out, size_t size)
{
    out[0] = 0;
    for (int i = 0; i < said_count; i++)
        if (said_warning[i]) snprintf(out + strlen(out), size - strlen(out), "%s\n", said[i]);
}

/* A map that leaks (a wall taken out) with a light: a relight after the light's edit takes the
 * level as cached and says the full compile's warnings again, the leak among them (the stages
 * that warn, the front end's outside fill among them, run on every compile). */
static int case_warnings(const char *original)
{
    char source[700], full[4096], relit[4096];
    snprintf(source, sizeof source, "%s/leak.map", workdir);
    size_t size = 0;
    char *map = (char *)test_read_file(original, &size);
    REQUIRE(map);
    char *wall = strstr(map, "// brush 5\n"), *end = wall ? strstr(wall, "}\n}\n") : NULL;
    REQUIRE(end);
    FILE *f = fopen(source, "wb");
    REQUIRE(f);
    fprintf(f, "%.*s}\n%s{\n\"classname\" \"light\"\n\"origin\" \"0 0 96\"\n\"light\" \"%d\"\n}\n", (int)(wall - map), map,
            end + 4, 200);
    fclose(f);
    pmfc_result r;
    CHECK_EQ(compile(source, &r), 0);
    warnings(full, sizeof full);
    CHECK(strstr(full, "warning: leak: the void reaches info_player_start"), "the leak is said: %s", full);
    f = fopen(source, "wb");
    REQUIRE(f);
    fprintf(f, "%.*s}\n%s{\n\"classname\" \"light\"\n\"origin\" \"0 0 96\"\n\"light\" \"%d\"\n}\n", (int)(wall - map), map,
            end + 4, 300);
    fclose(f);
    CHECK_EQ(compile(source, &r), 0);
    warnings(relit, sizeof relit);
    CHECK(r.relit && r.relit_lights == 1 && r.built_levels == 1, "relit %d, %zu lights, %zu levels as cached", r.relit,
          r.relit_lights, r.built_levels);
    printf("the full compile's and the relight's warnings:\n%s", full);
    CHECK(!strcmp(full, relit), "the relight's warnings\n%sare the full compile's\n%s", relit, full);
    free(map);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: test_relight_cache WORKDIR SOURCE_MAP\n", stderr);
        return 1;
    }
    workdir = argv[1];
    test_remove_tree(workdir);
    test_make_dir(workdir);
    char source[700], path[1400];
    snprintf(source, sizeof source, "%s/room.map", workdir);
    size_t size = 0;
    uint8_t *map = test_read_file(argv[2], &size);
    REQUIRE(map && test_write_file(source, map, size));
    free(map);
    pmfc_result r;
    CHECK_EQ(compile(source, &r), 0);
    CHECK_EQ(compile(source, &r), 0);
    CHECK(r.relit && r.built_levels == 1, "the cache is relit from: relit %d, %zu levels as cached", r.relit, r.built_levels);
    cache_file("room", path);
    uint8_t *cache = test_read_file(path, &size);
    REQUIRE(cache && size > 64);
    uint64_t key;
    memcpy(&key, cache + 16, 8);
    CHECK(parse(cache, size, key) == NULL, "the cache as written is read: %s", parse(cache, size, key));
    case_cuts(source, cache, size, key);
    case_counts(cache, size, key);
    case_version(source, cache, size);
    case_other_source(source, cache, size);
    case_geometry(source);
    case_warnings(argv[2]);
    free(cache);
    TEST_DONE();
}
