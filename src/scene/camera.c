/* camera.c - chunk + local camera position, basis and view matrix (camera.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cam.h>

#include "camera.h"

#define DEG2RAD 0.017453292519943295

const char *camera_parse_pose(const char *text, double pos[3], float *yaw, float *pitch)
{
    double v[5];
    const char *p = text;
    for (int i = 0; i < 5; i++) {
        char *end;
        v[i] = strtod(p, &end);
        if (end == p || !(v[i] == v[i]) || v[i] > 1e15 || v[i] < -1e15)
            return NULL;
        p = end;
        if (i < 4) {
            if (*p != ',')
                return NULL;
            p++;
        }
    }
    if (*p != '\0' && !strchr(" \t\r\n", *p))
        return NULL;
    for (int i = 0; i < 3; i++)
        pos[i] = v[i];
    *yaw = (float)v[3];
    *pitch = (float)v[4];
    return p;
}

camera_pose camera_path_pose(const camera_pose *path, size_t count, int i, int n)
{
    if (count == 1 || n == 1)
        return path[0];
    double t = (double)i / (n - 1) * (double)(count - 1);
    size_t k = (size_t)t;
    if (k >= count - 1)
        return path[count - 1];
    double u = t - (double)k;
    camera_pose c;
    for (int a = 0; a < 3; a++)
        c.pos[a] = path[k].pos[a] + (path[k + 1].pos[a] - path[k].pos[a]) * u;
    double turn = fmod((double)path[k + 1].yaw - path[k].yaw + 540.0, 360.0) - 180.0;
    c.yaw = (float)(path[k].yaw + turn * u);
    c.pitch = (float)(path[k].pitch + (path[k + 1].pitch - path[k].pitch) * u);
    return c;
}

void camera_init(camera *cam, const camera_desc *desc)
{
    memset(cam, 0, sizeof *cam);
    cam->chunk_size = ldexp(1.0, desc->chunk_size_exp);
    cam->center[0] = (int32_t)desc->center.x;
    cam->center[1] = (int32_t)desc->center.y;
    cam->center[2] = (int32_t)desc->center.z;
    memcpy(cam->chunk, cam->center, sizeof cam->chunk);
    cam->fov_y = desc->fov_y > 0 ? desc->fov_y : (float)CAMERA_DEFAULT_FOV;
    cam->aspect = 16.0f / 9.0f;
}

/* Keeps local inside [-S/2, S/2) by moving whole chunks into chunk. */
static void normalise(camera *cam)
{
    double s = cam->chunk_size;
    for (int i = 0; i < 3; i++) {
        double shift = floor(cam->local[i] / s + 0.5);
        if (shift != 0) {
            cam->chunk[i] += (int32_t)shift;
            cam->local[i] -= shift * s;
        }
    }
}

void camera_set_world(camera *cam, const double world[3], float yaw, float pitch)
{
    memcpy(cam->chunk, cam->center, sizeof cam->chunk);
    double limit = CAMERA_MAX_CHUNKS * cam->chunk_size;
    for (int i = 0; i < 3; i++)
        cam->local[i] = world[i] < -limit ? -limit : world[i] > limit ? limit : world[i];
    normalise(cam);
    cam->yaw = yaw;
    cam->pitch = pitch;
}

void camera_get_world(const camera *cam, double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = (double)(cam->chunk[i] - cam->center[i]) * cam->chunk_size + cam->local[i];
}

void camera_move(camera *cam, const double delta[3])
{
    for (int i = 0; i < 3; i++)
        cam->local[i] += delta[i];
    normalise(cam);
}

void camera_basis(const camera *cam, float forward[3], float right[3], float up[3])
{
    double yaw = cam->yaw * DEG2RAD, pitch = cam->pitch * DEG2RAD;
    double f[3] = { -sin(yaw) * cos(pitch), sin(pitch), -cos(yaw) * cos(pitch) };
    /* right = forward × (0, 1, 0), normalised: (-f.z, 0, f.x) / |..| = (cos yaw, 0, -sin yaw). */
    double r[3] = { cos(yaw), 0.0, -sin(yaw) };
    double u[3] = { r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0] };
    for (int i = 0; i < 3; i++) {
        forward[i] = (float)f[i];
        right[i] = (float)r[i];
        up[i] = (float)u[i];
    }
}

void camera_view_matrix(const camera *cam, int rotation_only, float out[16])
{
    vec3 f, r, u, eye = { 0, 0, 0 };
    camera_basis(cam, f, r, u);
    if (!rotation_only)
        for (int i = 0; i < 3; i++)
            eye[i] = (float)cam->local[i]; /* chunk-local: small, so float keeps it exact enough */
    mat4 m;
    glm_look(eye, f, u, m);
    memcpy(out, m, sizeof m);
}

void camera_chunk_offset(const camera *cam, const int32_t c[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = (double)(c[i] - cam->chunk[i]) * cam->chunk_size;
}

void camera_frame_point(const camera *cam, const float world[3], float out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)(world[k] - (double)(cam->chunk[k] - cam->center[k]) * cam->chunk_size);
}

bool camera_project_pixel(const float view_proj[16], int width, int height, const float p[3], float out[2], float *w)
{
    const float *m = view_proj;
    float clip[4];
    for (int r = 0; r < 4; r++)
        clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    if (w)
        *w = clip[3];
    if (!(clip[3] > 1e-6f))
        return false;
    out[0] = (clip[0] / clip[3] * 0.5f + 0.5f) * width;
    out[1] = (0.5f - clip[1] / clip[3] * 0.5f) * height;
    return true;
}
