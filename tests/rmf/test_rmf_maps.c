/* test_rmf_maps.c - the 22 real maps of ../shared/data/rmf: counts read from their bytes, the six
 * versions of one map giving the same geometry and entities, the face orientation rules rmf.h
 * documents, rmf_build_box against boxes Hammer saved, and files that are not regular files.
 * usage: test_rmf_maps SHARED_RMF_DIR WORK_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/programs.h"
#include "rmf_build.h"
#include "rmf_test_util.h"

static const char *maps_dir;

static bool load(const char *name, rmf_map *map)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", maps_dir, name);
    bool ok = read_map_file(path, map);
    if (!ok)
        fprintf(stderr, "  could not read %s\n", name);
    CHECK(ok);
    return ok;
}

/* Counted per object kind while walking a map. */
typedef struct tally {
    uint32_t solids, faces, entities, point_entities, groups, kvs;
} tally;

static void count_object(const rmf_object *o, size_t depth, void *user)
{
    (void)depth;
    tally *t = user;
    if (o->kind == RMF_SOLID) {
        t->solids++;
        t->faces += o->face_count;
    } else if (o->kind == RMF_ENTITY) {
        t->entities++;
        t->point_entities += o->entity.point;
        t->kvs += o->entity.kv_count;
    } else if (o->kind == RMF_GROUP) {
        t->groups++;
    }
}

/* Counts found by reading the files' bytes (type strings "CMapSolid" / "CMapEntity" /
 * "CMapGroup" and "DOCINFO" counted in each file agree with them). */
static const struct expected_map {
    const char *name;
    float version;
    uint32_t solids, faces, entities, point_entities, groups, visgroups, cameras;
    bool docinfo;
} expected_maps[] = {
    { "08.rmf", 0.8f, 3, 18, 2, 1, 1, 2, 0, false },
    { "08_visgroups.rmf", 0.8f, 1, 6, 0, 0, 0, 55, 0, false },
    { "09.rmf", 0.9f, 3, 18, 2, 1, 1, 2, 0, false },
    { "14.rmf", 1.4f, 3, 18, 2, 1, 1, 2, 0, true },
    { "16.rmf", 1.6f, 3, 18, 2, 1, 1, 2, 0, true },
    { "18.rmf", 1.8f, 3, 18, 2, 1, 1, 2, 0, true },
    { "22.rmf", 2.2f, 3, 18, 2, 1, 1, 2, 0, true },
    { "decay_test.rmf", 2.2f, 9, 54, 9, 0, 0, 0, 0, true },
    { "mess_macro_brush_example.rmf", 2.2f, 48, 294, 35, 0, 0, 0, 1, true },
    { "mess_macro_cover_example.rmf", 2.2f, 99, 598, 19, 0, 0, 0, 1, true },
    { "mess_macro_fill_example.rmf", 2.2f, 27, 170, 14, 0, 0, 0, 1, true },
    { "mess_macro_insert_example.rmf", 2.2f, 21, 126, 31, 0, 0, 0, 1, true },
    { "mess_mess_counter_multisource.rmf", 2.2f, 6, 36, 22, 0, 0, 0, 1, true },
    { "mess_mess_multisource.rmf", 2.2f, 3, 18, 6, 0, 0, 0, 0, false },
    { "mess_message_system.rmf", 2.2f, 8, 48, 13, 0, 0, 0, 1, true },
    { "mess_monster_warp.rmf", 2.2f, 0, 0, 8, 0, 0, 0, 1, true },
    { "mess_rat.rmf", 2.2f, 1, 6, 4, 0, 0, 0, 1, true },
    { "mess_rathunt_example.rmf", 2.2f, 28, 168, 67, 0, 0, 0, 1, true },
    { "prefab_1.5b.rmf", 1.6f, 1, 6, 0, 0, 0, 0, 0, false },
    { "prefab_2.1.rmf", 1.8f, 1, 6, 0, 0, 0, 0, 0, false },
    { "test-cube-1.6.rmf", 1.6f, 1, 6, 0, 0, 0, 0, 0, true },
    { "test-cube-2.2.rmf", 2.2f, 1, 6, 0, 0, 0, 0, 0, true },
};

static void test_counts(void)
{
    for (size_t i = 0; i < sizeof expected_maps / sizeof expected_maps[0]; i++) {
        const struct expected_map *e = &expected_maps[i];
        rmf_map map;
        if (!load(e->name, &map))
            continue;
        tally t = { 0 };
        rmf_walk(&map.world, count_object, &t);
        fprintf(stderr, "  %s: %u solids, %u faces, %u entities, %u groups, %u visgroups, %u cameras\n", e->name,
                map.solid_count, map.face_count, map.entity_count, map.group_count, map.visgroup_count,
                map.camera_count);
        CHECK(map.version == e->version);
        CHECK_EQ(map.solid_count, e->solids);
        CHECK_EQ(t.solids, e->solids);
        CHECK_EQ(map.face_count, e->faces);
        CHECK_EQ(t.faces, e->faces);
        CHECK_EQ(map.entity_count, e->entities);
        CHECK_EQ(t.entities, e->entities);
        CHECK_EQ(map.group_count, e->groups);
        CHECK_EQ(t.groups, e->groups);
        CHECK_EQ(map.visgroup_count, e->visgroups);
        CHECK_EQ(map.camera_count, e->cameras);
        CHECK_EQ(map.has_docinfo, e->docinfo);
        CHECK_EQ(map.path_count, 0);
        if (e->point_entities)
            CHECK_EQ(t.point_entities, e->point_entities);
        CHECK(map.world.kind == RMF_WORLD && strcmp(map.world.entity.classname, "worldspawn") == 0);
        rmf_free(&map);
    }
}

/* ---- the same map saved by six versions ----------------------------------------------------- */

typedef struct face_key {
    char texture[261];
    uint32_t vertex_count;
    float vertices[8][3];
} face_key;

typedef struct entity_key {
    char line[1024];           /* classname, flags, point, origin, every key-value */
} entity_key;

typedef struct map_summary {
    face_key faces[32];
    uint32_t face_count;
    entity_key entities[8];
    uint32_t entity_count;
} map_summary;

static void summarise(const rmf_object *o, size_t depth, void *user)
{
    (void)depth;
    map_summary *s = user;
    for (uint32_t i = 0; i < o->face_count && s->face_count < 32; i++) {
        face_key *k = &s->faces[s->face_count++];
        memset(k, 0, sizeof *k);
        memcpy(k->texture, o->faces[i].texture, sizeof k->texture);
        k->vertex_count = o->faces[i].vertex_count < 8 ? o->faces[i].vertex_count : 8;
        memcpy(k->vertices, o->faces[i].vertices, k->vertex_count * sizeof k->vertices[0]);
    }
    if (o->kind == RMF_ENTITY && s->entity_count < 8) {
        entity_key *k = &s->entities[s->entity_count++];
        const rmf_entity *e = &o->entity;
        int n = snprintf(k->line, sizeof k->line, "%s flags %d point %d origin %g %g %g children %u:", e->classname,
                         e->spawnflags, e->point, (double)e->origin[0], (double)e->origin[1], (double)e->origin[2],
                         o->child_count);
        for (uint32_t i = 0; i < e->kv_count && n > 0 && (size_t)n < sizeof k->line; i++)
            n += snprintf(k->line + n, sizeof k->line - (size_t)n, " %s=%s", e->kv[i].key, e->kv[i].value);
    }
}

static int compare_faces(const void *a, const void *b)
{
    const face_key *x = a, *y = b;
    int c = strcmp(x->texture, y->texture);
    if (c)
        return c;
    if (x->vertex_count != y->vertex_count)
        return x->vertex_count < y->vertex_count ? -1 : 1;
    for (uint32_t i = 0; i < x->vertex_count; i++)
        for (int j = 0; j < 3; j++) {
            long p = lroundf(x->vertices[i][j] * 100), q = lroundf(y->vertices[i][j] * 100);
            if (p != q)
                return p < q ? -1 : 1;
        }
    return 0;
}

static int compare_entities(const void *a, const void *b)
{
    return strcmp(((const entity_key *)a)->line, ((const entity_key *)b)->line);
}

static void test_six_versions(void)
{
    static const char *const names[] = { "08.rmf", "09.rmf", "14.rmf", "16.rmf", "18.rmf", "22.rmf" };
    static map_summary summaries[6];
    for (int v = 0; v < 6; v++) {
        rmf_map map;
        if (!load(names[v], &map))
            return;
        memset(&summaries[v], 0, sizeof summaries[v]);
        rmf_walk(&map.world, summarise, &summaries[v]);
        qsort(summaries[v].faces, summaries[v].face_count, sizeof(face_key), compare_faces);
        qsort(summaries[v].entities, summaries[v].entity_count, sizeof(entity_key), compare_entities);
        rmf_free(&map);
    }
    const map_summary *ref = &summaries[5];
    CHECK_EQ(ref->face_count, 18);
    CHECK_EQ(ref->entity_count, 2);
    uint32_t vertices_compared = 0;
    for (int v = 0; v < 5; v++) {
        const map_summary *s = &summaries[v];
        CHECK_EQ(s->face_count, ref->face_count);
        CHECK_EQ(s->entity_count, ref->entity_count);
        for (uint32_t f = 0; f < s->face_count && f < ref->face_count; f++) {
            CHECK(strcmp(s->faces[f].texture, ref->faces[f].texture) == 0);
            CHECK_EQ(s->faces[f].vertex_count, ref->faces[f].vertex_count);
            for (uint32_t i = 0; i < s->faces[f].vertex_count; i++, vertices_compared++)
                for (int j = 0; j < 3; j++)
                    CHECK(fabsf(s->faces[f].vertices[i][j] - ref->faces[f].vertices[i][j]) <= 1e-4f);
        }
        for (uint32_t e = 0; e < s->entity_count && e < ref->entity_count; e++) {
            if (strcmp(s->entities[e].line, ref->entities[e].line) != 0)
                fprintf(stderr, "  %s: %s\n  22.rmf: %s\n", names[v], s->entities[e].line, ref->entities[e].line);
            CHECK(strcmp(s->entities[e].line, ref->entities[e].line) == 0);
        }
    }
    CHECK_EQ(vertices_compared, 5 * 18 * 4);
    /* what the map holds, read from 22.rmf's bytes */
    CHECK(strcmp(ref->entities[0].line, "func_button flags 0 point 0 origin 0 0 0 children 1: speed=99 sounds=1 "
                                        "wait=4 lip=0 dmg=0 health=0 delay=0") == 0);
    CHECK(strcmp(ref->entities[1].line, "info_player_start flags 256 point 1 origin 60 188 -428 children 0:") == 0);
}

/* Visgroups: 1.4+ block at the top, 0.8 / 0.9 after the world, per-object ids. */
static void test_visgroups(void)
{
    rmf_map map;
    if (load("22.rmf", &map)) {
        CHECK_EQ(map.visgroup_count, 2);
        if (map.visgroup_count == 2) {
            CHECK(strcmp(map.visgroups[0].name, "123") == 0);
            CHECK_EQ(map.visgroups[0].id, 1);
            CHECK(map.visgroups[0].visible);  /* "123\0group..." is stored: the name ends at the NUL */
            CHECK(memcmp(map.visgroups[0].color, (uint8_t[3]){ 14, 105, 0 }, 3) == 0);
            CHECK(strcmp(map.visgroups[1].name, "456") == 0);
            CHECK_EQ(map.visgroups[1].id, 2);
        }
        /* the func_button (world child 1) is in visgroup 1, the group in none */
        CHECK_EQ(map.world.child_count, 3);
        CHECK_EQ(map.world.children[0].visgroup_count, 0);
        CHECK_EQ(map.world.children[1].visgroup_count, 1);
        CHECK_EQ(map.world.children[1].visgroups[0], 1);
        CHECK(memcmp(map.world.color, (uint8_t[3]){ 220, 220, 220 }, 3) == 0);
        rmf_free(&map);
    }
    if (load("08.rmf", &map)) {
        CHECK_EQ(map.visgroup_count, 2);
        if (map.visgroup_count == 2) {
            CHECK(strcmp(map.visgroups[0].name, "123") == 0);
            CHECK_EQ(map.visgroups[0].id, 1);
            CHECK(strcmp(map.visgroups[1].name, "456") == 0);
            CHECK_EQ(map.visgroups[1].id, 2);
        }
        /* 0.8: the first solid lists visgroup ids 1 and 2 (8 id bytes, zeros dropped) */
        const rmf_object *solid = &map.world.children[0].children[0];
        CHECK(solid->kind == RMF_SOLID);
        CHECK_EQ(solid->visgroup_count, 2);
        if (solid->visgroup_count == 2)
            CHECK(solid->visgroups[0] == 1 && solid->visgroups[1] == 2);
        rmf_free(&map);
    }
    if (load("08_visgroups.rmf", &map)) {
        CHECK_EQ(map.visgroup_count, 55);
        for (uint32_t i = 0; i < map.visgroup_count; i++)
            CHECK(map.visgroups[i].name[0] != 0);
        rmf_free(&map);
    }
}

/* Objects in a visgroup carry its colour: stored reversed in every version, so object colours
 * are BGR from 0.8 to 2.2 (rmf.h). */
typedef struct colour_check {
    const rmf_map *map;
    uint32_t in_visgroup, same_colour;
    uint8_t button[3];         /* the func_button's colour */
} colour_check;

static void check_visgroup_colour(const rmf_object *o, size_t depth, void *user)
{
    (void)depth;
    colour_check *c = user;
    if (o->kind == RMF_ENTITY && strcmp(o->entity.classname, "func_button") == 0)
        memcpy(c->button, o->color, 3);
    if (!o->visgroup_count)
        return;
    c->in_visgroup++;
    for (uint32_t i = 0; i < c->map->visgroup_count; i++)
        if (c->map->visgroups[i].id == o->visgroups[0] && memcmp(c->map->visgroups[i].color, o->color, 3) == 0)
            c->same_colour++;
}

static void test_colours(void)
{
    static const char *const names[] = { "08.rmf", "09.rmf", "14.rmf", "16.rmf", "18.rmf", "22.rmf", "08_visgroups.rmf" };
    uint32_t in_visgroup = 0, same_colour = 0;
    for (int i = 0; i < 7; i++) {
        rmf_map map;
        if (!load(names[i], &map))
            continue;
        colour_check c = { &map, 0, 0, { 0 } };
        rmf_walk(&map.world, check_visgroup_colour, &c);
        in_visgroup += c.in_visgroup;
        same_colour += c.same_colour;
        /* the button is in visgroup 1 everywhere; from 1.4 on that visgroup is (14, 105, 0) */
        if (i >= 2 && i <= 5)
            CHECK(memcmp(c.button, (uint8_t[3]){ 14, 105, 0 }, 3) == 0);
        rmf_free(&map);
    }
    fprintf(stderr, "  colours: %u objects in a visgroup, %u with its colour\n", in_visgroup, same_colour);
    CHECK_EQ(in_visgroup, 8);
    CHECK_EQ(same_colour, 8);
}

/* ---- face orientation (rmf.h): checked on every face of every shared map -------------------- */

static void sub3(const float a[3], const float b[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = (double)a[i] - (double)b[i];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static bool unit(double v[3])
{
    double len = sqrt(dot3(v, v));
    if (len < 1e-9)
        return false;
    for (int i = 0; i < 3; i++)
        v[i] /= len;
    return true;
}

typedef struct orientation_stats {
    uint32_t faces, vertex_normal_out, plane_normal_out, on_plane, solid_inside;
} orientation_stats;

static void check_solid_orientation(const rmf_object *o, size_t depth, void *user)
{
    (void)depth;
    orientation_stats *s = user;
    if (o->kind != RMF_SOLID)
        return;
    double centre[3] = { 0 };
    uint32_t n = 0;
    for (uint32_t f = 0; f < o->face_count; f++)
        for (uint32_t v = 0; v < o->faces[f].vertex_count; v++, n++)
            for (int i = 0; i < 3; i++)
                centre[i] += o->faces[f].vertices[v][i];
    for (int i = 0; i < 3; i++)
        centre[i] /= n ? n : 1;
    for (uint32_t f = 0; f < o->face_count; f++) {
        const rmf_face *face = &o->faces[f];
        s->faces++;
        if (face->vertex_count < 3)
            continue;
        double a[3], b[3], nv[3], np[3], out[3] = { 0 };
        /* outward from the vertices: (v2 - v0) x (v1 - v0) */
        sub3(face->vertices[2], face->vertices[0], a);
        sub3(face->vertices[1], face->vertices[0], b);
        cross3(a, b, nv);
        /* outward from the plane points: (p2 - p0) x (p1 - p0) */
        sub3(face->plane[2], face->plane[0], a);
        sub3(face->plane[1], face->plane[0], b);
        cross3(a, b, np);
        for (uint32_t v = 0; v < face->vertex_count; v++)
            for (int i = 0; i < 3; i++)
                out[i] += face->vertices[v][i] / face->vertex_count - centre[i] / face->vertex_count;
        if (!unit(nv) || !unit(np))
            continue;
        s->vertex_normal_out += dot3(nv, out) > 0;
        s->plane_normal_out += dot3(np, out) > 0 && dot3(np, nv) > 0.9999;
        /* every vertex on the plane, every vertex of the solid behind it */
        double p0[3] = { face->plane[0][0], face->plane[0][1], face->plane[0][2] }, d = dot3(np, p0);
        bool on = true, inside = true;
        for (uint32_t v = 0; v < face->vertex_count; v++) {
            double p[3] = { face->vertices[v][0], face->vertices[v][1], face->vertices[v][2] };
            on = on && fabs(dot3(np, p) - d) < 0.01;
        }
        for (uint32_t g = 0; g < o->face_count; g++)
            for (uint32_t v = 0; v < o->faces[g].vertex_count; v++) {
                double p[3] = { o->faces[g].vertices[v][0], o->faces[g].vertices[v][1], o->faces[g].vertices[v][2] };
                inside = inside && dot3(np, p) <= d + 0.01;
            }
        s->on_plane += on;
        s->solid_inside += inside;
    }
}

static void test_orientation(void)
{
    orientation_stats s = { 0 };
    uint32_t expected = 0;
    for (size_t i = 0; i < sizeof expected_maps / sizeof expected_maps[0]; i++) {
        rmf_map map;
        if (!load(expected_maps[i].name, &map))
            continue;
        rmf_walk(&map.world, check_solid_orientation, &s);
        expected += expected_maps[i].faces;
        rmf_free(&map);
    }
    fprintf(stderr, "  orientation: %u faces, outward by vertices %u, by plane points %u, on plane %u, solid behind %u\n",
            s.faces, s.vertex_normal_out, s.plane_normal_out, s.on_plane, s.solid_inside);
    CHECK_EQ(s.faces, expected);
    CHECK_EQ(s.vertex_normal_out, expected);
    CHECK_EQ(s.plane_normal_out, expected);
    CHECK_EQ(s.on_plane, expected);
    CHECK_EQ(s.solid_inside, expected);
}

/* rmf_build_box_faces gives exactly the faces Hammer 2.2 saved for the same boxes. */
static void check_box_matches(const rmf_object *solid, const float lo[3], const float hi[3], const char *texture)
{
    rmf_face faces[6];
    float vertices[24][3];
    rmf_build_box_faces(lo, hi, texture, faces, vertices);
    CHECK_EQ(solid->face_count, 6);
    for (uint32_t f = 0; f < 6 && f < solid->face_count; f++) {
        const rmf_face *h = &solid->faces[f], *m = &faces[f];
        CHECK(strcmp(h->texture, m->texture) == 0);
        CHECK_EQ(h->vertex_count, 4);
        if (h->vertex_count == 4)
            CHECK(memcmp(h->vertices, m->vertices, 4 * sizeof h->vertices[0]) == 0);
        CHECK(memcmp(h->plane, m->plane, sizeof h->plane) == 0);
        CHECK(memcmp(h->u_axis, m->u_axis, sizeof h->u_axis) == 0);
        CHECK(memcmp(h->v_axis, m->v_axis, sizeof h->v_axis) == 0);
        CHECK(h->shift[0] == 0 && h->shift[1] == 0 && h->scale[0] == 1 && h->scale[1] == 1 && h->rotation == 0);
    }
}

static void test_box_as_hammer_saves(void)
{
    rmf_map map;
    if (load("22.rmf", &map)) {
        check_box_matches(&map.world.children[0].children[0], (float[3]){ 0, 0, 0 }, (float[3]){ 64, 64, 64 }, "");
        check_box_matches(&map.world.children[0].children[1], (float[3]){ 128, 0, -460 }, (float[3]){ 192, 64, -396 },
                          "");
        rmf_free(&map);
    }
    if (load("decay_test.rmf", &map)) {
        check_box_matches(&map.world.children[0], (float[3]){ -512, -512, -64 }, (float[3]){ 512, 512, 0 },
                          "asphalt01");
        rmf_free(&map);
    }
}

/* Only regular files are read; a FIFO is refused at once (a blocking open would hang here). */
static void test_not_regular_files(const char *work)
{
    char fifo[1024], line[512];
    snprintf(fifo, sizeof fifo, "%s/fifo.rmf", work);
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    rmf_map map;
    pmf_error err;
    CHECK(!rmf_read_file(fifo, &map, &err));
    fprintf(stderr, "  expected error: %s\n", pmf_error_format(&err, line, sizeof line));
    CHECK(strcmp(err.block, "file") == 0 && err.offset == 0 && strcmp(err.message, "not a regular file") == 0);
    unlink(fifo);
    CHECK(!rmf_read_file(work, &map, &err));
    CHECK(strcmp(err.message, "is a directory") == 0);
    snprintf(fifo, sizeof fifo, "%s/missing.rmf", work);
    CHECK(!rmf_read_file(fifo, &map, &err));
    fprintf(stderr, "  expected error: %s\n", pmf_error_format(&err, line, sizeof line));
    CHECK(strncmp(err.message, "cannot open: ", 13) == 0);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_rmf_maps SHARED_RMF_DIR WORK_DIR\n");
        return 1;
    }
    maps_dir = argv[1];
    test_make_dir(argv[2]);
    test_counts();
    test_six_versions();
    test_visgroups();
    test_colours();
    test_orientation();
    test_box_as_hammer_saves();
    test_not_regular_files(argv[2]);
    return check_report("test_rmf_maps");
}
