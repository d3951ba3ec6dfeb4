/* scene_model_sprite.c - how an entity's sprite faces the camera (its type, as Quake's r_sprite.c
 * and GoldSrc turn it) and how it is laid over the picture (GoldSrc's rendermode, renderamt and
 * rendercolor through GL's blending, as its engine sets them): docs/models.md. */
#include "render_models.h"
#include "scene_internal.h"
#include "spr.h"

/* An oriented sprite's right and up: Quake's AngleVectors of the entity's angles, seen in the
 * world's axes (x, z, -y). */
static void oriented_axes(const float angles[3], float right[3], float up[3])
{
    const double d = M_PI / 180, sp = sin(angles[0] * d), cp = cos(angles[0] * d), sy = sin(angles[1] * d);
    const double cy = cos(angles[1] * d), sr = sin(angles[2] * d), cr = cos(angles[2] * d);
    const double qr[3] = { -sr * sp * cy + cr * sy, -sr * sp * sy - cr * cy, -sr * cp };
    const double qu[3] = { cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp };
    const float r[3] = { (float)qr[0], (float)qr[2], (float)-qr[1] }, u[3] = { (float)qu[0], (float)qu[2], (float)-qu[1] };
    memcpy(right, r, sizeof r);
    memcpy(up, u, sizeof u);
}

void scene_sprite_axes(const camera *cam, int type, const float angles[3], const float at[3], float right[3], float up[3])
{
    float forward[3];
    camera_basis(cam, forward, right, up);
    if (type == SPR_TYPE_ORIENTED) {
        oriented_axes(angles, right, up);
        return;
    }
    if (type == SPR_TYPE_PARALLEL_ORIENTED) {
        const float cr = cosf(angles[2] * (float)M_PI / 180), sr = sinf(angles[2] * (float)M_PI / 180);
        const float r[3] = { right[0], right[1], right[2] };
        for (int k = 0; k < 3; k++) {
            right[k] = r[k] * cr + up[k] * sr;
            up[k] = -r[k] * sr + up[k] * cr;
        }
        return;
    }
    if (type == SPR_TYPE_PARALLEL)
        return;
    float r[3] = { right[0], 0, right[2] };
    if (type == SPR_TYPE_FACING_UPRIGHT) {
        float to[3] = { at[0] - (float)cam->local[0], 0, at[2] - (float)cam->local[2] };
        r[0] = -to[2];
        r[2] = to[0];
    }
    float length = sqrtf(r[0] * r[0] + r[2] * r[2]);
    for (int k = 0; k < 3; k++) {
        right[k] = length > 0 ? r[k] / length : (float)(k == 0);
        up[k] = (float)(k == 1);
    }
}

void scene_sprite_look(int version, const pmf_entity_info *info, render_model_look *out)
{
    /* GoldSrc's modes: 0 normal, 1 colour, 2 texture, 3 glow, 4 solid, 5 additive */
    static const render_model_blend blends[PMF_RENDER_MODES] = { RENDER_MODEL_OPAQUE, RENDER_MODEL_ALPHA,
                                                                  RENDER_MODEL_ALPHA,  RENDER_MODEL_GLOW,
                                                                  RENDER_MODEL_ALPHA,  RENDER_MODEL_ADD };
    *out = (render_model_look){ RENDER_MODEL_OPAQUE, { 1, 1, 1, 1 }, 0, false };
    if (version != 2 || info->render_mode >= PMF_RENDER_MODES)
        return;  /* Quake draws its sprites opaque, their holes left out */
    out->blend = blends[info->render_mode];
    if (info->render_mode)
        out->colour[3] = info->render_amount / 255.0f;  /* normal is drawn whole, whatever renderamt says */
    const uint8_t *c = info->render_color;
    if (c[0] || c[1] || c[2])  /* 0 0 0 is Hammer's default, drawn white as the engines do */
        for (int k = 0; k < 3; k++)
            out->colour[k] = c[k] / 255.0f;
}

bool scene_sprite_lit(int version, int tex_format, const pmf_entity_info *info)
{
    const int mode = info->render_mode;  /* 0 normal, 2 texture, 4 solid (kRenderTransAlpha) */
    return version == 2 && tex_format == SPR_RENDER_ALPHA_TEST && (mode == 0 || mode == 2 || mode == 4)
           && info->render_amount > 127;
}

void scene_model_look(const pmf_entity_info *info, render_model_look *out)
{
    /* GoldSrc's modes on a model: 0 normal, 1 colour, 2 texture, 3 glow, 4 solid, 5 additive */
    static const render_model_blend blends[PMF_RENDER_MODES] = { RENDER_MODEL_OPAQUE, RENDER_MODEL_ALPHA,
                                                                  RENDER_MODEL_ALPHA,  RENDER_MODEL_ADD,
                                                                  RENDER_MODEL_ALPHA,  RENDER_MODEL_ADD };
    *out = (render_model_look){ RENDER_MODEL_OPAQUE, { 1, 1, 1, 1 }, 0, false };
    if (info->render_mode >= PMF_RENDER_MODES || info->render_mode == 0)
        return;
    out->blend = blends[info->render_mode];
    out->colour[3] = info->render_amount / 255.0f;
    out->nearest_layer = true;
}
