/* rmf_build.c - the test writer (see rmf_build.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_bytes.h"
#include "rmf_build.h"

/* One open object: where its child count goes and, for a brush entity, its entity data. */
typedef struct open_object {
    size_t count_at;
    uint32_t children;
    bool brush_entity;
    pmf_buf entity_data;
} open_object;

struct rmf_build {
    float version;
    size_t texture_len, face_pad;
    bool axes, old_visgroups, entity_pad, paths;
    pmf_buf visgroups, body, path_list, cameras;
    uint32_t visgroup_count, path_count, camera_count;
    int32_t active_camera;
    bool docinfo;
    rmf_entity world;
    open_object *stack;
    size_t depth, cap;
};

static void misuse(const char *what)
{
    fprintf(stderr, "rmf_build: %s\n", what);
    abort();
}

static void put_fixed(pmf_buf *out, const char *s, size_t len)
{
    size_t n = s ? strlen(s) : 0;
    if (n > len)
        misuse("string longer than its field");
    pmf_put_bytes(out, s, n);
    for (size_t i = n; i < len; i++)
        pmf_put_u8(out, 0);
}

/* u8 length counting the NUL, the bytes, the NUL (none for 255 bytes, which fill the length). */
static void put_pstring(pmf_buf *out, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > 255)
        misuse("string over 255 bytes");
    pmf_put_u8(out, (uint8_t)(n < 255 ? n + 1 : n));
    pmf_put_bytes(out, s, n);
    if (n < 255)
        pmf_put_u8(out, 0);
}

static void put_entity_data(const rmf_build *b, pmf_buf *out, const rmf_entity *e, const char *default_class)
{
    put_pstring(out, e->classname ? e->classname : default_class);
    pmf_put_u32(out, 0);
    pmf_put_u32(out, (uint32_t)e->spawnflags);
    pmf_put_u32(out, e->kv_count);
    for (uint32_t i = 0; i < e->kv_count; i++) {
        put_pstring(out, e->kv[i].key);
        put_pstring(out, e->kv[i].value);
    }
    if (b->entity_pad)
        for (int i = 0; i < 12; i++)
            pmf_put_u8(out, 0);
}

rmf_build *rmf_build_new(const rmf_build_desc *desc)
{
    rmf_build *b = calloc(1, sizeof *b);
    if (!b)
        misuse("out of memory");
    rmf_build_desc d = desc ? *desc : (rmf_build_desc){ 0 };
    b->version = d.version ? d.version : 2.2f;
    if (b->version == 2.2f) {
        b->texture_len = 260, b->face_pad = 16, b->axes = true, b->entity_pad = true, b->paths = true;
    } else if (b->version == 1.8f) {
        b->texture_len = 260, b->face_pad = 16, b->entity_pad = true, b->paths = true;
    } else if (b->version == 0.9f) {
        b->texture_len = 40, b->old_visgroups = true;
    } else {
        misuse("version is not 2.2, 1.8 or 0.9");
    }
    b->world = d.world;
    b->docinfo = d.docinfo;
    b->active_camera = -1;
    b->cap = 16;
    b->stack = calloc(b->cap, sizeof *b->stack);
    if (!b->stack)
        misuse("out of memory");
    b->depth = 1;
    /* the world's head: type, visgroups, colour, child count patched at the end */
    put_pstring(&b->body, "CMapWorld");
    pmf_put_u32(&b->body, 0);
    pmf_put_bytes(&b->body, (uint8_t[3]){ 220, 220, 220 }, 3);   /* Hammer's world colour */
    b->stack[0].count_at = b->body.size;
    pmf_put_u32(&b->body, 0);
    return b;
}

void rmf_build_visgroup(rmf_build *b, const rmf_visgroup *v)
{
    put_fixed(&b->visgroups, v->name, 128);
    pmf_put_bytes(&b->visgroups, v->color, 3);
    pmf_put_u8(&b->visgroups, 0);
    if (b->old_visgroups) {
        if (v->id < 0 || v->id > 255)
            misuse("0.9 visgroup ids are bytes");
        pmf_put_u8(&b->visgroups, (uint8_t)v->id);
        pmf_put_u8(&b->visgroups, !v->visible);       /* 0.9 stores a "hidden" flag */
        pmf_put_u16(&b->visgroups, 0);
    } else {
        pmf_put_u32(&b->visgroups, (uint32_t)v->id);
        pmf_put_u8(&b->visgroups, v->visible);
        pmf_put_bytes(&b->visgroups, (uint8_t[3]){ 0 }, 3);
    }
    b->visgroup_count++;
}

/* Type, visgroups, colour, child count (patched by rmf_build_end when the object opens). */
static void put_head(rmf_build *b, const char *type, const rmf_build_object *object, bool opens)
{
    rmf_build_object o = object ? *object : (rmf_build_object){ 0 };
    b->stack[b->depth - 1].children++;
    put_pstring(&b->body, type);
    if (b->old_visgroups) {
        pmf_put_u32(&b->body, o.visgroup_count);
        for (uint32_t i = 0; i < o.visgroup_count; i++) {
            if (o.visgroups[i] < 1 || o.visgroups[i] > 255)
                misuse("0.9 visgroup ids are 1..255");
            pmf_put_u8(&b->body, (uint8_t)o.visgroups[i]);
        }
    } else {
        if (o.visgroup_count > 1)
            misuse("one visgroup per object from 1.4 on");
        pmf_put_u32(&b->body, o.visgroup_count ? (uint32_t)o.visgroups[0] : 0);
    }
    uint8_t c[3] = { o.color[2], o.color[1], o.color[0] };   /* BGR */
    pmf_put_bytes(&b->body, c, 3);
    if (opens) {
        if (b->depth == b->cap) {
            open_object *grown = realloc(b->stack, 2 * b->cap * sizeof *grown);
            if (!grown)
                misuse("out of memory");
            b->stack = grown;
            b->cap *= 2;
        }
        b->stack[b->depth++] = (open_object){ .count_at = b->body.size };
    }
    pmf_put_u32(&b->body, 0);
}

static void put_face(rmf_build *b, const rmf_face *f)
{
    put_fixed(&b->body, f->texture, b->texture_len);
    if (b->axes) {
        pmf_put_f32s(&b->body, f->u_axis, 3);
        pmf_put_f32(&b->body, f->shift[0]);
        pmf_put_f32s(&b->body, f->v_axis, 3);
        pmf_put_f32(&b->body, f->shift[1]);
        pmf_put_f32(&b->body, f->rotation);
    } else {
        pmf_put_f32(&b->body, f->rotation);
        pmf_put_f32s(&b->body, f->shift, 2);
    }
    pmf_put_f32s(&b->body, f->scale, 2);
    for (size_t i = 0; i < b->face_pad; i++)
        pmf_put_u8(&b->body, 0);
    pmf_put_u32(&b->body, f->vertex_count);
    for (uint32_t i = 0; i < f->vertex_count; i++)
        pmf_put_f32s(&b->body, f->vertices[i], 3);
    pmf_put_f32s(&b->body, &f->plane[0][0], 9);
}

void rmf_build_solid(rmf_build *b, const rmf_face *faces, uint32_t face_count, const rmf_build_object *object)
{
    put_head(b, "CMapSolid", object, false);
    pmf_put_u32(&b->body, face_count);
    for (uint32_t i = 0; i < face_count; i++)
        put_face(b, &faces[i]);
}

void rmf_build_box_faces(const float lo[3], const float hi[3], const char *texture, rmf_face faces[6],
                         float vertices[24][3])
{
    /* corner i: x from bit 0, y from bit 1, z from bit 2 (0 = lo, 1 = hi) */
    static const int corners[6][4] = {
        { 6, 7, 5, 4 },    /* +Z */
        { 0, 1, 3, 2 },    /* -Z */
        { 6, 4, 0, 2 },    /* -X */
        { 3, 1, 5, 7 },    /* +X */
        { 7, 6, 2, 3 },    /* +Y */
        { 1, 0, 4, 5 },    /* -Y */
    };
    static const float axes[3][2][3] = {
        { { 1, 0, 0 }, { 0, -1, 0 } },    /* Z faces */
        { { 0, 1, 0 }, { 0, 0, -1 } },    /* X faces */
        { { 1, 0, 0 }, { 0, 0, -1 } },    /* Y faces */
    };
    for (int f = 0; f < 6; f++) {
        rmf_face *face = &faces[f];
        memset(face, 0, sizeof *face);
        snprintf(face->texture, sizeof face->texture, "%s", texture ? texture : "");
        face->has_axes = true;
        memcpy(face->u_axis, axes[f / 2][0], sizeof face->u_axis);
        memcpy(face->v_axis, axes[f / 2][1], sizeof face->v_axis);
        face->scale[0] = face->scale[1] = 1;
        face->vertex_count = 4;
        face->vertices = &vertices[4 * f];
        for (int v = 0; v < 4; v++) {
            int c = corners[f][v];
            float *p = vertices[4 * f + v];
            p[0] = c & 1 ? hi[0] : lo[0];
            p[1] = c & 2 ? hi[1] : lo[1];
            p[2] = c & 4 ? hi[2] : lo[2];
            if (v < 3)
                memcpy(face->plane[v], p, sizeof face->plane[v]);
        }
    }
}

void rmf_build_box(rmf_build *b, const float lo[3], const float hi[3], const char *texture)
{
    rmf_face faces[6];
    float vertices[24][3];
    rmf_build_box_faces(lo, hi, texture, faces, vertices);
    rmf_build_solid(b, faces, 6, NULL);
}

static void put_entity_tail(pmf_buf *out, bool point, const float origin[3])
{
    pmf_put_u16(out, point ? 2 : 0);
    pmf_put_f32s(out, origin, 3);
    pmf_put_u32(out, 0);
}

void rmf_build_point_entity(rmf_build *b, const rmf_entity *e, const rmf_build_object *object)
{
    put_head(b, "CMapEntity", object, false);
    put_entity_data(b, &b->body, e, "");
    put_entity_tail(&b->body, true, e->origin);
}

void rmf_build_begin_brush_entity(rmf_build *b, const rmf_entity *e, const rmf_build_object *object)
{
    put_head(b, "CMapEntity", object, true);
    open_object *top = &b->stack[b->depth - 1];
    top->brush_entity = true;
    put_entity_data(b, &top->entity_data, e, "");
    put_entity_tail(&top->entity_data, e->point, e->origin);
}

void rmf_build_begin_group(rmf_build *b, const rmf_build_object *object)
{
    put_head(b, "CMapGroup", object, true);
}

static void patch_u32(pmf_buf *buf, size_t at, uint32_t v)
{
    if (buf->oom)
        return;
    uint8_t p[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    memcpy(buf->data + at, p, 4);
}

void rmf_build_end(rmf_build *b)
{
    if (b->depth < 2)
        misuse("rmf_build_end without an open group or brush entity");
    open_object *top = &b->stack[--b->depth];
    patch_u32(&b->body, top->count_at, top->children);
    if (top->brush_entity) {
        pmf_put_bytes(&b->body, top->entity_data.data, top->entity_data.size);
        pmf_buf_free(&top->entity_data);
    }
}

void rmf_build_path(rmf_build *b, const rmf_path *p)
{
    if (!b->paths)
        misuse("paths need version 1.4 or later");
    pmf_buf *out = &b->path_list;
    put_fixed(out, p->name, 128);
    put_fixed(out, p->classname, 128);
    pmf_put_u32(out, (uint32_t)p->type);
    pmf_put_u32(out, p->node_count);
    for (uint32_t i = 0; i < p->node_count; i++) {
        const rmf_path_node *n = &p->nodes[i];
        pmf_put_f32s(out, n->position, 3);
        pmf_put_u32(out, (uint32_t)n->index);
        put_fixed(out, n->name, 128);
        pmf_put_u32(out, n->kv_count);
        for (uint32_t k = 0; k < n->kv_count; k++) {
            put_pstring(out, n->kv[k].key);
            put_pstring(out, n->kv[k].value);
        }
    }
    b->path_count++;
}

void rmf_build_camera(rmf_build *b, const rmf_camera *camera, bool active)
{
    pmf_put_f32s(&b->cameras, camera->eye, 3);
    pmf_put_f32s(&b->cameras, camera->look, 3);
    if (active)
        b->active_camera = (int32_t)b->camera_count;
    b->camera_count++;
}

void rmf_build_active_camera(rmf_build *b, int32_t index)
{
    b->active_camera = index;
}

static void release(rmf_build *b)
{
    for (size_t i = 1; i < b->depth; i++)
        pmf_buf_free(&b->stack[i].entity_data);
    pmf_buf_free(&b->visgroups);
    pmf_buf_free(&b->body);
    pmf_buf_free(&b->path_list);
    pmf_buf_free(&b->cameras);
    free(b->stack);
    free(b);
}

bool rmf_build_finish(rmf_build *b, uint8_t **data, size_t *size)
{
    if (b->depth != 1)
        misuse("rmf_build_finish with a group or brush entity still open");
    patch_u32(&b->body, b->stack[0].count_at, b->stack[0].children);
    put_entity_data(b, &b->body, &b->world, "worldspawn");
    if (b->old_visgroups) {
        pmf_put_u32(&b->body, b->visgroup_count);
        pmf_put_bytes(&b->body, b->visgroups.data, b->visgroups.size);
    }
    if (b->paths) {
        pmf_put_u32(&b->body, b->path_count);
        pmf_put_bytes(&b->body, b->path_list.data, b->path_list.size);
    }
    if (b->docinfo || b->camera_count) {
        pmf_put_bytes(&b->body, "DOCINFO", 8);
        pmf_put_f32(&b->body, 0.2f);
        pmf_put_u32(&b->body, (uint32_t)b->active_camera);
        pmf_put_u32(&b->body, b->camera_count);
        pmf_put_bytes(&b->body, b->cameras.data, b->cameras.size);
    }
    pmf_buf file = { 0 };
    pmf_buf_reserve(&file, 7 + 4 + b->visgroups.size + b->body.size);
    pmf_put_f32(&file, b->version);
    pmf_put_bytes(&file, "RMF", 3);
    if (!b->old_visgroups) {
        pmf_put_u32(&file, b->visgroup_count);
        pmf_put_bytes(&file, b->visgroups.data, b->visgroups.size);
    }
    pmf_put_bytes(&file, b->body.data, b->body.size);
    bool ok = !file.oom && !b->body.oom && !b->visgroups.oom && !b->path_list.oom && !b->cameras.oom;
    release(b);
    if (!ok) {
        pmf_buf_free(&file);
        return false;
    }
    *data = file.data;
    *size = file.size;
    return true;
}

bool rmf_build_write_file(rmf_build *b, const char *path)
{
    uint8_t *data;
    size_t size;
    if (!rmf_build_finish(b, &data, &size))
        return false;
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = false;
    free(data);
    return ok;
}

bool rmf_build_sample(float version, uint8_t **data, size_t *size)
{
    rmf_build *b = rmf_build_new(&(rmf_build_desc){
        .version = version,
        .world = { .kv = (rmf_kv[]){ { "wad", "a.wad" } }, .kv_count = 1 },
    });
    for (int i = 0; i < 5; i++)
        rmf_build_visgroup(b, &(rmf_visgroup){ "vis", { 1, 2, 3 }, i + 1, i % 2 });
    rmf_build_begin_group(b, &(rmf_build_object){ (const int32_t[]){ 2 }, 1, { 9, 9, 9 } });
    rmf_build_box(b, (float[3]){ 0, 0, 0 }, (float[3]){ 64, 64, 8 }, "FLOOR");
    rmf_build_begin_group(b, NULL);
    rmf_build_box(b, (float[3]){ 0, 0, 8 }, (float[3]){ 8, 64, 64 }, "WALL");
    rmf_build_end(b);
    rmf_build_end(b);
    rmf_kv light_kv[] = { { "_light", "255 255 255 200" }, { "targetname", "l1" } };
    rmf_build_point_entity(b, &(rmf_entity){ .classname = "light", .kv = light_kv, .kv_count = 2, .origin = { 32, 32, 48 } },
                           NULL);
    rmf_build_begin_brush_entity(b, &(rmf_entity){ .classname = "func_wall", .kv = (rmf_kv[]){ { "rendermode", "4" } },
                                                   .kv_count = 1 },
                                 NULL);
    rmf_build_box(b, (float[3]){ 56, 0, 8 }, (float[3]){ 64, 64, 64 }, "GLASS");
    rmf_build_end(b);
    if (b->paths) {
        rmf_path_node nodes[] = { { { 1, 2, 3 }, 1, "", (rmf_kv[]){ { "wait", "1" } }, 1 }, { { 4, 5, 6 }, 2, "n2", NULL, 0 } };
        rmf_build_path(b, &(rmf_path){ "p", "path_corner", 0, nodes, 2 });
    }
    rmf_build_camera(b, &(rmf_camera){ { 0, -200, 64 }, { 0, 0, 0 } }, true);
    rmf_build_camera(b, &(rmf_camera){ { 200, 0, 64 }, { 0, 0, 0 } }, false);
    return rmf_build_finish(b, data, size);
}

static rmf_build_object object_desc(const rmf_object *o)
{
    return (rmf_build_object){ o->visgroups, o->visgroup_count, { o->color[0], o->color[1], o->color[2] } };
}

bool rmf_build_map(const rmf_map *map, uint8_t **data, size_t *size)
{
    if (map->version != 2.2f && map->version != 1.8f && map->version != 0.9f)
        return false;
    rmf_build *b = rmf_build_new(&(rmf_build_desc){
        .version = map->version, .world = map->world.entity, .docinfo = map->has_docinfo });
    for (uint32_t i = 0; i < map->visgroup_count; i++)
        rmf_build_visgroup(b, &map->visgroups[i]);
    /* the tree in file order, without recursion: a frame per open object */
    typedef struct { const rmf_object *object; uint32_t next; } walk_frame;
    size_t depth = 1, cap = 64;
    walk_frame *stack = malloc(cap * sizeof *stack);
    if (!stack)
        misuse("out of memory");
    stack[0] = (walk_frame){ &map->world, 0 };
    while (depth) {
        walk_frame *top = &stack[depth - 1];
        if (top->next == top->object->child_count) {
            if (--depth)
                rmf_build_end(b);
            continue;
        }
        const rmf_object *o = &top->object->children[top->next++];
        rmf_build_object desc = object_desc(o);
        bool opens = o->kind == RMF_GROUP || (o->kind == RMF_ENTITY && (o->child_count || !o->entity.point));
        if (o->kind == RMF_GROUP)
            rmf_build_begin_group(b, &desc);
        else if (o->kind == RMF_SOLID)
            rmf_build_solid(b, o->faces, o->face_count, &desc);
        else if (opens)
            rmf_build_begin_brush_entity(b, &o->entity, &desc);
        else
            rmf_build_point_entity(b, &o->entity, &desc);
        if (!opens)
            continue;
        if (depth == cap) {
            walk_frame *grown = realloc(stack, 2 * cap * sizeof *grown);
            if (!grown)
                misuse("out of memory");
            stack = grown;
            cap *= 2;
        }
        stack[depth++] = (walk_frame){ o, 0 };
    }
    free(stack);
    for (uint32_t i = 0; i < map->path_count; i++)
        rmf_build_path(b, &map->paths[i]);
    for (uint32_t i = 0; i < map->camera_count; i++)
        rmf_build_camera(b, &map->cameras[i], false);
    rmf_build_active_camera(b, map->active_camera);
    return rmf_build_finish(b, data, size);
}
