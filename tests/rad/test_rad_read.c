/* test_rad_read.c - the lights.rad reader on a file written here: each line form, comments, a
 * name as long as it keeps, one longer (skipped: its rest is no number), lines with no number,
 * and a file that is not there. */
#include <stdlib.h>

#include "common/check.h"
#include "rad.h"

typedef struct seen {
    char name[4][RAD_NAME_MAX];
    double values[4][4];
    int count[4];
    int entries;
} seen;

static void note(void *user, const char *name, const double *values, int count)
{
    seen *s = user;
    if (s->entries < 4) {
        snprintf(s->name[s->entries], RAD_NAME_MAX, "%s", name);
        for (int k = 0; k < count; k++) s->values[s->entries][k] = values[k];
        s->count[s->entries] = count;
    }
    s->entries++;
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: test_rad_read WORK_FILE");
    FILE *f = fopen(argv[1], "w");
    REQUIRE(f != NULL, "cannot write %s", argv[1]);
    char longest[RAD_NAME_MAX], too_long[RAD_NAME_MAX + 8];
    memset(longest, 'A', sizeof longest - 1);
    longest[sizeof longest - 1] = 0;
    memset(too_long, 'B', sizeof too_long - 1);
    too_long[sizeof too_long - 1] = 0;
    fprintf(f, "// a comment line\n"
               "+0~LIGHT1 255 200 100 750 // a lamp\n"
               "\n"
               "NAMEONLY\n"
               "grey 40\n"
               "rgb 1.5 2 3\n"
               "%s 7\n"
               "%s 9\n", longest, too_long);
    fclose(f);

    seen s = { 0 };
    CHECK(rad_read(argv[1], note, &s));
    CHECK_EQ(s.entries, 4);
    CHECK(!strcmp(s.name[0], "+0~LIGHT1"), "%s", s.name[0]);
    CHECK_EQ(s.count[0], 4);
    CHECK_NEAR(s.values[0][0], 255, 0);
    CHECK_NEAR(s.values[0][3], 750, 0);
    CHECK(!strcmp(s.name[1], "grey") && s.count[1] == 1, "%s %d", s.name[1], s.count[1]);
    CHECK_NEAR(s.values[1][0], 40, 0);
    CHECK(!strcmp(s.name[2], "rgb") && s.count[2] == 3, "%s %d", s.name[2], s.count[2]);
    CHECK_NEAR(s.values[2][0], 1.5, 0);
    CHECK_NEAR(s.values[2][2], 3, 0);
    CHECK(!strcmp(s.name[3], longest) && s.count[3] == 1, "%zu bytes, %d values", strlen(s.name[3]), s.count[3]);
    CHECK_NEAR(s.values[3][0], 7, 0);

    /* the same bytes from memory (a lights.rad in a pak), the last line without its newline */
    f = fopen(argv[1], "rb");
    REQUIRE(f != NULL, "cannot read %s", argv[1]);
    char text[1024];
    size_t size = fread(text, 1, sizeof text, f);
    fclose(f);
    seen m = { 0 };
    rad_read_memory(text, size - 1, note, &m);
    CHECK_EQ(m.entries, s.entries);
    for (int i = 0; i < 4; i++)
        CHECK(!strcmp(m.name[i], s.name[i]) && m.count[i] == s.count[i] && m.values[i][0] == s.values[i][0], "entry %d: %s", i, m.name[i]);

    seen none = { 0 };
    CHECK(!rad_read("/nonexistent/lights.rad", note, &none));
    CHECK_EQ(none.entries, 0);
    remove(argv[1]);
    TEST_DONE();
}
