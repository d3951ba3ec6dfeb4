/* fuzz_paf.c - libFuzzer target: any bytes as an embedded PAF archive. Opens it, lists every
 * directory reachable from the root (depth and entry count bounded), reads every file, looks up
 * every entry by its path (following links) and the paths the viewer asks for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_DEPTH = 6, MAX_VISITS = 256 };

static void walk(const paf_archive *a, const paf_entry *dir, const char *prefix, int depth, int *visits)
{
    paf_entry *entries;
    uint32_t count;
    pmf_error err;
    if (depth > MAX_DEPTH || ++*visits > MAX_VISITS || !paf_list(a, dir, &entries, &count, &err))
        return;
    for (uint32_t i = 0; i < count && *visits <= MAX_VISITS; i++) {
        char path[2 * PAF_MAX_PATH];
        snprintf(path, sizeof path, "%s%s", prefix, entries[i].name);
        paf_entry found;
        paf_lookup(a, path, &found, &err);
        if (entries[i].type == PAF_DIRENT_FILE) {
            uint8_t *bytes = NULL;
            size_t n = 0;
            if (paf_read_file(a, &entries[i], &bytes, &n, &err))
                free(bytes);
        } else if (entries[i].type == PAF_DIRENT_DIR && strlen(path) + 1 < PAF_MAX_PATH) {
            strcat(path, "/");
            walk(a, &entries[i], path, depth + 1, visits);
        }
    }
    free(entries);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    paf_archive a;
    pmf_error err;
    if (!paf_open(data, size, "fuzz", 1000, &a, &err))
        return 0;
    int visits = 0;
    walk(&a, NULL, "", 0, &visits);
    static const char *const asked[] = { "textures/a.ptf", "textures/b.png", "/", "a/../textures/./a.ptf", "link" };
    for (size_t i = 0; i < sizeof asked / sizeof *asked; i++) {
        uint8_t *bytes = NULL;
        size_t n = 0;
        if (paf_read(&a, asked[i], &bytes, &n, &err) == PAF_FOUND)
            free(bytes);
    }
    return 0;
}
