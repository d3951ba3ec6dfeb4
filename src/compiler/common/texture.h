/* texture.h - textures a map carries (texture.c): procedural ones, image files, and their
 * archive. */
#ifndef PMFC_TEXTURE_H
#define PMFC_TEXTURE_H

#include "common/world.h"

/* Fills tex->rgba from a procedural recipe. Returns NULL or an error message. */
const char *texture_procedural(texture_def *tex, const char *kind, uint32_t size,
                               const uint8_t color[3], const uint8_t color2[3], uint32_t seed);
const char *texture_image(texture_def *tex, const char *path);
/* The same for an image of any size (callers resample it to powers of two). */
const char *texture_image_any(texture_def *tex, const char *path);
/* The same from a file's bytes in memory (a picture read out of the game's paks); name is for errors. */
const char *texture_image_memory_any(texture_def *tex, const uint8_t *data, size_t size, const char *name);
/* Encodes every texture as PTF into a PAF archive (textures/NAME.ptf). */
bool textures_archive(const map_def *map, uint8_t **out, size_t *size);

#endif
