/* format_samples.h - the legacy PMF draft map and the PM4 tile the tests write from the specs
 * (../shared/specs/pmf-legacy-draft.txt, pm4.md), as bytes. Values the tests assert are here. */
#ifndef TESTS_FORMAT_SAMPLES_H
#define TESTS_FORMAT_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- legacy draft: one 16 m section, a parent root over two solid cubes, one angled cube and
 * five empty ones; six triangles, three quads facing +Z on the plane z = -8:
 *   solid cube 1, lit (128,128,128): x -6..-2, y -2..2, material LEGACY_MAT_A
 *   solid cube 2, unlit (fullbright): x 2..6,  y -2..2, material LEGACY_MAT_B
 *   angled cube 3, lit (255,64,0):   x -1..1,  y 3..5,  material LEGACY_MAT_A */
#define LEGACY_MAT_A "textures/grey"
#define LEGACY_MAT_B "textures/blue"
#define LEGACY_CUBES 9
#define LEGACY_TRIANGLES 6
#define LEGACY_WALL_Z -8.0f

typedef struct legacy_sample_desc {
    bool lz4;                  /* LZ4-frame the three blocks, else store them */
    uint32_t props;            /* prop count written (the draft defines no layout: must be refused) */
    uint32_t entities;         /* entity count written (likewise) */
    uint8_t dynamic_lights;    /* cube 1's dynamic light count (likewise) */
} legacy_sample_desc;

/* malloc'ed bytes; NULL when out of memory. */
uint8_t *legacy_sample_build(const legacy_sample_desc *desc, size_t *size);

/* GAME_DIR/textures/grey.png and blue.png, 4 x 4 texels of one colour each, for --game. */
#define LEGACY_GREY_TEXEL 200, 200, 200
#define LEGACY_BLUE_TEXEL 30, 60, 250
bool legacy_sample_write_textures(const char *game_dir);

/* ---- PM4: MVER 1, MSHD, two CK24 groups of MSUR surfaces over 8 MSVT vertices, a path strip
 * of 4 MSPV vertices through 4 MSPI indices with one MSLK entry, 3 MSCN points, 2 MPRL
 * references, 2 MPRR entries and an unknown chunk "XTRA" skipped by size.
 *   surface 0: group_key 1 (walkable), CK24 0x000042, square (4 indices) on world Z = 10,
 *              world x 0..10, y 0..10 (view: floor at height 10), normal +Z
 *   surface 1: group_key 0 (M2 prop), CK24 0x123456, triangle (3 indices), normal +X,
 *              liquid candidate bit set
 */
#define PM4_SAMPLE_CK24_A 0x000042u
#define PM4_SAMPLE_CK24_B 0x123456u

typedef struct pm4_sample_desc {
    bool no_unknown_chunk;
    bool swap_chunks;          /* write MSVI before MSVT (chunks come in any order) */
} pm4_sample_desc;

uint8_t *pm4_sample_build(const pm4_sample_desc *desc, size_t *size);

bool sample_write_file(const char *path, const uint8_t *bytes, size_t size);

#endif
