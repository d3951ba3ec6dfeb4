/* relight_build.c - the level as the stages before the bake built it (geometry, chunks, lightmap
 * blocks, octrees and vertices), kept in a relight_level as one block of bytes so that a compile
 * after a light-only edit takes it instead of building it again (relight.h). The block is kept
 * LZ4-compressed (its size first): a quarter of its 12 MB for lqdm10. It rides in the cache file as
 * the rest does; it is read as untrusted bytes all the same: every count is checked against what
 * is left, every index against what it indexes. */
#include <lz4.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "base/jobs.h"
#include "base/pmf_budget.h"
#include "chunks/chunks.h"
#include "common/memory.h"
#include "common/session.h"
#include "relight.h"
#include "relight_reader.h"
#include "unwrap/unwrap.h"

static uint64_t hash_bytes(uint64_t h, const void *data, size_t size)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < size; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* An array of records hashed up to their `line` (where in the source they were: a light added
 * above them moves it, and nothing before the bake reads it). */
static uint64_t hash_records(uint64_t h, const void *items, size_t count, size_t size, size_t line_at)
{
    h = hash_bytes(h, &count, sizeof count);
    for (size_t i = 0; i < count; i++) h = hash_bytes(h, (const uint8_t *)items + i * size, line_at);
    return h;
}

/* The level's own settings the stages before the bake read (its light, sky and bake settings
 * are the bake's: bake_geometry_hash). */
static uint64_t hash_level_settings(uint64_t h, const level_build *lb)
{
    const level_def *d = lb->def;
    h = hash_bytes(h, d->name, sizeof d->name);
    h = hash_bytes(h, &d->chunk_exp, sizeof d->chunk_exp);
    h = hash_bytes(h, &d->flags, sizeof d->flags);
    bool flags[] = { d->liquids_two_sided, d->allow_empty, d->keep_origin, d->no_visibility, d->fullbright, d->fill != NULL };
    h = hash_bytes(h, flags, sizeof flags);
    double numbers[] = { d->shift.x, d->shift.y, d->shift.z, d->luxel_density, d->vis_cell, d->min_cube, (double)d->samples,
                         lb->S, (double)lb->exp, (double)lb->nx, (double)lb->ny, (double)lb->nz,
                         (double)lb->off_x, (double)lb->off_y, (double)lb->off_z };
    h = hash_bytes(h, numbers, sizeof numbers);
    h = hash_bytes(h, &lb->centre_chunk, sizeof lb->centre_chunk);
    h = hash_bytes(h, d->air_physics, sizeof d->air_physics);
    h = hash_bytes(h, d->default_sky, sizeof d->default_sky);
    h = hash_bytes(h, d->default_sound, sizeof d->default_sound);
    h = hash_bytes(h, d->default_weather, sizeof d->default_weather);
    return hash_bytes(h, d->default_gravity, sizeof d->default_gravity);
}

uint64_t relight_build_key(const level_build *lb)
{
    const level_def *d = lb->def;
    const map_def *m = lb->map;
    if (d->prelit || d->vis_source || lb->tiled) return 0;
    uint64_t h = hash_level_settings(0xcbf29ce484222325ull, lb);
    h = hash_records(h, d->brushes, d->brush_count, sizeof *d->brushes, offsetof(brush, line));
    h = hash_records(h, d->sides, d->side_count, sizeof *d->sides, sizeof *d->sides);
    h = hash_records(h, d->tex_projs, d->tex_proj_count, sizeof *d->tex_projs, sizeof *d->tex_projs);
    h = hash_records(h, d->skies, d->sky_count, sizeof *d->skies, offsetof(sky_def, line));
    h = hash_records(h, d->regions, d->region_count, sizeof *d->regions, offsetof(region_def, line));
    h = hash_records(h, m->materials, m->material_count, sizeof *m->materials, offsetof(material_def, line));
    h = hash_bytes(h, &m->texture_count, sizeof m->texture_count);
    for (size_t i = 0; i < m->texture_count; i++) {
        const texture_def *t = &m->textures[i];
        uint32_t size[3] = { t->width, t->height, t->standin };
        h = hash_bytes(hash_bytes(h, t->name, sizeof t->name), size, sizeof size);
    }
    /* the chunks' physics and sound materials are indices of these lists */
    h = hash_bytes(h, &m->physics_count, sizeof m->physics_count);
    for (size_t i = 0; i < m->physics_count; i++) h = hash_bytes(h, m->physics[i].name, sizeof m->physics[i].name);
    h = hash_bytes(h, &m->sound_count, sizeof m->sound_count);
    for (size_t i = 0; i < m->sound_count; i++) h = hash_bytes(h, m->sounds[i].name, sizeof m->sounds[i].name);
    /* of the dynamic lights the unwrap reads only which chunks they reach (chunk_dynamic_lit), of
     * the fast lights the octree only which faces they reach (reaches_fast_light): both kept per
     * chunk, and where they changed the chunk is built again when the level is taken (repack_chunks) */
    return h ? h : 1;
}

/* ---- keeping ---- */

/* The block: the window, the face tally, the faces, sky faces and void faces (the records, then
 * their points), then each chunk of the window (put_chunk). */

typedef struct blob { uint8_t *data; size_t size, cap; } blob;

static void put(blob *b, const void *data, size_t size)
{
    if (b->size + size > b->cap) {
        b->cap = (b->size + size) * 3 / 2 + 4096;
        b->data = xrealloc(b->data, b->cap);
    }
    if (size) memcpy(b->data + b->size, data, size);
    b->size += size;
}

static void put_u64(blob *b, uint64_t v) { put(b, &v, sizeof v); }

static void put_faces(blob *b, const face *faces, size_t count)
{
    put_u64(b, count);
    for (size_t i = 0; i < count; i++) {
        face f = faces[i];
        f.p = NULL;
        put(b, &f, sizeof f);
    }
    for (size_t i = 0; i < count; i++) put(b, faces[i].p, (size_t)faces[i].n * sizeof *faces[i].p);
}

/* A chunk's lightmaps hold no luxel before the bake (a prelit level's would: it is not kept). */
static bool lightmaps_blank(const chunk_build *cb)
{
    for (int k = 0; k < cb->lightmap_count; k++) {
        const uint8_t *l = cb->lightmaps[k].luxels;
        size_t n = (size_t)3 << (2 * cb->lightmaps[k].size_exp);
        for (size_t i = 0; i < n; i++)
            if (l[i]) return false;
    }
    return true;
}

/* Which of the chunk's faces a fast light reaches, hashed (their cubes are split for it). */
static uint64_t fast_lit_hash(const level_build *lb, const chunk_build *cb)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < cb->face_count; k++) {
        uint8_t lit = reaches_fast_light(lb->def, cb->faces[k].p, cb->faces[k].n);
        h = hash_bytes(h, &lit, 1);
    }
    return h;
}

static void put_chunk(blob *b, const level_build *lb, const chunk_build *cb)
{
    size_t material_count = lb->map->material_count;
    uint8_t flags[3] = { cb->present, cb->margin, cb->present && chunk_dynamic_lit(lb, cb) };
    put(b, flags, sizeof flags);
    put_u64(b, cb->present ? fast_lit_hash(lb, cb) : 0);
    put_u64(b, cb->face_count);
    for (size_t k = 0; k < cb->face_count; k++) {
        chunk_face f = cb->faces[k];
        f.p = NULL;
        put(b, &f, sizeof f);
    }
    for (size_t k = 0; k < cb->face_count; k++) put(b, cb->faces[k].p, (size_t)cb->faces[k].n * sizeof *cb->faces[k].p);
    put(b, &cb->lightmap_count, 1);
    for (int k = 0; k < cb->lightmap_count; k++) put(b, &cb->lightmaps[k].size_exp, 1);
    uint32_t bases[2] = { cb->bake_lightmap_base, cb->bake_vertex_base };
    put(b, bases, sizeof bases);
    put_u64(b, cb->cube_count);
    put(b, cb->cubes, cb->cube_count * sizeof *cb->cubes);
    put(b, cb->ccubes, cb->cube_count * sizeof *cb->ccubes);
    put(b, cb->info, cb->cube_count * sizeof *cb->info);
    put_u64(b, cb->leaf_count);
    put(b, cb->leaves, cb->leaf_count * sizeof *cb->leaves);
    put_u64(b, cb->leaf_poly_count);
    put(b, cb->leaf_polys, cb->leaf_poly_count * sizeof *cb->leaf_polys);
    put_u64(b, cb->leaf_point_count);
    put(b, cb->leaf_points, cb->leaf_point_count * sizeof *cb->leaf_points);
    put_u64(b, cb->vert_count);
    put(b, cb->verts, cb->vert_count * sizeof *cb->verts);
    put(b, cb->normals, cb->vert_count * sizeof *cb->normals);
    uint8_t has_used = cb->mat_used != NULL;
    put(b, &has_used, 1);
    if (has_used) put(b, cb->mat_used, material_count * sizeof *cb->mat_used);
    int used[3] = { cb->used_count, cb->phys_used_count, cb->sound_used_count };
    put(b, used, sizeof used);
    put(b, cb->used_mats, sizeof cb->used_mats);
    put(b, cb->phys_used, sizeof cb->phys_used);
    put(b, cb->sound_used, sizeof cb->sound_used);
    put(b, &cb->dropped, sizeof cb->dropped);
}

/* Whether a cube holds what only the stages after this one fill in (lighting, visibility). */
static bool cubes_bare(const chunk_build *cb)
{
    for (uint32_t c = 0; c < cb->cube_count; c++)
        if (cb->cubes[c].vis.cubes || cb->cubes[c].vis.chunks || cb->ccubes[c].lighting.dynamic || cb->ccubes[c].lighting.fast)
            return false;
    return true;
}

void relight_build_keep(relight_level *rl, const level_build *lb)
{
    uint64_t key = relight_build_key(lb);
    if (!key || (rl->built && rl->built_key == key)) return;
    xfree(rl->built);
    rl->built = NULL;
    rl->built_size = 0;
    rl->built_key = 0;
    size_t nchunks = level_chunk_count(lb);
    for (size_t c = 0; c < nchunks; c++)
        if (!lightmaps_blank(&lb->chunks[c]) || !cubes_bare(&lb->chunks[c])) return;
    blob b = { 0 };
    uint32_t window[4] = { lb->wx0, lb->wz0, lb->wnx, lb->wnz };
    put(&b, window, sizeof window);
    put(&b, &lb->def->faces, sizeof lb->def->faces);
    put_faces(&b, lb->faces, lb->face_count);
    put_faces(&b, lb->sky_faces, lb->sky_face_count);
    put_faces(&b, lb->void_faces, lb->void_face_count);
    put_u64(&b, nchunks);
    for (size_t c = 0; c < nchunks; c++) put_chunk(&b, lb, &lb->chunks[c]);
    if (b.size > LZ4_MAX_INPUT_SIZE) {
        xfree(b.data);
        return;
    }
    int bound = LZ4_compressBound((int)b.size);
    uint8_t *packed = xmalloc(sizeof(uint64_t) + (size_t)bound);
    uint64_t raw = b.size;
    memcpy(packed, &raw, sizeof raw);
    int n = LZ4_compress_default((const char *)b.data, (char *)packed + sizeof raw, (int)b.size, bound);
    xfree(b.data);
    if (n <= 0) {
        xfree(packed);
        return;
    }
    rl->built = packed;
    rl->built_size = sizeof raw + (size_t)n;
    rl->built_key = key;
}

/* ---- restoring ---- */


/* A polygon's points: n of them, n a polygon's count. */
static v3 *take_points(reader *r, int n)
{
    if (n < 0 || n > 1 << 16) r->ok = false;
    return take_array(r, r->ok ? (uint64_t)n : 0, sizeof(v3));
}

/* Faces of materials from lowest (sky faces are of BRUSH_SIDE_SKY) and brushes of the level's. */
static face *take_faces(reader *r, size_t *count, const level_build *lb, int lowest)
{
    uint64_t n = take_u64(r);
    face *faces = take_array(r, n, sizeof *faces);
    *count = faces ? (size_t)n : 0;
    for (size_t i = 0; i < *count; i++) faces[i].p = NULL;
    for (uint64_t i = 0; r->ok && i < n; i++) {
        faces[i].p = take_points(r, faces[i].n);
        if (faces[i].material < lowest || (faces[i].material >= 0 && (size_t)faces[i].material >= lb->map->material_count) ||
            faces[i].brush < -1 || (faces[i].brush >= 0 && (size_t)faces[i].brush >= lb->def->brush_count))
            r->ok = false;
    }
    return faces;
}

/* The chunk's faces and lightmaps: each face's block inside its lightmap. */
static void take_chunk_faces(reader *r, chunk_build *cb, size_t face_count)
{
    uint64_t n = take_u64(r);
    cb->faces = take_array(r, n, sizeof *cb->faces);
    cb->face_count = cb->face_cap = cb->faces ? (size_t)n : 0;
    for (size_t k = 0; k < cb->face_count; k++) cb->faces[k].p = NULL;
    for (size_t k = 0; r->ok && k < cb->face_count; k++) cb->faces[k].p = take_points(r, cb->faces[k].n);
    uint8_t lightmaps = 0;
    take_into(r, &lightmaps, 1);
    /* every lightmap holds a face: no more of them than faces (each may take 196 KiB) */
    if (!r->ok || lightmaps == PMF_NO_LIGHTMAP || lightmaps > cb->face_count) return (void)(r->ok = false);
    cb->lightmap_count = lightmaps;
    cb->lightmaps = xcalloc((size_t)cb->lightmap_count + 1, sizeof *cb->lightmaps);
    for (int k = 0; r->ok && k < cb->lightmap_count; k++) {
        take_into(r, &cb->lightmaps[k].size_exp, 1);
        if (cb->lightmaps[k].size_exp > PMF_MAX_LIGHTMAP_EXP) return (void)(r->ok = false);
        cb->lightmaps[k].luxels = xcalloc((size_t)3 << (2 * cb->lightmaps[k].size_exp), 1);
    }
    for (size_t k = 0; r->ok && k < cb->face_count; k++) {
        const chunk_face *f = &cb->faces[k];
        if (f->face < 0 || (size_t)f->face >= face_count) r->ok = false;
        if (f->lightmap == PMF_NO_LIGHTMAP) continue;
        int64_t side = f->lightmap < cb->lightmap_count ? (int64_t)1 << cb->lightmaps[f->lightmap].size_exp : 0;
        if (f->lm_x < 0 || f->lm_y < 0 || f->lm_w < 0 || f->lm_h < 0 || (int64_t)f->lm_x + f->lm_w > side ||
            (int64_t)f->lm_y + f->lm_h > side)
            r->ok = false;
    }
}

/* The octree's cubes point at cubes, vertices and lightmaps of their chunk only. */
static bool cubes_sound(const chunk_build *cb)
{
    for (uint32_t c = 0; c < cb->cube_count; c++) {
        const pmf_cube *cube = &cb->cubes[c];
        const pmf_client_cube *cc = &cb->ccubes[c];
        int type = cube->type & PMF_CUBE_TYPE_MASK;
        if (cube->vis.cube_count || cube->vis.chunk_count || cc->lighting.dynamic_count || cc->lighting.fast_count)
            return false;
        if (type == PMF_CUBE_PARENT) {
            for (int o = 0; o < 8; o++)
                if (cube->u.parent.child_mask >> o & 1 && cube->u.parent.children[o] >= cb->cube_count) return false;
        } else if (type == PMF_CUBE_GEOMETRY) {
            if (cc->u.geom.first_vertex > cb->vert_count || (cc->u.geom.lightmap != PMF_NO_LIGHTMAP && cc->u.geom.lightmap >= cb->lightmap_count))
                return false;
        } else if (type == PMF_CUBE_EXTGEOMETRY) {
            if (cc->u.ext.first_vertex > cb->vert_count) return false;
            for (int f = 0; f < PMF_FACE_COUNT; f++)
                if (cc->u.ext.lightmap[f] != PMF_NO_LIGHTMAP && cc->u.ext.lightmap[f] >= cb->lightmap_count) return false;
        }
    }
    return true;
}

static void take_octree(reader *r, chunk_build *cb)
{
    uint64_t cubes = take_u64(r);
    if (cubes > UINT32_MAX) r->ok = false;
    cb->cube_count = cb->cube_cap = (uint32_t)cubes;
    cb->cubes = take_array(r, cb->cube_count, sizeof *cb->cubes);
    cb->ccubes = take_array(r, cb->cube_count, sizeof *cb->ccubes);
    cb->info = take_array(r, cb->cube_count, sizeof *cb->info);
    cb->leaf_count = cb->leaf_cap = (size_t)take_u64(r);
    cb->leaves = take_array(r, cb->leaf_count, sizeof *cb->leaves);
    cb->leaf_poly_count = cb->leaf_poly_cap = (size_t)take_u64(r);
    cb->leaf_polys = take_array(r, cb->leaf_poly_count, sizeof *cb->leaf_polys);
    cb->leaf_point_count = cb->leaf_point_cap = (size_t)take_u64(r);
    cb->leaf_points = take_array(r, cb->leaf_point_count, sizeof *cb->leaf_points);
    uint64_t verts = take_u64(r);
    if (verts > UINT32_MAX) r->ok = false;
    cb->vert_count = cb->vert_cap = (uint32_t)verts;
    cb->verts = take_array(r, cb->vert_count, sizeof *cb->verts);
    cb->normals = take_array(r, cb->vert_count, sizeof *cb->normals);
    for (size_t k = 0; r->ok && k < cb->leaf_count; k++) {
        const octree_leaf *l = &cb->leaves[k];
        if (l->cube >= cb->cube_count || l->first > cb->leaf_poly_count || l->count > cb->leaf_poly_count - l->first) r->ok = false;
    }
    for (size_t k = 0; r->ok && k < cb->leaf_poly_count; k++) {
        const leaf_poly *p = &cb->leaf_polys[k];
        if (p->cf < 0 || (size_t)p->cf >= cb->face_count || p->n < 0 || p->first > cb->leaf_point_count ||
            (size_t)p->n > cb->leaf_point_count - p->first)
            r->ok = false;
    }
    if (r->ok && !cubes_sound(cb)) r->ok = false;
}

/* The materials, physics and sound materials the chunk uses: indices of the map's. */
static void take_used(reader *r, chunk_build *cb, const map_def *m)
{
    uint8_t has_used = 0;
    take_into(r, &has_used, 1);
    if (has_used) cb->mat_used = take_array(r, m->material_count, sizeof *cb->mat_used);
    int used[3] = { 0 };
    take_into(r, used, sizeof used);
    take_into(r, cb->used_mats, sizeof cb->used_mats);
    take_into(r, cb->phys_used, sizeof cb->phys_used);
    take_into(r, cb->sound_used, sizeof cb->sound_used);
    take_into(r, &cb->dropped, sizeof cb->dropped);
    for (int k = 0; k < 3; k++)
        if (used[k] < 0 || used[k] > 256) r->ok = false;
    if (!r->ok) return;
    cb->used_count = used[0];
    cb->phys_used_count = used[1];
    cb->sound_used_count = used[2];
    for (int k = 0; k < cb->used_count; k++)
        if (cb->used_mats[k] < 0 || (size_t)cb->used_mats[k] >= m->material_count) r->ok = false;
    for (int k = 0; k < cb->phys_used_count; k++)
        if (cb->phys_used[k] < 0 || (size_t)cb->phys_used[k] >= m->physics_count) r->ok = false;
    for (int k = 0; k < cb->sound_used_count; k++)
        if (cb->sound_used[k] < 0 || (size_t)cb->sound_used[k] >= m->sound_count) r->ok = false;
    for (size_t k = 0; cb->mat_used && k < m->material_count; k++)
        if (cb->mat_used[k] < -1 || cb->mat_used[k] >= cb->used_count) r->ok = false;
}

/* One chunk; what repack_chunks does with it: REPACK when a dynamic light now reaches it and did
 * not, or the other way round (its lightmaps were packed for the lights as they were), RECUT when
 * a fast light reaches other faces of it (its cubes were split for them), else KEEP. */
enum { KEEP, REBUILD, RECUT, REPACK };
static int take_chunk(reader *r, chunk_build *cb, const level_build *lb)
{
    uint8_t flags[3] = { 0 };
    take_into(r, flags, sizeof flags);
    uint64_t fast = take_u64(r);
    if (flags[0] > 1 || flags[1] != cb->margin || flags[2] > flags[0]) r->ok = false;
    int mark = r->ok && flags[0] && flags[2] != chunk_dynamic_lit(lb, cb) ? REPACK : KEEP;
    cb->present = flags[0];
    take_chunk_faces(r, cb, lb->face_count);
    if (r->ok && flags[0] && mark == KEEP && fast != fast_lit_hash(lb, cb)) mark = RECUT;
    uint32_t bases[2] = { 0 };
    take_into(r, bases, sizeof bases);
    cb->bake_lightmap_base = bases[0];
    cb->bake_vertex_base = bases[1];
    if (r->ok) take_octree(r, cb);
    if (r->ok) take_used(r, cb, lb->map);
    return mark;
}

/* What a damaged block left in lb freed: its faces and chunks as level_window laid them out. */
static void unbuild(level_build *lb)
{
    face *lists[3] = { lb->faces, lb->sky_faces, lb->void_faces };
    size_t counts[3] = { lb->face_count, lb->sky_face_count, lb->void_face_count };
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; lists[k] && i < counts[k]; i++) xfree(lists[k][i].p);
        xfree(lists[k]);
    }
    lb->faces = lb->sky_faces = lb->void_faces = NULL;
    lb->face_count = lb->sky_face_count = lb->void_face_count = 0;
    lb->face_cap = lb->sky_face_cap = lb->void_face_cap = 0;
    for (size_t c = 0; c < level_chunk_count(lb); c++) {
        chunk_build *cb = &lb->chunks[c];
        for (size_t k = 0; k < cb->face_count; k++) xfree(cb->faces[k].p);
        xfree(cb->faces);
        for (int k = 0; cb->lightmaps && k < cb->lightmap_count; k++) xfree(cb->lightmaps[k].luxels);
        xfree(cb->lightmaps);
        xfree(cb->cubes); xfree(cb->ccubes); xfree(cb->info);
        xfree(cb->verts); xfree(cb->normals); xfree(cb->mat_used);
        xfree(cb->leaves); xfree(cb->leaf_polys); xfree(cb->leaf_points);
        chunk_build laid = { .gx = cb->gx, .gy = cb->gy, .gz = cb->gz, .centre = cb->centre, .margin = cb->margin };
        *cb = laid;
    }
}

/* The kept block unpacked into a block of the budget's (pmf_budget_free), or NULL with why. */
static uint8_t *unpack(const relight_level *rl, size_t *size, const char **why)
{
    uint64_t raw = 0;
    if (rl->built_size > sizeof raw) memcpy(&raw, rl->built, sizeof raw);
    size_t packed = rl->built_size - sizeof raw;
    /* LZ4 makes a block at most some 255 times smaller */
    if (rl->built_size <= sizeof raw || raw > LZ4_MAX_INPUT_SIZE || packed > INT32_MAX || raw > (uint64_t)packed * 255 + 64) {
        *why = "damaged";
        return NULL;
    }
    uint8_t *bytes = pmf_budget_malloc((size_t)raw + 1);
    if (!bytes) {
        *why = "larger than the memory budget";
        return NULL;
    }
    int n = LZ4_decompress_safe((const char *)rl->built + sizeof raw, (char *)bytes, (int)packed, (int)raw);
    if (n < 0 || (uint64_t)n != raw) {
        pmf_budget_free(bytes);
        *why = "damaged";
        return NULL;
    }
    *size = (size_t)raw;
    return bytes;
}

/* The level from the block's bytes into lb, each chunk marked (take_chunk); false (lb as laid out)
 * when they are not whole. */
static bool take_level(reader *r, level_build *lb, uint8_t *mark)
{
    uint32_t window[4] = { 0 };
    take_into(r, window, sizeof window);
    face_tally tally;
    take_into(r, &tally, sizeof tally);
    if (window[0] != lb->wx0 || window[1] != lb->wz0 || window[2] != lb->wnx || window[3] != lb->wnz) r->ok = false;
    lb->faces = take_faces(r, &lb->face_count, lb, 0);
    lb->sky_faces = take_faces(r, &lb->sky_face_count, lb, BRUSH_SIDE_SKY);
    lb->void_faces = take_faces(r, &lb->void_face_count, lb, 0);
    lb->face_cap = lb->face_count;
    lb->sky_face_cap = lb->sky_face_count;
    lb->void_face_cap = lb->void_face_count;
    size_t nchunks = level_chunk_count(lb);
    if (take_u64(r) != nchunks) r->ok = false;
    for (size_t c = 0; r->ok && c < nchunks; c++) mark[c] = (uint8_t)take_chunk(r, &lb->chunks[c], lb);
    if (!r->ok || r->at != r->end) {
        unbuild(lb);
        return false;
    }
    lb->def->faces = tally;
    return true;
}

/* ---- packing again ---- */

typedef struct repack { level_build *lb; const uint32_t *list; const uint8_t *mark; bool emit; } repack;

/* A REPACK chunk's blocks packed for the lights as they are now (chunk_unwrap, as a build does);
 * its octree, a RECUT chunk's and their neighbours' (they seal against their leaf polygons) built
 * again, then emitted once every octree is (the build's passes on these chunks alone). */
static void repack_job(void *user, size_t i)
{
    const repack *rp = user;
    chunk_build *cb = &rp->lb->chunks[rp->list[i]];
    if (rp->emit) {
        chunk_octree_emit(rp->lb, cb);
        return;
    }
    if (rp->mark[rp->list[i]] == REPACK) {
        for (int k = 0; k < cb->lightmap_count; k++) xfree(cb->lightmaps[k].luxels);
        xfree(cb->lightmaps);
        cb->lightmaps = NULL;
        cb->lightmap_count = 0;
        chunk_unwrap(rp->lb, cb);
    }
    xfree(cb->cubes); xfree(cb->ccubes); xfree(cb->info);
    xfree(cb->verts); xfree(cb->normals); xfree(cb->mat_used);
    xfree(cb->leaves); xfree(cb->leaf_polys); xfree(cb->leaf_points);
    chunk_build unwrapped = { .gx = cb->gx, .gy = cb->gy, .gz = cb->gz, .centre = cb->centre, .faces = cb->faces,
                              .face_count = cb->face_count, .face_cap = cb->face_cap, .lightmap_count = cb->lightmap_count,
                              .lightmaps = cb->lightmaps, .present = cb->present, .margin = cb->margin };
    *cb = unwrapped;
    chunk_octree(rp->lb, cb);
}

/* Points of a chunk near its box (finite: a kept block's points are only counted when read). */
static bool points_near(const level_build *lb, const chunk_build *cb, const v3 *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            if (!(fabs(p[i].e[a] - cb->centre.e[a]) <= lb->S)) return false;
    return true;
}

/* Whether the kept chunk holds what building it again reads (its faces near it, their normals
 * of length 1, a lit face's brush one of the level's), and its neighbours what sealing it reads (their
 * leaf polygons' points near them). */
static bool rebuild_sound(const level_build *lb, const chunk_build *cb)
{
    for (size_t k = 0; k < cb->face_count; k++) {
        const chunk_face *cf = &cb->faces[k];
        const face *f = &lb->faces[cf->face];
        if (!points_near(lb, cb, cf->p, (size_t)cf->n) || !isfinite(f->pl.d) || !(fabs(v3_dot(f->pl.n, f->pl.n) - 1) <= 1e-3) ||
            (f->brush < 0 && material_lightmapped(&lb->map->materials[f->material])))
            return false;
    }
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            for (int dz = -1; dz <= 1; dz++) {
                const chunk_build *nb = level_chunk_at(lb, (int64_t)cb->gx + dx, (int64_t)cb->gy + dy, (int64_t)cb->gz + dz);
                if (nb && !points_near(lb, nb, nb->leaf_points, nb->leaf_point_count)) return false;
            }
    return true;
}

/* The REPACK and RECUT chunks and their present neighbours (marked REBUILD) built again, *repacked
 * the REPACK and RECUT ones; false (nothing built) when the kept chunks do not hold what that reads. */
static bool repack_chunks(level_build *lb, uint8_t *mark, size_t *repacked)
{
    size_t nchunks = level_chunk_count(lb), count = 0;
    *repacked = 0;
    for (size_t c = 0; c < nchunks; c++) {
        if (mark[c] < RECUT) continue;
        ++*repacked;
        const chunk_build *cb = &lb->chunks[c];
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                for (int dz = -1; dz <= 1; dz++) {
                    chunk_build *nb = level_chunk_at(lb, (int64_t)cb->gx + dx, (int64_t)cb->gy + dy, (int64_t)cb->gz + dz);
                    if (nb && nb->present && mark[nb - lb->chunks] == KEEP) mark[nb - lb->chunks] = REBUILD;
                }
    }
    for (size_t c = 0; c < nchunks; c++)
        if (mark[c] != KEEP && !rebuild_sound(lb, &lb->chunks[c])) return false;
    if (!*repacked) return true;
    uint32_t *list = xmalloc(nchunks * sizeof *list);
    for (size_t c = 0; c < nchunks; c++)
        if (mark[c] != KEEP) list[count++] = (uint32_t)c;
    repack rp = { lb, list, mark, false };
    jobs_parallel_for(count, lb->threads, repack_job, &rp);
    rp.emit = true;
    jobs_parallel_for(count, lb->threads, repack_job, &rp);
    xfree(list);
    return true;
}

bool relight_build_restore(relight_level *rl, level_build *lb)
{
    rl->built_kept = false;
    rl->built_repacked = 0;
    if (!rl->built || rl->built_key != relight_build_key(lb)) return false;
    const char *why = "damaged";
    size_t size = 0;
    uint8_t *bytes = unpack(rl, &size, &why);
    reader r = { bytes, bytes ? bytes + size : NULL, bytes != NULL };
    uint8_t *mark = xcalloc(level_chunk_count(lb) + 1, 1);
    rl->built_kept = bytes && take_level(&r, lb, mark);
    pmf_budget_free(bytes);
    if (rl->built_kept && !repack_chunks(lb, mark, &rl->built_repacked)) {
        unbuild(lb);
        rl->built_kept = false;
        rl->built_repacked = 0;
    }
    xfree(mark);
    if (!rl->built_kept || rl->built_repacked) {
        xfree(rl->built);
        rl->built = NULL;
        rl->built_size = 0;
        rl->built_key = 0;
    }
    if (!rl->built_kept)
        session_say(PMFC_WARNING, "pmfc: warning: cache: the level's kept build is %s; building it", why);
    /* the block kept the chunks packed for the lights as they were */
    if (rl->built_repacked) relight_build_keep(rl, lb);
    return rl->built_kept;
}
