/* pmf_decode_chunk.c - a chunk's common, client and server data blocks (decompressed), with
 * every cross-reference checked: material and light indices against their lists, vertex ranges
 * against the vertex array, lightmap indices, chunk coordinates against the level's grid, and
 * the octree (from cube 0: a tree, children in range, depth <= PMF_MAX_OCTREE_DEPTH). */
#include <stdio.h>

#include "pmf_internal.h"

#define PMF_MAX_OCTREE_DEPTH 24
/* A cube costs ~220 bytes decoded (common, client and server structs) for as little as 1 byte
 * stored, so this bounds what one block can make us allocate (~900 MiB). A complete octree
 * 7 levels deep has 2.4 M cubes. */
#define PMF_MAX_CUBES (1u << 22)
/* A stored vertex is seven f32s, laid out as pmf_vertex: the array is read in one copy. */
#define PMF_VERTEX_SIZE 28
_Static_assert(sizeof(pmf_vertex) == PMF_VERTEX_SIZE, "pmf_vertex must be the stored vertex's seven floats, unpadded");

typedef struct chunk_decoder {
    const pmf_level *lvl;
    pmf_arena *a;
    pmf_chunk *ch;
    uint32_t *cube_offsets;   /* where each cube starts in the common block, for errors */
} chunk_decoder;

static bool read_coord(pmf_cursor *c, const pmf_level *lvl, pmf_chunk_coord *out, const char *what)
{
    size_t at = c->pos;
    *out = pmf_chunk_index_unpack(pmf_read_u32(c, what));
    if (!c->failed && (out->x >= lvl->count_x || out->y >= lvl->count_y || out->z >= lvl->count_z))
        return pmf_cursor_fail_at(c, at, "%s (%u,%u,%u) is outside the %ux%ux%u grid", what, out->x, out->y, out->z,
                                  lvl->count_x, lvl->count_y, lvl->count_z);
    return !c->failed;
}

/* Environment regions; env names must exist among names[] when names_known. */
static pmf_env_region *read_env_regions(pmf_cursor *c, pmf_arena *a, pmf_blob t, uint8_t count, const void *envs,
                                        size_t env_count, size_t env_stride, bool names_known, const char *what)
{
    pmf_env_region *r = pmf_read_array(c, a, count, 100, sizeof *r, what);
    for (unsigned i = 0; i < count && !c->failed; i++) {
        for (int k = 0; k < 8; k++)
            pmf_read_f32s(c, r[i].corners[k], 3, "region corner");
        size_t at = c->pos;
        r[i].env = pmf_read_string(c, t, "region environment name");
        if (!c->failed && names_known && pmf_find_name(envs, env_count, env_stride, r[i].env) < 0) {
            pmf_cursor_fail_at(c, at, "%s %u: environment '%s' does not exist in the level", what, i, r[i].env);
            return NULL;
        }
    }
    return r;
}

static const char **read_used_names(pmf_cursor *c, pmf_arena *a, pmf_blob t, uint8_t count, const char *what)
{
    const char **names = pmf_read_array(c, a, count, 4, sizeof *names, what);
    for (unsigned i = 0; i < count && !c->failed; i++)
        names[i] = pmf_read_string(c, t, what);
    return names;
}

/* Resolves used names to level indices; a name that is not in the level is an error. */
static uint16_t *map_used_names(pmf_cursor *c, pmf_arena *a, const pmf_level *lvl, const char **used, uint8_t count,
                                size_t names_at, int (*find)(const pmf_level *, const char *), const char *what)
{
    if (c->failed || count == 0)
        return NULL;
    uint16_t *map = pmf_arena_alloc(a, count * sizeof *map);
    if (!map) {
        pmf_cursor_fail_at(c, names_at, "out of memory");
        return NULL;
    }
    for (unsigned i = 0; i < count; i++) {
        int k = find(lvl, used[i]);
        if (k < 0) {
            pmf_cursor_fail_at(c, names_at + 4 * i, "%s '%s' does not exist in the level", what, used[i]);
            return NULL;
        }
        map[i] = (uint16_t)k;
    }
    return map;
}

static bool read_visibility(pmf_cursor *c, chunk_decoder *d, pmf_visibility *v, uint32_t cube)
{
    v->cube_count = pmf_read_u32(c, "visible cube count");
    v->cubes = pmf_read_array(c, d->a, v->cube_count, 4, sizeof *v->cubes, "visible cube indices");
    for (uint32_t i = 0; i < v->cube_count && !c->failed; i++) {
        size_t at = c->pos;
        v->cubes[i] = pmf_read_u32(c, "visible cube index");
        if (!c->failed && v->cubes[i] >= d->ch->common.cube_count)
            return pmf_cursor_fail_at(c, at, "cube %u: visible cube %u is past the cube count %u", cube, v->cubes[i],
                                      d->ch->common.cube_count);
    }
    v->chunk_count = pmf_read_u32(c, "visible chunk count");
    v->chunks = pmf_read_array(c, d->a, v->chunk_count, 8, sizeof *v->chunks, "visible chunks");
    for (uint32_t i = 0; i < v->chunk_count && !c->failed; i++) {
        pmf_vis_chunk *vc = &v->chunks[i];
        read_coord(c, d->lvl, &vc->chunk, "visible chunk");
        vc->cube_count = pmf_read_u32(c, "visible chunk cube count");
        vc->cubes = pmf_read_array(c, d->a, vc->cube_count, 4, sizeof *vc->cubes, "visible chunk cube indices");
        for (uint32_t k = 0; k < vc->cube_count && !c->failed; k++)
            vc->cubes[k] = pmf_read_u32(c, "visible chunk cube index");
    }
    return !c->failed;
}

static bool check_index(pmf_cursor *c, size_t at, uint8_t index, uint8_t count, uint32_t cube, const char *what)
{
    if (index >= count)
        return pmf_cursor_fail_at(c, at, "cube %u: %s index %u is past the used count %u", cube, what, index, count);
    return true;
}

static bool read_cube(pmf_cursor *c, chunk_decoder *d, uint32_t i)
{
    const pmf_chunk_common *cc = &d->ch->common;
    pmf_cube *cube = &cc->cubes[i];
    size_t at = c->pos;
    d->cube_offsets[i] = (uint32_t)at;
    uint8_t ft = pmf_read_u8(c, "cube flags and type");
    cube->flags = ft & ~PMF_CUBE_TYPE_MASK;
    cube->type = ft & PMF_CUBE_TYPE_MASK;
    if (c->failed)
        return false;
    if (cube->type > PMF_CUBE_EXTGEOMETRY)
        return pmf_cursor_fail_at(c, at, "cube %u: unknown type %u", i, cube->type);
    if ((cube->flags & PMF_CUBE_HAS_VISIBILITY) && !read_visibility(c, d, &cube->vis, i))
        return false;
    switch (cube->type) {
    case PMF_CUBE_PARENT:
        cube->u.parent.child_mask = pmf_read_u8(c, "parent flags");
        for (int o = 0; o < 8; o++) {
            if (!(cube->u.parent.child_mask & (1u << o)))
                continue;
            at = c->pos;
            uint32_t child = pmf_read_u32(c, "child index");
            cube->u.parent.children[o] = child;
            if (c->failed)
                return false;
            if (child == 0)
                return pmf_cursor_fail_at(c, at, "cube %u: cube 0 (the root) cannot be a child", i);
            if (child >= cc->cube_count)
                return pmf_cursor_fail_at(c, at, "cube %u: child %u is past the cube count %u", i, child, cc->cube_count);
        }
        break;
    case PMF_CUBE_GEOMETRY:
        at = c->pos;
        cube->u.geom.material = pmf_read_u8(c, "material");
        cube->u.geom.physics_material = pmf_read_u8(c, "physics material");
        cube->u.geom.sound_material = pmf_read_u8(c, "sound material");
        if (c->failed || !check_index(c, at, cube->u.geom.material, cc->used_material_count, i, "material") ||
            !check_index(c, at + 1, cube->u.geom.physics_material, cc->used_physics_material_count, i, "physics material") ||
            !check_index(c, at + 2, cube->u.geom.sound_material, cc->used_sound_material_count, i, "sound material"))
            return false;
        break;
    case PMF_CUBE_EXTGEOMETRY:
        at = c->pos;
        pmf_read_bytes(c, cube->u.ext.material, PMF_FACE_COUNT, "face materials");
        pmf_read_bytes(c, cube->u.ext.physics_material, PMF_FACE_COUNT, "face physics materials");
        cube->u.ext.sound_material = pmf_read_u8(c, "sound material");
        if (c->failed)
            return false;
        for (int f = 0; f < PMF_FACE_COUNT; f++)
            if (!check_index(c, at + f, cube->u.ext.material[f], cc->used_material_count, i, "material") ||
                !check_index(c, at + 6 + f, cube->u.ext.physics_material[f], cc->used_physics_material_count, i,
                             "physics material"))
                return false;
        if (!check_index(c, at + 12, cube->u.ext.sound_material, cc->used_sound_material_count, i, "sound material"))
            return false;
        cube->u.ext.moved_mask = pmf_read_u8(c, "point moved bits");
        for (int o = 0; o < 8; o++)
            if (cube->u.ext.moved_mask & (1u << o))
                pmf_read_f32s(c, cube->u.ext.points[o], 3, "moved point");
        break;
    }
    return !c->failed;
}

/* From cube 0 the parents' children must form a tree no deeper than PMF_MAX_OCTREE_DEPTH. */
static bool check_octree(pmf_cursor *c, chunk_decoder *d)
{
    const pmf_chunk_common *cc = &d->ch->common;
    uint8_t *depth = malloc(cc->cube_count);
    uint32_t *queue = malloc((size_t)cc->cube_count * sizeof *queue);
    if (!depth || !queue) {
        free(depth);
        free(queue);
        return pmf_cursor_fail_at(c, 0, "out of memory for the octree check");
    }
    memset(depth, 0xFF, cc->cube_count);
    depth[0] = 0;
    queue[0] = 0;
    size_t head = 0, tail = 1;
    bool ok = true;
    while (ok && head < tail) {
        uint32_t i = queue[head++];
        const pmf_cube *cube = &cc->cubes[i];
        if (cube->type != PMF_CUBE_PARENT)
            continue;
        for (int o = 0; o < 8 && ok; o++) {
            if (!(cube->u.parent.child_mask & (1u << o)))
                continue;
            uint32_t child = cube->u.parent.children[o];
            if (depth[child] != 0xFF)
                ok = pmf_cursor_fail_at(c, d->cube_offsets[i], "cube %u: child %u is reached twice (a cycle or a second parent)",
                                        i, child);
            else if (depth[i] + 1 > PMF_MAX_OCTREE_DEPTH)
                ok = pmf_cursor_fail_at(c, d->cube_offsets[i], "cube %u: octree deeper than %d levels", i, PMF_MAX_OCTREE_DEPTH);
            else {
                depth[child] = (uint8_t)(depth[i] + 1);
                queue[tail++] = child;
            }
        }
    }
    free(depth);
    free(queue);
    return ok;
}

static bool decode_common(pmf_cursor *c, chunk_decoder *d, pmf_blob *table)
{
    const pmf_level_common *lc = &d->lvl->common;
    pmf_chunk_common *cc = &d->ch->common;
    pmf_arena *a = d->a;
    pmf_blob t = pmf_read_table(c, "string table");
    *table = t;

    cc->used_material_count = pmf_read_u8(c, "used material count");
    size_t at = c->pos;
    cc->used_materials = read_used_names(c, a, t, cc->used_material_count, "used material");
    cc->material_map = map_used_names(c, a, d->lvl, cc->used_materials, cc->used_material_count, at,
                                      pmf_level_find_material, "used material");
    cc->used_physics_material_count = pmf_read_u8(c, "used physics material count");
    at = c->pos;
    cc->used_physics_materials = read_used_names(c, a, t, cc->used_physics_material_count, "used physics material");
    cc->physics_material_map = map_used_names(c, a, d->lvl, cc->used_physics_materials, cc->used_physics_material_count,
                                              at, pmf_level_find_physics_material, "used physics material");
    cc->used_sound_material_count = pmf_read_u8(c, "used sound material count");
    cc->used_sound_materials = read_used_names(c, a, t, cc->used_sound_material_count, "used sound material");

    cc->weather_region_count = pmf_read_u8(c, "weather region count");
    cc->weather_regions = read_env_regions(c, a, t, cc->weather_region_count, lc->weather_envs, lc->weather_env_count,
                                           sizeof *lc->weather_envs, true, "weather region");
    cc->gravity_region_count = pmf_read_u8(c, "gravity region count");
    cc->gravity_regions = read_env_regions(c, a, t, cc->gravity_region_count, lc->gravity_envs, lc->gravity_env_count,
                                           sizeof *lc->gravity_envs, true, "gravity region");

    cc->dynamic_light_count = pmf_read_u8(c, "dynamic light count");
    cc->dynamic_lights = pmf_read_array(c, a, cc->dynamic_light_count, 5, sizeof *cc->dynamic_lights, "dynamic lights");
    for (unsigned i = 0; i < cc->dynamic_light_count && !c->failed; i++) {
        at = c->pos;
        cc->dynamic_lights[i].flags = pmf_read_u8(c, "dynamic light flags");
        if (!c->failed && (cc->dynamic_lights[i].flags & ~(PMF_LIGHT_ENABLE | PMF_LIGHT_PRESERVE)))
            return pmf_cursor_fail_at(c, at, "dynamic light %u flags 0x%02x set reserved bits", i, cc->dynamic_lights[i].flags);
        cc->dynamic_lights[i].id = pmf_read_u32(c, "dynamic light ID");
    }
    cc->fast_light_count = pmf_read_u8(c, "fast light count");
    cc->fast_lights = pmf_read_array(c, a, cc->fast_light_count, 6, sizeof *cc->fast_lights, "fast lights");
    for (unsigned i = 0; i < cc->fast_light_count && !c->failed; i++) {
        at = c->pos;
        cc->fast_lights[i].flags = pmf_read_u8(c, "fast light flags");
        if (!c->failed && (cc->fast_lights[i].flags & ~(PMF_LIGHT_ENABLE | PMF_LIGHT_PRESERVE)))
            return pmf_cursor_fail_at(c, at, "fast light %u flags 0x%02x set reserved bits", i, cc->fast_lights[i].flags);
        cc->fast_lights[i].intensity = pmf_read_u8(c, "fast light intensity");
        cc->fast_lights[i].id = pmf_read_u32(c, "fast light ID");
    }

    at = c->pos;
    cc->cube_count = pmf_read_u32(c, "cube count");
    if (c->failed)
        return false;
    if (cc->cube_count == 0)
        return pmf_cursor_fail_at(c, at, "a present chunk needs at least one cube");
    if (cc->cube_count > PMF_MAX_CUBES)
        return pmf_cursor_fail_at(c, at, "cube count %u is more than %u", cc->cube_count, PMF_MAX_CUBES);
    cc->cubes = pmf_read_array(c, a, cc->cube_count, 1, sizeof *cc->cubes, "cubes");
    if (c->failed)
        return false;
    d->cube_offsets = malloc((size_t)cc->cube_count * sizeof *d->cube_offsets);
    if (!d->cube_offsets)
        return pmf_cursor_fail_at(c, at, "out of memory");
    for (uint32_t i = 0; i < cc->cube_count; i++)
        if (!read_cube(c, d, i))
            return false;
    return pmf_cursor_expect_end(c, "the common chunk data") && check_octree(c, d);
}

static bool check_lightmap(pmf_cursor *c, size_t at, uint8_t lm, uint8_t count, uint32_t cube)
{
    if (lm != PMF_NO_LIGHTMAP && lm >= count)
        return pmf_cursor_fail_at(c, at, "cube %u: lightmap %u is past the lightmap count %u", cube, lm, count);
    return true;
}

static bool check_vertex_range(pmf_cursor *c, size_t at, uint32_t first, uint64_t count, uint32_t vertex_count,
                               uint32_t cube)
{
    if (first + count > vertex_count)
        return pmf_cursor_fail_at(c, at, "cube %u: vertices %u..%llu are past the vertex count %u", cube, first,
                                  (unsigned long long)(first + count), vertex_count);
    return true;
}

static bool read_light_refs(pmf_cursor *c, pmf_arena *a, uint8_t *count, pmf_light_ref **refs, uint8_t light_count,
                            uint32_t cube, const char *what)
{
    *count = pmf_read_u8(c, what);
    *refs = pmf_read_array(c, a, *count, 2, sizeof **refs, what);
    for (unsigned k = 0; k < *count && !c->failed; k++) {
        size_t at = c->pos;
        (*refs)[k].index = pmf_read_u8(c, what);
        (*refs)[k].amount = pmf_read_u8(c, what);
        if (!c->failed && (*refs)[k].index >= light_count)
            return pmf_cursor_fail_at(c, at, "cube %u: %s %u is past the chunk's %u", cube, what, (*refs)[k].index,
                                      light_count);
    }
    return !c->failed;
}

/* An empty client block (both sizes 0) is valid when nothing in the common data needs one. */
static bool accept_empty_client(pmf_cursor *c, chunk_decoder *d)
{
    const pmf_chunk_common *cc = &d->ch->common;
    if (cc->dynamic_light_count || cc->fast_light_count)
        return pmf_cursor_fail_at(c, 0, "empty block, but the chunk's lights need client data");
    for (uint32_t i = 0; i < cc->cube_count; i++)
        if (cc->cubes[i].type >= PMF_CUBE_GEOMETRY || (cc->cubes[i].flags & PMF_CUBE_HAS_LIGHTING))
            return pmf_cursor_fail_at(c, 0, "empty block, but cube %u needs client data", i);
    d->ch->client.cubes = pmf_arena_alloc(d->a, (size_t)cc->cube_count * sizeof *d->ch->client.cubes);
    return d->ch->client.cubes || pmf_cursor_fail_at(c, 0, "out of memory");
}

/* Whether stored vertices can be used without a copy: little-endian floats laid out as pmf_vertex,
 * at an address aligned for it. */
static bool vertices_in_place(const uint8_t *stored)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return sizeof(pmf_vertex) == PMF_VERTEX_SIZE && (uintptr_t)stored % _Alignof(pmf_vertex) == 0;
#else
    (void)stored;
    return false;
#endif
}

static bool read_client_lightmaps(pmf_cursor *c, pmf_arena *a, pmf_chunk_client *cl)
{
    cl->lightmap_count = pmf_read_u8(c, "lightmap count");
    cl->lightmaps = pmf_read_array(c, a, cl->lightmap_count, 4, sizeof *cl->lightmaps, "lightmaps");
    for (unsigned i = 0; i < cl->lightmap_count && !c->failed; i++) {
        size_t at = c->pos;
        cl->lightmaps[i].size_exp = pmf_read_u8(c, "lightmap size");
        if (!c->failed && cl->lightmaps[i].size_exp > PMF_MAX_LIGHTMAP_EXP)
            return pmf_cursor_fail_at(c, at, "lightmap %u size 2^%u is more than 2^%d", i, cl->lightmaps[i].size_exp,
                                      PMF_MAX_LIGHTMAP_EXP);
        cl->lightmaps[i].luxels = (uint8_t *)pmf_take(c, (size_t)3 << (2 * cl->lightmaps[i].size_exp), "lightmap luxels");
    }
    return !c->failed;
}

static bool read_client_vertices(pmf_cursor *c, pmf_arena *a, pmf_chunk_client *cl)
{
    cl->vertex_count = pmf_read_u32(c, "vertex count");
    if (pmf_cursor_fits(c, cl->vertex_count, PMF_VERTEX_SIZE, "vertices") && cl->vertex_count) {
        const uint8_t *stored = c->data + c->pos;
        if (vertices_in_place(stored)) {
            /* the block is arena memory the chunk owns: the vertices are read where they lie */
            cl->vertices = (pmf_vertex *)(uintptr_t)stored;
            pmf_take(c, (size_t)cl->vertex_count * PMF_VERTEX_SIZE, "vertices");
        } else if ((cl->vertices = pmf_read_array_uninit(c, a, cl->vertex_count, PMF_VERTEX_SIZE, sizeof *cl->vertices,
                                                         "vertices"))) {
            pmf_copy_le32s(cl->vertices, pmf_take(c, (size_t)cl->vertex_count * PMF_VERTEX_SIZE, "vertices"),
                           (size_t)cl->vertex_count * (PMF_VERTEX_SIZE / 4));
        }
    }
    return !c->failed;
}

/* The dynamic lights' colours and lightmap layers, each layer the size of the lightmap it targets. */
static bool read_client_dynamic_lights(pmf_cursor *c, pmf_arena *a, pmf_chunk_client *cl, uint32_t count)
{
    if (count) {
        cl->dynamic_lights = pmf_arena_alloc(a, count * sizeof *cl->dynamic_lights);
        if (!cl->dynamic_lights)
            return pmf_cursor_fail_at(c, c->pos, "out of memory");
    }
    for (unsigned i = 0; i < count && !c->failed; i++) {
        pmf_client_dynamic_light *l = &cl->dynamic_lights[i];
        pmf_read_bytes(c, l->color, 3, "dynamic light color");
        l->layer_count = pmf_read_u8(c, "affected lightmap count");
        l->layers = pmf_read_array(c, a, l->layer_count, 1, sizeof *l->layers, "lightmap layers");
        for (unsigned k = 0; k < l->layer_count && !c->failed; k++) {
            size_t at = c->pos;
            l->layers[k].target = pmf_read_u8(c, "layer target lightmap");
            if (!c->failed && l->layers[k].target >= cl->lightmap_count)
                return pmf_cursor_fail_at(c, at, "dynamic light %u layer %u: target lightmap %u is past the lightmap count %u",
                                          i, k, l->layers[k].target, cl->lightmap_count);
            size_t luxels = (size_t)3 << (2 * cl->lightmaps[l->layers[k].target].size_exp);
            l->layers[k].luxels = (uint8_t *)pmf_take(c, luxels, "layer luxels");
        }
    }
    return !c->failed;
}

/* The fast lights' colours and multiplier ranges, every range within the vertices. */
static bool read_client_fast_lights(pmf_cursor *c, pmf_arena *a, pmf_chunk_client *cl, uint32_t count)
{
    if (count) {
        cl->fast_lights = pmf_arena_alloc(a, count * sizeof *cl->fast_lights);
        if (!cl->fast_lights)
            return pmf_cursor_fail_at(c, c->pos, "out of memory");
    }
    for (unsigned i = 0; i < count && !c->failed; i++) {
        pmf_client_fast_light *l = &cl->fast_lights[i];
        pmf_read_bytes(c, l->color, 3, "fast light color");
        l->range_count = pmf_read_u32(c, "fast light range count");
        l->ranges = pmf_read_array(c, a, l->range_count, 8, sizeof *l->ranges, "fast light ranges");
        uint64_t cursor = 0;
        for (uint32_t k = 0; k < l->range_count && !c->failed; k++) {
            size_t at = c->pos;
            l->ranges[k].skip = pmf_read_u32(c, "vertices to skip");
            l->ranges[k].count = pmf_read_u32(c, "multiplier count");
            cursor += (uint64_t)l->ranges[k].skip + l->ranges[k].count;
            if (!c->failed && cursor > cl->vertex_count)
                return pmf_cursor_fail_at(c, at, "fast light %u range %u runs to vertex %llu, past the vertex count %u", i, k,
                                          (unsigned long long)cursor, cl->vertex_count);
            l->ranges[k].multipliers = (uint8_t *)pmf_take(c, l->ranges[k].count, "multipliers");
        }
    }
    return !c->failed;
}

/* Cube i's client data: its light references, and its lightmaps and vertices checked against the
 * chunk's. */
static bool read_client_cube(pmf_cursor *c, pmf_arena *a, const pmf_chunk_common *cc, pmf_chunk_client *cl, uint32_t i)
{
    const pmf_cube *cube = &cc->cubes[i];
    pmf_client_cube *cc_ = &cl->cubes[i];
    if (cube->flags & PMF_CUBE_HAS_LIGHTING) {
        pmf_read_bytes(c, cc_->lighting.base, 3, "base light color");
        if (!read_light_refs(c, a, &cc_->lighting.dynamic_count, &cc_->lighting.dynamic, cc->dynamic_light_count, i,
                             "dynamic light reference") ||
            !read_light_refs(c, a, &cc_->lighting.fast_count, &cc_->lighting.fast, cc->fast_light_count, i,
                             "fast light reference"))
            return false;
    }
    size_t at = c->pos;
    if (cube->type == PMF_CUBE_GEOMETRY) {
        cc_->u.geom.lightmap = pmf_read_u8(c, "lightmap");
        cc_->u.geom.first_vertex = pmf_read_u32(c, "first vertex");
        cc_->u.geom.face_mask = pmf_read_u8(c, "face bits");
        if (c->failed || !check_lightmap(c, at, cc_->u.geom.lightmap, cl->lightmap_count, i))
            return false;
        if (cc_->u.geom.face_mask & 0xC0u)
            return pmf_cursor_fail_at(c, at + 5, "cube %u: face bits 0x%02x set reserved bits", i, cc_->u.geom.face_mask);
        if (!check_vertex_range(c, at + 1, cc_->u.geom.first_vertex,
                                4u * (unsigned)__builtin_popcount(cc_->u.geom.face_mask), cl->vertex_count, i))
            return false;
    } else if (cube->type == PMF_CUBE_EXTGEOMETRY) {
        cc_->u.ext.first_vertex = pmf_read_u32(c, "first vertex");
        pmf_read_bytes(c, cc_->u.ext.lightmap, PMF_FACE_COUNT, "face lightmaps");
        pmf_read_bytes(c, cc_->u.ext.tri_count, PMF_FACE_COUNT, "face triangle counts");
        if (c->failed)
            return false;
        uint64_t tris = 0;
        for (int f = 0; f < PMF_FACE_COUNT; f++) {
            if (!check_lightmap(c, at + 4 + f, cc_->u.ext.lightmap[f], cl->lightmap_count, i))
                return false;
            tris += cc_->u.ext.tri_count[f];
        }
        if (!check_vertex_range(c, at, cc_->u.ext.first_vertex, tris * 3, cl->vertex_count, i))
            return false;
    }
    return !c->failed;
}

static bool decode_client(pmf_cursor *c, chunk_decoder *d, pmf_blob t)
{
    if (c->size == 0)
        return accept_empty_client(c, d);
    const pmf_chunk_common *cc = &d->ch->common;
    pmf_chunk_client *cl = &d->ch->client;
    const pmf_level_client *lcl = &d->lvl->client;
    bool envs_known = d->lvl->parts & PMF_PART_CLIENT;
    pmf_arena *a = d->a;

    cl->sound_region_count = pmf_read_u8(c, "sound region count");
    cl->sound_regions = read_env_regions(c, a, t, cl->sound_region_count, lcl->sound_envs, lcl->sound_env_count,
                                         sizeof *lcl->sound_envs, envs_known, "sound region");
    cl->sky_region_count = pmf_read_u8(c, "sky region count");
    cl->sky_regions = read_env_regions(c, a, t, cl->sky_region_count, lcl->sky_envs, lcl->sky_env_count,
                                       sizeof *lcl->sky_envs, envs_known, "sky region");
    if (!read_client_lightmaps(c, a, cl) || !read_client_vertices(c, a, cl) ||
        !read_client_dynamic_lights(c, a, cl, cc->dynamic_light_count) ||
        !read_client_fast_lights(c, a, cl, cc->fast_light_count))
        return false;
    cl->cubes = pmf_arena_alloc(a, (size_t)cc->cube_count * sizeof *cl->cubes);
    if (!cl->cubes)
        return pmf_cursor_fail_at(c, c->pos, "out of memory");
    for (uint32_t i = 0; i < cc->cube_count; i++)
        if (!read_client_cube(c, a, cc, cl, i))
            return false;
    return pmf_cursor_expect_end(c, "the client chunk data");
}

static bool decode_server(pmf_cursor *c, chunk_decoder *d)
{
    const pmf_chunk_common *cc = &d->ch->common;
    pmf_chunk_server *sv = &d->ch->server;
    pmf_arena *a = d->a;
    if (c->size == 0) {
        /* empty (both sizes 0): valid when no cube has pathfinding data */
        for (uint32_t i = 0; i < cc->cube_count; i++)
            if (cc->cubes[i].flags & PMF_CUBE_HAS_PATHFINDING)
                return pmf_cursor_fail_at(c, 0, "empty block, but cube %u needs pathfinding data", i);
        sv->cubes = pmf_arena_alloc(a, (size_t)cc->cube_count * sizeof *sv->cubes);
        return sv->cubes || pmf_cursor_fail_at(c, 0, "out of memory");
    }
    sv->string_table = pmf_read_table(c, "string table");

    sv->load_region_count = pmf_read_u8(c, "load region count");
    sv->load_regions = pmf_read_array(c, a, sv->load_region_count, 28, sizeof *sv->load_regions, "load regions");
    for (unsigned i = 0; i < sv->load_region_count && !c->failed; i++) {
        pmf_region *r = &sv->load_regions[i];
        pmf_read_f32s(c, r->max, 3, "load region corner");
        pmf_read_f32s(c, r->min, 3, "load region corner");
        r->chunk_count = pmf_read_u32(c, "load region chunk count");
        r->chunks = pmf_read_array(c, a, r->chunk_count, 4, sizeof *r->chunks, "load region chunks");
        for (uint32_t k = 0; k < r->chunk_count && !c->failed; k++)
            read_coord(c, d->lvl, &r->chunks[k], "load region chunk");
    }

    if (!c->failed) {
        sv->cubes = pmf_arena_alloc(a, (size_t)cc->cube_count * sizeof *sv->cubes);
        if (!sv->cubes)
            return pmf_cursor_fail_at(c, c->pos, "out of memory");
    }
    for (uint32_t i = 0; i < cc->cube_count && !c->failed; i++) {
        if (!(cc->cubes[i].flags & PMF_CUBE_HAS_PATHFINDING))
            continue;
        pmf_server_cube *s = &sv->cubes[i];
        s->attr_count = pmf_read_u8(c, "pathfinding attribute count");
        s->attrs = pmf_read_array(c, a, s->attr_count, 16, sizeof *s->attrs, "pathfinding attributes");
        for (unsigned k = 0; k < s->attr_count && !c->failed; k++) {
            s->attrs[k].name = pmf_read_string(c, sv->string_table, "pathfinding attribute name");
            pmf_read_f32s(c, s->attrs[k].direction, 3, "pathfinding direction");
        }
    }

    if (!pmf_read_entity_count(c, "chunk", "the server chunk data", &sv->entity_count))
        return false;
    sv->entities.size = pmf_cursor_left(c);
    sv->entities.data = pmf_take(c, sv->entities.size, "chunk entities");
    return !c->failed;
}

bool pmf_decode_chunk_blocks(const pmf_level *lvl, const char *file, const char *block_prefix,
                             const uint8_t *const data[3], const size_t size[3], unsigned parts,
                             pmf_arena *a, pmf_chunk *out, pmf_error *err)
{
    chunk_decoder d = { lvl, a, out, NULL };
    pmf_cursor c = pmf_cursor_make(data[0], size[0], 0, file, block_prefix, err);
    c.block_part = pmf_part_names[0];
    pmf_blob common_table;
    bool ok = decode_common(&c, &d, &common_table);
    free(d.cube_offsets);
    if (!ok)
        return false;
    out->parts = PMF_PART_COMMON;
    if (parts & PMF_PART_CLIENT) {
        c = pmf_cursor_make(data[1], size[1], 0, file, block_prefix, err);
        c.block_part = pmf_part_names[1];
        if (!decode_client(&c, &d, common_table))
            return false;
        out->parts |= PMF_PART_CLIENT;
    }
    if (parts & PMF_PART_SERVER) {
        c = pmf_cursor_make(data[2], size[2], 0, file, block_prefix, err);
        c.block_part = pmf_part_names[2];
        if (!decode_server(&c, &d))
            return false;
        out->parts |= PMF_PART_SERVER;
    }
    return true;
}
