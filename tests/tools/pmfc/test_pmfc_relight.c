/* test_pmfc_relight.c - pmfc --cache (issue 40): after a light-only edit the compile relights
 * from the cache ("relit: N lights changed, M luxels") and its map equals a full compile of the
 * saved source byte for byte (and, said apart, every luxel of every lightmap and light layer).
 * A chain of edits in a row on a shared map: a light moved, recoloured, added, deleted, given
 * a style, the sun changed, and more; each step compiles from the cache the step before left. A
 * style given or taken traces again only the luxels its light reaches, as recolouring it did.
 * Usage: test_pmfc_relight CASE PMFC WORKDIR SOURCE [PMFC OPTIONS]; CASE: map (a Quake .map),
 * rmf (an RMF with a light_environment), stale (a damaged cache and an edit of the geometry),
 * rad (a GoldSrc .map's lights.rad), fast (a .pms of its own, written to SOURCE: a fast light and
 * a dynamic one moved across a room). A relight after an edit of static lights, the sun or the sky
 * takes the level as the cache built it: no stage before the bake runs (their times are 0 and the
 * relit line says so); one after a dynamic light reaches other chunks than before, or a fast light
 * other faces, builds again those chunks alone (their lightmaps packed again, their octrees cut
 * again) and their neighbours. Every
 * relit map compared is the full compile's byte for byte, the file whole. */
#include <dirent.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/check.h"
#include "common/programs.h"
#include "pmf/pmf.h"
#include "relight_room.h"

static const char *pmfc, *workdir, *options;

/* ---- the source as bytes, edited in place ---- */

typedef struct text { uint8_t *data; size_t size; } text;

/* Replaces the one occurrence of from (from_size bytes) by to; false when it is not there. */
static bool replace(text *t, const void *from, size_t from_size, const void *to, size_t to_size)
{
    const uint8_t *at = test_memmem(t->data, t->size, from, from_size);
    if (!at) return false;
    size_t offset = (size_t)(at - t->data), size = t->size - from_size + to_size;
    uint8_t *out = malloc(size + 1);
    memcpy(out, t->data, offset);
    memcpy(out + offset, to, to_size);
    memcpy(out + offset + to_size, t->data + offset + from_size, t->size - offset - from_size);
    free(t->data);
    t->data = out;
    t->size = size;
    return true;
}

static bool replace_text(text *t, const char *from, const char *to)
{
    return replace(t, from, strlen(from), to, strlen(to));
}

/* ---- RMF: a point entity added as the world's first child, and taken out again ---- */

static size_t put_pstring(uint8_t *out, const char *s)
{
    size_t n = strlen(s) + 1;
    out[0] = (uint8_t)n;
    memcpy(out + 1, s, n);
    return n + 1;
}

/* An RMF 2.2 point entity: visgroup, colour, no children, class, flags, keys, its origin. */
static size_t rmf_entity(uint8_t *out, const char *classname, const char *const *keys, const float origin[3])
{
    size_t n = put_pstring(out, "CMapEntity");
    memset(out + n, 0, 4 + 3 + 4);
    n += 11;
    n += put_pstring(out + n, classname);
    memset(out + n, 0, 8);
    n += 8;
    uint32_t count = 0;
    while (keys[2 * count]) count++;
    memcpy(out + n, &count, 4);
    n += 4;
    for (uint32_t k = 0; k < count; k++) {
        n += put_pstring(out + n, keys[2 * k]);
        n += put_pstring(out + n, keys[2 * k + 1]);
    }
    memset(out + n, 0, 12);
    n += 12;
    int16_t point = 2;
    memcpy(out + n, &point, 2);
    memcpy(out + n + 2, origin, 12);
    memset(out + n + 14, 0, 4);
    return n + 18;
}

/* The world's child count, past its type, visgroup and colour. */
static uint8_t *rmf_world_children(text *t)
{
    uint8_t *world = (uint8_t *)test_memmem(t->data, t->size, "\x0a" "CMapWorld", 11);
    return world ? world + 11 + 4 + 3 : NULL;
}

static bool rmf_add(text *t, const uint8_t *entity, size_t size)
{
    uint8_t *count_at = rmf_world_children(t);
    if (!count_at) return false;
    uint32_t count;
    memcpy(&count, count_at, 4);
    size_t at = (size_t)(count_at - t->data) + 4;
    count++;
    memcpy(count_at, &count, 4);
    uint8_t *out = malloc(t->size + size + 1);
    memcpy(out, t->data, at);
    memcpy(out + at, entity, size);
    memcpy(out + at + size, t->data + at, t->size - at);
    free(t->data);
    t->data = out;
    t->size += size;
    return true;
}

static bool rmf_remove(text *t, const uint8_t *entity, size_t size)
{
    if (!rmf_world_children(t) || !replace(t, entity, size, "", 0)) return false;
    uint8_t *count_at = rmf_world_children(t);
    uint32_t count;
    memcpy(&count, count_at, 4);
    count--;
    memcpy(count_at, &count, 4);
    return true;
}

/* ---- compiles and their luxels ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* pmfc SOURCE -o OUT (with --cache DIR when cache): its status, seconds and stderr. */
static int compile(const char *source, const char *out, bool cache, double *seconds, char *log_text, size_t size)
{
    char args[4096], log[600];
    snprintf(log, sizeof log, "%s/pmfc.log", workdir);
    snprintf(args, sizeof args, "%s -o %s --time 1 %s%s%s %s", source, out, cache ? "--cache " : "", cache ? workdir : "",
             cache ? "/cache" : "", options);
    double t = now();
    int st = test_run_words(NULL, pmfc, args, NULL, log);
    *seconds = now() - t;
    size_t n = 0;
    char *got = (char *)test_read_file(log, &n);
    snprintf(log_text, size, "%.*s", (int)n, got ? got : "");
    free(got);
    return st;
}

typedef struct luxel_count { uint64_t bytes, equal, off_by_one, worse; } luxel_count;

static void count_bytes(luxel_count *c, const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)a[i] - (int)b[i]);
        c->bytes++;
        c->equal += d == 0;
        c->off_by_one += d == 1;
        c->worse += d > 1;
    }
}

static bool same_visibility(const pmf_visibility *a, const pmf_visibility *b)
{
    if (a->cube_count != b->cube_count || a->chunk_count != b->chunk_count ||
        (a->cube_count && memcmp(a->cubes, b->cubes, a->cube_count * sizeof *a->cubes)))
        return false;
    for (uint32_t k = 0; k < a->chunk_count; k++) {
        const pmf_vis_chunk *x = &a->chunks[k], *y = &b->chunks[k];
        if (memcmp(&x->chunk, &y->chunk, sizeof x->chunk) || x->cube_count != y->cube_count ||
            (x->cube_count && memcmp(x->cubes, y->cubes, x->cube_count * sizeof *x->cubes)))
            return false;
    }
    return true;
}

/* Every lightmap and dynamic-light layer of every chunk of a and b. False when they differ in
 * anything but their bytes (chunks, cubes and what each sees, lightmaps, sizes, lights, layers). */
static bool count_chunk(luxel_count *c, const pmf_chunk *a, const pmf_chunk *b)
{
    if (a->client.lightmap_count != b->client.lightmap_count || a->common.dynamic_light_count != b->common.dynamic_light_count ||
        a->common.cube_count != b->common.cube_count)
        return false;
    for (uint32_t i = 0; i < a->common.cube_count; i++) {
        const pmf_cube *x = &a->common.cubes[i], *y = &b->common.cubes[i];
        if (x->flags != y->flags || ((x->flags & PMF_CUBE_HAS_VISIBILITY) && !same_visibility(&x->vis, &y->vis)))
            return false;
    }
    for (uint32_t m = 0; m < a->client.lightmap_count; m++) {
        const pmf_lightmap *x = &a->client.lightmaps[m], *y = &b->client.lightmaps[m];
        if (x->size_exp != y->size_exp) return false;
        count_bytes(c, x->luxels, y->luxels, (size_t)3 << (2 * x->size_exp));
    }
    for (uint32_t k = 0; k < a->common.dynamic_light_count; k++) {
        const pmf_client_dynamic_light *x = &a->client.dynamic_lights[k], *y = &b->client.dynamic_lights[k];
        if (a->common.dynamic_lights[k].id != b->common.dynamic_lights[k].id || x->layer_count != y->layer_count) return false;
        for (uint32_t j = 0; j < x->layer_count; j++) {
            if (x->layers[j].target != y->layers[j].target) return false;
            count_bytes(c, x->layers[j].luxels, y->layers[j].luxels, (size_t)3 << (2 * a->client.lightmaps[x->layers[j].target].size_exp));
        }
    }
    return true;
}

static bool count_maps(luxel_count *c, const char *path_a, const char *path_b)
{
    pmf_error err;
    pmf_file *fa = pmf_open(path_a, &err), *fb = pmf_open(path_b, &err);
    bool same = fa && fb && fa->level_count == fb->level_count;
    for (uint32_t li = 0; same && li < fa->level_count; li++) {
        pmf_level la, lb;
        if (!pmf_level_read(fa, li, PMF_PART_ALL, &la, &err)) return false;
        if (!pmf_level_read(fb, li, PMF_PART_ALL, &lb, &err)) return false;
        const pmf_level_info *ia = &fa->levels[li], *ib = &fb->levels[li];
        same = ia->count_x == ib->count_x && ia->count_y == ib->count_y && ia->count_z == ib->count_z;
        for (uint32_t x = 0; same && x < ia->count_x; x++)
            for (uint32_t y = 0; same && y < ia->count_y; y++)
                for (uint32_t z = 0; same && z < ia->count_z; z++) {
                    pmf_chunk_coord at = { x, y, z };
                    bool in_a = pmf_chunk_present(fa, li, at), in_b = pmf_chunk_present(fb, li, at);
                    if (in_a != in_b) same = false;
                    if (!in_a || !same) continue;
                    pmf_chunk ca, cb;
                    if (!pmf_chunk_read(fa, &la, li, at, PMF_PART_ALL, &ca, &err)) return false;
                    if (!pmf_chunk_read(fb, &lb, li, at, PMF_PART_ALL, &cb, &err)) return false;
                    same = count_chunk(c, &ca, &cb);
                    pmf_chunk_free(&ca);
                    pmf_chunk_free(&cb);
                }
        pmf_level_free(&la);
        pmf_level_free(&lb);
    }
    if (fa) pmf_close(fa);
    if (fb) pmf_close(fb);
    return same;
}

/* ---- the chain ---- */

typedef struct step {
    const char *what;
    bool (*edit)(text *t);
    int lights;              /* a relight of this many lights changed is expected; -1: a full compile */
    bool compare;            /* compiled in full too, and compared */
    const char *expect_line; /* what the compile says when it compiles in full */
    int same_luxels_as;      /* > 0: traced again the luxels that step did (the same light at the same place) */
    int kept;                /* KEPT: the level as the cache built it, no stage before the bake run; BUILT: built again;
                              * REPACKED: as KEPT but for the chunks a dynamic light now reaches or no longer reaches
                              * (their lightmaps packed again) and their neighbours, built again */
} step;
enum { KEPT_ANY, KEPT, BUILT, REPACKED };
#define KEPT_NOTE " (geometry, chunks and lightmaps as cached)"
#define REPACKED_NOTE " (geometry as cached, "

/* The seconds pmfc --time 1 gave the stage (its line "  NAME   0.000 s"), or -1. */
static double stage_seconds(const char *log, const char *name)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\n  %s ", name);
    const char *at = strstr(log, pattern + 1);
    double seconds = -1;
    return at && sscanf(at + strlen(pattern) - 1, " %lf", &seconds) == 1 ? seconds : -1;
}

/* What a step's log says of the stages before the bake, against what it expects. */
static void check_kept(const step *s, int index, const char *log, const char *line)
{
    if (s->kept == KEPT_ANY) return;
    bool noted = line && strstr(line, KEPT_NOTE), repacked = line && strstr(line, REPACKED_NOTE);
    CHECK(noted == (s->kept == KEPT) && repacked == (s->kept == REPACKED), "step %d (%s): the level %s: %s", index, s->what,
          s->kept == KEPT ? "as cached" : s->kept == REPACKED ? "as cached, some chunks packed again" : "built again", log);
    /* a chunk packed again is the build's unwrap and octree on it alone, in the unpacking's time */
    if (s->kept == BUILT) return;
    const char *stages[] = { "chunks/octree", "unwrap" };
    for (int k = 0; k < 2; k++)
        CHECK(stage_seconds(log, stages[k]) == 0, "step %d (%s): %s took %.3f s", index, s->what, stages[k],
              stage_seconds(log, stages[k]));
}

static text source;
static char source_path[600];
static unsigned long long step_luxels[16];  /* [step]: the luxels each relight traced again */

/* Writes the source, compiles it from the cache, and (when the step says so) in full to compare. */
static void run_step(const step *s, int index, double full_seconds)
{
    char out[700], full[700], log[16384];
    CHECK(s->edit(&source), "step %d (%s): the edit's anchor is in the source", index, s->what);
    CHECK(test_write_file(source_path, source.data, source.size));
    snprintf(out, sizeof out, "%s/relit_%d.pmf", workdir, index);
    double seconds, full_now;
    CHECK_EQ(compile(source_path, out, true, &seconds, log, sizeof log), 0);
    CHECK(!s->expect_line || strstr(log, s->expect_line), "step %d (%s): '%s' in %s", index, s->what, s->expect_line, log);
    const char *line = strstr(log, "relit: ");
    unsigned long long lights = 0, luxels = 0;
    if (line) sscanf(line, "relit: %llu lights changed, %llu luxels", &lights, &luxels);
    printf("step %d, %s: %s in %.2f s (%.1f%% of the first full compile)", index, s->what, line ? "relit" : "compiled in full",
           seconds, 100 * seconds / full_seconds);
    if (line) printf(", %llu lights changed, %llu luxels", lights, luxels);
    printf("\n");
    CHECK(!line == (s->lights < 0), "step %d (%s): %s", index, s->what, log);
    /* no time is asserted here: the bench's relight figure measures it, paired against a full compile */
    if (line) CHECK_EQ(lights, s->lights);
    check_kept(s, index, log, line);
    if (index < 16) step_luxels[index] = luxels;
    /* a light given a style or taken one moves the blocks of the chunks it reaches in their
     * lightmaps (smaller ones): their samples do not follow, so only the light's luxels are traced */
    if (s->same_luxels_as > 0)
        CHECK(luxels == step_luxels[s->same_luxels_as], "step %d (%s): %llu luxels traced again, step %d's light %llu",
              index, s->what, luxels, s->same_luxels_as, step_luxels[s->same_luxels_as]);
    if (!s->compare) return;
    snprintf(full, sizeof full, "%s/full_%d.pmf", workdir, index);
    CHECK_EQ(compile(source_path, full, false, &full_now, log, sizeof log), 0);
    luxel_count c = { 0 };
    CHECK(count_maps(&c, out, full), "step %d (%s): the relit map has the full compile's chunks, lightmaps and layers", index, s->what);
    size_t relit_size = 0, full_size = 0;
    uint8_t *relit_bytes = test_read_file(out, &relit_size), *full_bytes = test_read_file(full, &full_size);
    CHECK(relit_bytes && full_bytes && relit_size == full_size && !memcmp(relit_bytes, full_bytes, full_size),
          "step %d (%s): the relit map is the full compile's byte for byte (%zu and %zu bytes)", index, s->what, relit_size, full_size);
    free(relit_bytes);
    free(full_bytes);
    printf("  against a full compile (%.2f s): %llu luxel bytes, %.4f%% equal, %llu off by one, %llu by more\n", full_now,
           (unsigned long long)c.bytes, c.bytes ? 100.0 * c.equal / c.bytes : 0, (unsigned long long)c.off_by_one,
           (unsigned long long)c.worse);
    CHECK(c.bytes > 0);
    CHECK_EQ(c.worse, 0);
    CHECK(c.equal >= c.bytes - c.bytes / 1000, "step %d (%s): %llu of %llu bytes equal", index, s->what,
          (unsigned long long)c.equal, (unsigned long long)c.bytes);
}

/* The first compile fills the cache; then the steps in a row. */
static void run_chain(const char *name, const char *original, const step *steps, int count)
{
    size_t size;
    source.data = test_read_file(original, &size);
    source.size = size;
    CHECK(source.data != NULL, "%s", original);
    if (!source.data) return;
    char cache[700], out[700], log[16384];
    snprintf(cache, sizeof cache, "%s/cache", workdir);
    test_remove_tree(cache);
    snprintf(source_path, sizeof source_path, "%s/%s", workdir, name);
    CHECK(test_write_file(source_path, source.data, source.size));
    snprintf(out, sizeof out, "%s/full_0.pmf", workdir);
    double full_seconds;
    CHECK_EQ(compile(source_path, out, true, &full_seconds, log, sizeof log), 0);
    CHECK(!strstr(log, "relit: "), "the first compile has no cache to start from: %s", log);
    printf("full compile with --cache: %.2f s\n", full_seconds);
    for (int i = 0; i < count; i++) run_step(&steps[i], i + 1, full_seconds);
    free(source.data);
}

/* lqdm10 (Quake): entity 19 a light of 130, entity 20 one of 60, entity 22 one of 300; the sun
 * and the upper dome in worldspawn. */
#define ADDED_LIGHT "{\n\"classname\" \"light\"\n\"origin\" \"-400 -300 400\"\n\"light\" \"250\"\n}\n"
static bool map_move(text *t) { return replace_text(t, "\"origin\" \"-280 -216 344\"", "\"origin\" \"-264 -200 360\""); }
static bool map_recolour(text *t) { return replace_text(t, "\"origin\" \"-264 -200 360\"", "\"origin\" \"-264 -200 360\"\n\"_color\" \"255 128 64\""); }
static bool map_add(text *t) { return replace_text(t, "// entity 18\n", ADDED_LIGHT "// entity 18\n"); }
static bool map_delete(text *t) { return replace_text(t, "{\n\"classname\" \"light\"\n\"origin\" \"-16 -664 472\"\n\"light\" \"60\"\n\"delay\" \"2\"\n}\n", ""); }
static bool map_recolour_300(text *t) { return replace_text(t, "\"origin\" \"-592 -256 456\"", "\"origin\" \"-592 -256 456\"\n\"_color\" \"255 200 150\""); }
static bool map_style(text *t) { return replace_text(t, "\"origin\" \"-592 -256 456\"", "\"origin\" \"-592 -256 456\"\n\"style\" \"5\""); }
static bool map_move_styled(text *t) { return replace_text(t, "\"origin\" \"-592 -256 456\"\n\"style\" \"5\"", "\"origin\" \"-592 -240 456\"\n\"style\" \"5\""); }
static bool map_move_styled_back(text *t) { return replace_text(t, "\"origin\" \"-592 -240 456\"\n\"style\" \"5\"", "\"origin\" \"-592 -256 456\"\n\"style\" \"5\""); }
static bool map_recolour_styled(text *t) { return replace_text(t, "\"_color\" \"255 200 150\"", "\"_color\" \"200 255 150\""); }
static bool map_sun(text *t) { return replace_text(t, "\"_sunlight\" \"120\"\n", "\"_sunlight\" \"150\"\n") && replace_text(t, "\"_sun_mangle\" \"80 -31 0\"", "\"_sun_mangle\" \"60 -45 0\""); }
static bool map_move_added(text *t) { return replace_text(t, "\"origin\" \"-400 -300 400\"", "\"origin\" \"-380 -320 420\""); }
static bool map_brighter(text *t) { return replace_text(t, "\"origin\" \"-280 -216 344\"", "\"origin\" \"-280 -216 344\"") || replace_text(t, "\"light\" \"250\"", "\"light\" \"400\""); }
static bool map_dome(text *t) { return replace_text(t, "\"_sunlight2\" \"90\"", "\"_sunlight2\" \"60\""); }
static bool map_unstyle(text *t) { return replace_text(t, "\n\"style\" \"5\"", ""); }

static const step map_steps[] = {
    { "a light moved", map_move, 1, true, NULL, 0, KEPT },
    { "a light recoloured", map_recolour, 1, true, NULL, 0, KEPT },
    { "a light added", map_add, 1, true, NULL, 0, KEPT },
    { "a light deleted", map_delete, 1, true, NULL, 0, KEPT },
    { "the light of 300 recoloured", map_recolour_300, 1, false, NULL, 0, KEPT },
    { "it given a style", map_style, 1, true, NULL, 5, REPACKED },
    /* a dynamic light that reaches the same chunks leaves their lightmaps as they were */
    { "the styled light moved", map_move_styled, 1, true, NULL, 0, KEPT },
    { "the styled light recoloured", map_recolour_styled, 1, false, NULL, 0, KEPT },
    { "the styled light moved back", map_move_styled_back, 1, false, NULL, 0, KEPT },
    { "the sun turned and brighter", map_sun, 1, true, NULL, 0, KEPT },
    { "the added light moved", map_move_added, 1, false, NULL, 0, KEPT },
    { "the added light brighter", map_brighter, 1, false, NULL, 0, KEPT },
    { "the upper sky dome dimmer", map_dome, 0, false, NULL, 0, KEPT },
    { "the style taken off", map_unstyle, 1, true, NULL, 5, REPACKED },
};

static void case_map(const char *original)
{
    run_chain("relight.map", original, map_steps, (int)(sizeof map_steps / sizeof *map_steps));
}

/* mess_macro_cover_example (GoldSrc): one light_environment ("angles" "-35 45 0", "_light"
 * "255 207 179 200"); lights added as the world's first child. */
static const char *const lamp_keys[] = { "_light", "255 255 128 300", NULL };
static const char *const lamp_red_keys[] = { "_light", "255 64 32 300", NULL };
static const char *const lamp_styled_keys[] = { "_light", "255 64 32 300", "style", "5", NULL };
static const char *const lamp_two_keys[] = { "_light", "128 200 255 250", NULL };
static const float lamp_at[3] = { 0, 0, 96 }, lamp_moved[3] = { 64, -64, 112 }, lamp_two_at[3] = { -256, 128, 96 };
/* a light of 30 reaches 5.9 m: the centre chunk's only at lamp_moved, the one beside at lamp_far */
static const char *const lamp_styled_dim_keys[] = { "_light", "255 64 32 30", "style", "5", NULL };
static const float lamp_far[3] = { -1181, 0, 80 };

static bool swap_entity(text *t, const char *const *from_keys, const float from[3], const char *const *to_keys, const float to[3])
{
    uint8_t a[512], b[512];
    size_t na = rmf_entity(a, "light", from_keys, from), nb = rmf_entity(b, "light", to_keys, to);
    return replace(t, a, na, b, nb);
}

static bool rmf_add_lamp(text *t)
{
    uint8_t e[512];
    return rmf_add(t, e, rmf_entity(e, "light", lamp_keys, lamp_at));
}
static bool rmf_move(text *t) { return swap_entity(t, lamp_keys, lamp_at, lamp_keys, lamp_moved); }
static bool rmf_recolour(text *t) { return swap_entity(t, lamp_keys, lamp_moved, lamp_red_keys, lamp_moved); }
static bool rmf_style(text *t) { return swap_entity(t, lamp_red_keys, lamp_moved, lamp_styled_keys, lamp_moved); }
static bool rmf_dim_styled(text *t) { return swap_entity(t, lamp_styled_keys, lamp_moved, lamp_styled_dim_keys, lamp_moved); }
static bool rmf_move_dim_far(text *t) { return swap_entity(t, lamp_styled_dim_keys, lamp_moved, lamp_styled_dim_keys, lamp_far); }
static bool rmf_move_dim_back(text *t) { return swap_entity(t, lamp_styled_dim_keys, lamp_far, lamp_styled_dim_keys, lamp_moved); }
static bool rmf_brighten_styled(text *t) { return swap_entity(t, lamp_styled_dim_keys, lamp_moved, lamp_styled_keys, lamp_moved); }
static bool rmf_sun(text *t) { return replace(t, "\t-35 45 0", 10, "\t-50 60 0", 10); }
static bool rmf_sun_colour(text *t) { return replace(t, "\x10" "255 207 179 200", 17, "\x10" "200 220 255 260", 17); }
static bool rmf_add_second(text *t)
{
    uint8_t e[512];
    return rmf_add(t, e, rmf_entity(e, "light", lamp_two_keys, lamp_two_at));
}
static bool rmf_unstyle(text *t) { return swap_entity(t, lamp_styled_keys, lamp_moved, lamp_red_keys, lamp_moved); }
static bool rmf_delete(text *t)
{
    uint8_t e[512];
    return rmf_remove(t, e, rmf_entity(e, "light", lamp_red_keys, lamp_moved));
}
static bool rmf_delete_second(text *t)
{
    uint8_t e[512];
    return rmf_remove(t, e, rmf_entity(e, "light", lamp_two_keys, lamp_two_at));
}

static const step rmf_steps[] = {
    { "a light added", rmf_add_lamp, 1, true, NULL, 0, KEPT },
    { "the light moved", rmf_move, 1, true, NULL, 0, KEPT },
    { "the light recoloured", rmf_recolour, 1, true, NULL, 0, KEPT },
    { "the light given a style", rmf_style, 1, true, NULL, 0, REPACKED },
    /* it reaches one chunk of ten, then another, then the first again, then all again */
    { "the styled light dimmed", rmf_dim_styled, 1, true, "9 chunks built again", 0, REPACKED },
    { "the dim styled light moved to another chunk", rmf_move_dim_far, 1, true, "2 chunks built again", 0, REPACKED },
    { "the dim styled light moved back", rmf_move_dim_back, 1, true, "2 chunks built again", 0, REPACKED },
    { "the styled light brighter again", rmf_brighten_styled, 1, true, "9 chunks built again", 0, REPACKED },
    { "the sun turned", rmf_sun, 1, true, NULL, 0, KEPT },
    { "the sun recoloured", rmf_sun_colour, 1, true, NULL, 0, KEPT },
    { "a second light added", rmf_add_second, 1, true, NULL, 0, KEPT },
    { "the style taken off", rmf_unstyle, 1, true, NULL, 0, REPACKED },
    { "the light deleted", rmf_delete, 1, true, NULL, 0, KEPT },
    { "the second light deleted", rmf_delete_second, 1, true, NULL, 0, KEPT },
};

static void case_rmf(const char *original)
{
    run_chain("relight.rmf", original, rmf_steps, (int)(sizeof rmf_steps / sizeof *rmf_steps));
}

/* q1_sunlight (Quake): the minlight (the ambient term) relights with no light traced; a cache
 * flipped in one byte is said in one line and the compile is a full one; so is an edit of the
 * geometry (the floor raised); light edits then relight again. */
/* The one file in the cache, "" when none. */
static void cache_file(char path[1400])
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/cache", workdir);
    path[0] = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 8 && !strcmp(e->d_name + len - 8, ".relight"))
            snprintf(path, 1400, "%s/%s", dir, e->d_name);
    }
    if (d)
        closedir(d);
}

static bool damage_cache(text *t)
{
    (void)t;
    /* one byte in its middle flipped (in C: the Windows build runs under wine, with no POSIX
     * shell) */
    char path[1400];
    cache_file(path);
    FILE *f = path[0] ? fopen(path, "r+b") : NULL;
    if (!f)
        return false;
    bool ok = fseek(f, 0, SEEK_END) == 0;
    long middle = ok ? ftell(f) / 2 : 0;
    int byte = ok && fseek(f, middle, SEEK_SET) == 0 ? fgetc(f) : EOF;
    ok = byte != EOF && fseek(f, middle, SEEK_SET) == 0 && fputc(byte ^ 0xFF, f) != EOF;
    return fclose(f) == 0 && ok;
}
/* The cache file cut to `keep` bytes (keep < 0: that many short of its size). */
static bool cut_cache(long keep)
{
    char path[1400];
    cache_file(path);
    size_t size = 0;
    uint8_t *bytes = path[0] ? test_read_file(path, &size) : NULL;
    size_t n = keep < 0 ? size - (size_t)-keep : (size_t)keep;
    bool ok = bytes && n < size && test_write_file(path, bytes, n);
    free(bytes);
    return ok;
}
static bool cut_to_magic(text *t) { (void)t; return cut_cache(9); }
static bool cut_in_kept_level(text *t) { (void)t; return cut_cache(49 + 200); }
static bool cut_one_short(text *t) { (void)t; return cut_cache(-1); }

/* relight.c's checksum: the FNV-like hash of the file's bytes but its last 8, which hold it. */
static uint64_t cache_checksum(const uint8_t *p, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < size; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The kept level's last chunk made to use 1000 materials, the checksum sealed again: a cache whole
 * to its checksum but not to the level's own checks (relight_build.c). The file: 32 bytes of head,
 * then the level: whether it holds a build (1), its key (8), the block's size (8), the block: its
 * size unpacked (8) and LZ4's bytes. Unpacked, it ends in the last chunk's used counts (3 ints),
 * the three lists of 256 ints used and the triangles it dropped (4). */
static bool damage_kept_level(text *t)
{
    (void)t;
    char path[1400];
    cache_file(path);
    size_t size = 0;
    uint8_t *bytes = path[0] ? test_read_file(path, &size) : NULL;
    uint64_t block = 0, raw = 0;
    if (bytes && size > 57) {
        memcpy(&block, bytes + 41, 8);
        memcpy(&raw, bytes + 49, 8);
    }
    bool ok = bytes && bytes[32] == 1 && block > 8 && block <= size - 57 && raw > 3 * 256 * 4 + 16 && raw < 1u << 30;
    char *level = ok ? malloc(raw) : NULL, *packed = ok ? malloc(LZ4_compressBound((int)raw)) : NULL;
    ok = ok && level && packed && LZ4_decompress_safe((char *)bytes + 57, level, (int)(block - 8), (int)raw) == (int)raw;
    int32_t many = 1000;
    if (ok) memcpy(level + raw - 4 - 3 * 256 * 4 - 3 * 4, &many, 4);
    int n = ok ? LZ4_compress_default(level, packed, (int)raw, LZ4_compressBound((int)raw)) : 0;
    FILE *f = n > 0 ? fopen(path, "wb") : NULL;
    if (f) {
        uint64_t new_block = 8 + (uint64_t)n;
        memcpy(bytes + 41, &new_block, 8);
        size_t rest = size - 8 - (49 + (size_t)block);
        uint8_t *whole = malloc(49 + new_block + rest + 8);
        memcpy(whole, bytes, 57);
        memcpy(whole + 57, packed, (size_t)n);
        memcpy(whole + 49 + new_block, bytes + 49 + block, rest);
        uint64_t sum = cache_checksum(whole, 49 + new_block + rest);
        memcpy(whole + 49 + new_block + rest, &sum, 8);
        ok = fwrite(whole, 1, 49 + new_block + rest + 8, f) == 49 + new_block + rest + 8;
        free(whole);
    }
    ok = f && fclose(f) == 0 && ok;
    free(level);
    free(packed);
    free(bytes);
    return ok;
}
static bool unchanged(text *t) { (void)t; return true; }
#define SMALL_LIGHT "{\n\"classname\" \"light\"\n\"origin\" \"0 0 96\"\n\"light\" \"200\"\n}\n"
static bool small_add(text *t) { return replace_text(t, "// entity 1\n", SMALL_LIGHT "// entity 1\n"); }
static bool small_move(text *t) { return replace_text(t, "\"origin\" \"0 0 96\"", "\"origin\" \"32 -16 80\""); }
static bool small_move_back(text *t) { return replace_text(t, "\"origin\" \"32 -16 80\"", "\"origin\" \"0 0 96\""); }
static bool small_minlight(text *t) { return replace_text(t, "\"light\" \"5\"", "\"light\" \"20\""); }
static bool small_floor(text *t) { return replace_text(t, "( 96 32 0 ) ( 96 33 0 ) ( 97 32 0 ) sbrick2b", "( 96 32 8 ) ( 96 33 8 ) ( 97 32 8 ) sbrick2b"); }

static bool small_style(text *t) { return replace_text(t, "\"origin\" \"32 -16 80\"", "\"origin\" \"32 -16 80\"\n\"style\" \"5\""); }
static bool small_unstyle(text *t) { return replace_text(t, "\n\"style\" \"5\"", ""); }

static const step stale_steps[] = {
    { "a light added", small_add, 1, true, NULL, 0, KEPT },
    { "nothing changed", unchanged, 0, true, NULL, 0, KEPT },
    { "the minlight raised", small_minlight, 0, true, NULL, 0, KEPT },
    { "the cache damaged", damage_cache, -1, true, "damaged (its checksum differs); compiling in full", 0, KEPT_ANY },
    { "the light moved", small_move, 1, true, NULL, 0, KEPT },
    { "the cache cut to 9 bytes", cut_to_magic, -1, true, "not a relight cache; compiling in full", 0, KEPT_ANY },
    { "nothing changed", unchanged, 0, false, NULL, 0, KEPT },
    { "the cache cut in its level", cut_in_kept_level, -1, true, "damaged (its checksum differs); compiling in full", 0, KEPT_ANY },
    { "nothing changed", unchanged, 0, false, NULL, 0, KEPT },
    { "the cache a byte short", cut_one_short, -1, true, "damaged (its checksum differs); compiling in full", 0, KEPT_ANY },
    { "nothing changed", unchanged, 0, false, NULL, 0, KEPT },
    { "the kept level damaged", damage_kept_level, 0, true, "the level's kept build is damaged; building it", 0, BUILT },
    { "nothing changed", unchanged, 0, true, NULL, 0, KEPT },
    { "the light given a style", small_style, 1, true, NULL, 0, REPACKED },
    { "the style taken off", small_unstyle, 1, true, NULL, 0, REPACKED },
    { "the floor raised", small_floor, -1, true, "more than light changed", 0, KEPT_ANY },
    { "the light moved back", small_move_back, 1, true, NULL, 0, KEPT },
};

static void case_stale(const char *original)
{
    run_chain("stale.map", original, stale_steps, (int)(sizeof stale_steps / sizeof *stale_steps));
    /* a luxel's sums keep only their words that are not 0 (relight.c): 27 KB of the bake's and
     * 3 KB of the level as built (LZ4: 14 KB unpacked), where 64 bytes each made the bake's 76 KB */
    char path[1400];
    cache_file(path);
    size_t size = 0;
    void *bytes = path[0] ? test_read_file(path, &size) : NULL;
    printf("the cache: %zu bytes\n", size);
    CHECK(bytes && size < 38000, "the cache takes %zu bytes", size);
    free(bytes);
}

/* hl_currents (GoldSrc .map): its texture lights, the 230 faces of `hltest` in lights.rad (--rad
 * WORKDIR/lights.rad), brighter, then recoloured: 882 lights each time. */
static bool write_rad(const char *line)
{
    char path[700];
    snprintf(path, sizeof path, "%s/lights.rad", workdir);
    return test_write_file(path, line, strlen(line));
}
static bool rad_brighter(text *t) { (void)t; return write_rad("hltest 255 255 255 80\n"); }
static bool rad_recoloured(text *t) { (void)t; return write_rad("hltest 255 128 64 80\n"); }
static bool rad_first(text *t) { (void)t; return write_rad("hltest 255 255 255 50\n"); }

static const step rad_steps[] = {
    { "the texture light brighter", rad_brighter, 882, true, NULL, 0, KEPT },
    { "the texture light recoloured", rad_recoloured, 882, true, NULL, 0, KEPT },
};

static void case_rad(const char *original)
{
    CHECK(rad_first(NULL));
    run_chain("relight_rad.map", original, rad_steps, (int)(sizeof rad_steps / sizeof *rad_steps));
}

static bool fast_move(text *t) { return replace_text(t, "fast 2 at 4 1.5 -4", "fast 2 at -4 1.5 4"); }
static bool fast_move_back(text *t) { return replace_text(t, "fast 2 at -4 1.5 4", "fast 2 at 4 1.5 -4"); }
static bool fast_recolour(text *t) { return replace_text(t, "color 120 200 255", "color 255 120 60"); }
static bool dynamic_move(text *t) { return replace_text(t, "dynamic 1 at -4 1.5 -4", "dynamic 1 at 4 1.5 4"); }

static const step fast_steps[] = {
    { "the fast light moved across the room", fast_move, 1, true, "4 chunks built again", 0, REPACKED },
    { "the fast light recoloured", fast_recolour, 1, true, NULL, 0, KEPT },
    { "the fast light moved back", fast_move_back, 1, true, "4 chunks built again", 0, REPACKED },
    { "the dynamic light moved across the room", dynamic_move, 1, true, "4 chunks built again", 0, REPACKED },
};

static void case_fast(const char *original)
{
    CHECK(test_write_file(original, relight_room_source, sizeof relight_room_source - 1));
    run_chain("relight_fast.pms", original, fast_steps, (int)(sizeof fast_steps / sizeof *fast_steps));
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fputs("usage: test_pmfc_relight CASE PMFC WORKDIR SOURCE [PMFC OPTIONS]\n", stderr);
        return 1;
    }
    pmfc = argv[2];
    workdir = argv[3];
    test_make_dir(workdir);
    char extra[1024] = "";
    for (int i = 5; i < argc; i++) snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "%s ", argv[i]);
    options = extra;
    if (!strcmp(argv[1], "map")) case_map(argv[4]);
    else if (!strcmp(argv[1], "rmf")) case_rmf(argv[4]);
    else if (!strcmp(argv[1], "stale")) case_stale(argv[4]);
    else if (!strcmp(argv[1], "rad")) case_rad(argv[4]);
    else if (!strcmp(argv[1], "fast")) case_fast(argv[4]);
    else {
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 1;
    }
    TEST_DONE();
}
