/* rmf_compare.c - comparing two read maps field by field (see rmf_compare.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rmf_compare.h"

static bool differ(char *why, size_t why_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool differ(char *why, size_t why_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
    return false;
}

static bool same_kvs(const rmf_kv *a, uint32_t a_count, const rmf_kv *b, uint32_t b_count)
{
    if (a_count != b_count)
        return false;
    for (uint32_t i = 0; i < a_count; i++)
        if (strcmp(a[i].key, b[i].key) != 0 || strcmp(a[i].value, b[i].value) != 0)
            return false;
    return true;
}

static bool same_entity(const rmf_entity *a, const rmf_entity *b)
{
    return strcmp(a->classname, b->classname) == 0 && a->spawnflags == b->spawnflags && a->point == b->point &&
           memcmp(a->origin, b->origin, sizeof a->origin) == 0 && same_kvs(a->kv, a->kv_count, b->kv, b->kv_count);
}

static bool same_face(const rmf_face *a, const rmf_face *b)
{
    return strcmp(a->texture, b->texture) == 0 && a->has_axes == b->has_axes &&
           memcmp(a->u_axis, b->u_axis, sizeof a->u_axis) == 0 && memcmp(a->v_axis, b->v_axis, sizeof a->v_axis) == 0 &&
           memcmp(a->shift, b->shift, sizeof a->shift) == 0 && memcmp(&a->rotation, &b->rotation, sizeof a->rotation) == 0 &&
           memcmp(a->scale, b->scale, sizeof a->scale) == 0 && a->vertex_count == b->vertex_count &&
           (!a->vertex_count || memcmp(a->vertices, b->vertices, a->vertex_count * sizeof a->vertices[0]) == 0) &&
           memcmp(a->plane, b->plane, sizeof a->plane) == 0;
}

static bool same_object(const rmf_object *a, const rmf_object *b, bool world)
{
    if (a->kind != b->kind || a->index != b->index || a->child_count != b->child_count || a->face_count != b->face_count)
        return false;
    if (!world && (a->visgroup_count != b->visgroup_count || memcmp(a->color, b->color, 3) != 0 ||
                   (a->visgroup_count && memcmp(a->visgroups, b->visgroups, a->visgroup_count * sizeof a->visgroups[0]))))
        return false;
    for (uint32_t i = 0; i < a->face_count; i++)
        if (!same_face(&a->faces[i], &b->faces[i]))
            return false;
    return a->kind == RMF_GROUP || a->kind == RMF_SOLID || same_entity(&a->entity, &b->entity);
}

static bool same_path(const rmf_path *a, const rmf_path *b)
{
    if (strcmp(a->name, b->name) || strcmp(a->classname, b->classname) || a->type != b->type || a->node_count != b->node_count)
        return false;
    for (uint32_t i = 0; i < a->node_count; i++) {
        const rmf_path_node *x = &a->nodes[i], *y = &b->nodes[i];
        if (memcmp(x->position, y->position, sizeof x->position) || x->index != y->index || strcmp(x->name, y->name) ||
            !same_kvs(x->kv, x->kv_count, y->kv, y->kv_count))
            return false;
    }
    return true;
}

bool rmf_compare_maps(const rmf_map *a, const rmf_map *b, char *why, size_t why_size)
{
    if (a->version != b->version)
        return differ(why, why_size, "version %g != %g", (double)a->version, (double)b->version);
    if (a->solid_count != b->solid_count || a->face_count != b->face_count || a->entity_count != b->entity_count ||
        a->group_count != b->group_count)
        return differ(why, why_size, "totals differ");
    if (a->visgroup_count != b->visgroup_count)
        return differ(why, why_size, "visgroup count %u != %u", a->visgroup_count, b->visgroup_count);
    for (uint32_t i = 0; i < a->visgroup_count; i++) {
        const rmf_visgroup *x = &a->visgroups[i], *y = &b->visgroups[i];
        if (strcmp(x->name, y->name) || memcmp(x->color, y->color, 3) || x->id != y->id || x->visible != y->visible)
            return differ(why, why_size, "visgroup %u differs", i);
    }
    if (a->path_count != b->path_count)
        return differ(why, why_size, "path count %u != %u", a->path_count, b->path_count);
    for (uint32_t i = 0; i < a->path_count; i++)
        if (!same_path(&a->paths[i], &b->paths[i]))
            return differ(why, why_size, "path %u differs", i);
    if (a->has_docinfo != b->has_docinfo || a->active_camera != b->active_camera || a->camera_count != b->camera_count ||
        (a->camera_count && memcmp(a->cameras, b->cameras, a->camera_count * sizeof a->cameras[0])))
        return differ(why, why_size, "docinfo differs");
    /* both trees in file order, without recursion */
    typedef struct { const rmf_object *a, *b; uint32_t next; } pair_frame;
    size_t depth = 1, cap = 64;
    pair_frame *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return differ(why, why_size, "out of memory");
    bool same = same_object(&a->world, &b->world, true);
    stack[0] = (pair_frame){ &a->world, &b->world, 0 };
    const rmf_object *where = &a->world;
    while (same && depth) {
        pair_frame *top = &stack[depth - 1];
        if (top->next == top->a->child_count) {
            depth--;
            continue;
        }
        uint32_t i = top->next++;
        const rmf_object *x = &top->a->children[i], *y = &top->b->children[i];
        where = x;
        same = same_object(x, y, false);
        if (depth == cap) {
            pair_frame *grown = realloc(stack, 2 * cap * sizeof *grown);
            if (!grown) {
                free(stack);
                return differ(why, why_size, "out of memory");
            }
            stack = grown;
            cap *= 2;
        }
        stack[depth++] = (pair_frame){ x, y, 0 };
    }
    free(stack);
    static const char *const kinds[] = { "world", "group", "solid", "entity" };
    if (!same)
        return differ(why, why_size, "%s %u differs", kinds[where->kind], where->index);
    return true;
}
