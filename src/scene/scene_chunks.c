/* scene_chunks.c - a chunk as the stream workers prepare it: meshed, its sky regions, its textures prefetched (scene.h). */
#include "scene_internal.h"

/* ---- sky regions (8-corner volumes, conventions: client chunk data) ---------------------------- */

/* The six faces of a region by corner indices (octant order: bit0 -X, bit1 -Z, bit2 -Y). */
static const int region_faces[6][4] = {
    { 0, 2, 4, 6 }, { 1, 3, 5, 7 },  /* +X, -X */
    { 0, 1, 2, 3 }, { 4, 5, 6, 7 },  /* +Y, -Y */
    { 0, 1, 4, 5 }, { 2, 3, 6, 7 },  /* +Z, -Z */
};

/* Planes facing inwards (a x + b y + c z + d >= 0 inside) through each face's centre, with the
 * normal of the face's diagonals, so slightly non-planar faces still work. */
static void region_planes(const float corners[8][3], float planes[6][4])
{
    float centre[3] = { 0, 0, 0 };
    for (int i = 0; i < 8; i++)
        for (int c = 0; c < 3; c++)
            centre[c] += corners[i][c] / 8.0f;
    for (int f = 0; f < 6; f++) {
        const float *a = corners[region_faces[f][0]], *b = corners[region_faces[f][1]];
        const float *c = corners[region_faces[f][2]], *d = corners[region_faces[f][3]];
        float d1[3], d2[3], mid[3], n[3];
        for (int k = 0; k < 3; k++) {
            d1[k] = d[k] - a[k];
            d2[k] = c[k] - b[k];
            mid[k] = (a[k] + b[k] + c[k] + d[k]) / 4.0f;
        }
        n[0] = d1[1] * d2[2] - d1[2] * d2[1];
        n[1] = d1[2] * d2[0] - d1[0] * d2[2];
        n[2] = d1[0] * d2[1] - d1[1] * d2[0];
        float dist = -(n[0] * mid[0] + n[1] * mid[1] + n[2] * mid[2]);
        if (n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2] + dist < 0) {
            for (int k = 0; k < 3; k++)
                n[k] = -n[k];
            dist = -dist;
        }
        planes[f][0] = n[0];
        planes[f][1] = n[1];
        planes[f][2] = n[2];
        planes[f][3] = dist;
    }
}

int scene_sky_env_index(const pmf_level *lvl, const char *name)
{
    for (int i = 0; i < lvl->client.sky_env_count; i++)
        if (!strcmp(lvl->client.sky_envs[i].name, name))
            return i;
    return -1;
}

int scene_material_index(const pmf_level *lvl, const char *name)
{
    if (!name || !name[0])
        return -1;
    for (int i = 0; i < lvl->common.material_count; i++)
        if (!strcmp(lvl->common.materials[i].name, name))
            return i;
    return -1;
}

/* ---- stream callbacks (worker threads) ------------------------------------------------------ */

void scene_chunk_free(scene_chunk *sc)
{
    if (!sc)
        return;
    mesh_chunk_free(&sc->mc);
    free(sc->sky_regions);
    free(sc->vis_bits);
    free(sc);
}

/* Decodes the textures of the chunk's materials here on the worker (res caches them with their
 * mipmaps) rather than on the GL thread when the chunk is uploaded. */
static void prefetch_textures(scene *s, const mesh_chunk *mc)
{
    for (uint32_t b = 0; b < mc->batch_count; b++) {
        if (mc->batches[b].material >= s->lvl.common.material_count)
            continue;
        const pmf_client_material *cm = &s->lvl.client.materials[mc->batches[b].material];
        if (cm->texture[0])
            res_prefetch_texture(s->res, cm->texture);
        for (uint32_t i = 0; cm->texture[0] && i < cm->extra_texture_count; i++)
            if (cm->extra_textures[i][0])
                res_prefetch_texture(s->res, cm->extra_textures[i]);
        if (cm->matcap[0])
            res_prefetch_texture(s->res, cm->matcap);
    }
}

scene_chunk *scene_chunk_build(scene *s, pmf_chunk *chunk, char *err, size_t err_size)
{
    scene_chunk *sc = calloc(1, sizeof *sc);
    if (!sc) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    sc->handle = -1;
    if (!mesh_build_chunk(&s->lvl, chunk, &(mesh_desc){ .atlas = s->atlas }, &sc->mc, err, err_size)) {
        free(sc);
        return NULL;
    }
    prefetch_textures(s, &sc->mc);
    uint32_t n = chunk->client.sky_region_count;
    if (n) {
        sc->sky_regions = calloc(n, sizeof *sc->sky_regions);
        if (!sc->sky_regions) {
            snprintf(err, err_size, "out of memory");
            scene_chunk_free(sc);
            return NULL;
        }
        for (uint32_t i = 0; i < n; i++) {
            region_planes((const float(*)[3])chunk->client.sky_regions[i].corners, sc->sky_regions[i].planes);
            sc->sky_regions[i].env = scene_sky_env_index(&s->lvl, chunk->client.sky_regions[i].env);
        }
        sc->sky_region_count = n;
    }
    sc->vis_bits = calloc(mesh_cube_words(&sc->mc) + 1u, sizeof *sc->vis_bits);
    if (!sc->vis_bits) {
        snprintf(err, err_size, "out of memory");
        scene_chunk_free(sc);
        return NULL;
    }
    return sc;
}

void *scene_prepare_chunk(void *user, pmf_chunk *chunk, char *err, size_t err_size)
{
    scene_chunk *sc = scene_chunk_build(user, chunk, err, err_size);
    pmf_chunk_free(chunk);
    return sc;
}

void scene_release_chunk(void *user, void *payload)
{
    (void)user;
    scene_chunk_free(payload);
}
