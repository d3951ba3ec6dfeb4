/* test_pmfc_library.c - the compiler as a library (src/compiler/pmfc.h), in this process: the same
 * bytes as the pmfc program; over its memory budget, on a hostile source or cancelled, one
 * compile ends with pmfc's line and status while the process goes on, leaves nothing on disk and
 * gives back all it took (the ASan build checks that every block was freed). Given a kept
 * relight state (keep), a light edit relights from memory in two compiles, the first with the
 * bounces kept from before, the second with the new ones: the first differs from the picture
 * before only where the new direct light does, the second equals a full compile; a compile
 * cancelled in its bake leaves the state it started from.
 *
 *   test_pmfc_library CASE PMFC WORKDIR SHARED_DATA
 *   CASE: same_bytes, over_budget, over_budget_city, over_budget_holds, hostile, cancel, keep */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "base/pmf_budget.h"
#include "check.h"
#include "pmf.h"
#include "pmfc.h"
#include "programs.h"

static const char *pmfc_program, *work, *shared;

static void path_in(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

static bool exists(const char *path)
{
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    free(bytes);
    return bytes != NULL;
}

/* The pmfc program's output and the library's for one source: byte for byte the same. */
static void same_bytes_of(const char *source)
{
    char by_program[4096], by_library[4096], log[4096];
    path_in(by_program, sizeof by_program, work, "program.pmf");
    path_in(by_library, sizeof by_library, work, "library.pmf");
    path_in(log, sizeof log, work, "program.log");
    const char *argv[] = { pmfc_program, source, "-o", by_program, "--time", "0", "--quiet", NULL };
    CHECK_EQ(test_run(NULL, argv, NULL, log), 0);
    pmfc_result r;
    CHECK_EQ(pmfc_compile(&(pmfc_compile_desc){ .source = source, .out_path = by_library, .quiet = true }, &r), 0);
    CHECK(r.error[0] == '\0', "%s", r.error);
    CHECK(r.chunks > 0 && r.vertices > 0);
    size_t a_size = 0, b_size = 0;
    uint8_t *a = test_read_file(by_program, &a_size), *b = test_read_file(by_library, &b_size);
    CHECK(a && b && a_size == b_size && a_size > 1000 && !memcmp(a, b, a_size), "%s: %zu bytes by pmfc, %zu in-process",
          source, a_size, b_size);
    free(a);
    free(b);
}

static void same_bytes(void)
{
    char source[4096];
    path_in(source, sizeof source, shared, "data/rmf/22.rmf");
    same_bytes_of(source);
    path_in(source, sizeof source, shared, "data/map/q1_rocks.map");
    same_bytes_of(source);
}

/* The error lines a compile said, kept for the checks. */
typedef struct said {
    int errors, warnings;
    char last_error[1024];
} said;

static void keep_line(void *user, pmfc_message_kind kind, const char *line)
{
    said *s = user;
    if (kind == PMFC_ERROR) {
        s->errors++;
        snprintf(s->last_error, sizeof s->last_error, "%s", line);
    }
    s->warnings += kind == PMFC_WARNING;
}

/* The stages a sweep of budgets failed at, each once. */
typedef struct stages_seen {
    char names[16][64];
    int count;
} stages_seen;

static bool saw(const stages_seen *st, const char *name)
{
    for (int i = 0; i < st->count; i++)
        if (!strcmp(st->names[i], name))
            return true;
    return false;
}

/* Compiles d with budgets from 1 MiB up, budget / growth more each time, until it compiles: each
 * failure is status 2 with pmfc's one line, said once (the reader's own words while it reads,
 * else "over the memory budget of N MiB while STAGE"); nothing is written, and the caller's
 * budget is as it was. The compile that succeeds gives the bytes of one with the default budget. */
static void budget_sweep(pmfc_compile_desc d, const char *label, unsigned growth, stages_seen *st)
{
    char reference[4096];
    path_in(reference, sizeof reference, work, "reference.pmf");
    remove(d.out_path);
    pmf_budget_set_limit(200u << 20);
    if (!pmf_budget_take(12345)) {
        check_fail("the caller's budget refused 12345 bytes");
        return;
    }
    uint64_t used = pmf_budget_used(), budget = 1 << 20;
    said s = { 0 };
    d.message = keep_line;
    d.user = &s;
    for (; budget <= (256u << 20); budget += budget / growth) {
        s = (said){ 0 };
        d.memory = budget;
        pmfc_result r;
        int status = pmfc_compile(&d, &r);
        CHECK_EQ(pmf_budget_used(), used);
        CHECK_EQ(pmf_budget_limit(), 200u << 20);
        if (status == 0)
            break;
        printf("  %llu KiB: %s\n", (unsigned long long)(budget >> 10), r.error);
        CHECK_EQ(status, 2);
        CHECK_EQ(s.errors, 1);
        CHECK(!strcmp(s.last_error, r.error));
        char head[4200], over[256];
        snprintf(head, sizeof head, "pmfc: %s: ", label);
        snprintf(over, sizeof over, "over the memory budget of %llu MiB while ", (unsigned long long)(budget >> 20));
        CHECK(!strncmp(r.error, head, strlen(head)), "%s", r.error);
        CHECK(strstr(r.error, " (see --memory)") || strstr(r.error, ": out of memory ("), "%s", r.error);
        const char *stage = strstr(r.error, over), *colon = stage ? strchr(stage + strlen(over), ':') : NULL;
        if (colon && st->count < 16) {
            stage += strlen(over);
            snprintf(st->names[st->count], sizeof st->names[0], "%.*s", (int)(colon - stage), stage);
            if (!saw(st, st->names[st->count]))
                st->count++;
        }
        CHECK(!exists(d.out_path), "a failed compile left %s", d.out_path);
    }
    CHECK(budget <= (256u << 20), "%s did not compile in 256 MiB", label);
    const char *out = d.out_path;
    d.memory = 0;
    d.out_path = reference;
    pmfc_result r;
    CHECK_EQ(pmfc_compile(&d, &r), 0);
    size_t a_size = 0, b_size = 0;
    uint8_t *a = test_read_file(out, &a_size), *b = test_read_file(reference, &b_size);
    CHECK(a && b && a_size == b_size && !memcmp(a, b, a_size), "after failures, %zu bytes where %zu", a_size, b_size);
    free(a);
    free(b);
    pmf_budget_give(12345);
}

/* An editor map: over the budget in its reader, then in the stages, the last in a parallel one
 * (on the pool's workers). */
static void over_budget(void)
{
    char source[4096], out[4096];
    path_in(source, sizeof source, shared, "data/goldsrc/foutpost.rmf");
    path_in(out, sizeof out, work, "budget.pmf");
    stages_seen st = { 0 };
    budget_sweep((pmfc_compile_desc){ .source = source, .out_path = out, .quiet = true }, source, 4, &st);
    CHECK(saw(&st, "reading the source") && saw(&st, "building lightmaps and octrees"), "%d stages", st.count);
}

/* A generated city, built a tile at a time with tiles side by side (the pool's workers each
 * running a tile's own parallel stages and its bake): over the budget in each stage. */
static void over_budget_city(void)
{
    char out[4096];
    path_in(out, sizeof out, work, "city.pmf");
    stages_seen st = { 0 };
    budget_sweep((pmfc_compile_desc){ .generate = "city", .chunks = { 8, 2, 8 }, .seed = 1, .out_path = out, .quiet = true },
                 "city", 8, &st);
    const char *stages[] = { "reading the source", "building the level", "building geometry", "building lightmaps and octrees",
                             "baking light" };
    for (int i = 0; i < 5; i++)
        CHECK(saw(&st, stages[i]), "never over the budget while %s", stages[i]);
}

/* The descriptors this process has open (/proc/self/fd), -1 where the system cannot tell (under
 * wine, /proc/self/fd is wine's own process, whose threads open descriptors of their own). */
static int open_fds(void)
{
#ifdef _WIN32
    return -1;
#else
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
#endif
}

/* The bytes malloc has handed out and not taken back (glibc), -1 elsewhere; ASan's leak checker
 * covers its own build. */
static long long heap_in_use(void)
{
#ifdef __GLIBC__
    return (long long)mallinfo2().uordblks;
#else
    return -1;
#endif
}

static void no_line(void *user, pmfc_message_kind kind, const char *line)
{
    (void)user, (void)kind, (void)line;
}

/* Compiles d with budgets from 16 KiB up, a sixteenth more each time, until it compiles: each
 * failure is status 2 and leaves the process's descriptors and heap as they were. */
static void sweep_leaves_nothing(pmfc_compile_desc d, const char *label)
{
    d.message = no_line;
    pmfc_result r;
    CHECK(pmfc_compile(&d, &r) == 0, "%s: %s", label, r.error); /* what a first compile keeps (stdio, stb) */
    int fds = open_fds();
    long long heap = heap_in_use();
    int failures = 0, status = 2;
    for (uint64_t budget = 16u << 10; status == 2 && budget <= (64u << 20); budget += budget / 16) {
        d.memory = budget;
        status = pmfc_compile(&d, &r);
        CHECK(status == 0 || status == 2, "%s at %llu KiB: %d %s", label, (unsigned long long)(budget >> 10), status, r.error);
        int now = open_fds();
        CHECK(now == fds, "%s at %llu KiB: %d descriptors open, %d before: %s", label, (unsigned long long)(budget >> 10), now,
              fds, r.error);
        failures += status == 2;
    }
    CHECK(status == 0 && failures >= 20, "%s: %d failures, then %d", label, failures, status);
    long long grown = heap_in_use() - heap;
    CHECK(grown < (256 << 10), "%s: the heap grew %lld KiB over %d failed compiles", label, grown >> 10, failures);
}

/* A 512 x 512 TGA (uncompressed, 32 bits): a megabyte of stb_image's when loaded. */
static void write_tga(const char *path)
{
    enum { side = 512 };
    static uint8_t tga[18 + side * side * 4];
    memset(tga, 0, sizeof tga);
    tga[2] = 2;
    tga[12] = side & 255, tga[13] = side >> 8, tga[14] = side & 255, tga[15] = side >> 8;
    tga[16] = 32, tga[17] = 8;
    for (size_t i = 18; i < sizeof tga; i++)
        tga[i] = (uint8_t)(i * 7);
    CHECK(test_write_file(path, tga, sizeof tga));
}

/* Over the budget while a source holds what the ledger does not own: a .pms source's FILE (64 KiB
 * of comments) and the stb_image pixels of its image texture; an editor map's --game palette
 * (900 KiB) and sound/materials.txt (30,000 lines). Every escape closes the file and frees the
 * pixels it held. */
static void over_budget_holds(void)
{
    char pms[4096], image[4096], out[4096], game[4096], path[4200], source[4096];
    path_in(pms, sizeof pms, work, "holds.pms");
    path_in(image, sizeof image, work, "holds.tga");
    path_in(out, sizeof out, work, "holds.pmf");
    path_in(game, sizeof game, work, "game");
    write_tga(image);
    FILE *f = fopen(pms, "w");
    if (!f) {
        check_fail("cannot write %s", pms);
        return;
    }
    fputs("map \"Holds\"\ntexture pic image holds.tga\nmaterial pic texture pic\n"
          "level one {\n  chunk_size 4\n  box -8 -1 -8 8 0 8 material pic\n  light static at 0 4 0 range 12\n}\n", f);
    for (int i = 0; i < 1024; i++)
        fprintf(f, "# %060d\n", i);
    fclose(f);
    sweep_leaves_nothing((pmfc_compile_desc){ .source = pms, .out_path = out, .quiet = true }, pms);

    test_make_dir(game);
    path_in(path, sizeof path, game, "gfx");
    test_make_dir(path);
    path_in(path, sizeof path, game, "gfx/palette.lmp");
    static uint8_t palette[900 << 10];
    CHECK(test_write_file(path, palette, sizeof palette));
    path_in(path, sizeof path, game, "sound");
    test_make_dir(path);
    path_in(path, sizeof path, game, "sound/materials.txt");
    if (!(f = fopen(path, "w"))) {
        check_fail("cannot write %s", path);
        return;
    }
    for (int i = 0; i < 30000; i++)
        fprintf(f, "M TEX%d\n", i);
    fclose(f);
    path_in(source, sizeof source, shared, "data/rmf/08.rmf");
    sweep_leaves_nothing((pmfc_compile_desc){ .source = source, .out_path = out, .game_dir = game, .quiet = true }, source);
}

/* Sources cut short or made of noise: the line pmfc prints, status 2, and the next compile works. */
static void hostile(void)
{
    char source[4096], cut[4096], noise[4096], out[4096], log[4096];
    path_in(source, sizeof source, shared, "data/rmf/22.rmf");
    path_in(cut, sizeof cut, work, "cut.rmf");
    path_in(noise, sizeof noise, work, "noise.map");
    path_in(out, sizeof out, work, "hostile.pmf");
    path_in(log, sizeof log, work, "hostile.log");
    remove(out);
    size_t size = 0;
    uint8_t *bytes = test_read_file(source, &size);
    if (!bytes || size < 100) {
        check_fail("cannot read %s", source);
        return;
    }
    CHECK(test_write_file(cut, bytes, size / 2));
    free(bytes);
    /* a .map whose brush is all "(" and huge numbers */
    test_write_text(noise, "{\n\"classname\" \"worldspawn\"\n{\n( 1e308 1e308 1e308 ) ( ( ( \x01\x02\x1b[2J\n");
    const char *sources[] = { cut, noise };
    for (int i = 0; i < 2; i++) {
        said s = { 0 };
        pmfc_result r;
        CHECK_EQ(pmfc_compile(&(pmfc_compile_desc){ .source = sources[i], .out_path = out, .quiet = true,
                                                   .message = keep_line, .user = &s }, &r), 2);
        CHECK_EQ(s.errors, 1);
        CHECK(strstr(r.error, sources[i]) != NULL, "%s", r.error);
        for (const char *p = r.error; *p; p++)
            CHECK((unsigned char)*p >= 0x20, "a control byte in: %s", r.error);
        CHECK(!exists(out));
        /* the program says the same line, last */
        const char *argv[] = { pmfc_program, sources[i], "-o", out, "--quiet", NULL };
        CHECK_EQ(test_run(NULL, argv, NULL, log), 2);
        size_t n = 0;
        char *text = (char *)test_read_file(log, &n);
        if (!text) {
            check_fail("no %s", log);
            continue;
        }
        while (n && text[n - 1] == '\n') text[--n] = '\0';
        const char *last = strrchr(text, '\n') ? strrchr(text, '\n') + 1 : text;
        CHECK(!strcmp(last, r.error), "pmfc said '%s', the library '%s'", last, r.error);
        free(text);
    }
    same_bytes_of(source);
}

/* Cancelled at its first progress report (in a parallel stage): status 3, nothing written; the
 * next compile is whole. */
static void cancel_at_first_report(void *user, const pmfc_progress *p)
{
    (void)p;
    atomic_store((atomic_bool *)user, true);
}

static void cancel(void)
{
    char source[4096], out[4096];
    path_in(source, sizeof source, shared, "data/rmf/22.rmf");
    path_in(out, sizeof out, work, "cancelled.pmf");
    remove(out);
    atomic_bool stop = false;
    pmfc_result r;
    CHECK_EQ(pmfc_compile(&(pmfc_compile_desc){ .source = source, .out_path = out, .quiet = true, .cancel = &stop,
                                               .progress = cancel_at_first_report, .user = &stop }, &r), 3);
    CHECK(r.cancelled);
    CHECK(!strcmp(r.error, "pmfc: cancelled"), "%s", r.error);
    CHECK(!exists(out));
    /* cancelled before it began: it ends once the source is read */
    CHECK_EQ(pmfc_compile(&(pmfc_compile_desc){ .source = source, .out_path = out, .quiet = true, .cancel = &stop }, &r), 3);
    CHECK(r.cancelled && r.chunks == 0);
    same_bytes_of(source);
}

/* The keep case cannot go on past these (its functions return what they read). */
#define MUST(cond) do { \
    bool must_hold = (cond); /* once: cond may read a chunk */ \
    CHECK(must_hold, "%s", #cond); \
    if (!must_hold) exit(1); \
} while (0)

/* Cancels the compile at its first progress report of a stage. */
typedef struct stop_at { atomic_bool stop; const char *stage; } stop_at;

static void cancel_at_stage(void *user, const pmfc_progress *p)
{
    stop_at *s = user;
    if (!strcmp(p->stage, s->stage))
        atomic_store(&s->stop, true);
}

/* The luxels of every base lightmap of a map, chunk after chunk, in one block (*size bytes). */
static uint8_t *map_luxels(const char *path, size_t *size)
{
    pmf_error err;
    pmf_file *f = pmf_open(path, &err);
    MUST(f);
    pmf_level level;
    MUST(pmf_level_read(f, 0, PMF_PART_ALL, &level, &err));
    const pmf_level_info *info = &f->levels[0];
    uint8_t *out = NULL;
    *size = 0;
    for (uint32_t x = 0; x < info->count_x; x++)
        for (uint32_t y = 0; y < info->count_y; y++)
            for (uint32_t z = 0; z < info->count_z; z++) {
                pmf_chunk_coord at = { x, y, z };
                pmf_chunk c;
                if (!pmf_chunk_present(f, 0, at)) continue;
                MUST(pmf_chunk_read(f, &level, 0, at, PMF_PART_ALL, &c, &err));
                for (uint32_t m = 0; m < c.client.lightmap_count; m++) {
                    size_t n = (size_t)3 << (2 * c.client.lightmaps[m].size_exp);
                    out = realloc(out, *size + n);
                    memcpy(out + *size, c.client.lightmaps[m].luxels, n);
                    *size += n;
                }
                pmf_chunk_free(&c);
            }
    pmf_level_free(&level);
    pmf_close(f);
    return out;
}

static void compile_kept(const char *source, const char *name, struct relight_cache *keep, bool old_bounce, int bounces,
                         pmfc_result *r)
{
    char out[4096];
    path_in(out, sizeof out, work, name);
    CHECK_EQ(pmfc_compile(&(pmfc_compile_desc){ .source = source, .out_path = out, .quiet = true, .keep = keep,
                                               .old_bounce = old_bounce, .bounces = bounces, .created = 1 }, r), 0);
    CHECK(r->error[0] == '\0', "%s: %s", name, r->error);
}

static uint8_t *luxels_of(const char *name, size_t *size)
{
    char path[4096];
    path_in(path, sizeof path, work, name);
    return map_luxels(path, size);
}

/* A light made brighter: relit from memory with the old bounces (first), then bounced (final). */
static void keep(void)
{
    char original[4096], source[4096];
    path_in(original, sizeof original, shared, "data/map/q1_light_hlform.map");
    path_in(source, sizeof source, work, "lit.map");
    size_t size;
    char *text = (char *)test_read_file(original, &size);
    MUST(text);
    MUST(test_write_file(source, text, size));
    struct relight_cache *kept = pmfc_keep_create();
    MUST(kept);
    pmfc_result r;
    compile_kept(source, "before.pmf", kept, true, 0, &r);
    CHECK(!r.relit && !r.old_bounce);
    compile_kept(source, "before_direct.pmf", NULL, false, PMFC_BOUNCE_NONE, &r);
    char *at = strstr(text, "\"light\" \"255 127 0\"");
    MUST(at);
    char edited[8192];
    int n = snprintf(edited, sizeof edited, "%.*s\"light\" \"255 127 0 600\"%s", (int)(at - text), text,
                     at + strlen("\"light\" \"255 127 0\""));
    MUST(test_write_file(source, edited, (size_t)n));
    free(text);

    compile_kept(source, "first.pmf", kept, true, 0, &r);
    CHECK(r.relit && r.relit_lights == 1 && r.old_bounce, "relit %d, %zu lights, old bounce %d", r.relit, r.relit_lights,
          r.old_bounce);
    compile_kept(source, "final.pmf", kept, false, 0, &r);
    CHECK(r.relit && r.relit_lights == 0 && !r.old_bounce, "relit %d, %zu lights, old bounce %d", r.relit, r.relit_lights,
          r.old_bounce);
    compile_kept(source, "full.pmf", NULL, false, 0, &r);
    compile_kept(source, "after_direct.pmf", NULL, false, PMFC_BOUNCE_NONE, &r);

    size_t n_before, n_first, n_final, n_full, n_bd, n_ad;
    uint8_t *before = luxels_of("before.pmf", &n_before), *first = luxels_of("first.pmf", &n_first);
    uint8_t *final = luxels_of("final.pmf", &n_final), *full = luxels_of("full.pmf", &n_full);
    uint8_t *before_direct = luxels_of("before_direct.pmf", &n_bd), *after_direct = luxels_of("after_direct.pmf", &n_ad);
    MUST(n_before == n_first && n_first == n_final && n_final == n_full && n_full == n_bd && n_bd == n_ad);
    size_t final_equal = 0, final_worse = 0, unlit_kept = 0, unlit = 0, relit_new = 0, relit = 0, bounced = 0;
    for (size_t i = 0; i < n_full; i++) {
        int d = abs((int)final[i] - (int)full[i]);
        final_equal += d == 0;
        final_worse += d > 1;
        /* where the new direct light is the old one, the first picture is the old picture (to the
         * byte: a light's change under half a byte can round a luxel the other way) */
        bool same_direct = before_direct[i] == after_direct[i];
        unlit += same_direct;
        unlit_kept += same_direct && abs((int)first[i] - (int)before[i]) <= 1;
        relit += !same_direct;
        relit_new += !same_direct && first[i] != before[i];
        bounced += first[i] != final[i];
    }
    CHECK(final_worse == 0 && final_equal * 1000 >= n_full * 999, "final vs full: %zu of %zu equal, %zu off by more than 1",
          final_equal, n_full, final_worse);
    CHECK(unlit > 0 && unlit_kept == unlit, "first vs before where the direct light is the same: %zu of %zu equal",
          unlit_kept, unlit);
    CHECK(relit > 100 && relit_new * 10 >= relit * 9, "first vs before where the direct light changed: %zu of %zu differ",
          relit_new, relit);
    CHECK(bounced > 0, "the final picture's bounces changed nothing of the first's");
    free(before);
    free(first);
    free(final);
    free(full);
    free(before_direct);
    free(after_direct);

    /* a compile cancelled in its bake leaves the state it started from: the next relights the
     * light that changed, and equals a full compile */
    char *again = strstr(edited, "\"255 127 0 600\"");
    MUST(again);
    memcpy(again, "\"255 127 0 300\"", strlen("\"255 127 0 300\""));
    MUST(test_write_file(source, edited, (size_t)n));
    stop_at stop = { false, "lightmaps" };
    char out[4096];
    path_in(out, sizeof out, work, "cancelled.pmf");
    CHECK_EQ(pmfc_compile(&(pmfc_compile_desc){ .source = source, .out_path = out, .quiet = true, .keep = kept,
                                               .cancel = &stop.stop, .progress = cancel_at_stage, .user = &stop }, &r), 3);
    CHECK(r.cancelled);
    compile_kept(source, "after_cancel.pmf", kept, false, 0, &r);
    CHECK(r.relit && r.relit_lights == 1, "after the cancel: relit %d, %zu lights", r.relit, r.relit_lights);
    compile_kept(source, "full_again.pmf", NULL, false, 0, &r);
    size_t n_after, n_again, equal = 0;
    uint8_t *after = luxels_of("after_cancel.pmf", &n_after), *full_again = luxels_of("full_again.pmf", &n_again);
    MUST(n_after == n_again);
    for (size_t i = 0; i < n_again; i++) equal += abs((int)after[i] - (int)full_again[i]) <= 1;
    CHECK(equal == n_again, "after the cancel vs full: %zu of %zu within 1", equal, n_again);
    free(after);
    free(full_again);
    pmfc_keep_free(kept);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: test_pmfc_library CASE PMFC WORKDIR SHARED\n");
        return 2;
    }
    pmfc_program = argv[2];
    work = argv[3];
    shared = argv[4];
    test_make_dir(work);
    static const check_case cases[] = {
        { "same_bytes", same_bytes }, { "over_budget", over_budget }, { "over_budget_city", over_budget_city },
        { "over_budget_holds", over_budget_holds }, { "hostile", hostile }, { "cancel", cancel }, { "keep", keep }, { NULL },
    };
    return check_run_case(cases, argv[1]);
}
