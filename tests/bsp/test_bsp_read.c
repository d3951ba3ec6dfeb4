/* test_bsp_read.c - the BSP reader on the rooms bsp_build writes in v29, v30 and BSP2 (counts,
 * face corners, lightmap grids and bytes, the embedded texture, entities, the PVS), on the shared
 * real GoldSrc map when given, and on damaged files: targeted damage names its lump, every
 * truncation and thousands of seeded byte flips give one clean error line or a file whose every
 * index holds, never a crash (the ASan build runs this too). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bsp_build.h"
#include "bsp_read.h"
#include "common/check.h"

#define FLIPS 4000

/* Every index of a file that reads resolves: walking all of it must stay inside (ASan watches). */
static void walk(const bsp_file *b)
{
    uint64_t sum = 0;
    for (uint32_t f = 0; f < b->face_count; f++) {
        const bsp_face *face = &b->faces[f];
        for (uint32_t k = 0; k < face->edge_count; k++) sum += bsp_face_vertex(b, face, k);
        if (face->light_offset >= 0) sum += b->lighting[face->light_offset];
        const bsp_texinfo *ti = &b->texinfos[face->texinfo];
        if (ti->texture != UINT32_MAX) sum += b->textures[ti->texture].width;
    }
    uint64_t vis[4];
    for (uint32_t l = 0; l < b->leaf_count; l++) {
        for (uint32_t m = 0; m < b->leaves[l].mark_count; m++) sum += b->marks[b->leaves[l].first_mark + m];
        if (b->leaf_count <= 256) bsp_leaf_pvs(b, l, vis, 4);
    }
    (void)sum;
}

static void check_room(uint32_t version)
{
    uint8_t *bytes;
    size_t size;
    bsp_build_room(version, &bytes, &size);
    bsp_file b;
    pmf_error err;
    bool ok = bsp_read(bytes, size, "room.bsp", &b, &err);
    if (!ok) {
        char line[800];
        fprintf(stderr, "room %s: %s\n", bsp_version_name(version), pmf_error_format(&err, line, sizeof line));
        CHECK(ok);
        free(bytes);
        return;
    }
    CHECK_EQ(b.version, version);
    CHECK_EQ(b.luxel_bytes, version == BSP_VERSION_GOLDSRC ? 3 : 1);
    CHECK_EQ(b.face_count, 6);
    CHECK_EQ(b.vertex_count, 8);
    CHECK_EQ(b.model_count, 1);
    CHECK_EQ(b.leaf_count, 2);
    CHECK_EQ(b.texture_count, 1);
    CHECK(strcmp(b.textures[0].name, "room_wall") == 0);
    CHECK(b.textures[0].embedded && b.textures[0].width == 16 && b.textures[0].height == 16);
    CHECK_EQ(b.textures[0].miptex[40 + 5 * 16 + 6], bsp_build_texel(6, 5));
    CHECK(strstr(b.entities, "\"_compiler\" \"bsp_build 1.0\"") != NULL);
    for (uint32_t f = 0; f < b.face_count; f++) {
        const bsp_face *face = &b.faces[f];
        CHECK_EQ(face->edge_count, 4);
        CHECK_EQ(face->light_size[0], BSP_BUILD_FACE_LUXELS);
        CHECK_EQ(face->light_size[1], BSP_BUILD_FACE_LUXELS);
        CHECK_EQ(face->light_mins[0], -4);
        CHECK(face->light_offset >= 0);
        /* every corner lies on the face's plane, at a room corner */
        for (uint32_t k = 0; k < 4; k++) {
            const float *v = b.vertices[bsp_face_vertex(&b, face, k)];
            const bsp_plane *pl = &b.planes[face->plane];
            CHECK(fabsf(v[0] * pl->normal[0] + v[1] * pl->normal[1] + v[2] * pl->normal[2] - pl->dist) < 1e-3f);
            CHECK(fabsf(fabsf(v[0]) - BSP_BUILD_ROOM_HALF) < 1e-3f);
        }
        const uint8_t *lm = b.lighting + face->light_offset;
        unsigned s = 5, t = 2, c = b.luxel_bytes - 1;
        CHECK_EQ(lm[(t * BSP_BUILD_FACE_LUXELS + s) * b.luxel_bytes + c], bsp_build_luxel(f, s, t, c));
    }
    uint64_t vis[1];
    CHECK(bsp_leaf_pvs(&b, 1, vis, 1));
    CHECK_EQ(vis[0], 2); /* the room's leaf sees itself (leaf 1) */
    walk(&b);
    bsp_free(&b);

    /* targeted damage, each naming its lump */
    struct { size_t at; uint32_t value; const char *block; } damage[] = {
        { 4 + 7 * 8 + 4, 0xFFFFFFF0u, "lump faces" },             /* the faces lump's length past the end */
        { 0, 31, "header" },                                     /* an unknown version */
    };
    for (size_t i = 0; i < sizeof damage / sizeof *damage; i++) {
        uint8_t *bad = malloc(size);
        memcpy(bad, bytes, size);
        memcpy(bad + damage[i].at, &damage[i].value, 4);
        CHECK_ERROR(bsp_read(bad, size, "bad.bsp", &b, &err), err, damage[i].block);
        free(bad);
    }
    /* a face's lightmap past the lighting lump */
    {
        uint8_t *bad = malloc(size);
        memcpy(bad, bytes, size);
        uint32_t faces_at, light_len = 0;
        memcpy(&faces_at, bad + 4 + 7 * 8, 4);
        memcpy(&light_len, bad + 4 + 8 * 8 + 4, 4);
        size_t light_field = faces_at + (version == 29 || version == 30 ? 16 : 24);
        memcpy(bad + light_field, &light_len, 4);
        CHECK_ERROR(bsp_read(bad, size, "bad.bsp", &b, &err), err, "lump faces record 0");
        CHECK_EQ(err.offset, light_field);
        free(bad);
    }
    /* every truncation */
    for (size_t n = 0; n < size; n++) {
        if (bsp_read(bytes, n, "cut.bsp", &b, &err)) { walk(&b); bsp_free(&b); }
        else check_error_line_clean(&err);
    }
    /* seeded byte flips */
    srand(version);
    uint8_t *flip = malloc(size);
    for (int i = 0; i < FLIPS; i++) {
        memcpy(flip, bytes, size);
        for (int k = 0; k < 1 + i % 4; k++) flip[(size_t)rand() % size] ^= (uint8_t)(1 + rand() % 255);
        if (bsp_read(flip, size, "flip.bsp", &b, &err)) { walk(&b); bsp_free(&b); }
        else check_error_line_clean(&err);
    }
    free(flip);
    free(bytes);
}

int main(int argc, char **argv)
{
    check_room(BSP_VERSION_QUAKE);
    check_room(BSP_VERSION_GOLDSRC);
    check_room(BSP_VERSION_BSP2);
    if (argc > 1) { /* the shared real map: hlrad's foutpost */
        bsp_file b;
        pmf_error err;
        bool ok = bsp_read_file(argv[1], &b, &err);
        char line[800];
        if (!ok) fprintf(stderr, "%s\n", pmf_error_format(&err, line, sizeof line));
        CHECK(ok);
        if (ok) {
            CHECK_EQ(b.version, BSP_VERSION_GOLDSRC);
            CHECK(b.face_count > 1000 && b.model_count > 1 && b.lighting_size > 100000);
            CHECK(strstr(b.entities, "\"classname\" \"worldspawn\"") != NULL);
            unsigned lit = 0;
            for (uint32_t f = 0; f < b.face_count; f++) lit += b.faces[f].light_offset >= 0;
            CHECK(lit > b.face_count / 2);
            uint64_t *vis = calloc((b.leaf_count + 63) / 64, 8);
            CHECK(bsp_leaf_pvs(&b, 1, vis, (b.leaf_count + 63) / 64));
            free(vis);
            printf("%s: %u faces (%u lit), %u models, %u leaves, %u textures, %zu lighting bytes\n", argv[1], b.face_count,
                   lit, b.model_count, b.leaf_count, b.texture_count, b.lighting_size);
            walk(&b);
            bsp_free(&b);
        }
    }
    return check_report("bsp_read");
}
