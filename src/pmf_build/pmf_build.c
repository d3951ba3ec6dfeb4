/* pmf_build.c - world-space triangles to a PMF 0.0 file (see pmf_build.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmf_build.h"
#include "pmf_bytes.h"
#include "base/order.h"

#define MIN_CHUNK_EXP 6
#define MAX_CHUNK_EXP 30
#define SLOT_MAX_TRIANGLES 255
#define MAX_LIGHTMAPS 255                /* index 255 means "no lightmap" */

static bool fail(pmf_error *err, const char *message)
{
    pmf_error_set(err, "", "build", 0, "%s", message);
    return false;
}

typedef struct sorted_triangle {
    uint64_t chunk;                      /* linear grid index */
    uint32_t morton;                     /* centroid order inside the chunk */
    uint32_t index;
} sorted_triangle;

static int compare_sorted(const void *a, const void *b)
{
    const sorted_triangle *x = a, *y = b;
    if (x->chunk != y->chunk)
        return x->chunk < y->chunk ? -1 : 1;
    if (x->morton != y->morton)
        return x->morton < y->morton ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static uint32_t spread_bits(uint32_t v)
{
    v &= 0x3FF;
    v = (v | v << 16) & 0x030000FF;
    v = (v | v << 8) & 0x0300F00F;
    v = (v | v << 4) & 0x030C30C3;
    v = (v | v << 2) & 0x09249249;
    return v;
}

static void centroid(const pmf_build_triangle *t, double out[3])
{
    for (int a = 0; a < 3; a++)
        out[a] = ((double)t->xyz[0][a] + t->xyz[1][a] + t->xyz[2][a]) / 3.0;
}

/* The grid: chunk side exponent, first grid cell per axis and counts (x, y, z). */
typedef struct grid { int exp; double side; int64_t first[3]; uint32_t count[3]; } grid;

static bool choose_grid(const pmf_build_desc *d, grid *g)
{
    static const uint32_t limit[3] = { 4096, 256, 4096 };
    for (int exp = d->chunk_size_exp ? d->chunk_size_exp : MIN_CHUNK_EXP; exp <= MAX_CHUNK_EXP; exp++) {
        g->exp = exp;
        g->side = ldexp(1.0, exp);
        int64_t lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
        for (size_t i = 0; i < d->triangle_count; i++) {
            double c[3];
            centroid(&d->triangles[i], c);
            for (int a = 0; a < 3; a++) {
                int64_t cell = (int64_t)floor(c[a] / g->side + 0.5);
                if (!i || cell < lo[a])
                    lo[a] = cell;
                if (!i || cell > hi[a])
                    hi[a] = cell;
            }
        }
        bool fits = true;
        for (int a = 0; a < 3; a++) {
            g->first[a] = lo[a];
            g->count[a] = (uint32_t)(hi[a] - lo[a] + 1);
            fits &= (uint64_t)(hi[a] - lo[a]) < limit[a];
        }
        if (fits)
            return true;
    }
    return false;
}

static void cell_of(const grid *g, const pmf_build_triangle *t, uint32_t cell[3], float local_centroid[3])
{
    double c[3];
    centroid(t, c);
    for (int a = 0; a < 3; a++) {
        int64_t k = (int64_t)floor(c[a] / g->side + 0.5);
        cell[a] = (uint32_t)(k - g->first[a]);
        local_centroid[a] = (float)(c[a] - (double)k * g->side);
    }
}

/* ---- one chunk ---- */

typedef struct leaf {
    uint32_t first, count;               /* run of the chunk's sorted triangles */
    uint8_t slots;
    uint8_t material[PMF_FACE_COUNT], lightmap[PMF_FACE_COUNT], tris[PMF_FACE_COUNT];
} leaf;

typedef struct chunk_work {
    const pmf_build_desc *d;
    const grid *g;
    const sorted_triangle *tris;         /* this chunk's, in order */
    uint32_t tri_count;
    int32_t *used_of_level;              /* [material]: used index, or -1 */
    uint16_t used[256];
    uint32_t used_count;
    uint8_t lights[MAX_LIGHTMAPS][3];
    uint32_t light_count;
    uint8_t *tri_slot;                   /* [tri]: slot in its leaf */
    uint8_t *tri_used, *tri_lightmap;    /* [tri] */
    leaf *leaves;
    uint32_t leaf_count;
} chunk_work;

static bool assign_keys(chunk_work *w, pmf_error *err)
{
    for (uint32_t i = 0; i < w->tri_count; i++) {
        const pmf_build_triangle *t = &w->d->triangles[w->tris[i].index];
        int32_t u = w->used_of_level[t->material];
        if (u < 0) {
            if (w->used_count == 255)
                return fail(err, "more than 255 materials in one chunk");
            u = (int32_t)w->used_count;
            w->used[w->used_count++] = t->material;
            w->used_of_level[t->material] = u;
        }
        w->tri_used[i] = (uint8_t)u;
        uint32_t lm = PMF_NO_LIGHTMAP;
        for (uint32_t k = 0; t->lit && k < w->light_count && lm == PMF_NO_LIGHTMAP; k++)
            if (!memcmp(w->lights[k], t->light, 3))
                lm = k;
        if (t->lit && lm == PMF_NO_LIGHTMAP) {
            if (w->light_count == MAX_LIGHTMAPS - 1)
                return fail(err, "more than 254 distinct light colours in one chunk");
            memcpy(w->lights[w->light_count], t->light, 3);
            lm = w->light_count++;
        }
        w->tri_lightmap[i] = (uint8_t)lm;
    }
    return true;
}

/* Greedy packing in spatial order: a leaf takes triangles while their (material, lightmap) fits
 * one of its six slots. */
static void pack_leaves(chunk_work *w)
{
    leaf *cur = NULL;
    for (uint32_t i = 0; i < w->tri_count; i++) {
        int slot = -1;
        for (int s = 0; cur && s < cur->slots && slot < 0; s++)
            if (cur->material[s] == w->tri_used[i] && cur->lightmap[s] == w->tri_lightmap[i] &&
                cur->tris[s] < SLOT_MAX_TRIANGLES)
                slot = s;
        if (slot < 0 && (!cur || cur->slots == PMF_FACE_COUNT)) {
            cur = &w->leaves[w->leaf_count++];
            memset(cur, 0, sizeof *cur);
            cur->first = i;
        }
        if (slot < 0) {
            slot = cur->slots++;
            cur->material[slot] = w->tri_used[i];
            cur->lightmap[slot] = w->tri_lightmap[i];
        }
        cur->tris[slot]++;
        cur->count++;
        w->tri_slot[i] = (uint8_t)slot;
    }
}

static bool emit_chunk(chunk_work *w, const pmf_level *lvl, const uint32_t cell[3], pmf_writer *writer, pmf_error *err)
{
    /* tree sizes: leaves, then parents of 8 until one root */
    uint32_t level_size[16], levels = 0, total = 0;
    level_size[levels++] = w->leaf_count;
    while (level_size[levels - 1] > 1)
        level_size[levels] = (level_size[levels - 1] + 7) / 8, levels++;
    uint32_t level_first[16];
    for (int j = (int)levels - 1; j >= 0; j--) {
        level_first[j] = total;
        total += level_size[j];
    }
    pmf_chunk ch;
    memset(&ch, 0, sizeof ch);
    ch.coord = (pmf_chunk_coord){ cell[0], cell[1], cell[2] };
    ch.parts = PMF_PART_ALL;
    pmf_cube *cubes = calloc(total, sizeof *cubes);
    pmf_client_cube *ccubes = calloc(total, sizeof *ccubes);
    pmf_server_cube *scubes = calloc(total, sizeof *scubes);
    pmf_vertex *verts = malloc((size_t)w->tri_count * 3 * sizeof *verts);
    pmf_lightmap *lightmaps = calloc(w->light_count + 1, sizeof *lightmaps);
    const char *used_names[256];
    bool ok = cubes && ccubes && scubes && verts && lightmaps;
    if (!ok)
        fail(err, "out of memory for a chunk");
    for (uint32_t j = 1; ok && j < levels; j++)
        for (uint32_t i = 0; i < level_size[j]; i++) {
            pmf_cube *p = &cubes[level_first[j] + i];
            p->type = PMF_CUBE_PARENT;
            for (uint32_t o = 0; o < 8 && 8 * i + o < level_size[j - 1]; o++) {
                p->u.parent.child_mask |= (uint8_t)(1u << o);
                p->u.parent.children[o] = level_first[j - 1] + 8 * i + o;
            }
        }
    uint32_t v = 0;
    for (uint32_t l = 0; ok && l < w->leaf_count; l++) {
        const leaf *lf = &w->leaves[l];
        pmf_cube *c = &cubes[level_first[0] + l];
        pmf_client_cube *cc = &ccubes[level_first[0] + l];
        c->type = PMF_CUBE_EXTGEOMETRY;
        c->flags = PMF_CUBE_DRAW_BACKFACES;
        cc->u.ext.first_vertex = v;
        for (int f = 0; f < PMF_FACE_COUNT; f++) {
            c->u.ext.material[f] = f < lf->slots ? lf->material[f] : 0;
            cc->u.ext.lightmap[f] = f < lf->slots ? lf->lightmap[f] : PMF_NO_LIGHTMAP;
            cc->u.ext.tri_count[f] = f < lf->slots ? lf->tris[f] : 0;
            for (uint32_t i = lf->first; i < lf->first + lf->count; i++) {
                if (w->tri_slot[i] != f)
                    continue;
                const pmf_build_triangle *t = &w->d->triangles[w->tris[i].index];
                for (int k = 0; k < 3; k++, v++) {
                    for (int a = 0; a < 3; a++)
                        verts[v].xyz[a] = (float)((double)t->xyz[k][a] - ((double)cell[a] + (double)w->g->first[a]) * w->g->side);
                    verts[v].uv[0] = t->uv[k][0];
                    verts[v].uv[1] = t->uv[k][1];
                    verts[v].lm_uv[0] = verts[v].lm_uv[1] = 0.5f;
                }
            }
        }
    }
    for (uint32_t k = 0; ok && k < w->light_count; k++)
        lightmaps[k] = (pmf_lightmap){ 0, w->lights[k] };
    for (uint32_t k = 0; k < w->used_count; k++)
        used_names[k] = w->d->materials[w->used[k]].name;
    static const char *const physics_names[1] = { "solid" }, *const sound_names[1] = { "default" };
    pmf_chunk_common *co = &ch.common;
    co->used_material_count = (uint8_t)w->used_count;
    co->used_materials = used_names;
    co->used_physics_material_count = 1;
    co->used_physics_materials = (const char **)physics_names;
    co->used_sound_material_count = 1;
    co->used_sound_materials = (const char **)sound_names;
    co->cube_count = total;
    co->cubes = cubes;
    ch.client.lightmap_count = (uint8_t)w->light_count;
    ch.client.lightmaps = lightmaps;
    ch.client.vertex_count = v;
    ch.client.vertices = verts;
    ch.client.cubes = ccubes;
    ch.server.cubes = scubes;
    pmf_encoded_chunk enc;
    ok = ok && pmf_chunk_encode(lvl, &ch, &enc, err) && pmf_writer_put_chunk(writer, ch.coord, &enc, err);
    free(cubes);
    free(ccubes);
    free(scubes);
    free(verts);
    free(lightmaps);
    return ok;
}

/* ---- the level and the file ---- */

static void put_cstring(pmf_buf *b, const char *s) { pmf_put_bytes(b, s, strlen(s) + 1); }

static bool build(const pmf_build_desc *d, const grid *g, const sorted_triangle *sorted, const char *path, pmf_error *err)
{
    pmf_header header = { 0 };
    header.name = d->name ? d->name : "";
    header.description = d->description ? d->description : "";
    header.authors = d->authors ? d->authors : "";
    header.compiler = "pmfview pmf_build";
    header.created = d->created;
    header.gamemode_count = d->gamemode_count;
    for (unsigned i = 0; i < d->gamemode_count && i < PMF_MAX_GAMEMODES; i++)
        header.gamemodes[i] = d->gamemodes[i];
    pmf_buf ext = { 0 };
    pmf_blob ext_blob = { 0 };
    if (d->has_camera) {
        put_cstring(&ext, "pmfview.cameras");
        pmf_put_u8(&ext, 1);
        put_cstring(&ext, "overview");
        pmf_put_u8(&ext, 0);
        pmf_put_f32s(&ext, d->camera_pos, 3);
        pmf_put_f32(&ext, d->camera_yaw);
        pmf_put_f32(&ext, d->camera_pitch);
        ext_blob = (pmf_blob){ ext.data, ext.size };
    }
    pmf_data_desc data = { .extension_count = d->has_camera ? 1 : 0, .extensions = &ext_blob };

    pmf_level lvl;
    memset(&lvl, 0, sizeof lvl);
    lvl.chunk_size_exp = (uint8_t)g->exp;
    lvl.count_x = g->count[0];
    lvl.count_y = g->count[1];
    lvl.count_z = g->count[2];
    lvl.center = (pmf_chunk_coord){ (uint32_t)-g->first[0], (uint32_t)-g->first[1], (uint32_t)-g->first[2] };
    lvl.parts = PMF_PART_ALL;
    pmf_material *mats = calloc(d->material_count + 1u, sizeof *mats);
    pmf_client_material *cmats = calloc(d->material_count + 1u, sizeof *cmats);
    pmf_physics_material physics = { .name = "solid", .friction = 1.0f };
    pmf_sound_material sound = { 0 };
    chunk_work w = { .d = d, .g = g };
    w.used_of_level = malloc((d->material_count + 1u) * sizeof *w.used_of_level);
    w.tri_slot = malloc(d->triangle_count + 1);
    w.tri_used = malloc(d->triangle_count + 1);
    w.tri_lightmap = malloc(d->triangle_count + 1);
    w.leaves = malloc((d->triangle_count + 1) * sizeof *w.leaves);
    pmf_writer *writer = NULL;
    bool ok = mats && cmats && w.used_of_level && w.tri_slot && w.tri_used && w.tri_lightmap && w.leaves && !ext.oom;
    if (!ok)
        fail(err, "out of memory for the map");
    for (uint16_t i = 0; ok && i < d->material_count; i++) {
        mats[i] = (pmf_material){ .name = d->materials[i].name, .type = "" };
        cmats[i] = (pmf_client_material){ .texture = d->materials[i].texture, .alpha = 255, .shading = 255, .matcap = "" };
        memcpy(cmats[i].color, d->materials[i].color, 3);
    }
    lvl.common.material_count = d->material_count;
    lvl.common.materials = mats;
    lvl.common.physics_material_count = 1;
    lvl.common.physics_materials = &physics;
    lvl.common.sound_material_count = 1;
    lvl.common.sound_materials = &sound;
    lvl.common.air_physics_material = lvl.common.default_weather_env = lvl.common.default_gravity_env = "";
    lvl.client.material_count = d->material_count;
    lvl.client.materials = cmats;
    lvl.client.default_sound_env = lvl.client.default_sky_env = "";
    if (ok)
        ok = (writer = pmf_writer_create(&header, &data, err)) && pmf_writer_begin_level(writer, &lvl, err);
    for (size_t i = 0; ok && i < d->triangle_count;) {
        size_t j = i;
        while (j < d->triangle_count && sorted[j].chunk == sorted[i].chunk)
            j++;
        w.tris = &sorted[i];
        w.tri_count = (uint32_t)(j - i);
        w.used_count = w.light_count = w.leaf_count = 0;
        for (uint16_t m = 0; m < d->material_count; m++)
            w.used_of_level[m] = -1;
        uint64_t c = sorted[i].chunk;
        /* the linear index is [y][x][z], as the PMF grid orders chunks */
        uint32_t cell[3] = { (uint32_t)(c / g->count[2] % g->count[0]), (uint32_t)(c / g->count[2] / g->count[0]),
                             (uint32_t)(c % g->count[2]) };
        ok = assign_keys(&w, err);
        if (ok)
            pack_leaves(&w);
        ok = ok && emit_chunk(&w, &lvl, cell, writer, err);
        i = j;
    }
    ok = ok && pmf_writer_finish(writer, path, err);
    pmf_writer_destroy(writer);
    free(mats);
    free(cmats);
    free(w.used_of_level);
    free(w.tri_slot);
    free(w.tri_used);
    free(w.tri_lightmap);
    free(w.leaves);
    pmf_buf_free(&ext);
    return ok;
}

bool pmf_build_write(const pmf_build_desc *d, const char *path, pmf_error *err)
{
    if (d->triangle_count > (size_t)UINT32_MAX / 3)
        return fail(err, "too many triangles for one map");
    grid g;
    if (!choose_grid(d, &g))
        return fail(err, "the triangles span more than the PMF chunk grid can hold");
    sorted_triangle *sorted = malloc((d->triangle_count + 1) * sizeof *sorted);
    if (!sorted)
        return fail(err, "out of memory");
    for (size_t i = 0; i < d->triangle_count; i++) {
        const pmf_build_triangle *t = &d->triangles[i];
        if (t->material >= d->material_count) {
            free(sorted);
            return fail(err, "a triangle names a material past the list");
        }
        uint32_t cell[3];
        float local[3];
        cell_of(&g, t, cell, local);
        uint32_t q[3];
        for (int a = 0; a < 3; a++) {
            float n = local[a] / (float)g.side + 0.5f;
            q[a] = n <= 0 ? 0 : n >= 1 ? 1023 : (uint32_t)(n * 1024.0f);
        }
        sorted[i] = (sorted_triangle){ ((uint64_t)cell[1] * g.count[0] + cell[0]) * g.count[2] + cell[2],
                                       spread_bits(q[0]) | spread_bits(q[1]) << 1 | spread_bits(q[2]) << 2, (uint32_t)i };
    }
    order_sort(sorted, d->triangle_count, sizeof *sorted, compare_sorted);
    bool ok = build(d, &g, sorted, path, err);
    free(sorted);
    return ok;
}
