/* render_models.h - entities' models (Quake alias models, docs/models.md): each model's triangles
 * and skin uploaded once, drawn at any number of places against the world's depth. Nearest texel
 * sampling with the texture repeating, as the engines draw skins; texels of alpha < 0.5 are holes.
 *
 *   render_models *rm = render_models_create(err, sizeof err);
 *   int m = render_models_add(rm, &(render_model_mesh){ ... });     // -1 when it cannot
 *   render_models_draw(rm, m, transform, light);                     // per place, per frame
 *   render_models_destroy(rm);
 */
#ifndef PMFVIEW_RENDER_MODELS_H
#define PMFVIEW_RENDER_MODELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct render_models render_models;

typedef struct render_model_mesh {
    uint32_t triangle_count;
    const float *positions;          /* triangle_count * 3 * xyz, the model's frame */
    const float *uvs;                /* triangle_count * 3 * (u, v) */
    uint32_t skin_width, skin_height;
    const uint8_t *rgba;             /* skin_width * skin_height * 4, row 0 first */
} render_model_mesh;

/* NULL with a message when the program does not build. Needs a current GL context. */
render_models *render_models_create(char *err, size_t err_size);
void render_models_destroy(render_models *rm);
/* The mesh's handle, or -1 when out of memory. */
int render_models_add(render_models *rm, const render_model_mesh *mesh);
/* Another pose of model `like` (an animation's frame): the mesh's triangles with like's skin
 * (mesh's own skin not read); its handle, or -1. */
int render_models_add_pose(render_models *rm, int like, const render_model_mesh *mesh);
/* Mesh `model`'s positions replaced by another pose's (its triangles in the same order, its texture
 * places kept): false for no such mesh or another count of triangles. */
bool render_models_set_positions(render_models *rm, int model, const float *positions, uint32_t triangle_count);
/* The box holding mesh `model`'s positions (its own frame): false for no such mesh. */
bool render_models_bounds(const render_models *rm, int model, float lo[3], float hi[3]);
/* Draws mesh `model` with transform (column-major: clip from the model's frame) into the bound
 * target, depth-tested and written, both faces: each texel times light (the level's light at the
 * model through the game's look and the exposure), clamped to 1. */
void render_models_draw(render_models *rm, int model, const float transform[16], const float light[3]);

/* How a sprite is laid over what is drawn (GoldSrc's rendermode through GL's blending, as its
 * engine sets it): opaque (depth written), alpha (src * a + dst * (1 - a)), additive
 * (dst + src * a), glow (additive, not depth-tested). Blended ones write no depth. */
typedef enum render_model_blend {
    RENDER_MODEL_OPAQUE,
    RENDER_MODEL_ALPHA,
    RENDER_MODEL_ADD,
    RENDER_MODEL_GLOW,
} render_model_blend;

typedef struct render_model_look {
    render_model_blend blend;
    float colour[4];                 /* the texel's rgb times colour's (clamped to 1), its alpha times a */
    float cut;                       /* texels of alpha <= cut are holes */
    bool nearest_layer;              /* blended: only the surface nearest the eye (a depth pass first),
                                      * as the engines' back-face culling leaves a closed model one layer */
} render_model_look;

void render_models_draw_look(render_models *rm, int model, const float transform[16], const render_model_look *look);

#endif
