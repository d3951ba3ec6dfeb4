/* bench_view.c - camera, chunks in view and fly paths for the baselines (bench_view.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_view.h"

bool bench_camera_parse(const char *s, bench_camera *out)
{
    const char *end = camera_parse_pose(s, out->pos, &out->yaw, &out->pitch);
    return end && !*end;
}

static double chunk_side(const pmf_level_info *li)
{
    return ldexp(1.0, li->chunk_size_exp);
}

void bench_camera_chunk(const pmf_level_info *li, const bench_camera *cam, int32_t out[3])
{
    double side = chunk_side(li);
    const uint32_t centre[3] = { li->center.x, li->center.y, li->center.z };
    for (int a = 0; a < 3; a++)
        out[a] = (int32_t)floor((cam->pos[a] + side / 2) / side) + (int32_t)centre[a];
}

void bench_view_proj(const pmf_level_info *li, const bench_camera *cam, const bench_projection *proj,
                     const int32_t origin[3], mat4 out)
{
    double side = chunk_side(li);
    const uint32_t centre[3] = { li->center.x, li->center.y, li->center.z };
    vec3 eye;
    for (int a = 0; a < 3; a++)
        eye[a] = (float)(cam->pos[a] - (double)(origin[a] - (int32_t)centre[a]) * side);
    float yaw = glm_rad(cam->yaw), pitch = glm_rad(cam->pitch);
    vec3 forward = { -sinf(yaw) * cosf(pitch), sinf(pitch), -cosf(yaw) * cosf(pitch) };
    vec3 up = { 0, 1, 0 };
    mat4 view, projection;
    glm_look(eye, forward, up, view);
    glm_perspective(glm_rad(proj->fov_y), proj->aspect, BENCH_NEAR_PLANE, BENCH_FAR_PLANE, projection);
    glm_mat4_mul(projection, view, out);
}

size_t bench_chunks_in_view(const pmf_level_info *li, const bench_camera *cam, const bench_projection *proj,
                            int radius, pmf_chunk_coord *out, size_t max)
{
    int32_t origin[3];
    bench_camera_chunk(li, cam, origin);
    vec4 planes[6];
    if (proj) {
        mat4 vp;
        bench_view_proj(li, cam, proj, origin, vp);
        glm_frustum_planes(vp, planes);
    }
    const int32_t count[3] = { (int32_t)li->count_x, (int32_t)li->count_y, (int32_t)li->count_z };
    int32_t lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = origin[a] - radius < 0 ? 0 : origin[a] - radius;
        hi[a] = origin[a] + radius >= count[a] ? count[a] - 1 : origin[a] + radius;
    }
    float half = (float)chunk_side(li) / 2;
    size_t n = 0;
    for (int32_t y = lo[1]; y <= hi[1]; y++)
        for (int32_t x = lo[0]; x <= hi[0]; x++)
            for (int32_t z = lo[2]; z <= hi[2]; z++) {
                if (!li->chunks[pmf_grid_index(li, (uint32_t)x, (uint32_t)y, (uint32_t)z)].compressed[0])
                    continue;
                if (proj) {
                    const int32_t c[3] = { x, y, z };
                    vec3 box[2];
                    for (int a = 0; a < 3; a++) {
                        float mid = (float)(c[a] - origin[a]) * half * 2;
                        box[0][a] = mid - half;
                        box[1][a] = mid + half;
                    }
                    if (!glm_aabb_frustum(box, planes))
                        continue;
                }
                if (n < max)
                    out[n] = (pmf_chunk_coord){ (uint32_t)x, (uint32_t)y, (uint32_t)z };
                n++;
            }
    return n;
}

bench_camera *bench_path_read(const char *path, size_t *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench: %s: cannot open\n", path);
        return NULL;
    }
    bench_camera *list = NULL;
    size_t n = 0, cap = 0;
    char line[1024];
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *p = line + strspn(line, " \t");
        if (!*p || *p == '\n' || *p == '\r')
            continue;
        p[strcspn(p, " \t\r\n")] = 0;
        bench_camera cam;
        if (!bench_camera_parse(p, &cam)) {
            fprintf(stderr, "bench: %s: expected X,Y,Z,YAW,PITCH, got '%s'\n", path, p);
            ok = false;
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            bench_camera *grown = realloc(list, cap * sizeof *grown);
            if (!grown) {
                ok = false;
                break;
            }
            list = grown;
        }
        list[n++] = cam;
    }
    fclose(f);
    if (!ok || !n) {
        if (ok)
            fprintf(stderr, "bench: %s: no cameras\n", path);
        free(list);
        return NULL;
    }
    *count = n;
    return list;
}
