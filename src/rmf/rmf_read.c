/* rmf_read.c - the RMF reader (see rmf.h for the layout of each version). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rmf.h"
#include "base/pmf_budget.h"
#include "pmf/pmf_bytes.h"

/* ---- arena: every allocation of a map, released at once ---------------------------------- */

typedef struct arena_block {
    struct arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} arena_block;

struct rmf_arena {
    arena_block *head;
    size_t next_size;          /* grows so small maps stay small and big ones need few blocks */
};

/* Zeroed memory aligned to align (a power of two up to 16): strings take 1, so a file of empty
 * key-values cannot cost 16 bytes of memory per byte. */
static void *arena_alloc(struct rmf_arena *a, size_t n, size_t align)
{
    arena_block *b = a->head;
    size_t start = b ? (b->used + align - 1) & ~(align - 1) : 0;
    if (!b || start > b->size || b->size - start < n) {
        if (!a->next_size)
            a->next_size = 4096;
        size_t size = n > a->next_size ? n : a->next_size;
        if (a->next_size < ((size_t)1 << 20))
            a->next_size *= 2;
        b = pmf_budget_calloc(1, sizeof *b + size);
        if (!b)
            return NULL;
        b->size = size;
        b->next = a->head;
        a->head = b;
        start = 0;
    }
    void *p = b->data + start;
    b->used = start + n;
    return p;
}

static void arena_free(struct rmf_arena *a)
{
    if (!a)
        return;
    for (arena_block *b = a->head, *next; b; b = next) {
        next = b->next;
        pmf_budget_free(b);
    }
    pmf_budget_free(a);
}

/* ---- escaping: bytes from the file never reach a terminal raw ---------------------------- */

static void escape_bytes(char *dst, size_t dst_size, const void *src, size_t len)
{
    const unsigned char *s = src;
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < dst_size; i++) {
        if (s[i] < 0x20 || s[i] >= 0x7F) {
            if (n + 5 > dst_size)
                break;
            snprintf(dst + n, dst_size - n, "\\x%02x", s[i]);
            n += 4;
        } else {
            dst[n++] = (char)s[i];
        }
    }
    if (dst_size)
        dst[n] = 0;
}

/* ---- the reader's state ---------------------------------------------------------------------- */

/* What a version stores (rmf.h's table). */
typedef struct rmf_layout {
    float version;
    size_t texture_len;        /* face texture name bytes */
    bool axes;                 /* 2.2: u/v axes in faces */
    size_t face_pad;           /* unused bytes after the scales */
    bool visgroups_in_world;   /* 0.8 / 0.9: visgroups after the world's entity data */
    bool entity_pad;           /* 12 unused bytes closing entity data */
    bool paths;
} rmf_layout;

static const rmf_layout layouts[] = {
    { 0.8f, 16, false, 0, true, false, false },
    { 0.9f, 40, false, 0, true, false, false },
    { 1.4f, 40, false, 4, false, false, true },
    { 1.6f, 40, false, 4, false, true, true },
    { 1.8f, 260, false, 16, false, true, true },
    { 2.2f, 260, true, 16, false, true, true },
};

/* Fixed sizes: the least bytes each listed thing can take, for checking declared counts. */
enum {
    MIN_OBJECT = 1 + 9 + 4 + 3 + 4,    /* type "CMapGroup", no visgroups, colour, child count */
    MIN_KV = 2,                        /* two empty strings */
    VISGROUP_SIZE = 128 + 4 + 4 + 1 + 3,
    OLD_VISGROUP_SIZE = 128 + 4 + 1 + 1 + 2,
    MIN_PATH = 128 + 128 + 4 + 4,
    MIN_NODE = 12 + 4 + 128 + 4,
    CAMERA_SIZE = 24,
};

typedef struct reader {
    pmf_cursor c;              /* the file's bytes (base 0); its errors name the block `where` */
    size_t owed;               /* bytes promised to declared list items not yet read */
    const rmf_layout *layout;
    struct rmf_arena *arena;
    char where[96];
    uint32_t solids, faces, entities, groups;
} reader;

static void set_where(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_where(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->where, sizeof r->where, fmt, ap);
    va_end(ap);
}

static bool fail_at(reader *r, size_t offset, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(reader *r, size_t offset, const char *fmt, ...)
{
    char what[sizeof r->c.err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pmf_cursor_fail_at(&r->c, offset, "%s", what);
}

static size_t bytes_left(const reader *r) { return r->c.size - r->c.pos; }

/* Bytes not yet promised to items of enclosing lists. */
static size_t bytes_free(const reader *r)
{
    size_t left = bytes_left(r);
    return left > r->owed ? left - r->owed : 0;
}

static const uint8_t *take(reader *r, size_t n, const char *what) { return pmf_take(&r->c, n, what); }
static uint8_t read_u8(reader *r, const char *what) { return pmf_read_u8(&r->c, what); }
static int16_t read_i16(reader *r, const char *what) { return (int16_t)pmf_read_u16(&r->c, what); }
static int32_t read_i32(reader *r, const char *what) { return (int32_t)pmf_read_u32(&r->c, what); }
static float read_f32(reader *r, const char *what) { return pmf_read_f32(&r->c, what); }

/* n floats that must be finite: NaN or infinity in geometry is refused here, not downstream. */
static void read_floats(reader *r, float *out, int n, const char *what)
{
    size_t at = r->c.pos;
    for (int i = 0; i < n; i++)
        out[i] = read_f32(r, what);
    for (int i = 0; i < n && !r->c.failed; i++)
        if (!isfinite(out[i]))
            fail_at(r, at + 4 * (size_t)i, "%s is not a finite number", what);
}

static void skip(reader *r, size_t n, const char *what) { take(r, n, what); }

/* A fixed char[len] field into out (len + 1 bytes): up to the first NUL. */
static void read_fixed_string(reader *r, char *out, size_t len, const char *what)
{
    const uint8_t *p = take(r, len, what);
    out[0] = 0;
    if (!p)
        return;
    const uint8_t *nul = memchr(p, 0, len);
    size_t n = nul ? (size_t)(nul - p) : len;
    memcpy(out, p, n);
    out[n] = 0;
}

static void *alloc_aligned(reader *r, size_t n, size_t align)
{
    void *p = arena_alloc(r->arena, n ? n : 1, align);
    if (!p)
        fail_at(r, r->c.pos, "out of memory (%zu bytes)", n);
    return p;
}

static void *alloc(reader *r, size_t n) { return alloc_aligned(r, n, 16); }

/* A length-prefixed string (the u8 length counts the NUL), copied up to its first NUL. */
static char *read_pstring(reader *r, const char *what)
{
    size_t len = read_u8(r, what);
    const uint8_t *p = take(r, len, what);
    if (!p)
        return NULL;
    const uint8_t *nul = memchr(p, 0, len);
    size_t n = nul ? (size_t)(nul - p) : len;
    char *s = alloc_aligned(r, n + 1, 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

/* Reads an int32 count of items of at least item_size bytes each and checks it against the
 * bytes not yet promised; false (with the error) when it cannot fit. */
static bool read_count(reader *r, uint32_t *out, size_t item_size, const char *what)
{
    size_t at = r->c.pos;
    int32_t n = read_i32(r, what);
    *out = 0;
    if (r->c.failed)
        return false;
    if (n < 0)
        return fail_at(r, at, "%s %d is negative", what, n);
    if ((uint64_t)n * item_size > bytes_free(r))
        return fail_at(r, at, "%s %d needs %llu bytes, %zu are left", what, n,
                       (unsigned long long)((uint64_t)n * item_size), bytes_free(r));
    *out = (uint32_t)n;
    return true;
}

/* A zeroed array of count items, count already checked by read_count. */
static void *alloc_array(reader *r, uint32_t count, size_t item_size)
{
    return count ? alloc(r, (size_t)count * item_size) : NULL;
}

static bool read_kvs(reader *r, rmf_kv **kv, uint32_t *kv_count, const char *owner)
{
    uint32_t n;
    if (!read_count(r, &n, MIN_KV, "key-value count"))
        return false;
    *kv = alloc_array(r, n, sizeof **kv);
    char saved[sizeof r->where];
    memcpy(saved, r->where, sizeof saved);
    for (uint32_t i = 0; i < n && !r->c.failed; i++) {
        set_where(r, "%s key %u", owner, i);
        (*kv)[i].key = read_pstring(r, "key");
        (*kv)[i].value = read_pstring(r, "value");
        if (!r->c.failed)
            *kv_count = i + 1;
    }
    memcpy(r->where, saved, sizeof saved);
    return !r->c.failed;
}

/* ---- objects ------------------------------------------------------------------------------- */

static const char *const kind_names[] = { "world", "group", "solid", "entity" };
static const char *const type_names[] = { "CMapWorld", "CMapGroup", "CMapSolid", "CMapEntity" };

static void set_object_where(reader *r, const rmf_object *o)
{
    if (o->kind == RMF_WORLD)
        set_where(r, "world");
    else if (o->kind == RMF_ENTITY && o->entity.classname && o->entity.classname[0]) {
        char cls[48];
        escape_bytes(cls, sizeof cls, o->entity.classname, strlen(o->entity.classname));
        set_where(r, "entity %u (%s)", o->index, cls);
    } else {
        set_where(r, "%s %u", kind_names[o->kind], o->index);
    }
}

/* The type string: one of the four class names, NUL-terminated or filling its length. */
static bool read_kind(reader *r, rmf_kind *kind)
{
    size_t at = r->c.pos;
    size_t len = read_u8(r, "object type");
    const uint8_t *p = take(r, len, "object type");
    if (!p)
        return false;
    size_t n = len && p[len - 1] == 0 ? len - 1 : len;
    for (int k = 0; k < 4; k++)
        if (n == strlen(type_names[k]) && memcmp(p, type_names[k], n) == 0) {
            *kind = (rmf_kind)k;
            return true;
        }
    char shown[64];
    escape_bytes(shown, sizeof shown, p, n < 32 ? n : 32);
    return fail_at(r, at, "unknown object type \"%s%s\"", shown, n > 32 ? "..." : "");
}

/* Type, visgroups, colour and child count; allocates the children. */
static bool read_object_head(reader *r, rmf_object *o, bool root)
{
    o->offset = r->c.pos;
    if (!read_kind(r, &o->kind))
        return false;
    if (root != (o->kind == RMF_WORLD))
        return fail_at(r, o->offset, root ? "the map does not start with a world (CMapWorld)"
                                          : "a second world (CMapWorld) inside the map");
    switch (o->kind) {
    case RMF_WORLD: o->index = 0; break;
    case RMF_GROUP: o->index = r->groups++; break;
    case RMF_SOLID: o->index = r->solids++; break;
    case RMF_ENTITY: o->index = r->entities++; break;
    }
    set_object_where(r, o);

    if (r->layout->visgroups_in_world) {
        uint32_t n;
        if (!read_count(r, &n, 1, "visgroup id count"))
            return false;
        const uint8_t *ids = take(r, n, "visgroup ids");
        if (!ids)
            return false;
        uint32_t used = 0;
        for (uint32_t i = 0; i < n; i++)
            used += ids[i] != 0;
        o->visgroups = alloc_array(r, used, sizeof *o->visgroups);
        for (uint32_t i = 0; i < n && o->visgroups; i++)
            if (ids[i])
                o->visgroups[o->visgroup_count++] = ids[i];
    } else {
        int32_t id = read_i32(r, "visgroup id");
        if (id && !r->c.failed) {
            o->visgroups = alloc(r, sizeof *o->visgroups);
            if (o->visgroups) {
                o->visgroups[0] = id;
                o->visgroup_count = 1;
            }
        }
    }
    /* BGR in every version (rmf.h) */
    const uint8_t *c = take(r, 3, "colour");
    if (c) {
        o->color[0] = c[2];
        o->color[1] = c[1];
        o->color[2] = c[0];
    }
    uint32_t n;
    size_t count_at = r->c.pos;
    if (!read_count(r, &n, MIN_OBJECT, "child count"))
        return false;
    if (o->kind == RMF_SOLID && n)
        return fail_at(r, count_at, "child count %u: a solid has no children", n);
    o->children = alloc_array(r, n, sizeof *o->children);
    if (r->c.failed)
        return false;
    o->child_count = n;
    r->owed += (size_t)n * MIN_OBJECT;
    return true;
}

static bool read_entity_data(reader *r, rmf_entity *e, rmf_object *o)
{
    e->classname = read_pstring(r, "classname");
    if (!e->classname)
        return false;
    if (o->kind == RMF_ENTITY)
        set_object_where(r, o);
    skip(r, 4, "entity data");
    e->spawnflags = read_i32(r, "spawnflags");
    char owner[sizeof r->where];
    memcpy(owner, r->where, sizeof owner);
    if (!read_kvs(r, &e->kv, &e->kv_count, owner))
        return false;
    if (r->layout->entity_pad)
        skip(r, 12, "entity data");
    return !r->c.failed;
}

static size_t min_face_size(const rmf_layout *l)
{
    return l->texture_len + (l->axes ? 44 : 20) + l->face_pad + 4 + 36;
}

static bool read_face(reader *r, rmf_face *f)
{
    const rmf_layout *l = r->layout;
    f->offset = r->c.pos;
    read_fixed_string(r, f->texture, l->texture_len, "texture name");
    if (l->axes) {
        f->has_axes = true;
        read_floats(r, f->u_axis, 3, "u axis");
        read_floats(r, &f->shift[0], 1, "u shift");
        read_floats(r, f->v_axis, 3, "v axis");
        read_floats(r, &f->shift[1], 1, "v shift");
        read_floats(r, &f->rotation, 1, "rotation");
    } else {
        read_floats(r, &f->rotation, 1, "rotation");
        read_floats(r, f->shift, 2, "shift");
    }
    read_floats(r, f->scale, 2, "scale");
    skip(r, l->face_pad, "face");
    uint32_t n;
    if (!read_count(r, &n, 12, "vertex count"))
        return false;
    f->vertices = alloc_array(r, n, sizeof *f->vertices);
    if (r->c.failed)
        return false;
    f->vertex_count = n;
    for (uint32_t i = 0; i < n; i++)
        read_floats(r, f->vertices[i], 3, "vertex");
    read_floats(r, &f->plane[0][0], 9, "plane point");
    return !r->c.failed;
}

static bool read_solid_faces(reader *r, rmf_object *o)
{
    size_t face_size = min_face_size(r->layout);
    uint32_t n;
    if (!read_count(r, &n, face_size, "face count"))
        return false;
    o->faces = alloc_array(r, n, sizeof *o->faces);
    if (r->c.failed)
        return false;
    r->owed += (size_t)n * face_size;
    for (uint32_t i = 0; i < n; i++) {
        r->owed -= face_size;
        set_where(r, "solid %u face %u", o->index, i);
        if (!read_face(r, &o->faces[i]))
            return false;
        o->face_count = i + 1;
    }
    r->faces += n;
    return true;
}

static bool read_entity_tail(reader *r, rmf_object *o)
{
    if (!read_entity_data(r, &o->entity, o))
        return false;
    int16_t flag = read_i16(r, "entity kind");
    o->entity.point = flag == 2;
    read_floats(r, o->entity.origin, 3, "origin");
    skip(r, 4, "entity tail");
    return !r->c.failed;
}

/* The visgroup records: a block after the header from 1.4 on; in 0.8 / 0.9 they follow the
 * world's entity data, with a byte id and a "hidden" flag (`old`). */
static bool read_visgroups(reader *r, rmf_map *map, bool old)
{
    uint32_t n;
    if (!read_count(r, &n, old ? OLD_VISGROUP_SIZE : VISGROUP_SIZE, "visgroup count"))
        return false;
    map->visgroups = alloc_array(r, n, sizeof *map->visgroups);
    for (uint32_t i = 0; i < n && !r->c.failed; i++) {
        rmf_visgroup *v = &map->visgroups[i];
        set_where(r, "visgroup %u", i);
        read_fixed_string(r, v->name, 128, "name");
        const uint8_t *c = take(r, 4, "colour");
        if (c)
            memcpy(v->color, c, 3);
        if (old) {
            v->id = read_u8(r, "id");
            /* a "hidden" flag, not "visible": it is 0 in every shared 0.8 / 0.9 map, and the same
             * map saved by later versions (14 .. 22) marks those groups visible */
            v->visible = read_u8(r, "hidden flag") == 0;
            skip(r, 2, "visgroup");
        } else {
            v->id = read_i32(r, "id");
            v->visible = read_u8(r, "visible") != 0;
            skip(r, 3, "visgroup");
        }
        if (!r->c.failed)
            map->visgroup_count = i + 1;
    }
    return !r->c.failed;
}

static bool read_paths(reader *r, rmf_map *map)
{
    set_where(r, "world");
    uint32_t n;
    if (!read_count(r, &n, MIN_PATH, "path count"))
        return false;
    map->paths = alloc_array(r, n, sizeof *map->paths);
    if (r->c.failed)
        return false;
    r->owed += (size_t)n * MIN_PATH;
    for (uint32_t i = 0; i < n; i++) {
        rmf_path *p = &map->paths[i];
        r->owed -= MIN_PATH;
        set_where(r, "path %u", i);
        read_fixed_string(r, p->name, 128, "name");
        read_fixed_string(r, p->classname, 128, "classname");
        p->type = read_i32(r, "type");
        uint32_t nodes;
        if (!read_count(r, &nodes, MIN_NODE, "node count"))
            return false;
        p->nodes = alloc_array(r, nodes, sizeof *p->nodes);
        if (r->c.failed)
            return false;
        r->owed += (size_t)nodes * MIN_NODE;
        for (uint32_t j = 0; j < nodes; j++) {
            rmf_path_node *node = &p->nodes[j];
            r->owed -= MIN_NODE;
            set_where(r, "path %u node %u", i, j);
            read_floats(r, node->position, 3, "position");
            node->index = read_i32(r, "index");
            read_fixed_string(r, node->name, 128, "name");
            char owner[sizeof r->where];
            memcpy(owner, r->where, sizeof owner);
            if (!read_kvs(r, &node->kv, &node->kv_count, owner))
                return false;
            p->node_count = j + 1;
        }
        map->path_count = i + 1;
    }
    return true;
}

static bool read_world_tail(reader *r, rmf_map *map)
{
    set_where(r, "world");
    if (!read_entity_data(r, &map->world.entity, &map->world))
        return false;
    if (r->layout->visgroups_in_world) {
        set_where(r, "world");   /* the count is named as the world's: the records follow its data */
        if (!read_visgroups(r, map, true))
            return false;
    }
    if (r->layout->paths && !read_paths(r, map))
        return false;
    return true;
}

/* The object tree, depth first without recursion: a frame per open object. */
typedef struct frame {
    rmf_object *object;
    uint32_t next_child;
} frame;

static bool read_tree(reader *r, rmf_map *map)
{
    size_t depth = 1, cap = 64;
    frame *stack = pmf_budget_malloc(cap * sizeof *stack);
    if (!stack)
        return fail_at(r, r->c.pos, "out of memory");
    stack[0] = (frame){ &map->world, 0 };
    set_where(r, "world");
    bool ok = read_object_head(r, &map->world, true);
    while (ok && depth) {
        frame *top = &stack[depth - 1];
        rmf_object *o = top->object;
        if (top->next_child < o->child_count) {
            uint32_t i = top->next_child++;
            r->owed -= MIN_OBJECT;
            set_object_where(r, o);
            snprintf(r->where + strlen(r->where), sizeof r->where - strlen(r->where), " child %u", i);
            if (depth == cap) {
                frame *grown = pmf_budget_realloc(stack, 2 * cap * sizeof *stack);
                if (!grown) {
                    ok = fail_at(r, r->c.pos, "out of memory");
                    break;
                }
                stack = grown;
                cap *= 2;
            }
            stack[depth++] = (frame){ &o->children[i], 0 };
            ok = read_object_head(r, &o->children[i], false);
            continue;
        }
        set_object_where(r, o);
        switch (o->kind) {
        case RMF_WORLD: ok = read_world_tail(r, map); break;
        case RMF_GROUP: break;
        case RMF_SOLID: ok = read_solid_faces(r, o); break;
        case RMF_ENTITY: ok = read_entity_tail(r, o); break;
        }
        depth--;
    }
    pmf_budget_free(stack);
    return ok;
}

static bool read_docinfo(reader *r, rmf_map *map)
{
    set_where(r, "docinfo");
    size_t at = r->c.pos;
    const uint8_t *tag = take(r, 8, "DOCINFO tag");
    if (!tag)
        return false;
    if (memcmp(tag, "DOCINFO", 8) != 0) {
        char shown[40];
        escape_bytes(shown, sizeof shown, tag, 8);
        return fail_at(r, at, "expected \"DOCINFO\\x00\" or the end of the file after the world, found \"%s\"", shown);
    }
    map->has_docinfo = true;
    read_f32(r, "docinfo version");
    map->active_camera = read_i32(r, "active camera");
    uint32_t n;
    if (!read_count(r, &n, CAMERA_SIZE, "camera count"))
        return false;
    map->cameras = alloc_array(r, n, sizeof *map->cameras);
    for (uint32_t i = 0; i < n && !r->c.failed; i++) {
        set_where(r, "docinfo camera %u", i);
        read_floats(r, map->cameras[i].eye, 3, "eye position");
        read_floats(r, map->cameras[i].look, 3, "look-at position");
        if (!r->c.failed)
            map->camera_count = i + 1;
    }
    return !r->c.failed;
}

static bool read_header(reader *r, rmf_map *map)
{
    set_where(r, "header");
    float version = read_f32(r, "version");
    const uint8_t *magic = take(r, 3, "magic");
    if (!magic)
        return false;
    if (memcmp(magic, "RMF", 3) != 0) {
        char shown[16];
        escape_bytes(shown, sizeof shown, magic, 3);
        return fail_at(r, 4, "not an RMF file: magic \"%s\" is not \"RMF\"", shown);
    }
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (version == layouts[i].version)
            r->layout = &layouts[i];
    if (!r->layout)
        return fail_at(r, 0, "RMF version %g is not one of 0.8, 0.9, 1.4, 1.6, 1.8, 2.2", (double)version);
    map->version = version;
    return r->layout->visgroups_in_world || read_visgroups(r, map, false);
}

bool rmf_read(const uint8_t *data, size_t size, const char *name, rmf_map *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    reader r = { 0 };
    r.c = pmf_cursor_make(data, size, 0, name, r.where, err);
    out->arena = pmf_budget_calloc(1, sizeof *out->arena);
    if (!out->arena) {
        set_where(&r, "file");
        return fail_at(&r, 0, "out of memory");
    }
    r.arena = out->arena;
    bool ok = read_header(&r, out) && read_tree(&r, out) && (r.c.pos == size || read_docinfo(&r, out));
    if (ok && r.c.pos != size)
        ok = fail_at(&r, r.c.pos, "%zu bytes follow the cameras", size - r.c.pos);
    if (!ok) {
        rmf_free(out);
        return false;
    }
    out->solid_count = r.solids;
    out->face_count = r.faces;
    out->entity_count = r.entities;
    out->group_count = r.groups;
    return true;
}

void rmf_free(rmf_map *map)
{
    if (!map)
        return;
    arena_free(map->arena);
    memset(map, 0, sizeof *map);
}

/* Files larger than this are refused before reading: the largest real maps are a few MB. */
#define RMF_MAX_FILE_SIZE ((uint64_t)1 << 30)

bool rmf_read_file(const char *path, rmf_map *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data;
    size_t size;
    if (!pmf_read_whole_file(path, RMF_MAX_FILE_SIZE, &data, &size, err))
        return false;
    bool ok = rmf_read(data, size, path, out, err);
    pmf_budget_free(data);
    return ok;
}
