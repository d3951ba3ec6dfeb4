/* scene_view.c - the camera's projection and frustum, and finding a resident chunk (scene.h). */
#include "scene_internal.h"

/* ---- camera geometry ------------------------------------------------------------------------- */

void scene_perspective(const camera *cam, float out[16])
{
    mat4 m;
    glm_perspective(glm_rad(cam->fov_y), cam->aspect > 0 ? cam->aspect : 16.0f / 9.0f, NEAR_PLANE, 1.0f, m);
    /* Infinite far plane (the limit of far -> infinity): depth 1 is reached only at infinity,
     * where the sky is drawn. */
    m[2][2] = -1.0f;
    m[3][2] = -2.0f * NEAR_PLANE;
    memcpy(out, m, sizeof m);
}

const pmf_level *scene_level(const scene *s)
{
    return &s->lvl;
}

uint32_t scene_level_index(const scene *s)
{
    return s->level;
}

const camera *scene_camera(const scene *s)
{
    return &s->cam;
}

void scene_view_proj(const scene *s, float out[16])
{
    float view[16], proj[16];
    camera_view_matrix(&s->cam, 0, view);
    scene_perspective(&s->cam, proj);
    render_mat4_mul(proj, view, out);
}

/* Left, right, bottom, top, near, far planes of view_proj; inside: a x + b y + c z + d >= 0.
 * The far plane is at infinity: cglm makes it all zeros, which keeps everything. */
void scene_frustum_planes(const float m[16], float planes[6][4])
{
    mat4 vp;
    memcpy(vp, m, sizeof vp);
    glm_frustum_planes(vp, (vec4 *)planes);
}

/* Plane moved from the camera chunk's frame to a frame whose origin is at `origin` in it. */
void scene_shift_planes(const float in[6][4], const double origin[3], float out[6][4])
{
    for (int p = 0; p < 6; p++) {
        memcpy(out[p], in[p], sizeof out[p]);
        out[p][3] = (float)(in[p][3] + in[p][0] * origin[0] + in[p][1] * origin[1] + in[p][2] * origin[2]);
    }
}

bool scene_box_outside(const float planes[6][4], const float mn[3], const float mx[3])
{
    vec3 box[2] = { { mn[0], mn[1], mn[2] }, { mx[0], mx[1], mx[2] } };
    return !glm_aabb_frustum(box, (vec4 *)planes); /* cglm only reads the planes */
}

scene_chunk *scene_find_chunk(const scene *s, const int32_t c[3])
{
    for (size_t i = 0; i < s->chunk_count; i++) {
        const pmf_chunk_coord *k = &s->chunks[i]->mc.coord;
        if ((int32_t)k->x == c[0] && (int32_t)k->y == c[1] && (int32_t)k->z == c[2])
            return s->chunks[i];
    }
    return NULL;
}

void scene_chunk_coord_i32(const pmf_chunk_coord *c, int32_t out[3])
{
    out[0] = (int32_t)c->x;
    out[1] = (int32_t)c->y;
    out[2] = (int32_t)c->z;
}
