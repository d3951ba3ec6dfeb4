/* test_paf.c - PAF writer -> reader round trips, hand-built continuation chains, malformed archives. */
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "pmf/paf.h"

/* ---- a hand-made archive builder: bytes at chosen positions ------------------------------- */

typedef struct bytes { uint8_t b[2048]; size_t size; } bytes;

static void at32(bytes *a, size_t pos, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        a->b[pos + i] = (uint8_t)(v >> (8 * i));
    if (pos + 4 > a->size)
        a->size = pos + 4;
}

static void at_data(bytes *a, size_t pos, const void *data, size_t n)
{
    memcpy(a->b + pos, data, n);
    if (pos + n > a->size)
        a->size = pos + n;
}

static void header(bytes *a, uint32_t root)
{
    at_data(a, 0, "PAF", 4); /* magic + version 0 (the NUL) */
    at32(a, 4, root);
    at32(a, 8, 0);
}

/* A directory entry: u8 type, u32 name, u32 crc, u32 target. */
static void entry(bytes *a, size_t pos, uint8_t type, uint32_t name, uint32_t crc, uint32_t target)
{
    a->b[pos] = type;
    at32(a, pos + 1, name);
    at32(a, pos + 5, crc);
    at32(a, pos + 9, target);
}

/* A one-segment string at pos; returns the position after it. */
static size_t string1(bytes *a, size_t pos, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    at32(a, pos, n);
    at32(a, pos + 4, n);
    at32(a, pos + 8, 0);
    at_data(a, pos + 12, s, n);
    return pos + 12 + n;
}

static paf_result read_path(const paf_archive *ar, const char *path, const char *expect)
{
    uint8_t *data = NULL;
    size_t size = 0;
    pmf_error err = {0};
    paf_result r = paf_read(ar, path, &data, &size, &err);
    if (r == PAF_ERROR && expect)
        fprintf(stderr, "  %s: %s\n", path, err.message);
    if (r == PAF_FOUND && expect) {
        CHECK_EQ(size, strlen(expect));
        CHECK(size == 0 || memcmp(data, expect, size) == 0);
    }
    free(data);
    return r;
}

/* ---- tests ------------------------------------------------------------------------------------ */

static void test_round_trip(void)
{
    pmf_error err = {0};
    paf_writer *w = paf_writer_create();
    CHECK(w != NULL);
    CHECK(paf_writer_add_file(w, "readme.txt", "hello archive", 13, &err));
    CHECK(paf_writer_add_file(w, "textures/brick.ptf", "BRICK", 5, &err));
    CHECK(paf_writer_add_file(w, "textures/metal/plate.png", "PLATE!", 6, &err));
    CHECK(paf_writer_add_file(w, "/textures//metal/rust.png", "RUST", 4, &err)); /* extra slashes ignored */
    CHECK(paf_writer_add_file(w, "empty", NULL, 0, &err));
    CHECK(paf_writer_add_link(w, "alias.ptf", "textures/brick.ptf", &err));
    CHECK(paf_writer_add_link(w, "tex", "/textures", &err));
    CHECK(paf_writer_add_link(w, "textures/metal/up", "../brick.ptf", &err));
    /* refusals: duplicate, file used as a directory, "..", empty */
    CHECK_ERROR(paf_writer_add_file(w, "textures/brick.ptf", "X", 1, &err), err, "embedded archive");
    CHECK_ERROR(paf_writer_add_file(w, "readme.txt/inner", "X", 1, &err), err, "embedded archive");
    CHECK_ERROR(paf_writer_add_file(w, "textures/../x", "X", 1, &err), err, "embedded archive");
    CHECK_ERROR(paf_writer_add_file(w, "", "X", 1, &err), err, "embedded archive");

    uint8_t *arc;
    size_t size;
    CHECK(paf_writer_finish(w, &arc, &size, &err));
    paf_writer_destroy(w);
    CHECK(memcmp(arc, "PAF\0", 4) == 0);
    CHECK_EQ(arc[8] | arc[9] | arc[10] | arc[11], 0); /* no free space tracker */

    paf_archive ar;
    CHECK(paf_open(arc, size, "mem.pmf", 1000, &ar, &err));
    CHECK_EQ(ar.root, PAF_HEADER_SIZE);
    CHECK_EQ(read_path(&ar, "readme.txt", "hello archive"), PAF_FOUND);
    CHECK_EQ(read_path(&ar, "textures/brick.ptf", "BRICK"), PAF_FOUND);
    CHECK_EQ(read_path(&ar, "/textures/metal/plate.png", "PLATE!"), PAF_FOUND);
    CHECK_EQ(read_path(&ar, "textures/metal/rust.png", "RUST"), PAF_FOUND);
    CHECK_EQ(read_path(&ar, "empty", ""), PAF_FOUND);
    CHECK_EQ(read_path(&ar, "alias.ptf", "BRICK"), PAF_FOUND);          /* link to a file */
    CHECK_EQ(read_path(&ar, "tex/metal/plate.png", "PLATE!"), PAF_FOUND); /* link to a directory */
    CHECK_EQ(read_path(&ar, "textures/metal/up", "BRICK"), PAF_FOUND);  /* relative link with .. */
    CHECK_EQ(read_path(&ar, "textures/metal/./../brick.ptf", "BRICK"), PAF_FOUND);
    CHECK_EQ(read_path(&ar, "textures/brick", NULL), PAF_NOT_FOUND);    /* names match exactly */
    CHECK_EQ(read_path(&ar, "textures", NULL), PAF_NOT_FOUND);          /* a directory is no file */
    CHECK_EQ(read_path(&ar, "readme.txt/x", NULL), PAF_NOT_FOUND);
    CHECK_EQ(read_path(&ar, "nothing/here", NULL), PAF_NOT_FOUND);

    paf_entry e;
    CHECK_EQ(paf_lookup(&ar, "tex", &e, &err), PAF_FOUND);
    CHECK_EQ(e.type, PAF_DIRENT_DIR);
    paf_entry *list;
    uint32_t count;
    CHECK(paf_list(&ar, &e, &list, &count, &err));
    CHECK_EQ(count, 2);
    if (count == 2) {
        CHECK(strcmp(list[0].name, "brick.ptf") == 0 && list[0].type == PAF_DIRENT_FILE && !list[0].link);
        CHECK(strcmp(list[1].name, "metal") == 0 && list[1].type == PAF_DIRENT_DIR);
    }
    free(list);
    CHECK(paf_list(&ar, NULL, &list, &count, &err));
    CHECK_EQ(count, 5); /* readme.txt textures empty alias.ptf tex */
    if (count == 5) {
        CHECK(strcmp(list[3].name, "alias.ptf") == 0 && list[3].type == PAF_DIRENT_LINK);
        CHECK(list[3].link && strcmp(list[3].link, "textures/brick.ptf") == 0);
    }
    free(list);
    free(arc);

    CHECK_EQ(paf_name_crc("123456789", 9), 0xCBF43926u); /* the CRC-32 check value */
}

/* A directory, a name and a file each split over two segments, plus slots the directory leaves unused. */
static void test_continuations(void)
{
    bytes a = {0};
    header(&a, 12);
    /* root @12: 2 entries in total, 1 slot here (used), continuation @100 */
    at32(&a, 12, 2);
    at32(&a, 16, 1);
    at32(&a, 20, 100);
    entry(&a, 24, PAF_DIRENT_FILE, 200, paf_name_crc("split.bin", 9), 300);
    /* directory continuation @100: 3 slots, 1 used (total reached), no next */
    at32(&a, 100, 3);
    at32(&a, 104, 0);
    entry(&a, 108, PAF_DIRENT_LINK, 250, 0, 270); /* CRC 0: not computed */
    /* name "split.bin" @200: 4 bytes here, continuation @230 with 5 */
    at32(&a, 200, 9);
    at32(&a, 204, 4);
    at32(&a, 208, 230);
    at_data(&a, 212, "spli", 4);
    at32(&a, 230, 5);
    at32(&a, 234, 0);
    at_data(&a, 238, "t.bin", 5);
    string1(&a, 250, "ln");
    string1(&a, 270, "split.bin");
    /* file @300: 10 bytes in total, 4 here, continuation @400 (size, next, prev) with 6 */
    at32(&a, 300, 10);
    at32(&a, 304, 4);
    at32(&a, 308, 400);
    at_data(&a, 312, "0123", 4);
    at32(&a, 400, 6);
    at32(&a, 404, 0);
    at32(&a, 408, 300);
    at_data(&a, 412, "456789", 6);

    pmf_error err = {0};
    paf_archive ar;
    CHECK(paf_open(a.b, a.size, "hand.paf", 0, &ar, &err));
    CHECK_EQ(read_path(&ar, "split.bin", "0123456789"), PAF_FOUND);
    CHECK_EQ(read_path(&ar, "ln", "0123456789"), PAF_FOUND);
    paf_entry *list;
    uint32_t count;
    CHECK(paf_list(&ar, NULL, &list, &count, &err));
    CHECK_EQ(count, 2);
    if (count == 2) {
        CHECK(strcmp(list[0].name, "split.bin") == 0);
        CHECK(strcmp(list[1].name, "ln") == 0 && strcmp(list[1].link, "split.bin") == 0);
    }
    free(list);

    /* byte flips over the continuation chains: clean error or valid parse, never a bad read */
    uint32_t seed = 12345;
    for (int i = 0; i < 2000; i++) {
        bytes m = a;
        seed = seed * 1664525u + 1013904223u;
        m.b[(seed >> 8) % m.size] ^= (uint8_t)(1u << (seed >> 29));
        seed = seed * 1664525u + 1013904223u;
        if (seed & 1)
            m.b[(seed >> 8) % m.size] = (uint8_t)(seed >> 24);
        if (paf_open(m.b, m.size, "flip.paf", 0, &ar, &err)) {
            read_path(&ar, "split.bin", NULL);
            read_path(&ar, "ln", NULL);
            if (paf_list(&ar, NULL, &list, &count, &err))
                free(list);
        }
    }

    /* the file's continuation loops back to itself before 10 bytes are collected */
    bytes bad = a;
    at32(&bad, 400, 2);
    at32(&bad, 404, 400);
    paf_entry e;
    uint8_t *data = NULL;
    size_t size;
    CHECK(paf_open(bad.b, bad.size, "cycle.paf", 0, &ar, &err));
    CHECK_EQ(paf_lookup(&ar, "split.bin", &e, &err), PAF_FOUND);
    CHECK_ERROR(paf_read_file(&ar, &e, &data, &size, &err), err, "embedded archive");
    CHECK(strstr(err.message, "loops") != NULL);
    CHECK_EQ(err.offset, 400);

    /* a continuation that points back at the directory head is a cycle too */
    bad = a;
    at32(&bad, 100, 1);
    at32(&bad, 104, 12);
    at32(&bad, 12, 9); /* more entries than the two segments hold */
    CHECK(paf_open(bad.b, bad.size, "cycle2.paf", 0, &ar, &err));
    CHECK_EQ(paf_lookup(&ar, "missing", &e, &err), PAF_ERROR);
    CHECK(strstr(err.message, "loops") != NULL);

    /* continuation past the end of the archive */
    bad = a;
    at32(&bad, 308, 5000);
    CHECK(paf_open(bad.b, bad.size, "past.paf", 0, &ar, &err));
    CHECK_EQ(paf_read(&ar, "split.bin", &data, &size, &err), PAF_ERROR);
    CHECK_EQ(err.offset, 5000);

    /* twenty empty continuation segments in a row */
    bad = a;
    at32(&bad, 400, 0);
    at32(&bad, 404, 500);
    for (uint32_t i = 0; i < 20; i++) {
        at32(&bad, 500 + i * 12, 0);
        at32(&bad, 504 + i * 12, i == 19 ? 0 : 512 + i * 12);
        at32(&bad, 508 + i * 12, 0);
    }
    CHECK(paf_open(bad.b, bad.size, "empty.paf", 0, &ar, &err));
    CHECK_EQ(paf_read(&ar, "split.bin", &data, &size, &err), PAF_ERROR);
    CHECK(strstr(err.message, "empty segments") != NULL);

    /* a name longer than any path */
    bytes big = {0};
    header(&big, 12);
    at32(&big, 12, 1);
    at32(&big, 16, 1);
    entry(&big, 24, PAF_DIRENT_FILE, 40, 0, 40);
    at32(&big, 40, 1030); /* a 1030-byte name in one segment */
    at32(&big, 44, 1030);
    at32(&big, 48, 0);
    memset(big.b + 52, 'n', 1030);
    big.size = 52 + 1030;
    CHECK(paf_open(big.b, big.size, "long.paf", 0, &ar, &err));
    CHECK_EQ(paf_lookup(&ar, "x", &e, &err), PAF_NOT_FOUND); /* lengths differ: name never read */
    CHECK_ERROR(paf_list(&ar, NULL, &list, &count, &err), err, "embedded archive");
    CHECK(strstr(err.message, "longer") != NULL);

    /* a chain that ends before the declared total */
    bad = a;
    at32(&bad, 300, 11);
    CHECK(paf_open(bad.b, bad.size, "short.paf", 0, &ar, &err));
    CHECK_EQ(paf_read(&ar, "split.bin", &data, &size, &err), PAF_ERROR);
    CHECK(strstr(err.message, "short") != NULL);

    /* a wrong name CRC: lookup skips the entry, listing reports it */
    bad = a;
    at32(&bad, 24 + 5, 0x12345678);
    CHECK(paf_open(bad.b, bad.size, "crc.paf", 0, &ar, &err));
    CHECK_EQ(paf_lookup(&ar, "split.bin", &e, &err), PAF_NOT_FOUND);
    CHECK_ERROR(paf_list(&ar, NULL, &list, &count, &err), err, "embedded archive");
    CHECK_EQ(err.offset, 29);
}

static void test_malformed(void)
{
    bytes a = {0};
    pmf_error err = {0};
    paf_archive ar;
    header(&a, 12);
    at32(&a, 12, 0);
    at32(&a, 16, 0);
    at32(&a, 20, 0);
    CHECK(paf_open(a.b, a.size, "ok.paf", 0, &ar, &err));
    CHECK_EQ(paf_lookup(&ar, "x", &(paf_entry){0}, &err), PAF_NOT_FOUND);

    bytes bad = a;
    at32(&bad, 4, 4000); /* root past the end */
    CHECK_ERROR(paf_open(bad.b, bad.size, "root.paf", 500, &ar, &err), err, "embedded archive");
    CHECK_EQ(err.offset, 4500);
    CHECK(strcmp(err.file, "root.paf") == 0);
    bad = a;
    bad.b[1] = 'X';
    CHECK_ERROR(paf_open(bad.b, bad.size, "magic.paf", 0, &ar, &err), err, "embedded archive");
    bad = a;
    bad.b[3] = 1;
    CHECK_ERROR(paf_open(bad.b, bad.size, "version.paf", 0, &ar, &err), err, "embedded archive");
    CHECK_EQ(err.offset, 3);
    CHECK_ERROR(paf_open(a.b, 10, "short.paf", 0, &ar, &err), err, "embedded archive");
    bad = a;
    at32(&bad, 12, 1000000); /* more entries than the archive could hold */
    CHECK_ERROR(paf_open(bad.b, bad.size, "count.paf", 0, &ar, &err), err, "embedded archive");
    bad = a;
    at32(&bad, 16, 2); /* segment slots run past the end */
    CHECK_ERROR(paf_open(bad.b, bad.size, "slots.paf", 0, &ar, &err), err, "embedded archive");

    /* unknown entry type; name string past the end; two links pointing at each other */
    bytes l = {0};
    header(&l, 12);
    at32(&l, 12, 2);
    at32(&l, 16, 2);
    at32(&l, 20, 0);
    entry(&l, 24, PAF_DIRENT_LINK, 100, 0, 140);
    entry(&l, 37, PAF_DIRENT_LINK, 120, 0, 160);
    string1(&l, 100, "a");
    string1(&l, 120, "b");
    string1(&l, 140, "b");
    string1(&l, 160, "a");
    CHECK(paf_open(l.b, l.size, "loop.paf", 0, &ar, &err));
    CHECK_EQ(paf_lookup(&ar, "a", &(paf_entry){0}, &err), PAF_ERROR);
    CHECK(strstr(err.message, "links") != NULL);
    bad = l;
    bad.b[24] = 7;
    CHECK(paf_open(bad.b, bad.size, "type.paf", 0, &ar, &err));
    CHECK_EQ(paf_lookup(&ar, "a", &(paf_entry){0}, &err), PAF_ERROR);
    CHECK_EQ(err.offset, 24);
    bad = l;
    at32(&bad, 25, 9999);
    CHECK(paf_open(bad.b, bad.size, "name.paf", 0, &ar, &err));
    CHECK_EQ(paf_lookup(&ar, "a", &(paf_entry){0}, &err), PAF_ERROR);
    bad = l;
    at32(&bad, 100, 0xFFFFFFF0u); /* string longer than the archive */
    CHECK(paf_open(bad.b, bad.size, "strlen.paf", 0, &ar, &err));
    CHECK_EQ(paf_lookup(&ar, "a", &(paf_entry){0}, &err), PAF_ERROR);
    CHECK_EQ(err.offset, 100);
}

int main(void)
{
    test_round_trip();
    test_continuations();
    test_malformed();
    return check_report("test_paf");
}
