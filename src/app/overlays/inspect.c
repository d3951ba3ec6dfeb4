/* inspect.c - the surface under a pixel: CPU picking over the resident chunks, then its data. */
#include "inspect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>
#include <cjson/cJSON.h>

#include "json_text.h"
#include "light_direct.h"
#include "text_clean.h"

static const char *const kind_names[] = { "static", "dynamic", "fast" };

typedef struct pick {
    const mesh_chunk *mc;
    uint32_t run, first;             /* the run and the triangle's first index */
    float t, bary[3];
} pick;

/* Slab test: the ray meets the box before `best`. */
static bool ray_box(const float o[3], const float inv[3], const float mn[3], const float mx[3], float best)
{
    float t0 = 0.0f, t1 = best;
    for (int k = 0; k < 3; k++) {
        if (!isfinite(inv[k])) {
            /* parallel to the slab: (0 * inf) would be NaN for an eye on its boundary */
            if (o[k] < mn[k] || o[k] > mx[k])
                return false;
            continue;
        }
        float a = (mn[k] - o[k]) * inv[k], b = (mx[k] - o[k]) * inv[k];
        if (a > b) {
            float t = a;
            a = b;
            b = t;
        }
        t0 = a > t0 ? a : t0;
        t1 = b < t1 ? b : t1;
        if (t0 > t1)
            return false;
    }
    return true;
}

/* Möller-Trumbore; a triangle seen from behind only when two_sided (counter-clockwise = front). */
static bool ray_triangle(const float o[3], const float d[3], const float *p0, const float *p1, const float *p2,
                         bool two_sided, float *t, float bary[3])
{
    vec3 e1, e2, pv, tv, qv;
    glm_vec3_sub((float *)p1, (float *)p0, e1);
    glm_vec3_sub((float *)p2, (float *)p0, e2);
    glm_vec3_cross((float *)d, e2, pv);
    float det = glm_vec3_dot(e1, pv);
    if (fabsf(det) < 1e-12f || (det < 0.0f && !two_sided))
        return false;
    float inv = 1.0f / det;
    glm_vec3_sub((float *)o, (float *)p0, tv);
    /* a hair of slack: a ray through the shared edge of two triangles must hit one of them */
    const float slack = 1e-5f;
    float u = glm_vec3_dot(tv, pv) * inv;
    if (u < -slack || u > 1.0f + slack)
        return false;
    glm_vec3_cross(tv, e1, qv);
    float v = glm_vec3_dot((float *)d, qv) * inv;
    if (v < -slack || u + v > 1.0f + slack)
        return false;
    *t = glm_vec3_dot(e2, qv) * inv;
    bary[0] = 1.0f - u - v;
    bary[1] = u;
    bary[2] = v;
    return *t > 0.0f;
}

static void pick_chunk(const mesh_chunk *mc, const float o[3], const float d[3], pick *best)
{
    float inv[3];
    for (int k = 0; k < 3; k++)
        inv[k] = 1.0f / d[k];
    if (mc->min[0] > mc->max[0] || !ray_box(o, inv, mc->min, mc->max, best->t))
        return;
    for (uint32_t r = 0; r < mc->run_count; r++) {
        const mesh_run *run = &mc->runs[r];
        const mesh_cube *cube = &mc->cubes[run->cube];
        if (!ray_box(o, inv, cube->min, cube->max, best->t))
            continue;
        bool two_sided = mc->batches[run->batch].backfaces;
        for (uint32_t i = run->first_index; i + 2 < run->first_index + run->index_count; i += 3) {
            const uint32_t *ix = &mc->indices[i];
            float t, bary[3];
            float xyz[3][3];
            for (int k = 0; k < 3; k++)
                mesh_vertex_position(mc, &mc->vertices[ix[k]], xyz[k]);
            if (ray_triangle(o, d, xyz[0], xyz[1], xyz[2], two_sided, &t, bary) && t < best->t) {
                *best = (pick){ .mc = mc, .run = r, .first = i, .t = t };
                memcpy(best->bary, bary, sizeof bary);
            }
        }
    }
}

/* The block of the chunk whose rect holds the lightmap texel point q (page texels). */
static int32_t block_at(const mesh_chunk *mc, uint16_t page, const float q[2])
{
    for (uint32_t b = 0; b < mc->block_count; b++) {
        const mesh_atlas_rect *r = &mc->blocks[b].rect;
        float side = (float)mesh_atlas_block_side(r);
        if (r->page == page && q[0] >= r->x && q[1] >= r->y && q[0] <= r->x + side && q[1] <= r->y + side)
            return (int32_t)b;
    }
    return -1;
}

static void add_light(inspect_result *r, inspect_light l)
{
    /* a dynamic light's further layers (a style's light past a byte, docs/pmfc.md) add to its entry */
    for (size_t i = 0; l.kind == PMF_LIGHT_DYNAMIC && i < r->light_count; i++)
        if (r->lights[i].kind == PMF_LIGHT_DYNAMIC && r->lights[i].id == l.id) {
            for (int ch = 0; ch < 3; ch++)
                r->lights[i].value[ch] += l.value[ch];
            return;
        }
    if (r->light_count < INSPECT_MAX_LIGHTS)
        r->lights[r->light_count++] = l;
}

/* The pmfview.lights entry of a dynamic / fast light, -1 when the file does not list it. */
static int32_t listed(const pmf_lights *infos, uint32_t level, uint8_t kind, uint32_t id)
{
    for (uint32_t i = 0; i < infos->count; i++)
        if (infos->list[i].level == level && infos->list[i].kind == kind && infos->list[i].id == id)
            return (int32_t)i;
    return -1;
}

/* The picked point: world position (out) and unit normal of its triangle; returns the triangle's
 * area in square metres. */
static float place_point(const scene *s, const pick *p, inspect_result *r, float world[3], float n[3])
{
    const mesh_chunk *mc = p->mc;
    const pmf_level *lvl = scene_level(s);
    float xyz[3][3], local[3], e1[3], e2[3];
    for (int i = 0; i < 3; i++)
        mesh_vertex_position(mc, &mc->vertices[mc->indices[p->first + i]], xyz[i]);
    for (int k = 0; k < 3; k++) {
        local[k] = p->bary[0] * xyz[0][k] + p->bary[1] * xyz[1][k] + p->bary[2] * xyz[2][k];
        e1[k] = xyz[1][k] - xyz[0][k];
        e2[k] = xyz[2][k] - xyz[0][k];
    }
    glm_vec3_cross(e1, e2, n);
    float world_area = glm_vec3_norm(n) * 0.5f;
    glm_vec3_normalize(n);
    memcpy(r->normal, n, 3 * sizeof *n);
    light_direct_set frame = { .center = { (int32_t)lvl->center.x, (int32_t)lvl->center.y, (int32_t)lvl->center.z } };
    light_direct_world(&frame, mc, local, world);
    for (int k = 0; k < 3; k++)
        r->position[k] = world[k];
    return world_area;
}

/* The lightmap block and the luxel the point falls in: the block's index (-1 = none) and the
 * luxel's texel in it (out); total starts as the luxel's light. */
static int32_t find_luxel(const pick *p, float world_area, inspect_result *r, float total[3], int32_t *texel)
{
    const mesh_chunk *mc = p->mc;
    const mesh_batch *batch = &mc->batches[mc->runs[p->run].batch];
    const mesh_vertex *v[3] = { &mc->vertices[mc->indices[p->first]], &mc->vertices[mc->indices[p->first + 1]],
                                &mc->vertices[mc->indices[p->first + 2]] };
    const float page = (float)mesh_atlas_page_size(mc->atlas);
    float tq[3][2], q[2] = { 0, 0 };
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < 2; a++) {
            tq[i][a] = v[i]->lm_uv[a] * MESH_LM_UV_SCALE * page;
            q[a] += p->bary[i] * tq[i][a];
        }
    float c[2] = { (tq[0][0] + tq[1][0] + tq[2][0]) / 3, (tq[0][1] + tq[1][1] + tq[2][1]) / 3 };
    int32_t b = block_at(mc, batch->page, c);
    r->lightmap = -1;
    *texel = -1;
    if (b < 0)
        return b;
    const mesh_lightmap_block *blk = &mc->blocks[b];
    uint32_t side = blk->rect.side, bs = mesh_atlas_block_side(&blk->rect);
    int lx = (int)floorf(q[0] - blk->rect.x - blk->rect.border), ly = (int)floorf(q[1] - blk->rect.y - blk->rect.border);
    lx = lx < 0 ? 0 : lx >= (int)side ? (int)side - 1 : lx;
    ly = ly < 0 ? 0 : ly >= (int)side ? (int)side - 1 : ly;
    *texel = (int32_t)((ly + blk->rect.border) * bs + lx + blk->rect.border);
    memcpy(r->luxel_rgb, &blk->luxels[*texel * 3], 3);
    for (int k = 0; k < 3; k++)
        total[k] = r->luxel_rgb[k] / 255.0f;
    if (blk->lightmap >= 0) {
        r->lightmap = blk->lightmap;
        r->lightmap_size = side;
        r->lightmap_lowered = mc->lightmaps_lowered;
        r->luxel[0] = lx;
        r->luxel[1] = ly;
        float lm_area = fabsf((tq[1][0] - tq[0][0]) * (tq[2][1] - tq[0][1]) - (tq[2][0] - tq[0][0]) * (tq[1][1] - tq[0][1])) * 0.5f;
        r->luxel_size = lm_area > 0.0f ? sqrtf(world_area / lm_area) : 0.0f;
    }
    return b;
}

/* Static lights: their direct term at world (normal n), shadowed by the resident chunks. */
static void add_static_lights(const scene *s, const float world[3], const float n[3], inspect_result *r)
{
    const pmf_level *lvl = scene_level(s);
    const pmf_lights *infos = scene_light_infos(s);
    light_direct_set frame = { .center = { (int32_t)lvl->center.x, (int32_t)lvl->center.y, (int32_t)lvl->center.z } };
    pmf_light_info *statics = infos->count ? malloc(infos->count * sizeof *statics) : NULL;
    const mesh_chunk **meshes = malloc((scene_chunk_count(s) + 1) * sizeof *meshes);
    uint32_t *index = infos->count ? malloc(infos->count * sizeof *index) : NULL;
    for (uint32_t i = 0; statics && index && i < infos->count; i++)
        if (infos->list[i].level == scene_level_index(s) && infos->list[i].kind == PMF_LIGHT_STATIC) {
            index[frame.count] = i;
            statics[frame.count++] = infos->list[i];
        }
    frame.lights = statics;
    if (frame.count && meshes) {
        for (size_t i = 0; i < scene_chunk_count(s); i++)
            meshes[i] = scene_chunk_mesh(s, i);
        light_direct_occluders(&frame, lvl, meshes, scene_chunk_count(s));
    }
    for (size_t i = 0; i < frame.count; i++) {
        const pmf_light_info *l = &frame.lights[i];
        inspect_light il = { .kind = PMF_LIGHT_STATIC, .index = (int32_t)index[i], .name = infos->list[index[i]].name, .on = true };
        light_direct_shadowed(&frame, l, world, n, il.value);
        if (il.value[0] + il.value[1] + il.value[2] > 0.0f)
            add_light(r, il);
    }
    light_direct_free(&frame);
    free(statics);
    free(meshes);
    free(index);
}

/* Dynamic lights: their layer's luxel on block b; an enabled one adds to total. */
static void add_dynamic_lights(const scene *s, const mesh_chunk *mc, int32_t b, int32_t texel,
                               const scene_light *state, size_t states, inspect_result *r, float total[3])
{
    const pmf_lights *infos = scene_light_infos(s);
    for (uint32_t k = 0; b >= 0 && k < mc->layer_count; k++) {
        const mesh_light_layer *layer = &mc->layers[k];
        if (layer->block != (uint32_t)b)
            continue;
        const mesh_dynamic_light *dl = &mc->dynamic_lights[layer->light];
        inspect_light il = { .kind = PMF_LIGHT_DYNAMIC, .id = dl->id, .index = listed(infos, scene_level_index(s), PMF_LIGHT_DYNAMIC, dl->id) };
        il.name = il.index >= 0 ? infos->list[il.index].name : "";
        for (int ch = 0; ch < 3; ch++)
            il.value[ch] = layer->luxels[texel * 3 + ch] / 255.0f * dl->color[ch] / 255.0f;
        il.on = (dl->flags & PMF_LIGHT_ENABLE) != 0;
        for (size_t j = 0; j < states; j++)
            if (!state[j].fast && state[j].id == dl->id)
                il.on = state[j].enabled;
        if (il.value[0] + il.value[1] + il.value[2] > 0.0f) {
            if (il.on)
                for (int ch = 0; ch < 3; ch++)
                    total[ch] += il.value[ch];
            add_light(r, il);
        }
    }
}

/* Fast lights: colour x intensity x the multiplier interpolated at the point; one on adds to total. */
static void add_fast_lights(const scene *s, const pick *p, const scene_light *state, size_t states,
                            inspect_result *r, float total[3])
{
    const mesh_chunk *mc = p->mc;
    const pmf_lights *infos = scene_light_infos(s);
    for (uint32_t f = 0; mc->fast && f < mc->fast_light_count; f++) {
        const mesh_fast_light *fl = &mc->fast_lights[f];
        float mult = 0.0f;
        for (int i = 0; i < 3; i++) {
            uint32_t vertex = mc->indices[p->first + i];
            if (vertex >= mc->fast_vertex_count) /* no fast light reaches it (mesh.h) */
                continue;
            const mesh_fast_vertex *fv = &mc->fast[vertex];
            for (int slot = 0; slot < MESH_FAST_SLOTS; slot++)
                if (fv->slot[slot] == f)
                    mult += p->bary[i] * fv->mult[slot];
        }
        if (!(mult > 0.0f))
            continue;
        uint8_t intensity = fl->intensity;
        bool enabled = (fl->flags & PMF_LIGHT_ENABLE) != 0;
        for (size_t j = 0; j < states; j++)
            if (state[j].fast && state[j].id == fl->id) {
                intensity = state[j].intensity;
                enabled = state[j].enabled;
            }
        inspect_light il = { .kind = PMF_LIGHT_FAST, .id = fl->id, .index = listed(infos, scene_level_index(s), PMF_LIGHT_FAST, fl->id) };
        il.name = il.index >= 0 ? infos->list[il.index].name : "";
        il.on = enabled && intensity > 0;
        for (int ch = 0; ch < 3; ch++) {
            il.value[ch] = fl->color[ch] / 255.0f * intensity / 255.0f * mult / 255.0f;
            if (il.on)
                total[ch] += il.value[ch];
        }
        add_light(r, il);
    }
}

static void describe(const scene *s, const pick *p, inspect_result *r)
{
    const mesh_chunk *mc = p->mc;
    const mesh_run *run = &mc->runs[p->run];
    const mesh_batch *batch = &mc->batches[run->batch];
    const mesh_cube *cube = &mc->cubes[run->cube];
    const pmf_level *lvl = scene_level(s);
    r->chunk = mc->coord;
    r->cube = run->cube;
    r->material = batch->material;
    r->material_name = batch->material < lvl->common.material_count ? lvl->common.materials[batch->material].name : "";
    r->texture = batch->material < lvl->client.material_count ? lvl->client.materials[batch->material].texture : "";
    r->visibility_data = cube->vis != MESH_NONE || (cube->flags & PMF_CUBE_HAS_VISIBILITY);
    r->lighting_data = (cube->flags & PMF_CUBE_HAS_LIGHTING) != 0;
    r->lights_known = scene_light_infos(s)->count > 0;

    float world[3], n[3], total[3] = { 1, 1, 1 };
    float world_area = place_point(s, p, r, world, n);
    int32_t texel;
    int32_t b = find_luxel(p, world_area, r, total, &texel);
    add_static_lights(s, world, n, r);
    scene_light state[256];
    size_t states = scene_lights(s, state, 256);
    states = states > 256 ? 256 : states;
    add_dynamic_lights(s, mc, b, texel, state, states, r, total);
    add_fast_lights(s, p, state, states, r, total);
    float sum = total[0] + total[1] + total[2];
    for (size_t i = 0; i < r->light_count; i++) {
        inspect_light *il = &r->lights[i];
        float mine = il->value[0] + il->value[1] + il->value[2];
        il->share = il->on && sum > 0.0f ? fminf(mine / sum, 1.0f) : 0.0f;
    }
}

void inspect_pixel(const scene *s, int x, int y, int width, int height, inspect_result *out)
{
    memset(out, 0, sizeof *out);
    out->pixel[0] = x;
    out->pixel[1] = y;
    out->lightmap = -1;
    out->lights_known = scene_light_infos(s)->count > 0;
    mat4 vp, inv;
    scene_view_proj(s, (float *)vp);
    glm_mat4_inv(vp, inv);
    float ndc_x = (x + 0.5f) / width * 2.0f - 1.0f, ndc_y = 1.0f - (y + 0.5f) / height * 2.0f;
    vec4 near = { ndc_x, ndc_y, -1.0f, 1.0f }, far = { ndc_x, ndc_y, 0.5f, 1.0f }, a, b;
    glm_mat4_mulv(inv, near, a);
    glm_mat4_mulv(inv, far, b);
    const camera *cam = scene_camera(s);
    float eye[3] = { (float)cam->local[0], (float)cam->local[1], (float)cam->local[2] }, dir[3];
    for (int k = 0; k < 3; k++)
        dir[k] = b[k] / b[3] - a[k] / a[3];
    glm_vec3_normalize(dir);
    pick best = { .t = INFINITY };
    for (size_t i = 0, n = scene_chunk_count(s); i < n; i++) {
        const mesh_chunk *mc = scene_chunk_mesh(s, i);
        const int32_t c[3] = { (int32_t)mc->coord.x, (int32_t)mc->coord.y, (int32_t)mc->coord.z };
        double off[3];
        camera_chunk_offset(cam, c, off);
        float o[3] = { (float)(eye[0] - off[0]), (float)(eye[1] - off[1]), (float)(eye[2] - off[2]) };
        pick_chunk(mc, o, dir, &best);
    }
    out->model_hit = scene_model_at(s, eye, dir, best.t, &out->model);
    if (!best.mc)
        return;
    out->hit = true;
    out->distance = best.t;
    describe(s, &best, out);
}

static cJSON *json_vec3(double x, double y, double z)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(x));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(y));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(z));
    return a;
}

/* Values rounded to what a reader needs (and what floats hold): 1e-4 */
static double r4(double v)
{
    return round(v * 1e4) / 1e4;
}

char *inspect_json(const inspect_result *r, bool one_line)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *px = cJSON_CreateArray();
    cJSON_AddItemToArray(px, cJSON_CreateNumber(r->pixel[0]));
    cJSON_AddItemToArray(px, cJSON_CreateNumber(r->pixel[1]));
    cJSON_AddItemToObject(o, "pixel", px);
    cJSON_AddBoolToObject(o, "hit", r->hit);
    if (r->model_hit) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddItemToObject(m, "class", json_text(r->model.classname));
        cJSON_AddItemToObject(m, "targetname", json_text(r->model.targetname));
        cJSON_AddItemToObject(m, "file", json_text(r->model.file));
        cJSON_AddNumberToObject(m, "frame", r->model.frame);
        cJSON_AddNumberToObject(m, "distance", r4(r->model.distance));
        cJSON_AddItemToObject(o, "model", m);
    }
    if (r->hit) {
        cJSON_AddItemToObject(o, "position", json_vec3(r4(r->position[0]), r4(r->position[1]), r4(r->position[2])));
        cJSON_AddItemToObject(o, "normal", json_vec3(r4(r->normal[0]), r4(r->normal[1]), r4(r->normal[2])));
        cJSON_AddNumberToObject(o, "distance", r4(r->distance));
        cJSON_AddItemToObject(o, "chunk", json_vec3(r->chunk.x, r->chunk.y, r->chunk.z));
        cJSON_AddNumberToObject(o, "cube", r->cube);
        cJSON_AddNumberToObject(o, "material_index", r->material);
        cJSON_AddItemToObject(o, "material", json_text(r->material_name));
        cJSON_AddItemToObject(o, "texture", json_text(r->texture));
        if (r->lightmap >= 0) {
            cJSON_AddNumberToObject(o, "lightmap", r->lightmap);
            cJSON_AddNumberToObject(o, "lightmap_size", r->lightmap_size);
            cJSON_AddBoolToObject(o, "lightmap_lowered", r->lightmap_lowered);
            cJSON *lux = cJSON_CreateObject();
            cJSON_AddNumberToObject(lux, "x", r->luxel[0]);
            cJSON_AddNumberToObject(lux, "y", r->luxel[1]);
            cJSON_AddItemToObject(lux, "rgb", json_vec3(r->luxel_rgb[0], r->luxel_rgb[1], r->luxel_rgb[2]));
            cJSON_AddNumberToObject(lux, "size", r4(r->luxel_size));
            cJSON_AddItemToObject(o, "luxel", lux);
        } else {
            cJSON_AddNullToObject(o, "lightmap");
            cJSON_AddItemToObject(o, "base_rgb", json_vec3(r->luxel_rgb[0], r->luxel_rgb[1], r->luxel_rgb[2]));
        }
        cJSON_AddBoolToObject(o, "static_lights_known", r->lights_known);
        cJSON *lights = cJSON_CreateArray();
        for (size_t i = 0; i < r->light_count; i++) {
            const inspect_light *l = &r->lights[i];
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "kind", kind_names[l->kind % 3]);
            if (l->kind != PMF_LIGHT_STATIC)
                cJSON_AddNumberToObject(e, "id", l->id);
            if (l->index >= 0)
                cJSON_AddNumberToObject(e, "index", l->index);
            cJSON_AddItemToObject(e, "name", json_text(l->name));
            cJSON_AddItemToObject(e, "value", json_vec3(r4(l->value[0]), r4(l->value[1]), r4(l->value[2])));
            cJSON_AddBoolToObject(e, "on", l->on);
            cJSON_AddNumberToObject(e, "share", r4(l->share));
            cJSON_AddItemToArray(lights, e);
        }
        cJSON_AddItemToObject(o, "lights", lights);
        cJSON_AddBoolToObject(o, "visibility_data", r->visibility_data);
        cJSON_AddBoolToObject(o, "lighting_data", r->lighting_data);
    }
    char *printed = one_line ? cJSON_PrintUnformatted(o) : cJSON_Print(o);
    cJSON_Delete(o);
    char *clean = printed ? text_clean_json(printed) : NULL;
    free(printed);
    return clean;
}

void inspect_text(const inspect_result *r, char *buf, size_t size)
{
    size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, __VA_ARGS__))
    if (r->model_hit) {
        char name[96], target[96], file[160];
        text_clean(r->model.classname, name, sizeof name);
        text_clean(r->model.targetname, target, sizeof target);
        text_clean(r->model.file, file, sizeof file);
        PUT("model of %s%s%s%s: %s frame %u (%.1f m away)\n", name, target[0] ? " \"" : "", target, target[0] ? "\"" : "", file,
            r->model.frame, r->model.distance);
    }
    if (!r->hit) {
        if (!r->model_hit)
            PUT("inspector: nothing under the cursor");
        else if (n <= size)
            buf[n - 1] = '\0';
        return;
    }
    char mat[96], tex[160];
    text_clean(r->material_name, mat, sizeof mat);
    text_clean(r->texture[0] ? r->texture : "(untextured)", tex, sizeof tex);
    PUT("surface at %.2f, %.2f, %.2f (%.1f m away)\n", r->position[0], r->position[1], r->position[2], r->distance);
    PUT("material %s (%u), texture %s\n", mat, r->material, tex);
    PUT("chunk %u,%u,%u  cube %u  visibility data: %s  lighting data: %s\n", r->chunk.x, r->chunk.y, r->chunk.z, r->cube,
        r->visibility_data ? "yes" : "no", r->lighting_data ? "yes" : "no");
    if (r->lightmap >= 0)
        PUT("lightmap %d, %ux%u%s; luxel %d,%d = %u %u %u, %.3g m\n", r->lightmap, r->lightmap_size, r->lightmap_size,
            r->lightmap_lowered ? " (lowered)" : "", r->luxel[0], r->luxel[1], r->luxel_rgb[0], r->luxel_rgb[1],
            r->luxel_rgb[2], r->luxel_size);
    else
        PUT("no lightmap: cube base colour %u %u %u\n", r->luxel_rgb[0], r->luxel_rgb[1], r->luxel_rgb[2]);
    if (!r->lights_known)
        PUT("static lights unknown (no pmfview.lights)\n");
    for (size_t i = 0; i < r->light_count; i++) {
        const inspect_light *l = &r->lights[i];
        char name[64], id[24];
        text_clean(l->name[0] ? l->name : "(no name)", name, sizeof name);
        if (l->kind == PMF_LIGHT_STATIC)
            snprintf(id, sizeof id, "#%d", l->index);
        else
            snprintf(id, sizeof id, "%u", l->id);
        PUT("  %s %s %s: +%.3f %.3f %.3f, %.0f%%%s\n", kind_names[l->kind % 3], id, name, l->value[0], l->value[1],
            l->value[2], l->share * 100.0f, l->on ? "" : " (off)");
    }
#undef PUT
    if (n && n <= size && buf[n - 1] == '\n')
        buf[n - 1] = '\0';
}
