/* test_rmf_roundtrip.c - rmf_build -> rmf_read gives back every field, in versions 2.2, 1.8 and
 * 0.9: visgroups, world key-values, nested groups, solids with arbitrary faces, boxes, point and
 * brush entities, per-object visgroups and colours, paths with nodes, DOCINFO cameras; ordinals
 * and byte offsets point at the records they name. Every shared map in a version the writer
 * knows, written again from what was read, reads back the same.
 * usage: test_rmf_roundtrip SHARED_RMF_DIR WORK_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "common/programs.h"
#include "rmf_build.h"
#include "rmf_compare.h"
#include "rmf_test_util.h"

static const rmf_kv world_kv[] = { { "wad", "\\half-life\\valve\\halflife.wad;decals.wad" }, { "skyname", "night" } };
static const rmf_kv light_kv[] = { { "_light", "255 200 100 300" }, { "targetname", "lamp1" }, { "style", "" } };
static const rmf_kv door_kv[] = { { "speed", "100" }, { "rendermode", "2" }, { "renderamt", "128" } };
static const rmf_kv node_kv[] = { { "speed", "64" }, { "wait", "2" } };

static const rmf_visgroup visgroups[] = {
    { "walls", { 255, 0, 128 }, 1, true },
    { "hidden props", { 1, 2, 3 }, 7, false },
    { "lights with a long visgroup name that still fits in its one hundred and twenty-eight bytes",
      { 0, 200, 100 }, 200, true },
};

/* A five-sided prism with texture settings no box has. */
static float prism_vertices[5][4][3] = {
    { { 0, 0, 0 }, { 0, 32, 0 }, { 32, 0, 0 } },
    { { 0, 0, 16 }, { 32, 0, 16 }, { 0, 32, 16 } },
    { { 0, 0, 0 }, { 0, 0, 16 }, { 0, 32, 16 }, { 0, 32, 0 } },
    { { 0, 0, 0 }, { 32, 0, 0 }, { 32, 0, 16 }, { 0, 0, 16 } },
    { { 32, 0, 0 }, { 0, 32, 0 }, { 0, 32, 16 }, { 32, 0, 16 } },
};

static void make_prism(rmf_face faces[5], size_t texture_len)
{
    for (int f = 0; f < 5; f++) {
        rmf_face *face = &faces[f];
        memset(face, 0, sizeof *face);
        if (f == 0) /* a name filling the whole field, no NUL stored */
            memset(face->texture, 'A' + f, texture_len);
        else
            snprintf(face->texture, sizeof face->texture, "{fence%d", f);
        face->u_axis[0] = 0.6f, face->u_axis[1] = 0.8f;
        face->v_axis[2] = -1;
        face->shift[0] = 12.5f + (float)f, face->shift[1] = -3.25f;
        face->rotation = 30 + (float)f;
        face->scale[0] = 0.5f, face->scale[1] = 2 + (float)f;
        face->vertex_count = f < 2 ? 3 : 4;
        face->vertices = prism_vertices[f];
        memcpy(face->plane, prism_vertices[f], sizeof face->plane);
    }
}

static const rmf_camera cameras[] = {
    { { 1, 2, 3 }, { 4, 5, 6 } },
    { { -100, 50.5f, 64 }, { 0, 0, 0 } },
    { { 7, 8, 9 }, { 10, 11, 12 } },
};

static rmf_path_node path_nodes[] = {
    { { 0, 0, 64 }, 1, "", (rmf_kv *)node_kv, 2 },
    { { 128, 0, 64 }, 2, "corner_b", NULL, 0 },
    { { 128, 128, 64 }, 3, "", (rmf_kv *)node_kv, 1 },
};
static const rmf_path paths[] = {
    { "train_path", "path_track", 1, path_nodes, 3 },
    { "patrol", "path_corner", 2, path_nodes + 1, 2 },
};

static bool same_kvs(const rmf_kv *a, uint32_t a_count, const rmf_kv *b, uint32_t b_count)
{
    if (a_count != b_count)
        return false;
    for (uint32_t i = 0; i < a_count; i++)
        if (strcmp(a[i].key, b[i].key) != 0 || strcmp(a[i].value, b[i].value) != 0)
            return false;
    return true;
}

static void check_face(const rmf_face *got, const rmf_face *want, bool axes, const uint8_t *file, size_t texture_len)
{
    char expected_texture[261] = { 0 };
    memcpy(expected_texture, want->texture, strnlen(want->texture, texture_len));
    CHECK(strcmp(got->texture, expected_texture) == 0);
    CHECK(memcmp(file + got->offset, expected_texture, strlen(expected_texture)) == 0);
    CHECK_EQ(got->has_axes, axes);
    if (axes) {
        CHECK(memcmp(got->u_axis, want->u_axis, sizeof got->u_axis) == 0);
        CHECK(memcmp(got->v_axis, want->v_axis, sizeof got->v_axis) == 0);
    } else {
        CHECK(got->u_axis[0] == 0 && got->u_axis[1] == 0 && got->u_axis[2] == 0);
    }
    CHECK(got->shift[0] == want->shift[0] && got->shift[1] == want->shift[1]);
    CHECK(got->rotation == want->rotation);
    CHECK(got->scale[0] == want->scale[0] && got->scale[1] == want->scale[1]);
    CHECK_EQ(got->vertex_count, want->vertex_count);
    if (got->vertex_count == want->vertex_count)
        CHECK(memcmp(got->vertices, want->vertices, want->vertex_count * sizeof want->vertices[0]) == 0);
    CHECK(memcmp(got->plane, want->plane, sizeof got->plane) == 0);
}

static void check_object_head(const rmf_object *o, rmf_kind kind, uint32_t index, const int32_t *vis, uint32_t vis_count,
                              const uint8_t color[3], const uint8_t *file)
{
    static const char *const types[] = { "CMapWorld", "CMapGroup", "CMapSolid", "CMapEntity" };
    CHECK_EQ(o->kind, kind);
    CHECK_EQ(o->index, index);
    CHECK_EQ(o->visgroup_count, vis_count);
    for (uint32_t i = 0; i < vis_count && i < o->visgroup_count; i++)
        CHECK_EQ(o->visgroups[i], vis[i]);
    CHECK(memcmp(o->color, color, 3) == 0);
    CHECK_EQ(file[o->offset], strlen(types[kind]) + 1);
    CHECK(memcmp(file + o->offset + 1, types[kind], strlen(types[kind]) + 1) == 0);
}

/* Counts every object's ordinal per kind in file order. */
typedef struct ordinal_check { uint32_t next[4]; uint32_t wrong; } ordinal_check;

static void check_ordinal(const rmf_object *o, size_t depth, void *user)
{
    (void)depth;
    ordinal_check *c = user;
    c->wrong += o->index != c->next[o->kind]++;
}

static void roundtrip(float version, const char *work)
{
    bool old = version < 1.0f, axes = version == 2.2f;
    size_t texture_len = old ? 40 : 260;
    fprintf(stderr, "  version %.1f\n", (double)version);
    rmf_build *b = rmf_build_new(&(rmf_build_desc){
        .version = version,
        .world = { .spawnflags = 5, .kv = (rmf_kv *)world_kv, .kv_count = 2 },
    });
    for (int i = 0; i < 3; i++)
        rmf_build_visgroup(b, &visgroups[i]);

    /* world child 0: group in visgroup 1 holding a box and a nested group holding the prism */
    const int32_t in_walls[] = { 1 }, in_two[] = { 7, 200 };
    rmf_build_begin_group(b, &(rmf_build_object){ in_walls, 1, { 10, 20, 30 } });
    rmf_build_box(b, (float[3]){ -64, -64, 0 }, (float[3]){ 64, 64, 16 }, "FLOOR_1");
    rmf_build_begin_group(b, NULL);
    rmf_face prism[5];
    make_prism(prism, texture_len);
    rmf_build_solid(b, prism, 5, &(rmf_build_object){ old ? in_two : in_walls, old ? 2 : 1, { 200, 100, 50 } });
    rmf_build_end(b);
    rmf_build_end(b);
    /* world child 1: a point light in visgroup 200 */
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "light", .spawnflags = 1, .kv = (rmf_kv *)light_kv,
                                             .kv_count = 3, .origin = { 16.5f, -32, 96 } },
                           &(rmf_build_object){ (const int32_t[]){ 200 }, 1, { 255, 255, 0 } });
    /* world child 2: a brush entity with a box and a group of one box */
    rmf_build_begin_brush_entity(b, &(rmf_entity){ .classname = "func_door", .spawnflags = 256,
                                                   .kv = (rmf_kv *)door_kv, .kv_count = 3 },
                                 &(rmf_build_object){ .color = { 0, 0, 255 } });
    rmf_build_box(b, (float[3]){ 0, 0, 16 }, (float[3]){ 8, 64, 112 }, "DOOR");
    rmf_build_begin_group(b, NULL);
    rmf_build_box(b, (float[3]){ 8, 0, 16 }, (float[3]){ 16, 64, 112 }, "DOOR");
    rmf_build_end(b);
    rmf_build_end(b);
    /* world child 3: a point entity with no key-values */
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "info_player_start", .origin = { 0, 0, 36 } }, NULL);
    if (!old)
        for (int i = 0; i < 2; i++)
            rmf_build_path(b, &paths[i]);
    for (int i = 0; i < 3; i++)
        rmf_build_camera(b, &cameras[i], i == 1);

    char path[1024];
    snprintf(path, sizeof path, "%s/roundtrip_%.1f.rmf", work, (double)version);
    CHECK(rmf_build_write_file(b, path));
    size_t size;
    uint8_t *file = read_whole_file(path, &size);
    CHECK(file != NULL);
    rmf_map map;
    if (!file || !read_map_file(path, &map)) {
        CHECK(!"the written map reads");
        free(file);
        return;
    }
    CHECK(map.version == version);
    CHECK_EQ(map.solid_count, 4);
    CHECK_EQ(map.face_count, 3 * 6 + 5);
    CHECK_EQ(map.entity_count, 3);
    CHECK_EQ(map.group_count, 3);

    CHECK_EQ(map.visgroup_count, 3);
    for (uint32_t i = 0; i < 3 && i < map.visgroup_count; i++) {
        CHECK(strcmp(map.visgroups[i].name, visgroups[i].name) == 0);
        CHECK(memcmp(map.visgroups[i].color, visgroups[i].color, 3) == 0);
        CHECK_EQ(map.visgroups[i].id, visgroups[i].id);
        CHECK_EQ(map.visgroups[i].visible, visgroups[i].visible);
    }

    const rmf_object *w = &map.world;
    check_object_head(w, RMF_WORLD, 0, NULL, 0, (uint8_t[3]){ 220, 220, 220 }, file);
    CHECK(strcmp(w->entity.classname, "worldspawn") == 0);
    CHECK_EQ(w->entity.spawnflags, 5);
    CHECK(same_kvs(w->entity.kv, w->entity.kv_count, world_kv, 2));
    CHECK_EQ(w->child_count, 4);
    if (w->child_count == 4) {
        const rmf_object *g = &w->children[0];
        check_object_head(g, RMF_GROUP, 0, in_walls, 1, (uint8_t[3]){ 10, 20, 30 }, file);
        CHECK_EQ(g->child_count, 2);
        if (g->child_count == 2) {
            const rmf_object *box = &g->children[0];
            check_object_head(box, RMF_SOLID, 0, NULL, 0, (uint8_t[3]){ 0, 0, 0 }, file);
            rmf_face faces[6];
            float vertices[24][3];
            rmf_build_box_faces((float[3]){ -64, -64, 0 }, (float[3]){ 64, 64, 16 }, "FLOOR_1", faces, vertices);
            CHECK_EQ(box->face_count, 6);
            for (uint32_t f = 0; f < 6 && f < box->face_count; f++)
                check_face(&box->faces[f], &faces[f], axes, file, texture_len);
            const rmf_object *inner = &g->children[1];
            check_object_head(inner, RMF_GROUP, 1, NULL, 0, (uint8_t[3]){ 0, 0, 0 }, file);
            CHECK_EQ(inner->child_count, 1);
            if (inner->child_count == 1) {
                const rmf_object *s = &inner->children[0];
                check_object_head(s, RMF_SOLID, 1, old ? in_two : in_walls, old ? 2 : 1, (uint8_t[3]){ 200, 100, 50 },
                                  file);
                CHECK_EQ(s->face_count, 5);
                for (uint32_t f = 0; f < 5 && f < s->face_count; f++)
                    check_face(&s->faces[f], &prism[f], axes, file, texture_len);
                CHECK_EQ(strlen(s->faces[0].texture), texture_len);
            }
        }
        const rmf_object *light = &w->children[1];
        check_object_head(light, RMF_ENTITY, 0, (const int32_t[]){ 200 }, 1, (uint8_t[3]){ 255, 255, 0 }, file);
        CHECK(strcmp(light->entity.classname, "light") == 0);
        CHECK_EQ(light->entity.spawnflags, 1);
        CHECK(light->entity.point);
        CHECK(light->entity.origin[0] == 16.5f && light->entity.origin[1] == -32 && light->entity.origin[2] == 96);
        CHECK(same_kvs(light->entity.kv, light->entity.kv_count, light_kv, 3));
        CHECK_EQ(light->child_count, 0);

        const rmf_object *door = &w->children[2];
        check_object_head(door, RMF_ENTITY, 1, NULL, 0, (uint8_t[3]){ 0, 0, 255 }, file);
        CHECK(strcmp(door->entity.classname, "func_door") == 0);
        CHECK_EQ(door->entity.spawnflags, 256);
        CHECK(!door->entity.point);
        CHECK(same_kvs(door->entity.kv, door->entity.kv_count, door_kv, 3));
        CHECK_EQ(door->child_count, 2);
        if (door->child_count == 2) {
            check_object_head(&door->children[0], RMF_SOLID, 2, NULL, 0, (uint8_t[3]){ 0, 0, 0 }, file);
            check_object_head(&door->children[1], RMF_GROUP, 2, NULL, 0, (uint8_t[3]){ 0, 0, 0 }, file);
            CHECK_EQ(door->children[1].child_count, 1);
            if (door->children[1].child_count == 1)
                CHECK_EQ(door->children[1].children[0].index, 3);
            CHECK(strcmp(door->children[0].faces[0].texture, "DOOR") == 0);
        }
        const rmf_object *start = &w->children[3];
        check_object_head(start, RMF_ENTITY, 2, NULL, 0, (uint8_t[3]){ 0, 0, 0 }, file);
        CHECK(strcmp(start->entity.classname, "info_player_start") == 0);
        CHECK(start->entity.point && start->entity.kv_count == 0 && start->entity.origin[2] == 36);
    }
    ordinal_check ordinals = { { 0 }, 0 };
    rmf_walk(&map.world, check_ordinal, &ordinals);
    CHECK_EQ(ordinals.wrong, 0);
    CHECK_EQ(ordinals.next[RMF_SOLID], 4);
    CHECK_EQ(ordinals.next[RMF_GROUP], 3);

    CHECK_EQ(map.path_count, old ? 0 : 2);
    for (uint32_t i = 0; i < map.path_count && i < 2; i++) {
        const rmf_path *got = &map.paths[i], *want = &paths[i];
        CHECK(strcmp(got->name, want->name) == 0 && strcmp(got->classname, want->classname) == 0);
        CHECK_EQ(got->type, want->type);
        CHECK_EQ(got->node_count, want->node_count);
        for (uint32_t j = 0; j < got->node_count && j < want->node_count; j++) {
            const rmf_path_node *gn = &got->nodes[j], *wn = &want->nodes[j];
            CHECK(memcmp(gn->position, wn->position, sizeof gn->position) == 0);
            CHECK_EQ(gn->index, wn->index);
            CHECK(strcmp(gn->name, wn->name) == 0);
            CHECK(same_kvs(gn->kv, gn->kv_count, wn->kv, wn->kv_count));
        }
    }
    CHECK(map.has_docinfo);
    CHECK_EQ(map.active_camera, 1);
    CHECK_EQ(map.camera_count, 3);
    for (uint32_t i = 0; i < map.camera_count && i < 3; i++)
        CHECK(memcmp(&map.cameras[i], &cameras[i], sizeof cameras[i]) == 0);
    fprintf(stderr, "    %zu bytes, %u solids, %u faces, %u entities, %u groups, %u paths, %u cameras\n", size,
            map.solid_count, map.face_count, map.entity_count, map.group_count, map.path_count, map.camera_count);
    rmf_free(&map);
    free(file);
}

/* The smallest map: no visgroups, an empty world, no DOCINFO. */
static void minimal_map(void)
{
    uint8_t *data;
    size_t size;
    CHECK(rmf_build_finish(rmf_build_new(NULL), &data, &size));
    /* header 7 + visgroup count 4 + world head 22 + entity data 1+11+4+4+4+12 + path count 4 */
    CHECK_EQ(size, 7 + 4 + 22 + 36 + 4);
    rmf_map map;
    pmf_error err;
    CHECK(rmf_read(data, size, "x.rmf", &map, &err));
    CHECK(!map.has_docinfo && map.camera_count == 0 && map.world.child_count == 0 && map.visgroup_count == 0);
    CHECK(strcmp(map.world.entity.classname, "worldspawn") == 0);
    rmf_free(&map);
    free(data);
}

static void rewrite_shared_maps(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return;
    uint32_t maps = 0, rewritten = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".rmf") != 0)
            continue;
        char path[1024], why[256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        rmf_map map, again;
        pmf_error err;
        maps++;
        if (!read_map_file(path, &map)) {
            CHECK(!"every shared map reads");
            continue;
        }
        uint8_t *data;
        size_t size;
        if (rmf_build_map(&map, &data, &size)) {
            rewritten++;
            bool ok = rmf_read(data, size, "x.rmf", &again, &err);
            CHECK(ok);
            if (ok) {
                bool same = rmf_compare_maps(&map, &again, why, sizeof why);
                if (!same)
                    fprintf(stderr, "  %s written again: %s\n", e->d_name, why);
                CHECK(same);
                rmf_free(&again);
            }
            free(data);
        }
        rmf_free(&map);
    }
    closedir(d);
    fprintf(stderr, "  shared maps: %u, written again and read back the same: %u\n", maps, rewritten);
    CHECK_EQ(maps, 22);
    CHECK_EQ(rewritten, 16);   /* 09, 18, 22, decay_test, 10 mess_*, prefab_2.1, test-cube-2.2 */
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_rmf_roundtrip SHARED_RMF_DIR WORK_DIR\n");
        return 1;
    }
    test_make_dir(argv[2]);
    roundtrip(2.2f, argv[2]);
    roundtrip(1.8f, argv[2]);
    roundtrip(0.9f, argv[2]);
    minimal_map();
    rewrite_shared_maps(argv[1]);
    return check_report("test_rmf_roundtrip");
}
