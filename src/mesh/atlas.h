/* atlas.h - the lightmap atlas (atlas.c): square pages of blocks that the mesher fills, shared by
 * every chunk of a level. CPU only, thread-safe.
 *
 * A mesh_atlas is shared by all chunks of a level: square pages of page_size texels (all pages
 * the same size, so a texture array works; pages are only ever added: poll
 * mesh_atlas_page_count()). Each chunk lightmap that a face uses gets a block: the lightmap's
 * 2^n × 2^n luxels plus a 1-luxel border copied from the edge luxels (bilinear filtering never
 * reads a neighbour), so the block is (2^n + 2)^2 texels at (x, y) on its page. A lightmap as
 * large as the page fills the page with no border (sample it with CLAMP_TO_EDGE). A lightmap
 * larger than the page is an error. When max_pages are full the mesher lowers the atlas's
 * lightmap cap (mesh_atlas_lightmap_cap) and places the chunk again: its lightmaps and layers get
 * box-filtered blocks of at most 2^cap a side (mesh_chunk.lightmaps_lowered tells), and so do
 * all later chunks (docs/memory.md). Sample the atlas with GL_LINEAR and no mipmaps (mip levels
 * would mix neighbouring blocks).
 * Faces with lightmap 255 get a 1×1 block of colour = the cube's lighting base colour when the
 * cube has lighting data, else white (255,255,255) = L 1; one such block per distinct colour
 * per chunk; the face's vertices all sample that block's centre texel. The shader stays uniform:
 * L_base = texture(atlas[page], atlas_uv).rgb for every face.
 * mesh_lightmap_block.luxels holds the padded block (block_side^2 RGB8, rows bottom-up = lightmap
 * V order), ready for glTexSubImage3D(x, y, page, block_side, block_side). The mesher allocates
 * blocks; mesh_chunk_free() gives them back (main thread, at eviction). */
#ifndef PMFVIEW_ATLAS_H
#define PMFVIEW_ATLAS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct mesh_atlas mesh_atlas;

typedef struct mesh_atlas_desc {
    uint32_t page_size;          /* texels per side, power of two in 4..32768; 0 = 2048 */
    uint32_t max_pages;          /* allocation fails beyond it; 0 = 64 */
} mesh_atlas_desc;

/* A block on a page: the padded square at (x, y), block_side = side + 2 * border. */
typedef struct mesh_atlas_rect {
    uint16_t page;
    uint16_t x, y;               /* lower-left texel of the padded block */
    uint16_t side;               /* lightmap luxels per side (2^n) */
    uint16_t border;             /* 1, or 0 when the lightmap fills the page */
} mesh_atlas_rect;

static inline uint32_t mesh_atlas_block_side(const mesh_atlas_rect *r) { return r->side + 2u * r->border; }

/* NULL on bad desc or out of memory. */
mesh_atlas *mesh_atlas_create(const mesh_atlas_desc *desc);
/* All blocks must have been freed (or their chunks are simply dropped with the atlas). */
void mesh_atlas_destroy(mesh_atlas *atlas);
/* Thread-safe. side = 2^n luxels. False when side > page size or max_pages are full. */
bool mesh_atlas_alloc(mesh_atlas *atlas, uint32_t side, mesh_atlas_rect *out);
/* Thread-safe. The space is reused by later allocations. */
void mesh_atlas_free(mesh_atlas *atlas, const mesh_atlas_rect *rect);
uint32_t mesh_atlas_page_size(const mesh_atlas *atlas);
uint32_t mesh_atlas_max_pages(const mesh_atlas *atlas);
/* Thread-safe. Lightmaps get blocks of at most 2^cap luxels a side (PMF_MAX_LIGHTMAP_EXP until
 * the atlas fills: the mesher then lowers it, docs/memory.md). */
uint8_t mesh_atlas_lightmap_cap(mesh_atlas *atlas);
/* Lowers the cap below `from` (unless another thread already did); returns the cap now. */
uint8_t mesh_atlas_lower_lightmap_cap(mesh_atlas *atlas, uint8_t from);
/* Thread-safe. Pages in use so far (never shrinks). */
uint32_t mesh_atlas_page_count(mesh_atlas *atlas);
/* Thread-safe. Texels covered by live blocks (including borders), for statistics. */
uint64_t mesh_atlas_used_texels(mesh_atlas *atlas);

#endif
