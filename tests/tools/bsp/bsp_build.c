/* bsp_build.c - see bsp_build.h. Layout per bsp_read.h; only what the reader checks is filled
 * with care (a tree of six nodes, one a wall, over the room's leaf and the solid outside). */
#include "bsp_build.h"

#include <stdlib.h>
#include <string.h>

typedef struct buf { uint8_t *p; size_t n, cap; } buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void u8(buf *b, uint8_t v) { put(b, &v, 1); }
static void u16(buf *b, uint16_t v) { u8(b, (uint8_t)v); u8(b, (uint8_t)(v >> 8)); }
static void u32(buf *b, uint32_t v) { u16(b, (uint16_t)v); u16(b, (uint16_t)(v >> 16)); }
static void f32(buf *b, float f) { uint32_t v; memcpy(&v, &f, 4); u32(b, v); }

/* the eight corners, and each face's corners in order (seen from inside the room) */
static const int corner[8][3] = { {-1,-1,-1}, {1,-1,-1}, {1,1,-1}, {-1,1,-1}, {-1,-1,1}, {1,-1,1}, {1,1,1}, {-1,1,1} };
static const int face_corners[6][4] = { {0,1,2,3}, {4,7,6,5}, {0,4,5,1}, {3,2,6,7}, {0,3,7,4}, {1,5,6,2} };
/* each face's plane normal (pointing into the room) */
static const int face_normal[6][3] = { {0,0,1}, {0,0,-1}, {0,1,0}, {0,-1,0}, {1,0,0}, {-1,0,0} };

void bsp_build_room(uint32_t version, uint8_t **out, size_t *size)
{
    int wide = version != 29 && version != 30;
    unsigned luxel_bytes = version == 30 ? 3 : 1;
    buf lump[15] = { 0 };
    const char *ents =
        "{\n\"classname\" \"worldspawn\"\n\"message\" \"bsp_build room\"\n\"_compiler\" \"bsp_build 1.0\"\n}\n"
        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 32\"\n\"light\" \"300\"\n}\n"
        "{\n\"classname\" \"light\"\n\"origin\" \"16 16 -32\"\n\"light\" \"100\"\n\"style\" \"5\"\n}\n"
        "{\n\"classname\" \"info_player_start\"\n\"origin\" \"-32 -16 -40\"\n\"angle\" \"90\"\n}\n";
    put(&lump[0], ents, strlen(ents) + 1);
    for (int f = 0; f < 6; f++) { /* planes: normal into the room, at distance -64 */
        for (int k = 0; k < 3; k++) f32(&lump[1], (float)face_normal[f][k]);
        f32(&lump[1], -BSP_BUILD_ROOM_HALF);
        u32(&lump[1], (uint32_t)(2 - f / 2)); /* type: the axis */
    }
    /* textures: one embedded 16x16 miptex (GoldSrc adds its palette) */
    u32(&lump[2], 1);
    u32(&lump[2], 8);
    char name[16] = "room_wall";
    put(&lump[2], name, 16);
    u32(&lump[2], 16); u32(&lump[2], 16);
    u32(&lump[2], 40); u32(&lump[2], 40 + 256); u32(&lump[2], 40 + 320); u32(&lump[2], 40 + 336);
    for (unsigned level = 0; level < 4; level++) {
        unsigned side = 16 >> level;
        for (unsigned y = 0; y < side; y++)
            for (unsigned x = 0; x < side; x++) u8(&lump[2], bsp_build_texel(x << level, y << level));
    }
    if (version == 30) {
        u16(&lump[2], 256);
        for (unsigned i = 0; i < 256; i++) { u8(&lump[2], (uint8_t)i); u8(&lump[2], (uint8_t)(255 - i)); u8(&lump[2], (uint8_t)(i / 2)); }
        u16(&lump[2], 0); /* padding to 4 bytes */
    }
    for (int v = 0; v < 8; v++)
        for (int k = 0; k < 3; k++) f32(&lump[3], (float)(corner[v][k] * BSP_BUILD_ROOM_HALF));
    u8(&lump[4], 0x01); /* the room's leaf (1) sees itself */
    u8(&lump[4], 0);
    /* six nodes, one a wall: node k's front (the room's side) goes on to node k + 1, the last
     * one's to the room's leaf (1); every back to the solid leaf (0), shared as the compilers do */
    for (uint32_t k = 0; k < 6; k++) {
        u32(&lump[5], k);
        int32_t front = k < 5 ? (int32_t)k + 1 : -2, back = -1;
        if (wide) { u32(&lump[5], (uint32_t)front); u32(&lump[5], (uint32_t)back); }
        else { u16(&lump[5], (uint16_t)front); u16(&lump[5], (uint16_t)back); }
        for (int a = 0; a < 6; a++) {
            int16_t v = a < 3 ? -BSP_BUILD_ROOM_HALF : BSP_BUILD_ROOM_HALF;
            if (version == 0x32505342u) f32(&lump[5], v); else u16(&lump[5], (uint16_t)v);
        }
        if (wide) { u32(&lump[5], k); u32(&lump[5], 1); } else { u16(&lump[5], (uint16_t)k); u16(&lump[5], 1); }
    }
    /* texinfo per axis: s and t along the two other axes */
    for (int axis = 0; axis < 3; axis++) {
        float s[3] = { 0 }, t[3] = { 0 };
        s[axis == 0 ? 1 : 0] = 1;
        t[axis == 2 ? 1 : 2] = -1;
        for (int k = 0; k < 3; k++) f32(&lump[6], s[k]);
        f32(&lump[6], 0);
        for (int k = 0; k < 3; k++) f32(&lump[6], t[k]);
        f32(&lump[6], 0);
        u32(&lump[6], 0); u32(&lump[6], 0);
    }
    /* faces; edges: each face's four edges of its own (edge 0 unused, as the compilers leave it) */
    u32(&lump[12], 0);
    if (wide) u32(&lump[12], 0);
    unsigned edge = 1;
    for (int f = 0; f < 6; f++) {
        int axis = face_normal[f][0] ? 0 : face_normal[f][1] ? 1 : 2;
        uint32_t light = (uint32_t)lump[8].n;
        for (unsigned t = 0; t < BSP_BUILD_FACE_LUXELS; t++)
            for (unsigned s = 0; s < BSP_BUILD_FACE_LUXELS; s++)
                for (unsigned c = 0; c < luxel_bytes; c++) u8(&lump[8], bsp_build_luxel((unsigned)f, s, t, c));
        if (f == 0) /* the floor's style lightmap follows its base one */
            for (unsigned t = 0; t < BSP_BUILD_FACE_LUXELS; t++)
                for (unsigned s = 0; s < BSP_BUILD_FACE_LUXELS; s++)
                    for (unsigned c = 0; c < luxel_bytes; c++) u8(&lump[8], bsp_build_style_luxel(s, t, c));
        if (wide) { u32(&lump[7], (uint32_t)f); u32(&lump[7], 0); u32(&lump[7], edge - 1); u32(&lump[7], 4); u32(&lump[7], (uint32_t)axis); }
        else { u16(&lump[7], (uint16_t)f); u16(&lump[7], 0); u32(&lump[7], edge - 1); u16(&lump[7], 4); u16(&lump[7], (uint16_t)axis); }
        u8(&lump[7], 0); u8(&lump[7], f == 0 ? BSP_BUILD_STYLE : 255); u8(&lump[7], 255); u8(&lump[7], 255);
        u32(&lump[7], light);
        for (int k = 0; k < 4; k++) {
            uint32_t a = (uint32_t)face_corners[f][k], b = (uint32_t)face_corners[f][(k + 1) % 4];
            /* surface edges: the first edge forwards, the rest stored backwards and read negated */
            uint32_t from = k == 0 ? a : b, to = k == 0 ? b : a;
            if (wide) { u32(&lump[12], from); u32(&lump[12], to); } else { u16(&lump[12], (uint16_t)from); u16(&lump[12], (uint16_t)to); }
            u32(&lump[13], k == 0 ? edge : (uint32_t)-(int32_t)edge);
            edge++;
        }
    }
    /* leaves: 0 solid, 1 the room (all six faces, vis at 0) */
    for (int l = 0; l < 2; l++) {
        u32(&lump[10], l ? (uint32_t)-1 : (uint32_t)-2);
        u32(&lump[10], l ? 0 : (uint32_t)-1);
        for (int k = 0; k < 6; k++) {
            int16_t v = k < 3 ? -BSP_BUILD_ROOM_HALF : BSP_BUILD_ROOM_HALF;
            if (version == 0x32505342u) f32(&lump[10], v); else u16(&lump[10], (uint16_t)v);
        }
        if (wide) { u32(&lump[10], 0); u32(&lump[10], l ? 6 : 0); } else { u16(&lump[10], 0); u16(&lump[10], l ? 6 : 0); }
        u32(&lump[10], 0);
    }
    for (int f = 0; f < 6; f++) { if (wide) u32(&lump[11], (uint32_t)f); else u16(&lump[11], (uint16_t)f); }
    if (!wide) u16(&lump[11], 0); /* keep 4-byte alignment */
    /* the world model */
    for (int k = 0; k < 3; k++) f32(&lump[14], -BSP_BUILD_ROOM_HALF);
    for (int k = 0; k < 3; k++) f32(&lump[14], BSP_BUILD_ROOM_HALF);
    for (int k = 0; k < 3; k++) f32(&lump[14], 0);
    u32(&lump[14], 0); u32(&lump[14], 0); u32(&lump[14], 0); u32(&lump[14], 0);
    u32(&lump[14], 1); u32(&lump[14], 0); u32(&lump[14], 6);

    buf file = { 0 };
    u32(&file, version);
    size_t at = 4 + 15 * 8;
    for (int i = 0; i < 15; i++) {
        size_t len = lump[i].n;
        if (i == 11 && !wide) len -= 2; /* the padding is not a record */
        u32(&file, (uint32_t)at); u32(&file, (uint32_t)len);
        at += (lump[i].n + 3) & ~(size_t)3;
    }
    for (int i = 0; i < 15; i++) {
        if (lump[i].n) put(&file, lump[i].p, lump[i].n);
        while (file.n % 4) u8(&file, 0);
        free(lump[i].p);
    }
    *out = file.p;
    *size = file.n;
}
