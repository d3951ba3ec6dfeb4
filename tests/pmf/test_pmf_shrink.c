/* test_pmf_shrink.c - a file that changes under an open pmf_file: blocks read after it shrank
 * give an error naming the block (never SIGBUS), the guarded parse survives a mapping that lost
 * its pages, and FIFOs and directories are refused at once (alarm: a hang fails the test). */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmf_os.h"
#include "pmf_internal.h"
#include "sample_map.h"
#include "test_util.h"

static const char *MAP = "shrink_test.pmf";

/* Reads every present chunk of level 0; counts those that failed with the shrink message. */
static void read_all_chunks(const pmf_file *f, const pmf_level *lvl, uint32_t *ok, uint32_t *shrank)
{
    const pmf_level_info *li = &f->levels[0];
    *ok = *shrank = 0;
    for (uint32_t y = 0; y < li->count_y; y++)
        for (uint32_t z = 0; z < li->count_z; z++)
            for (uint32_t x = 0; x < li->count_x; x++) {
                pmf_chunk_coord c = { x, y, z };
                if (!pmf_chunk_present(f, 0, c))
                    continue;
                pmf_chunk ch;
                pmf_error err;
                if (pmf_chunk_read(f, lvl, 0, c, PMF_PART_ALL, &ch, &err)) {
                    (*ok)++;
                    pmf_chunk_free(&ch);
                    continue;
                }
                char prefix[64];
                snprintf(prefix, sizeof prefix, "level 0 chunk (%u,%u,%u)", x, y, z);
                CHECK(strstr(err.message, "the file shrank while open") && !strncmp(err.block, prefix, strlen(prefix)),
                      "chunk (%u,%u,%u): %s: %s", x, y, z, err.block, err.message);
                (*shrank)++;
            }
}

static void test_chunks_after_shrink(void)
{
    pmf_error err;
    pmf_level lvl;
    pmf_file *f = sample_map_open_written(SAMPLE_MAP_KITCHEN_SINK, MAP, &lvl);
    CHECK(f && f->data == NULL, "the written sample opens, read through pread");
    if (!f)
        return;
    uint32_t ok, shrank;
    read_all_chunks(f, &lvl, &ok, &shrank);
    CHECK(ok >= 2 && shrank == 0, "before: %u read, %u failed", ok, shrank);
    uint32_t present = ok;

    /* cut the file in the middle of level 0's chunk data */
    const pmf_level_info *li = &f->levels[0];
    uint64_t first = UINT64_MAX, last = 0;
    for (uint32_t i = 0; i < li->chunk_count; i++)
        if (li->chunks[i].compressed[0]) {
            first = li->chunks[i].offset < first ? li->chunks[i].offset : first;
            last = li->chunks[i].offset > last ? li->chunks[i].offset : last;
        }
    CHECK(truncate(MAP, (off_t)last) == 0, "truncate");
    read_all_chunks(f, &lvl, &ok, &shrank);
    CHECK(ok + shrank == present && shrank >= 1 && ok >= 1, "after cutting at %llu: %u read, %u failed",
          (unsigned long long)last, ok, shrank);

    /* the archive is read the same way */
    uint8_t byte;
    CHECK(truncate(MAP, (off_t)f->archive.offset) == 0, "truncate");
    CHECK(f->archive.size && !pmf_file_read(f, f->archive.offset, 1, &byte, "embedded archive", &err) &&
              strstr(err.message, "shrank") && !strcmp(err.block, "embedded archive") && err.offset == f->archive.offset,
          "archive after shrink: %s, byte %llu: %s", err.block, (unsigned long long)err.offset, err.message);
    CHECK(!pmf_file_read(f, f->size, 1, &byte, "x", &err) && strstr(err.message, "outside"), "read past the end: %s",
          err.message);
    pmf_level_free(&lvl);
    pmf_close(f);

    /* the truncated file is refused cleanly by a fresh open */
    CHECK(pmf_open(MAP, &err) == NULL && err.message[0], "reopen of a truncated file succeeded");
    unlink(MAP);
}

static bool touch_mapping(void *user)
{
    const volatile uint8_t *p = user;
    uint32_t sum = 0;
    for (size_t i = 0; i < 3 * 4096; i += 4096)
        sum += p[i];
    return sum == 0;
}

/* The guard pmf_open parses under: a mapped page past the new end of the file faults. */
static void test_guard(void)
{
    const char *path = "shrink_guard.bin";
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && ftruncate(fd, 3 * 4096) == 0, "create");
    void *map = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    CHECK(map != MAP_FAILED, "mmap");
    bool faulted = true;
    CHECK(pmf_os_run_mapped(touch_mapping, map, &faulted) && !faulted, "whole file: faulted %d", faulted);
    CHECK(ftruncate(fd, 4096) == 0, "shrink");
    for (int i = 0; i < 3; i++) /* again and again: the handler stays installed, the mask restored */
        CHECK(!pmf_os_run_mapped(touch_mapping, map, &faulted) && faulted, "shrunk file: faulted %d", faulted);
    munmap(map, 3 * 4096);
    close(fd);
    unlink(path);
}

static void test_not_regular(void)
{
    const char *fifo = "shrink_test.fifo";
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    pmf_error err;
    alarm(10); /* a blocking open would end the test here */
    CHECK(pmf_open(fifo, &err) == NULL && !strcmp(err.message, "not a regular file") && !strcmp(err.block, "file"),
          "fifo: %s", err.message);
    CHECK(pmf_open(".", &err) == NULL && !strcmp(err.message, "not a regular file"), "directory: %s", err.message);
    alarm(0);
    unlink(fifo);
}

int main(void)
{
    test_chunks_after_shrink();
    test_guard();
    test_not_regular();
    TEST_DONE();
}
