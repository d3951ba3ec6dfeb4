/* test_map_read.c - the .map reader on each dialect (Quake standard, Valve 220, Quake 2 with its
 * surface numbers, a skipped brushDef, quoted names, comments), on errors that must name their
 * line and column, and on damage: every truncation and thousands of seeded byte flips give a
 * clean one-line error or a map whose every index holds, never a crash (the ASan build runs this
 * too). With a directory argument, every .map there reads. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "map_read.h"
#include "map_samples.h"

#define FLIPS 4000

static void check_clean_line(const pmf_error *err)
{
    check_error_line_clean(err);
    CHECK(err->over_budget || err->line >= 1);
}

static void walk(const qmap *m)
{
    for (uint32_t e = 0; e < m->entity_count; e++) {
        const qmap_entity *ent = &m->entities[e];
        CHECK((uint64_t)ent->first_kv + ent->kv_count <= m->kv_count && (uint64_t)ent->first_brush + ent->brush_count <= m->brush_count);
        for (uint32_t b = 0; b < ent->brush_count; b++) {
            const qmap_brush *br = &m->brushes[ent->first_brush + b];
            CHECK((uint64_t)br->first_face + br->face_count <= m->face_count);
        }
    }
}

static void damage(const char *text)
{
    size_t size = strlen(text);
    qmap m;
    pmf_error err;
    for (size_t n = 0; n < size; n++) {
        if (qmap_read((const uint8_t *)text, n, "cut.map", &m, &err)) { walk(&m); qmap_free(&m); }
        else check_clean_line(&err);
    }
    srand((unsigned)size);
    uint8_t *flip = malloc(size);
    for (int i = 0; i < FLIPS; i++) {
        memcpy(flip, text, size);
        for (int k = 0; k < 1 + i % 3; k++) flip[(size_t)rand() % size] ^= (uint8_t)(1 + rand() % 255);
        if (qmap_read(flip, size, "flip.map", &m, &err)) { walk(&m); qmap_free(&m); }
        else check_clean_line(&err);
    }
    free(flip);
}

static bool read_text(const char *text, qmap *m)
{
    pmf_error err;
    bool ok = qmap_read((const uint8_t *)text, strlen(text), "t.map", m, &err);
    if (!ok) {
        char line[800];
        fprintf(stderr, "%s\n", pmf_error_format(&err, line, sizeof line));
    }
    return ok;
}

/* Expects an error at line:column. */
static void check_error(const char *text, int line, int column)
{
    qmap m;
    pmf_error err;
    bool ok = qmap_read((const uint8_t *)text, strlen(text), "bad.map", &m, &err);
    CHECK(!ok);
    if (ok) { qmap_free(&m); return; }
    char buf[800];
    fprintf(stderr, "  expected error: %s\n", pmf_error_format(&err, buf, sizeof buf));
    CHECK_EQ(err.line, line);
    CHECK_EQ(err.column, column);
}

/* Keys, values and words of any length: Hammer's `wad` list of every WAD path runs to kilobytes
 * (issue 33); a 5000-byte value, a 300-byte key and a 2000-byte texture name read whole. */
static void check_long_tokens(void)
{
    size_t value_len = 5000, key_len = 300, texture_len = 2000;
    static const char wad_path[] = "\\sierra\\half-life\\valve\\x.wad;";
    char *text = malloc(value_len + key_len + 4 * texture_len + 1024);
    char *p = text;
    p += sprintf(p, "{\n\"classname\" \"worldspawn\"\n\"wad\" \"");
    for (size_t i = 0; i < value_len; i++) *p++ = wad_path[i % (sizeof wad_path - 1)];
    p += sprintf(p, "\"\n\"_tb_");
    memset(p, 'k', key_len - 4);
    p += key_len - 4;
    p += sprintf(p, "\" \"v\"\n{\n");
    for (int f = 0; f < 4; f++) {
        p += sprintf(p, "( 0 0 %d ) ( 1 0 %d ) ( 0 1 %d ) ", f, f, f);
        memset(p, 'T', texture_len);
        p += texture_len;
        p += sprintf(p, " 0 0 0 1 1\n");
    }
    sprintf(p, "}\n}\n");
    qmap m;
    if (read_text(text, &m)) {
        const char *wad = qmap_value(&m, &m.entities[0], "wad");
        CHECK(wad && strlen(wad) == value_len);
        CHECK_EQ(m.entities[0].kv_count, 3);
        CHECK_EQ(strlen(m.kvs[2].key), key_len);
        CHECK_EQ(m.face_count, 4);
        CHECK(m.face_count == 4 && strlen(m.faces[3].texture) == texture_len && m.faces[3].texture[0] == 'T');
        qmap_free(&m);
    } else {
        check_fail("a map of long tokens does not read");
    }
    free(text);
}

int main(int argc, char **argv)
{
    qmap m;
    if (read_text(map_sample_standard, &m)) {
        CHECK(strcmp(m.game, "Quake") == 0);
        CHECK(!m.valve && !m.quake2);
        CHECK_EQ(m.entity_count, 3);
        CHECK_EQ(m.brush_count, 3);
        CHECK_EQ(m.face_count, 18);
        CHECK(strcmp(qmap_value(&m, &m.entities[0], "WAD"), "q.wad") == 0);
        const qmap_face *f = &m.faces[0];
        CHECK(strcmp(f->texture, "brick1") == 0);
        CHECK(f->shift[0] == 8 && f->shift[1] == -4 && f->rotation == 15 && f->scale[0] == 0.5 && f->scale[1] == 2);
        CHECK(f->points[0][0] == -64 && f->points[1][1] == -63 && f->points[2][2] == -15);
        CHECK(strcmp(m.faces[6].texture, "door one") == 0);
        CHECK(strcmp(m.faces[12].texture, "*water1") == 0);
        CHECK_EQ(m.entities[1].brush_count, 2);
        CHECK_EQ(m.entities[2].brush_count, 0);
        qmap_free(&m);
    } else CHECK(!"standard");
    if (read_text(map_sample_valve, &m)) {
        CHECK(strcmp(m.game, "Half-Life") == 0);
        CHECK(m.valve);
        const qmap_face *f = &m.faces[0];
        CHECK(f->valve && f->u[0] == 1 && f->u[3] == 8 && f->v[1] == -1 && f->v[3] == 4);
        CHECK(f->rotation == 15 && f->scale[0] == 0.5 && f->scale[1] == 0.25);
        qmap_free(&m);
    } else CHECK(!"valve");
    if (read_text(map_sample_quake2, &m)) {
        CHECK(m.quake2);
        const qmap_face *f = &m.faces[5];
        CHECK(f->quake2 && f->contents == 1 && f->flags == 8 && f->value == 200);
        CHECK(strcmp(f->texture, "e1u1/floor1_1") == 0);
        qmap_free(&m);
    } else CHECK(!"quake2");
    if (read_text(map_sample_brushdef, &m)) {
        CHECK_EQ(m.skipped, 1);
        CHECK_EQ(m.skipped_line, 4);
        CHECK_EQ(m.brush_count, 1);
        qmap_free(&m);
    } else CHECK(!"brushdef");

    check_long_tokens();

    check_error("{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 1 0 0 brick 0 0 0 1 1\n}\n}\n", 4, 19);
    check_error("{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 1 0 0 ) ( 0 1 nan ) t 0 0 0 1 1\n}\n}\n", 4, 27);
    check_error("{\n\"classname\n\" \"x\"\n}\n", 2, 1);
    check_error("{\n\"classname\" \"worldspawn\"\n", 1, 1); /* the entity left open */

    damage(map_sample_standard);
    damage(map_sample_valve);
    damage(map_sample_quake2);

    if (argc > 1) {
        DIR *d = opendir(argv[1]);
        struct dirent *e;
        unsigned n = 0;
        while (d && (e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".map")) continue;
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
            pmf_error err;
            bool ok = qmap_read_file(path, &m, &err);
            if (!ok) {
                char line[800];
                fprintf(stderr, "%s\n", pmf_error_format(&err, line, sizeof line));
            }
            CHECK(ok);
            if (ok) { walk(&m); CHECK(m.entity_count >= 1); qmap_free(&m); n++; }
        }
        if (d) closedir(d);
        printf("%u shared .map files read\n", n);
    }
    return check_report("map_read");
}
