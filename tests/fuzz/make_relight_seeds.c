/* make_relight_seeds.c - writes the relight fuzzers' seed corpora from real compiles of the
 * source in fuzz_relight_level.h with --cache (written to DIR.work beside DIR):
 * `make_relight_seeds files DIR`: the cache file of a full compile, of a relight after a light's
 * range changed, and of a compile without bounces (no transport held) (fuzz_relight);
 * `make_relight_seeds blocks DIR`: each level's kept build of the full compile's cache, unpacked,
 * after the byte naming its level (fuzz_relight_build). Every block is checked to be taken back
 * whole first: seeds the targets would refuse at once would fuzz nothing. */
#include <dirent.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/pmf_os.h"
#include "fuzz_relight_level.h"

static bool write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) fprintf(stderr, "make_relight_seeds: cannot write %s\n", path);
    return ok;
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n)) && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    if (f) fclose(f);
    *size = data ? (size_t)n : 0;
    return data;
}

/* The one .relight file of cache_dir, read whole (NULL: none); with remove, removed instead (an
 * earlier run's: the first compile is a full one). */
static uint8_t *cache_file(const char *cache_dir, bool remove, size_t *size)
{
    char path[4500] = "";
    DIR *d = opendir(cache_dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, ".relight") && strlen(e->d_name) < 200) snprintf(path, sizeof path, "%.4200s/%s", cache_dir, e->d_name);
    if (d) closedir(d);
    if (remove) {
        if (path[0]) pmf_os_remove(path);
        return NULL;
    }
    uint8_t *bytes = path[0] ? read_file(path, size) : NULL;
    if (!bytes) fprintf(stderr, "make_relight_seeds: no cache file in %s\n", cache_dir);
    return bytes;
}

/* Compiles source (written first) into work/relight.pmf with --cache work/CACHE (emptied first
 * when fresh); its cache's bytes. */
static uint8_t *compile(const char *work, const char *source, const char *cache, bool fresh, int bounces, size_t *size)
{
    char pms[4200], out[4200], cache_dir[4200];
    snprintf(pms, sizeof pms, "%s/relight.pms", work);
    snprintf(out, sizeof out, "%s/relight.pmf", work);
    snprintf(cache_dir, sizeof cache_dir, "%s/%s", work, cache);
    if (fresh) cache_file(cache_dir, true, size);
    if (!write_file(pms, source, strlen(source))) return NULL;
    pmfc_result r;
    pmfc_compile_desc desc = { .source = pms, .out_path = out, .cache_dir = cache_dir, .bounces = bounces, .threads = 2,
                               .message = relight_fuzz_quiet };
    if (pmfc_compile(&desc, &r) != 0) {
        fprintf(stderr, "make_relight_seeds: %s\n", r.error);
        return NULL;
    }
    return cache_file(cache_dir, false, size);
}

static bool seed_files(const char *work, const char *dir)
{
    char source[sizeof relight_fuzz_source + 16], path[4200];
    snprintf(source, sizeof source, "%s", relight_fuzz_source);
    const char *names[] = { "full", "relit", "direct" };
    bool ok = true;
    for (int k = 0; k < 3; k++) {
        if (k == 1) memcpy(strstr(source, "range 6"), "range 7", 7);
        size_t size = 0;
        uint8_t *bytes = compile(work, source, k == 2 ? "direct" : "cache", k != 1, k == 2 ? PMFC_BOUNCE_NONE : 0, &size);
        snprintf(path, sizeof path, "%s/%s.relight", dir, names[k]);
        ok = bytes && write_file(path, bytes, size) && ok;
        free(bytes);
    }
    return ok;
}

/* Level li's kept build unpacked, after its level's byte; false unless it is taken back whole. */
static bool seed_block(const relight_fuzz_map *m, relight_level *rl, size_t li, const char *dir)
{
    uint64_t raw = 0;
    if (rl->built_size > sizeof raw) memcpy(&raw, rl->built, sizeof raw);
    uint8_t *block = raw && raw < LZ4_MAX_INPUT_SIZE ? malloc(1 + raw) : NULL;
    bool ok = block && LZ4_decompress_safe((const char *)rl->built + sizeof raw, (char *)block + 1,
                                           (int)(rl->built_size - sizeof raw), (int)raw) == (int)raw;
    if (ok) block[0] = (uint8_t)li;
    ok = ok && relight_fuzz_restore(rl, &m->layouts[li]);
    char path[4200];
    snprintf(path, sizeof path, "%s/level%zu.block", dir, li);
    ok = ok && write_file(path, block, 1 + raw);
    if (!ok) fprintf(stderr, "make_relight_seeds: level %zu's kept build is not taken back whole\n", li);
    free(block);
    return ok;
}

static bool seed_blocks(const char *work, const char *dir)
{
    size_t size = 0;
    uint8_t *bytes = compile(work, relight_fuzz_source, "cache", true, 0, &size);
    relight_fuzz_map m;
    if (!bytes || size < 32 || !relight_fuzz_map_load(&m)) {
        free(bytes);
        return false;
    }
    relight_cache rc = { .level_count = RELIGHT_FUZZ_LEVELS };
    memcpy(&rc.key, bytes + 16, sizeof rc.key);
    rc.levels = xcalloc(RELIGHT_FUZZ_LEVELS + 1, sizeof *rc.levels);
    const char *why = relight_cache_parse(&rc, bytes, size);
    bool ok = !why;
    if (why) fprintf(stderr, "make_relight_seeds: the cache is %s\n", why);
    for (size_t li = 0; ok && li < RELIGHT_FUZZ_LEVELS; li++) ok = seed_block(&m, &rc.levels[li], li, dir);
    relight_cache_free(&rc);
    map_free(&m.map);
    free(bytes);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "files") && strcmp(argv[1], "blocks"))) {
        fputs("usage: make_relight_seeds files|blocks DIR\n", stderr);
        return 1;
    }
    char work[4200];
    snprintf(work, sizeof work, "%s.work", argv[2]);
    pmf_os_mkdir(work, 0777);
    bool ok = !strcmp(argv[1], "files") ? seed_files(work, argv[2]) : seed_blocks(work, argv[2]);
    return ok ? 0 : 2;
}
