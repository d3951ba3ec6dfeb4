/* wad_build.c - WAD3 writer for tests (see wad_build.h). */
#include "wad_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_SIZE 16
#define MIPTEX_TYPE 0x43
#define MIPTEX_HEADER_SIZE 40u

typedef struct built_lump {
    char name[NAME_SIZE];
    uint8_t type;
    uint8_t *data;
    size_t size;
} built_lump;

struct wad_build {
    built_lump *lumps;
    size_t count, capacity;
};

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

wad_build *wad_build_create(void)
{
    return calloc(1, sizeof(wad_build));
}

void wad_build_destroy(wad_build *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->count; i++)
        free(b->lumps[i].data);
    free(b->lumps);
    free(b);
}

/* Takes ownership of data. */
static bool push_lump(wad_build *b, const char *name, uint8_t type, uint8_t *data, size_t size)
{
    if (b->count == b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 8;
        built_lump *grown = realloc(b->lumps, capacity * sizeof *grown);
        if (!grown) {
            free(data);
            return false;
        }
        b->lumps = grown;
        b->capacity = capacity;
    }
    built_lump *l = &b->lumps[b->count++];
    memset(l->name, 0, NAME_SIZE);
    memcpy(l->name, name, strlen(name));
    l->type = type;
    l->data = data;
    l->size = size;
    return true;
}

static bool name_fits(const char *name)
{
    size_t len = strlen(name);
    return len >= 1 && len < NAME_SIZE;
}

bool wad_build_add_lump(wad_build *b, const char *name, uint8_t type, const void *data, size_t size)
{
    if (!name_fits(name) || size > UINT32_MAX)
        return false;
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return false;
    memcpy(copy, data, size);
    return push_lump(b, name, type, copy, size);
}

bool wad_build_add_indexed(wad_build *b, const char *name, uint32_t width, uint32_t height,
                           const uint8_t *indices, const uint8_t *palette_rgb, unsigned colours)
{
    if (!name_fits(name) || width == 0 || height == 0 || width > 65535 || height > 65535 || colours == 0 || colours > 256)
        return false;
    size_t mip_size[4], total = MIPTEX_HEADER_SIZE;
    for (int k = 0; k < 4; k++) {
        mip_size[k] = (size_t)(width >> k) * (height >> k);
        total += mip_size[k];
    }
    size_t palette_at = total;
    total += 2 + 3 * (size_t)colours;
    total = (total + 3) & ~(size_t)3;
    uint8_t *lump = calloc(1, total);
    if (!lump)
        return false;
    memcpy(lump, name, strlen(name));
    put_u32(lump + 16, width);
    put_u32(lump + 20, height);
    size_t at = MIPTEX_HEADER_SIZE;
    for (int k = 0; k < 4; k++) {
        put_u32(lump + 24 + 4 * k, (uint32_t)at);
        uint32_t w = width >> k, h = height >> k;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++)
                lump[at + (size_t)y * w + x] = indices[((size_t)y << k) * width + ((size_t)x << k)];
        at += mip_size[k];
    }
    lump[palette_at] = (uint8_t)colours;
    lump[palette_at + 1] = (uint8_t)(colours >> 8);
    memcpy(lump + palette_at + 2, palette_rgb, 3 * (size_t)colours);
    return push_lump(b, name, MIPTEX_TYPE, lump, total);
}

bool wad_build_add_rgba(wad_build *b, const char *name, uint32_t width, uint32_t height, const uint8_t *rgba)
{
    if (!name_fits(name) || width == 0 || height == 0 || width > 65535 || height > 65535)
        return false;
    bool holes = name[0] == '{';
    unsigned limit = holes ? 255 : 256, used = 0;
    uint8_t palette[256 * 3] = { 0 };
    if (holes)
        palette[255 * 3 + 2] = 255;
    size_t count = (size_t)width * height;
    uint8_t *indices = malloc(count);
    if (!indices)
        return false;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *t = rgba + 4 * i;
        if (holes && t[3] < 128) {
            indices[i] = 255;
            continue;
        }
        unsigned c = 0;
        while (c < used && memcmp(palette + 3 * c, t, 3) != 0)
            c++;
        if (c == used) {
            if (used == limit) {
                free(indices);
                return false;
            }
            memcpy(palette + 3 * used++, t, 3);
        }
        indices[i] = (uint8_t)c;
    }
    bool ok = wad_build_add_indexed(b, name, width, height, indices, palette, 256);
    free(indices);
    return ok;
}

bool wad_build_finish(const wad_build *b, uint8_t **out, size_t *size)
{
    size_t total = 12;
    for (size_t i = 0; i < b->count; i++)
        total += (b->lumps[i].size + 3) & ~(size_t)3;
    size_t directory = total;
    total += 32 * b->count;
    uint8_t *file = calloc(1, total);
    if (!file)
        return false;
    memcpy(file, "WAD3", 4);
    put_u32(file + 4, (uint32_t)b->count);
    put_u32(file + 8, (uint32_t)directory);
    size_t at = 12;
    for (size_t i = 0; i < b->count; i++) {
        const built_lump *l = &b->lumps[i];
        memcpy(file + at, l->data, l->size);
        uint8_t *e = file + directory + 32 * i;
        put_u32(e, (uint32_t)at);
        put_u32(e + 4, (uint32_t)l->size);
        put_u32(e + 8, (uint32_t)l->size);
        e[12] = l->type;
        memcpy(e + 16, l->name, NAME_SIZE);
        at += (l->size + 3) & ~(size_t)3;
    }
    *out = file;
    *size = total;
    return true;
}

bool wad_build_write_file(const wad_build *b, const char *path)
{
    uint8_t *bytes;
    size_t size;
    if (!wad_build_finish(b, &bytes, &size))
        return false;
    FILE *fp = fopen(path, "wb");
    bool ok = fp && fwrite(bytes, 1, size, fp) == size;
    if (fp)
        ok &= fclose(fp) == 0;
    free(bytes);
    return ok;
}
