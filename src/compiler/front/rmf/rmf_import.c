/* rmf_import.c - the RMF front end: a Worldcraft / Hammer RMF (read by rmf/rmf.h) becomes an
 * editor map (editor.h): the visible objects of its tree, each solid a brush of outward planes,
 * each entity its key-values; the DOCINFO cameras. editor_import does the rest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/session.h"
#include "common/memory.h"
#include "front/editor/editor.h"
#include "rmf.h"

static bool object_hidden(const rmf_map *rmf, const rmf_object *o)
{
    for (uint32_t i = 0; i < o->visgroup_count; i++)
        for (uint32_t k = 0; k < rmf->visgroup_count; k++)
            if (rmf->visgroups[k].id == o->visgroups[i] && !rmf->visgroups[k].visible) return true;
    return false;
}

static v3 point(const float p[3]) { return v3_make(p[0], p[1], p[2]); }

/* How far (units) the solid's centre may lie in front of a face's plane as its points wind before
 * the face is said to face into the solid (hlcsg's distance tolerance). */
#define RMF_INWARD_EPS 0.01

/* A face's outward plane: from its three plane points, else its polygon when those are in a line
 * (both wind clockwise seen from outside, rmf.h); turned away from the solid's centre (the mean of
 * its vertices lies inside the convex solid), *inward set when that turns it by more than a
 * tolerance: Hammer never saves such a face. False for a face with no plane at all. */
static bool face_plane(const rmf_face *f, v3 centre, double normal[3], double *dist, bool *inward)
{
    v3 p0 = point(f->plane[0]), p1 = point(f->plane[1]), p2 = point(f->plane[2]);
    v3 n = v3_cross(v3_sub(p2, p0), v3_sub(p1, p0));
    double len = sqrt(v3_dot(n, n));
    if (!(len > 1e-9) || !isfinite(len)) {
        if (f->vertex_count < 3) return false;
        p0 = point(f->vertices[0]);
        n = v3_make(0, 0, 0);
        for (uint32_t k = 1; k + 1 < f->vertex_count; k++)
            n = v3_add(n, v3_cross(v3_sub(point(f->vertices[k]), p0), v3_sub(point(f->vertices[k + 1]), p0)));
        len = sqrt(v3_dot(n, n));
        if (!(len > 1e-9) || !isfinite(len)) return false;
    }
    n = v3_scale(n, 1.0 / len);
    *inward = v3_dot(n, centre) - v3_dot(n, p0) > RMF_INWARD_EPS;
    if (v3_dot(n, centre) > v3_dot(n, p0)) n = v3_scale(n, -1);
    memcpy(normal, n.e, sizeof n.e);
    *dist = v3_dot(n, p0);
    return true;
}

static void add_solid(editor_map *em, const rmf_object *o, uint32_t entity)
{
    v3 centre = v3_make(0, 0, 0);
    double lo[3] = { 1e30, 1e30, 1e30 }, hi[3] = { -1e30, -1e30, -1e30 };
    size_t nv = 0;
    for (uint32_t i = 0; i < o->face_count; i++)
        for (uint32_t k = 0; k < o->faces[i].vertex_count; k++, nv++) {
            const float *p = o->faces[i].vertices[k];
            centre = v3_add(centre, point(p));
            for (int a = 0; a < 3; a++) {
                lo[a] = fmin(lo[a], p[a]);
                hi[a] = fmax(hi[a], p[a]);
            }
        }
    if (!nv) {
        em->lost_faces[FACE_LOSS_BAD_BRUSH] += o->face_count;
        return;
    }
    centre = v3_scale(centre, 1.0 / (double)nv);
    editor_brush *b = PUSH(em->brushes, em->brush_count, em->brush_cap);
    b->first_face = (uint32_t)em->face_count;
    b->index = o->index;
    b->entity = entity;
    b->offset = o->offset;
    b->has_bounds = true;
    memcpy(b->lo, lo, sizeof lo);
    memcpy(b->hi, hi, sizeof hi);
    for (uint32_t i = 0; i < o->face_count; i++) {
        const rmf_face *f = &o->faces[i];
        editor_face *ef = PUSH(em->faces, em->face_count, em->face_cap);
        bool inward;
        if (!face_plane(f, centre, ef->normal, &ef->dist, &inward)) {
            em->face_count--;
            em->lost_faces[FACE_LOSS_BAD_BRUSH]++;
            continue;
        }
        if (inward && !b->inward) {
            b->inward = true;
            b->inward_face = i;
        }
        snprintf(ef->texture, sizeof ef->texture, "%.127s", f->texture);
        ef->has_axes = f->has_axes;
        for (int a = 0; a < 3; a++) {
            ef->u_axis[a] = f->u_axis[a];
            ef->v_axis[a] = f->v_axis[a];
        }
        ef->shift[0] = f->shift[0];
        ef->shift[1] = f->shift[1];
        ef->rotation = f->rotation;
        ef->scale[0] = f->scale[0];
        ef->scale[1] = f->scale[1];
        ef->offset = f->offset;
        ef->index = i;
    }
    em->brushes[em->brush_count - 1].face_count = (uint32_t)em->face_count - em->brushes[em->brush_count - 1].first_face;
}

static uint32_t add_entity(editor_map *em, const rmf_object *o)
{
    const rmf_entity *e = &o->entity;
    editor_entity *ee = PUSH(em->entities, em->entity_count, em->entity_cap);
    ee->classname = e->classname ? e->classname : "";
    ee->kv = e->kv_count ? xmalloc(e->kv_count * sizeof *ee->kv) : NULL;
    for (uint32_t i = 0; i < e->kv_count; i++)
        ee->kv[i] = (editor_kv){ e->kv[i].key ? e->kv[i].key : "", e->kv[i].value ? e->kv[i].value : "" };
    ee->kv_count = e->kv_count;
    ee->spawnflags = e->spawnflags;
    ee->point = o->kind == RMF_ENTITY && !o->child_count;
    for (int a = 0; a < 3; a++) ee->origin[a] = e->origin[a];
    ee->index = o->index;
    ee->offset = o->offset;
    return (uint32_t)em->entity_count - 1;
}

typedef struct walk_item { const rmf_object *o; uint32_t owner; bool hidden; } walk_item;

/* The visible objects in file order (iteratively: groups nest hundreds deep). Each solid becomes
 * a brush of the entity it belongs to (the world's, or its brush entity's); brushes are then
 * grouped by entity, keeping their order. The faces of hidden solids are counted as lost. */
static void walk_objects(const rmf_map *rmf, editor_map *em)
{
    walk_item *stack = NULL;
    size_t sp = 0, cap = 0;
    add_entity(em, &rmf->world);
    *(walk_item *)grow((void **)&stack, &sp, &cap, sizeof *stack) = (walk_item){ &rmf->world, 0, false };
    while (sp) {
        walk_item it = stack[--sp];
        const rmf_object *o = it.o;
        bool hidden = it.hidden || (o->kind != RMF_WORLD && object_hidden(rmf, o));
        if (o->kind == RMF_SOLID) {
            if (hidden) em->lost_faces[FACE_LOSS_HIDDEN] += o->face_count;
            else if (o->face_count) add_solid(em, o, it.owner);
            continue;
        }
        uint32_t owner = it.owner;
        if (o->kind == RMF_ENTITY && !hidden) {
            owner = add_entity(em, o);
            if (!o->child_count) continue;
        }
        /* children pushed last-first so they come off the stack in file order */
        for (uint32_t i = o->child_count; i-- > 0;)
            *(walk_item *)grow((void **)&stack, &sp, &cap, sizeof *stack) = (walk_item){ &o->children[i], owner, hidden };
    }
    xfree(stack);
    editor_map_group_brushes(em);
}

bool rmf_import(const char *path, const editor_import_desc *desc, map_def *map)
{
    rmf_map rmf;
    pmf_error err;
    if (!rmf_read_file(path, &rmf, &err)) {
        char line[1024];
        session_say(PMFC_ERROR, "pmfc: %s", pmf_error_format(&err, line, sizeof line));
        return false;
    }
    editor_map em = { .format = EDITOR_FORMAT_RMF, .game = EDITOR_GAME_GOLDSRC, .version = rmf.version };
    em.source_solids = rmf.solid_count;
    em.source_faces = rmf.face_count;
    walk_objects(&rmf, &em);
    for (uint32_t i = 0; i < rmf.camera_count; i++) {
        editor_camera *c = PUSH(em.cameras, em.camera_count, em.camera_cap);
        for (int a = 0; a < 3; a++) {
            c->eye[a] = rmf.cameras[i].eye[a];
            c->look[a] = rmf.cameras[i].look[a];
        }
    }
    bool ok = editor_import(path, &em, desc, map);
    editor_map_free(&em);
    rmf_free(&rmf);
    return ok;
}
