/* test_pak.c - PAK archives and a game directory over them: which file a path reads when loose
 * files, pak0 and pak1 all hold it (a later pak over an earlier, a loose file over every pak),
 * the first entry of a name within one pak, names in any case, the numbering stopping at the
 * first pak missing, a real model's bytes through a pak, and damaged archives and refused paths
 * (one clean error line naming the place).
 * Usage: test_pak WORK_DIR GRENADE_MDL */
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/programs.h"
#include "pak.h"
#include "pak_build.h"
#include "base/pmf_budget.h"

static const char *work;

#define TEXT(name, text) { name, text, sizeof text - 1 }

static void write_pak(const char *game, const char *name, const pak_build_file *files, size_t count)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", game, name);
    if (!pak_build_write(path, files, count))
        check_fail("cannot write %s", path);
}

/* path reads as text, from source */
static void check_read(const game_fs *fs, const char *path, const char *text, const char *source)
{
    uint8_t *bytes;
    size_t size;
    pmf_error err;
    int r = game_fs_read(fs, path, PAK_MAX_READ, &bytes, &size, &err);
    CHECK_EQ(r, 1);
    if (r != 1)
        return;
    CHECK(size == strlen(text) && memcmp(bytes, text, size) == 0, "%s: '%.*s', not '%s'", path, (int)size, bytes, text);
    const char *from = game_fs_source(fs, path);
    CHECK(from && !strcmp(from, source), "%s from %s, not %s", path, from ? from : "nowhere", source);
    pmf_budget_free(bytes);
}

static void test_override_order(void)
{
    char game[2048], path[2100];
    snprintf(game, sizeof game, "%s/id1", work);
    test_remove_tree(game);
    test_make_dir(game);
    const pak_build_file pak0[] = { TEXT("a.txt", "a of pak0"), TEXT("progs/b.mdl", "b of pak0"), TEXT("c.txt", "c of pak0"),
                                    TEXT("dup.txt", "first dup"), TEXT("dup.txt", "second dup") };
    const pak_build_file pak1[] = { TEXT("progs/b.mdl", "b of pak1"), TEXT("c.txt", "c of pak1") };
    const pak_build_file pak3[] = { TEXT("a.txt", "a of pak3") };
    write_pak(game, "pak0.pak", pak0, 5);
    write_pak(game, "pak1.pak", pak1, 2);
    write_pak(game, "pak3.pak", pak3, 1);  /* no pak2: the engines never reach pak3 */
    snprintf(path, sizeof path, "%s/c.txt", game);
    test_write_text(path, "c loose");
    pmf_error err;
    game_fs *fs = game_fs_open(game, &err);
    CHECK(fs != NULL, "%s", err.message);
    if (!fs)
        return;
    CHECK_EQ(game_fs_pak_count(fs), 2);
    check_read(fs, "a.txt", "a of pak0", "pak0.pak");
    check_read(fs, "progs/b.mdl", "b of pak1", "pak1.pak");
    check_read(fs, "PROGS\\B.MDL", "b of pak1", "pak1.pak");
    check_read(fs, "c.txt", "c loose", "loose");
    check_read(fs, "dup.txt", "first dup", "pak0.pak");
    uint8_t *bytes;
    size_t size;
    CHECK_EQ(game_fs_read(fs, "d.txt", PAK_MAX_READ, &bytes, &size, &err), 0);
    check_error_line_clean(&err);
    CHECK(game_fs_source(fs, "d.txt") == NULL);
    static const char *const refused[] = { "../id1/c.txt", "/etc/passwd", "progs/./b.mdl", "progs/../c.txt", "c:c.txt", "", "progs//b.mdl" };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        CHECK_EQ(game_fs_read(fs, refused[i], PAK_MAX_READ, &bytes, &size, &err), 0);
        CHECK(strstr(err.message, "no path inside") != NULL, "%s: %s", refused[i], err.message);
        CHECK(game_fs_source(fs, refused[i]) == NULL);
    }
    CHECK_EQ(game_fs_read(fs, "progs/b.mdl", 8, &bytes, &size, &err), -1);
    CHECK(!strcmp(err.block, "entry 0 (progs/b.mdl)"), "%s", err.block);
    game_fs_close(fs);
}

static void test_real_model(const char *grenade)
{
    size_t size;
    uint8_t *model = test_read_file(grenade, &size);
    if (!model) {
        check_fail("cannot read %s", grenade);
        return;
    }
    const pak_build_file files[] = { TEXT("progs/player.mdl", "x"), { "progs/grenade.mdl", model, size } };
    uint8_t *archive;
    size_t archive_size;
    CHECK(pak_build_bytes(files, 2, &archive, &archive_size));
    pmf_error err;
    pak_file *p = pak_open_memory(archive, archive_size, "pak0.pak", &err);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ(pak_count(p), 2);
        CHECK_EQ(pak_find(p, "progs/grenade.mdl"), 1);
        CHECK_EQ(pak_entry_size(p, 1), 12340);
        uint8_t *bytes;
        size_t got;
        CHECK(pak_read(p, 1, PAK_MAX_READ, &bytes, &got, &err));
        CHECK(got == size && memcmp(bytes, model, size) == 0);
        CHECK(!memcmp(bytes, "IDPO", 4));
        pmf_budget_free(bytes);
        pak_close(p);
    }
    free(archive);
    free(model);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* One damage of a valid two-file archive: the error's block and a word of its message. */
static void check_damaged(const char *what, size_t at, uint32_t value, size_t size, const char *block, const char *words)
{
    const pak_build_file files[] = { TEXT("a.txt", "first"), TEXT("b.txt", "second") };
    uint8_t *archive;
    size_t archive_size;
    if (!pak_build_bytes(files, 2, &archive, &archive_size))
        return;
    if (at + 4 <= archive_size)
        put_u32(archive + at, value);
    pmf_error err;
    pak_file *p = pak_open_memory(archive, size ? size : archive_size, "bad.pak", &err);
    CHECK(p == NULL, "%s opened", what);
    pak_close(p);
    if (!p) {
        check_error_line_clean(&err);
        CHECK(!strcmp(err.block, block), "%s: block '%s'", what, err.block);
        CHECK(strstr(err.message, words) != NULL, "%s: '%s'", what, err.message);
    }
    free(archive);
}

static void test_damaged(void)
{
    /* the archive: header 12, files 12..23, directory at 23 of 128 bytes */
    check_damaged("magic", 0, 0x4B434150u + 1, 0, "header", "bad magic");
    check_damaged("short", 99, 0, 7, "header", "shorter than");
    check_damaged("directory offset", 4, 1000, 0, "header", "runs past the end");
    check_damaged("directory size", 8, 100, 0, "header", "whole number");
    check_damaged("huge directory size", 8, 0xFFFFFFC0u, 0, "header", "runs past the end");
    check_damaged("entry offset", 23 + 64 + 56, 150, 0, "directory entry 1", "run past the end");
    check_damaged("entry size", 23 + 60, 0xFFFFFFFFu, 0, "directory entry 0", "run past the end");
    uint8_t *archive;
    size_t size;
    const pak_build_file one[] = { TEXT("a", "x") };
    CHECK(pak_build_bytes(one, 1, &archive, &size));
    memset(archive + 13, 'n', 55);  /* the name to its last byte, the NUL kept */
    pmf_error err;
    pak_file *p = pak_open_memory(archive, size, "long.pak", &err);
    CHECK(p != NULL && strlen(pak_name(p, 0)) == 55);
    pak_close(p);
    archive[13 + 55] = 'n';
    CHECK_ERROR(pak_open_memory(archive, size, "long.pak", &err) != NULL, err, "directory entry 0");
    CHECK(strstr(err.message, "no NUL") != NULL);
    free(archive);

    char game[2048];
    snprintf(game, sizeof game, "%s/broken", work);
    test_remove_tree(game);
    test_make_dir(game);
    const pak_build_file files[] = { TEXT("a.txt", "a") };
    write_pak(game, "pak0.pak", files, 1);
    char path[2100];
    snprintf(path, sizeof path, "%s/pak1.pak", game);
    test_write_text(path, "PACK but nothing after");
    game_fs *fs = game_fs_open(game, &err);
    CHECK(fs == NULL);
    game_fs_close(fs);
    CHECK(strstr(err.file, "pak1.pak") != NULL, "%s", err.file);
    CHECK(game_fs_open(path, &err) == NULL);  /* a file is no game directory */
    check_error_line_clean(&err);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: test_pak WORK_DIR GRENADE_MDL\n", stderr);
        return 2;
    }
    work = argv[1];
    test_make_dir(work);
    test_override_order();
    test_real_model(argv[2]);
    test_damaged();
    TEST_DONE();
}
