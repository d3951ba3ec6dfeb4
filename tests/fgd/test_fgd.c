/* test_fgd.c - the FGD reader (src/fgd): each model attribute's form and a class's bases, a later
 * definition over an earlier one, @include beside the including file, and each malformed input
 * as one line naming its line and column; a FIFO refused without blocking. */
#include <string.h>
#ifndef _WIN32
#include <sys/stat.h>
#endif

#include "check.h"
#include "fgd.h"
#include "programs.h"

static const char sample[] =
    "// Quake's classes, as a game's FGD writes them\n"
    "@mapsize(-4096, 4096)\n"
    "@BaseClass = Appearflags [ spawnflags(Flags) = [ 256 : \"Not in Easy\" : 0 ] ]\n"
    "@BaseClass base(Appearflags) model({ \"path\": \":progs/armor.mdl\", \"skin\": 1, \"frame\": 2 }) = ArmorBase []\n"
    "@PointClass base(Appearflags, ArmorBase) size(-16 -16 0, 16 16 56) color(0 128 0) = item_armor2 : \"Yellow\" []\n"
    "@PointClass base(Appearflags) studio(\"models/player.mdl\") = info_player_start : \"Player\" + \" start\"\n"
    "[\n    angle(integer) : \"Yaw\" : 0\n]\n"
    "@PointClass sprite() = env_sprite : \"Sprite\" [ model(sprite) : \"Sprite\" : \"sprites/glow01.spr\" ]\n"
    "@PointClass iconsprite(\"sprites/light.spr\") = light : \"Light\" [ _light(color255) : \"Light\" : \"255 255 128 200\" ]\n"
    "@PointClass model({{ spawnflags & 1 -> \":progs/a.mdl\", \":progs/b.mdl\" }}) = item_spikes []\n"
    "@PointClass model({\"path\": mdl}) = misc_model [ mdl(string) : \"Model\" ]\n"
    "@SolidClass = worldspawn : \"World\" [ ]\n"
    "@MaterialExclusion [ \"tools\" ]\n";

static void expect_model(const fgd *g, const char *classname, const char *path, const char *key, int skin, int frame)
{
    fgd_model m;
    bool found = fgd_class_model(g, classname, &m);
    CHECK(found, "%s: no model", classname);
    if (!found)
        return;
    CHECK((path ? m.path && !strcmp(m.path, path) : !m.path) && (key ? m.key && !strcmp(m.key, key) : !m.key),
          "%s: path %s key %s", classname, m.path ? m.path : "(none)", m.key ? m.key : "(none)");
    CHECK(m.skin == skin && m.frame == frame, "%s: skin %d frame %d", classname, m.skin, m.frame);
}

static void test_sample(void)
{
    fgd *g = fgd_new();
    pmf_error err;
    CHECK(fgd_add_text(g, sample, strlen(sample), "quake.fgd", &err), "%s", err.message);
    CHECK_EQ(fgd_class_count(g), 9);
    expect_model(g, "item_armor2", "progs/armor.mdl", NULL, 1, 2);
    expect_model(g, "ITEM_ARMOR2", "progs/armor.mdl", NULL, 1, 2);
    expect_model(g, "info_player_start", "models/player.mdl", NULL, FGD_NOT_GIVEN, FGD_NOT_GIVEN);
    expect_model(g, "env_sprite", NULL, "model", FGD_NOT_GIVEN, FGD_NOT_GIVEN);
    expect_model(g, "light", "sprites/light.spr", NULL, FGD_NOT_GIVEN, FGD_NOT_GIVEN);
    expect_model(g, "misc_model", NULL, "mdl", FGD_NOT_GIVEN, FGD_NOT_GIVEN);
    fgd_model m;
    CHECK(!fgd_class_model(g, "item_spikes", &m) && !fgd_class_model(g, "worldspawn", &m) && !fgd_class_model(g, "nothing", &m),
          "an expression, no model, an unknown class");
    const char later[] = "@PointClass model(\"progs/other.mdl\") = info_player_start []";
    CHECK(fgd_add_text(g, later, strlen(later), "later.fgd", &err), "%s", err.message);
    expect_model(g, "info_player_start", "progs/other.mdl", NULL, FGD_NOT_GIVEN, FGD_NOT_GIVEN);
    fgd_free(g);
}

static void test_include(void)
{
    const char main_fgd[] = "@include \"more.fgd\"\n@PointClass base(Item) = item_health []\n";
    const char more_fgd[] = "@BaseClass studio(\"models/w_medkit.mdl\") = Item []\n";
    const char loop_fgd[] = "@include \"loop.fgd\"\n";
    if (!test_make_dir("inc") || !test_write_file("inc/main.fgd", main_fgd, strlen(main_fgd))
        || !test_write_file("inc/more.fgd", more_fgd, strlen(more_fgd)) || !test_write_file("inc/loop.fgd", loop_fgd, strlen(loop_fgd))) {
        check_fail("cannot write inc/");
        return;
    }
    fgd *g = fgd_new();
    pmf_error err;
    char line[512];
    CHECK(fgd_add_file(g, "inc/main.fgd", &err), "%s", pmf_error_format(&err, line, sizeof line));
    expect_model(g, "item_health", "models/w_medkit.mdl", NULL, FGD_NOT_GIVEN, FGD_NOT_GIVEN);
    CHECK(!fgd_add_file(g, "inc/loop.fgd", &err) && strstr(pmf_error_format(&err, line, sizeof line), "@include more than 8 deep"),
          "%s", line);
    CHECK(!fgd_add_file(g, "inc/none.fgd", &err) && !strcmp(pmf_error_format(&err, line, sizeof line), "inc/none.fgd: file, byte 0: cannot be read"),
          "%s", line);
#ifndef _WIN32
    /* a FIFO named as an FGD is refused, not opened: opening one would wait for a writer */
    remove("inc/fifo.fgd");
    CHECK(mkfifo("inc/fifo.fgd", 0600) == 0);
    CHECK(!fgd_add_file(g, "inc/fifo.fgd", &err) && !strcmp(pmf_error_format(&err, line, sizeof line), "inc/fifo.fgd: file, byte 0: cannot be read"),
          "%s", line);
#endif
    fgd_free(g);
}

/* Each malformed FGD: its one line. */
static void test_malformed(void)
{
    static const struct { const char *text, *line; } cases[] = {
        { "@PointClass = x : \"abc", "bad.fgd:1:19: a string not closed" },
        { "@PointClass = x [ a(b ]", "bad.fgd:1:23: ']' where ')' closes the '[' at line 1" },
        { "@PointClass base(A) = [ ]", "bad.fgd:1:23: a class name after '='" },
        { "\n\nPointClass = x []", "bad.fgd:3:1: 'PointClass' where a '@' directive starts" },
        { "@PointClass = x : \"d\"\n@PointClass = y []", "bad.fgd:1:15: class x has no [ ] body" },
        { "@PointClass base(A) size(-8 -8 -8, 8 8 8)", "bad.fgd:1:2: @PointClass without '= name [ ... ]'" },
        { "@PointClass model({\"path\": \"a.mdl\" \"skin\": 1}) = x []", "bad.fgd:1:36: ',' or '}' after a model's \"path\"" },
        { "@mapsize(0, 1) ]", "bad.fgd:1:16: ']' closes nothing" },
        { "@PointClass = x [ \"a\" \0 ]", "bad.fgd:1:23: a NUL byte" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fgd *g = fgd_new();
        pmf_error err;
        char line[512];
        size_t size = strlen(cases[i].text) + (i == 8 ? 3 : 0);
        bool ok = fgd_add_text(g, cases[i].text, size, "bad.fgd", &err);
        CHECK(!ok && !strcmp(pmf_error_format(&err, line, sizeof line), cases[i].line), "case %zu: %s", i, ok ? "read" : line);
        fgd_free(g);
    }
}

int main(void)
{
    test_sample();
    test_include();
    test_malformed();
    TEST_DONE();
}
