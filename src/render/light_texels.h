/* light_texels.h - texels of the lit lightmap atlas (GL_RGB9_E5, 4 bytes, light above 1 kept),
 * made on the CPU: no GL. */
#ifndef PMFVIEW_LIGHT_TEXELS_H
#define PMFVIEW_LIGHT_TEXELS_H

#include <stddef.h>
#include <stdint.h>

/* The shared exponent packing of the GL specification (glTexImage: "Encoding of Special
 * Internal Formats"), rounded to nearest; negative and NaN components are 0, large ones 65408. */
uint32_t light_texel_pack(const float rgb[3]);
/* count texels of RGBA floats (alpha unused), packed. */
void light_texels_pack(const float *rgba, size_t count, uint32_t *out);

/* rgba[t] = luxel x scale (1 / 255.0f, or 0 to leave the base out), alpha 1. */
void light_texels_base(const uint8_t *rgb8, size_t count, float scale, float *rgba);
/* rgba[t] += luxel / 255.0f x colour: a dynamic light's layer. */
void light_texels_add_layer(const uint8_t *rgb8, size_t count, const float colour[3], float *rgba);

/* count RGB8 luxels as light L = luxel x (1 / 255.0f): exactly light_texel_pack of those floats,
 * from tables (thread-safe). */
void light_texels_from_luxels(const uint8_t *rgb8, size_t count, uint32_t *out);

#endif
