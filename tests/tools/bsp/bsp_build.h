/* bsp_build.h - writes small compiled maps for the BSP reader's tests and fuzz seeds: a closed
 * 128-unit room (six faces looking in, one embedded 16x16 texture, a light entity, a styled
 * light whose style also lights the floor, and a player start) in Quake BSP v29, GoldSrc BSP v30 or BSP2, with lightmaps whose bytes follow
 * bsp_build_luxel() so a test knows every stored value. */
#ifndef TESTS_BSP_BUILD_H
#define TESTS_BSP_BUILD_H

#include <stddef.h>
#include <stdint.h>

#define BSP_BUILD_ROOM_HALF 64   /* the room spans -64..64 on every axis */
#define BSP_BUILD_FACE_LUXELS 9  /* each face's lightmap is 9 x 9 luxels (128 units / 16 + 1) */

/* The stored byte of face f's luxel (s, t), channel c (0 for grey). */
static inline uint8_t bsp_build_luxel(unsigned f, unsigned s, unsigned t, unsigned c)
{
    return (uint8_t)(40 + f * 30 + s * 7 + t * 3 + c * 11);
}
/* The floor's (face 0's) second lightmap, light style BSP_BUILD_STYLE: its stored byte. */
#define BSP_BUILD_STYLE 5
static inline uint8_t bsp_build_style_luxel(unsigned s, unsigned t, unsigned c)
{
    return (uint8_t)(150 + s * 9 - t * 4 + c * 5);
}
/* The texture's texel (x, y) palette index. */
static inline uint8_t bsp_build_texel(unsigned x, unsigned y) { return (uint8_t)((x / 4 + y / 4) % 2 ? 200 : 17); }

/* version: 29, 30 or BSP_VERSION_BSP2's value. A malloc'ed file in *out. */
void bsp_build_room(uint32_t version, uint8_t **out, size_t *size);

#endif
