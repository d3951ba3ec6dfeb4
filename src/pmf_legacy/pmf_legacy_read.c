/* pmf_legacy_read.c - reading and validating a legacy PMF draft file (see pmf_legacy.h and
 * docs/formats.md for how the draft's open points are read). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pmf_budget.h"
#include "pmf_internal.h"
#include "pmf_legacy.h"

#define MAX_TREE_DEPTH 24
#define MAX_FILE_SIZE (1ull << 30)
static const uint8_t lz4_magic[4] = { 0x04, 0x22, 0x4d, 0x18 };
static const char *const block_names[3] = { "shared data", "server data", "client data" };

typedef struct legacy_impl {
    pmf_arena *arena;
    uint8_t *owned;                      /* the file's bytes when pmfl_open read them */
} legacy_impl;

static bool fail(pmf_error *err, const char *file, const char *block, uint64_t offset, const char *msg)
{
    pmf_error_set(err, file, block, offset, "%s", msg);
    return false;
}

/* ---- header and block framing ---- */

static bool read_header(pmf_cursor *c, pmfl_map *m)
{
    if (!pmf_take(c, 4, "magic"))
        return false;
    m->major = pmf_read_u8(c, "major version");
    m->minor = pmf_read_u8(c, "minor version");
    if (!c->failed && m->major != 0)
        return pmf_cursor_fail_at(c, 4, "draft major version %u (this program reads 0)", m->major);
    m->name = pmf_read_cstring(c, 65535, "name");
    m->authors = pmf_read_cstring(c, 65535, "authors");
    m->description = pmf_read_cstring(c, 65535, "description");
    m->created = pmf_read_u64(c, "creation time");
    size_t at = c->pos;
    m->gamemode_count = pmf_read_u8(c, "gamemode count");
    if (!c->failed && m->gamemode_count > 16)
        return pmf_cursor_fail_at(c, at, "gamemode count %u is over 16", m->gamemode_count);
    for (unsigned i = 0; i < m->gamemode_count; i++)
        m->gamemodes[i] = pmf_read_cstring(c, 255, "gamemode");
    return !c->failed;
}

/* One of the three blocks: u64 stored size, u64 decoded size, bytes (LZ4 frame or stored). */
static bool read_block(pmf_cursor *c, pmf_arena *a, int index, pmf_blob *out, pmfl_block_info *info)
{
    const char *what = block_names[index];
    size_t at = c->pos;
    uint64_t stored = pmf_read_u64(c, what), size = pmf_read_u64(c, what);
    if (c->failed)
        return false;
    if (stored > pmf_cursor_left(c))
        return pmf_cursor_fail_at(c, at, "%s: stored size %llu is past the end of the file (%zu bytes left)", what,
                                  (unsigned long long)stored, pmf_cursor_left(c));
    info->offset = c->base + c->pos;
    info->stored = stored;
    info->size = size;
    const uint8_t *bytes = pmf_take(c, (size_t)stored, what);
    info->lz4 = stored >= 4 && !memcmp(bytes, lz4_magic, 4);
    if (!info->lz4) {
        if (stored != size)
            return pmf_cursor_fail_at(c, at, "%s: stored without compression but its sizes differ (%llu, %llu)", what,
                                      (unsigned long long)stored, (unsigned long long)size);
        out->data = bytes;
        out->size = (size_t)size;
        return true;
    }
    uint64_t cap = pmf_block_size_cap(stored);
    if (size > cap)
        return pmf_cursor_fail_at(c, at, "%s: declared size %llu exceeds the cap of %llu bytes for %llu compressed bytes",
                                  what, (unsigned long long)size, (unsigned long long)cap, (unsigned long long)stored);
    uint8_t *dst = size ? pmf_arena_alloc_uninit(a, (size_t)size) : NULL;
    if (size && !dst)
        return pmf_cursor_fail_at(c, at, "%s: out of memory for %llu bytes", what, (unsigned long long)size);
    size_t produced;
    const char *problem = pmf_lz4_decompress_exact(bytes, (size_t)stored, dst, (size_t)size, (size_t)size, &produced);
    if (problem)
        return pmf_cursor_fail_at(c, (size_t)(info->offset - c->base), "%s: LZ4F: %s (declared %llu bytes)", what, problem,
                                  (unsigned long long)size);
    out->data = dst;
    out->size = (size_t)size;
    return true;
}

/* ---- shared data ---- */

static bool read_cube(pmf_cursor *c, pmfl_map *m, uint32_t i)
{
    pmfl_cube *cube = &m->cubes[i];
    size_t at = c->pos;
    cube->offset = (uint32_t)at;
    uint8_t type = pmf_read_u8(c, "cube type");
    if (c->failed)
        return false;
    cube->type = type & 0x0F;
    cube->flags = type & (PMFL_CUBE_IS_CHUNK | PMFL_CUBE_HAS_LIGHTING);
    cube->parent = PMFL_NO_PARENT;
    if (type & 0xC0)
        return pmf_cursor_fail_at(c, at, "cube %u: type byte 0x%02x has its two top bits set", i, type);
    if (cube->type > PMFL_CUBE_ANGLED)
        return pmf_cursor_fail_at(c, at, "cube %u: unknown cube type %u", i, cube->type);
    if (cube->flags & PMFL_CUBE_HAS_LIGHTING) {
        pmf_read_bytes(c, cube->base_light, 3, "cube base light");
        cube->light_ref_index = pmf_read_u32(c, "cube light reference index");
        at = c->pos;
        cube->dynamic_light_count = pmf_read_u8(c, "cube dynamic light count");
        if (cube->dynamic_light_count)
            return pmf_cursor_fail_at(c, at, "cube %u: %u dynamic lights, but the draft does not define light references",
                                      i, cube->dynamic_light_count);
    }
    if (cube->flags & PMFL_CUBE_IS_CHUNK) {
        at = c->pos;
        cube->prop_ref_index = pmf_read_u16(c, "cube prop reference index");
        cube->prop_count = pmf_read_u16(c, "cube prop count");
        if (cube->prop_count && (uint32_t)cube->prop_ref_index + cube->prop_count > m->prop_ref_count)
            return pmf_cursor_fail_at(c, at, "cube %u: prop references %u..%u are past the %u prop references", i,
                                      cube->prop_ref_index, cube->prop_ref_index + cube->prop_count - 1, m->prop_ref_count);
        cube->vis_index = pmf_read_u32(c, "cube visibility index");
        at = c->pos;
        cube->vis_cube_count = pmf_read_u32(c, "cube visibility cube count");
        if (cube->vis_cube_count)
            return pmf_cursor_fail_at(c, at, "cube %u: %u visible cubes, but the draft does not define visibility data", i,
                                      cube->vis_cube_count);
    }
    if (cube->type == PMFL_CUBE_PARENT) {
        for (int k = 0; k < 8; k++) {
            at = c->pos;
            cube->children[k] = pmf_read_u32(c, "parent cube child index");
            if (!c->failed && cube->children[k] >= m->cube_count)
                return pmf_cursor_fail_at(c, at, "cube %u: child %d is cube %u, past the cube count %u", i, k,
                                          cube->children[k], m->cube_count);
        }
    } else if (cube->type == PMFL_CUBE_SOLID || cube->type == PMFL_CUBE_ANGLED) {
        cube->material = pmf_read_string(c, m->server_string_table, "cube material");
        cube->triangle_index = pmf_read_u32(c, "cube triangle index");
        at = c->pos;
        uint16_t counts = pmf_read_u16(c, "cube face triangle counts");
        if (!c->failed && counts >> (cube->type == PMFL_CUBE_SOLID ? 12 : 14))
            return pmf_cursor_fail_at(c, at, "cube %u: face triangle counts 0x%04x have reserved bits set", i, counts);
        for (int f = 0; f < PMFL_FACE_SLOTS; f++) {
            cube->face_triangles[f] = (uint8_t)(counts >> (2 * (PMFL_FACE_SLOTS - 1 - f)) & 3u);
            cube->triangle_count += cube->face_triangles[f];
        }
        if (cube->type == PMFL_CUBE_ANGLED) {
            at = c->pos;
            cube->fill = pmf_read_f32(c, "angled cube fill");
            cube->pitch = pmf_read_f32(c, "angled cube pitch");
            cube->yaw = pmf_read_f32(c, "angled cube yaw");
            if (!c->failed && !(cube->fill >= 0 && cube->fill <= 1 && cube->pitch >= -1 && cube->pitch <= 1 &&
                                cube->yaw >= -1 && cube->yaw <= 1))
                return pmf_cursor_fail_at(c, at, "cube %u: angled fill %g, pitch %g, yaw %g outside [0, 1], [-1, 1], [-1, 1]",
                                          i, (double)cube->fill, (double)cube->pitch, (double)cube->yaw);
        }
    }
    return !c->failed;
}

/* Every section root and its subtree: a tree (no cube reached twice), at most 24 levels deep. */
static bool check_tree(pmfl_map *m, pmf_arena *a, pmf_error *err)
{
    uint32_t *stack = pmf_arena_alloc(a, (size_t)m->cube_count * sizeof *stack);
    bool *seen = pmf_arena_alloc(a, m->cube_count);
    if (!stack || !seen)
        return fail(err, m->file, "shared data", 0, "out of memory for the cube tree");
    uint32_t nsections = (uint32_t)m->sections_x * m->sections_z;
    for (uint32_t s = 0; s < nsections; s++) {
        uint32_t root = m->sections[s];
        if (seen[root]) {
            pmf_error_set(err, m->file, "shared data", 3 + 4ull * s, "section (%u,%u): root cube %u is already in the tree",
                          s / m->sections_z, s % m->sections_z, root);
            return false;
        }
        seen[root] = true;
        size_t top = 0;
        stack[top++] = root;
        while (top) {
            uint32_t i = stack[--top];
            pmfl_cube *cube = &m->cubes[i];
            if (cube->type <= PMFL_CUBE_ANGLED)
                m->cubes_by_type[cube->type]++;
            if (cube->flags & PMFL_CUBE_HAS_LIGHTING)
                m->lit_cubes++;
            if (cube->type != PMFL_CUBE_PARENT)
                continue;
            for (int k = 0; k < 8; k++) {
                uint32_t child = cube->children[k];
                uint64_t child_at = cube->offset + 1ull + (cube->flags & PMFL_CUBE_HAS_LIGHTING ? 8 : 0) +
                                    (cube->flags & PMFL_CUBE_IS_CHUNK ? 12 : 0) + 4ull * (unsigned)k;
                if (seen[child]) {
                    pmf_error_set(err, m->file, "shared data", child_at, "cube %u: child %d (cube %u) is already in the tree",
                                  i, k, child);
                    return false;
                }
                if (cube->depth + 1 > MAX_TREE_DEPTH) {
                    pmf_error_set(err, m->file, "shared data", child_at, "cube %u: the tree is deeper than %d levels", child,
                                  MAX_TREE_DEPTH);
                    return false;
                }
                seen[child] = true;
                m->cubes[child].parent = i;
                m->cubes[child].depth = (uint8_t)(cube->depth + 1);
                stack[top++] = child;
            }
        }
    }
    return true;
}

static bool read_shared(pmf_cursor *c, pmf_arena *a, pmfl_map *m, pmf_error *err)
{
    m->sections_x = pmf_read_u8(c, "section X count");
    m->sections_z = pmf_read_u8(c, "section Z count");
    size_t at = c->pos;
    m->section_size_exp = pmf_read_u8(c, "section size");
    if (!c->failed && m->section_size_exp > PMF_MAX_CHUNK_SIZE_EXP)
        return pmf_cursor_fail_at(c, at, "section size 2^%u is over 2^%d", m->section_size_exp, PMF_MAX_CHUNK_SIZE_EXP);
    uint32_t nsections = (uint32_t)m->sections_x * m->sections_z;
    size_t sections_at = c->pos;
    m->sections = pmf_read_array(c, a, nsections, 4, sizeof *m->sections, "section cube indices");
    for (uint32_t s = 0; s < nsections && !c->failed; s++)
        m->sections[s] = pmf_read_u32(c, "section cube index");
    at = c->pos;
    m->cube_count = pmf_read_u32(c, "cube count");
    if (c->failed)
        return false;
    if (!m->cube_count)
        return pmf_cursor_fail_at(c, at, "cube count is 0 (the draft needs at least 1)");
    for (uint32_t s = 0; s < nsections; s++)
        if (m->sections[s] >= m->cube_count)
            return pmf_cursor_fail_at(c, sections_at + 4 * s, "section (%u,%u): root cube %u is past the cube count %u",
                                      s / m->sections_z, s % m->sections_z, m->sections[s], m->cube_count);
    /* prop_ref_count stays 0 while the cubes are read: the draft defines no props, so any cube
     * prop reference is past the (empty) array */
    m->cubes = pmf_read_array(c, a, m->cube_count, 1, sizeof *m->cubes, "cubes");
    for (uint32_t i = 0; i < m->cube_count && !c->failed; i++)
        read_cube(c, m, i);
    at = c->pos;
    uint32_t props = pmf_read_u32(c, "prop count");
    if (!c->failed && props)
        return pmf_cursor_fail_at(c, at, "%u props, but the draft does not define the prop layout", props);
    at = c->pos;
    uint32_t refs = pmf_read_u32(c, "prop reference count");
    if (!c->failed && refs)
        return pmf_cursor_fail_at(c, at, "%u prop references, but there are no props", refs);
    m->string_table = pmf_read_table(c, "string table");
    if (!pmf_cursor_expect_end(c, "the shared data"))
        return false;
    return check_tree(m, a, err);
}

/* ---- server and client data ---- */

static bool read_server(pmf_cursor *c, pmf_arena *a, pmfl_map *m)
{
    m->team_count = pmf_read_u8(c, "team count");
    m->teams = pmf_read_array(c, a, m->team_count, 16, sizeof *m->teams, "teams");
    size_t teams_at = c->pos;
    pmf_take(c, 16ull * m->team_count, "teams");
    size_t at = c->pos;
    uint32_t entities = pmf_read_u32(c, "entity count");
    if (!c->failed && entities)
        return pmf_cursor_fail_at(c, at, "%u entities, but the draft does not define the entity layout", entities);
    m->server_string_table = pmf_read_table(c, "server string table");
    if (!pmf_cursor_expect_end(c, "the server data"))
        return false;
    /* team names resolve in the table that follows them */
    pmf_cursor t = *c;
    t.pos = teams_at;
    for (unsigned i = 0; i < m->team_count; i++) {
        m->teams[i].name = pmf_read_string(&t, m->server_string_table, "team name");
        pmf_read_f32s(&t, m->teams[i].color, 3, "team color");
    }
    if (t.failed)
        c->failed = true;
    return !t.failed;
}

static bool read_client(pmf_cursor *c, pmf_arena *a, pmfl_map *m)
{
    m->triangle_count = pmf_read_u32(c, "triangle count");
    m->triangles = pmf_read_array(c, a, m->triangle_count, 84, sizeof *m->triangles, "triangles");
    for (uint32_t t = 0; t < m->triangle_count && !c->failed; t++)
        for (int k = 0; k < 3; k++) {
            pmfl_point *p = &m->triangles[t].p[k];
            size_t at = c->pos;
            pmf_read_f32s(c, p->pos, 3, "triangle point");
            pmf_read_f32s(c, p->uv, 2, "triangle texture coordinates");
            pmf_read_f32s(c, p->lightmap_uv, 2, "triangle lightmap coordinates");
            float v[7] = { p->pos[0], p->pos[1], p->pos[2], p->uv[0], p->uv[1], p->lightmap_uv[0], p->lightmap_uv[1] };
            for (int q = 0; q < 7 && !c->failed; q++)
                if (!(v[q] >= -1e30f && v[q] <= 1e30f))
                    return pmf_cursor_fail_at(c, at + 4 * (size_t)q, "triangle %u point %d: value %d is not a finite number "
                                              "(or beyond 1e30)", t, k, q);
        }
    return pmf_cursor_expect_end(c, "the client data");
}

/* Each solid / angled cube's triangles lie inside the triangle array; record who draws each. */
static bool link_triangles(pmfl_map *m, pmf_arena *a, pmf_error *err)
{
    m->triangle_cube = m->triangle_count ? pmf_arena_alloc_uninit(a, (size_t)m->triangle_count * 4) : NULL;
    if (m->triangle_count && !m->triangle_cube)
        return fail(err, m->file, "client data", 0, "out of memory");
    for (uint32_t t = 0; t < m->triangle_count; t++)
        m->triangle_cube[t] = UINT32_MAX;
    m->materials = pmf_arena_alloc(a, ((size_t)m->cube_count + 1) * sizeof *m->materials);
    if (!m->materials)
        return fail(err, m->file, "shared data", 0, "out of memory");
    for (uint32_t i = 0; i < m->cube_count; i++) {
        pmfl_cube *cube = &m->cubes[i];
        if (cube->type != PMFL_CUBE_SOLID && cube->type != PMFL_CUBE_ANGLED)
            continue;
        if ((uint64_t)cube->triangle_index + cube->triangle_count > m->triangle_count) {
            uint64_t index_at = cube->offset + 5ull + (cube->flags & PMFL_CUBE_HAS_LIGHTING ? 8 : 0) +
                                (cube->flags & PMFL_CUBE_IS_CHUNK ? 12 : 0);
            pmf_error_set(err, m->file, "shared data", index_at, "cube %u: triangles %u..%llu are past the triangle count %u", i,
                          cube->triangle_index, (unsigned long long)cube->triangle_index + cube->triangle_count - 1,
                          m->triangle_count);
            return false;
        }
        for (uint32_t t = 0; t < cube->triangle_count; t++)
            if (m->triangle_cube[cube->triangle_index + t] == UINT32_MAX)
                m->triangle_cube[cube->triangle_index + t] = i;
        if (cube->material[0] && pmf_find_name(m->materials, m->materials_count, sizeof *m->materials, cube->material) < 0)
            m->materials[m->materials_count++] = cube->material;
    }
    for (uint32_t t = 0; t < m->triangle_count; t++)
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) {
                float v = m->triangles[t].p[k].pos[j];
                if ((t == 0 && k == 0) || v < m->bounds_min[j])
                    m->bounds_min[j] = v;
                if ((t == 0 && k == 0) || v > m->bounds_max[j])
                    m->bounds_max[j] = v;
            }
    return true;
}

pmfl_map *pmfl_open_memory(const void *data, size_t size, const char *name, pmf_error *err)
{
    pmfl_map *m = calloc(1, sizeof *m);
    legacy_impl *impl = calloc(1, sizeof *impl);
    pmf_arena *a = pmf_arena_create();
    if (!m || !impl || !a) {
        free(m);
        free(impl);
        pmf_arena_destroy(a);
        fail(err, name, "header", 0, "out of memory");
        return NULL;
    }
    impl->arena = a;
    m->impl_ = impl;
    snprintf(m->file, sizeof m->file, "%s", name ? name : "");

    pmf_cursor c = pmf_cursor_make(data, size, 0, m->file, "header", err);
    pmf_blob blocks[3] = { { 0 } };
    bool ok = size >= 4 && !memcmp(data, "PMF", 4);
    if (!ok)
        fail(err, m->file, "header", 0, "not a legacy PMF draft (magic is not 'PMF\\0')");
    ok = ok && read_header(&c, m);
    c.block = "data";
    for (int i = 0; ok && i < 3; i++)
        ok = read_block(&c, a, i, &blocks[i], &m->blocks[i]);
    ok = ok && pmf_cursor_expect_end(&c, "the client data block");
    /* server first: cube materials resolve in the server string table (docs/formats.md) */
    if (ok) {
        pmf_cursor s = pmf_cursor_make(blocks[1].data, blocks[1].size, 0, m->file, block_names[1], err);
        ok = read_server(&s, a, m);
    }
    if (ok) {
        pmf_cursor s = pmf_cursor_make(blocks[0].data, blocks[0].size, 0, m->file, block_names[0], err);
        ok = read_shared(&s, a, m, err);
    }
    if (ok) {
        pmf_cursor s = pmf_cursor_make(blocks[2].data, blocks[2].size, 0, m->file, block_names[2], err);
        ok = read_client(&s, a, m);
    }
    ok = ok && link_triangles(m, a, err);
    if (!ok) {
        pmfl_close(m);
        return NULL;
    }
    return m;
}

pmfl_map *pmfl_open(const char *path, pmf_error *err)
{
    uint8_t *bytes;
    size_t size;
    if (!pmf_read_whole_file(path, MAX_FILE_SIZE, &bytes, &size, err))
        return NULL;
    pmfl_map *m = pmfl_open_memory(bytes, size, path, err);
    if (!m) {
        pmf_budget_free(bytes);
        return NULL;
    }
    ((legacy_impl *)m->impl_)->owned = bytes;
    return m;
}

void pmfl_close(pmfl_map *m)
{
    if (!m)
        return;
    legacy_impl *impl = m->impl_;
    if (impl) {
        pmf_arena_destroy(impl->arena);
        pmf_budget_free(impl->owned);
        free(impl);
    }
    free(m);
}
