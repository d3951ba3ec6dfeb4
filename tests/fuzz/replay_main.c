/* replay_main.c - runs a fuzz target's LLVMFuzzerTestOneInput over every file of the directories
 * (or the files) it is given, without fuzzing: `NAME_replay DIR|FILE...`. Linked into each
 * target's NAME_replay by pmfview_fuzz_target (fuzz_target.cmake) so ctest replays the corpus in
 * every build, sanitised or not. Exits 1 when it found nothing to replay. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feeds one file in an allocation of exactly its size, so ASan sees any read past its end. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        if (f)
            fclose(f);
        fprintf(stderr, "replay: %s: cannot read\n", path);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *data = malloc(size ? size : 1);
    size_t got = data ? fread(data, 1, size, f) : 0;
    fclose(f);
    if (got != size) {
        free(data);
        fprintf(stderr, "replay: %s: cannot read\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 1;
}

static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: cannot open the directory\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof *names, by_name); /* the same order on every run */
    int replayed = 0;
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int r = replay_file(path);
        replayed = r < 0 || replayed < 0 ? -1 : replayed + r;
        free(names[i]);
    }
    free(names);
    return replayed;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int r = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
        if (r < 0)
            return 1;
        total += r;
    }
    printf("replayed %d inputs\n", total);
    return total > 0 ? 0 : 1;
}
