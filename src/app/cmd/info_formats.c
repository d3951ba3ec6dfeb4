/* info_formats.c - `pmfview info` for the legacy PMF draft and PM4 worlds (schemas:
 * docs/formats.md). Validation is the readers' own: they read and check the whole file. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "bsp_read.h"
#include "commands.h"
#include "info_formats.h"
#include "map_read.h"
#include "pm4_world.h"
#include "pmf_legacy.h"
#include "text_clean.h"

/* Human output never echoes a control byte from a file: it is shown as \xNN (conventions §4). */
static void print_clean(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < 0x20 || ch == 0x7F)
            fprintf(out, "\\x%02x", ch);
        else
            fputc(ch, out);
    }
}

static void print_field(FILE *out, const char *label, const char *value)
{
    fprintf(out, "%-13s ", label);
    print_clean(out, value);
    fputc('\n', out);
}

/* A copy of s with every byte that is not part of valid UTF-8 replaced by U+FFFD, so the
 * output is always JSON (conventions §4). */
static char *utf8_clean(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(len * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
        bool ok = n > 0;
        for (int k = 1; ok && k < n; k++)
            ok = (p[k] & 0xC0) == 0x80;
        if (ok && n > 1) {
            uint32_t cp = n == 2 ? (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu)
                        : n == 3 ? (p[0] & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu)
                                 : (p[0] & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 | (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu);
            /* overlong forms, surrogates and code points past U+10FFFF are not UTF-8 */
            ok = cp >= (n == 2 ? 0x80u : n == 3 ? 0x800u : 0x10000u) && (cp < 0xD800 || cp > 0xDFFF) && cp <= 0x10FFFF;
        }
        if (ok) {
            memcpy(out + o, p, (size_t)n);
            o += (size_t)n;
            p += n;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            p++;
        }
    }
    out[o] = 0;
    return out;
}

static void json_add_string(cJSON *o, const char *key, const char *value)
{
    char *clean = utf8_clean(value);
    cJSON_AddStringToObject(o, key, clean ? clean : "");
    free(clean);
}

static cJSON *json_string(const char *value)
{
    char *clean = utf8_clean(value);
    cJSON *s = cJSON_CreateString(clean ? clean : "");
    free(clean);
    return s;
}

static cJSON *json_vec3(const float v[3])
{
    double d[3] = { v[0], v[1], v[2] };
    return cJSON_CreateDoubleArray(d, 3);
}

static cJSON *json_bounds(bool any, const float min[3], const float max[3])
{
    if (!any)
        return cJSON_CreateNull();
    cJSON *b = cJSON_CreateObject();
    cJSON_AddItemToObject(b, "min", json_vec3(min));
    cJSON_AddItemToObject(b, "max", json_vec3(max));
    return b;
}

static int print_json(cJSON *root)
{
    char *printed = root ? cJSON_Print(root) : NULL;
    char *text = printed ? text_clean_json(printed) : NULL;
    cJSON_Delete(root);
    free(printed);
    if (!text) {
        fputs("pmfview: out of memory\n", stderr);
        return EXIT_RUNTIME;
    }
    puts(text);
    free(text);
    return 0;
}

static int fail_input(const pmf_error *err)
{
    char line[768];
    fprintf(stderr, "pmfview: %s\n", pmf_error_format(err, line, sizeof line));
    return EXIT_BAD_INPUT;
}

/* ---- legacy draft ---- */

static const char *const cube_type_names[4] = { "empty", "parent", "solid", "angled" };
static const char *const block_names[3] = { "shared", "server", "client" };

static cJSON *legacy_json(const char *path, const pmfl_map *m)
{
    cJSON *root = cJSON_CreateObject();
    json_add_string(root, "file", path);
    cJSON_AddStringToObject(root, "format", "pmf-legacy");
    char version[16];
    snprintf(version, sizeof version, "%u.%u", m->major, m->minor);
    cJSON_AddStringToObject(root, "version", version);
    json_add_string(root, "name", m->name);
    json_add_string(root, "authors", m->authors);
    json_add_string(root, "description", m->description);
    cJSON_AddNumberToObject(root, "created_unix", (double)m->created);
    cJSON *modes = cJSON_AddArrayToObject(root, "gamemodes");
    for (unsigned i = 0; i < m->gamemode_count; i++)
        cJSON_AddItemToArray(modes, json_string(m->gamemodes[i]));
    cJSON *blocks = cJSON_AddObjectToObject(root, "blocks");
    for (int i = 0; i < 3; i++) {
        cJSON *b = cJSON_AddObjectToObject(blocks, block_names[i]);
        cJSON_AddStringToObject(b, "compression", m->blocks[i].lz4 ? "lz4" : "none");
        cJSON_AddNumberToObject(b, "stored_bytes", (double)m->blocks[i].stored);
        cJSON_AddNumberToObject(b, "bytes", (double)m->blocks[i].size);
    }
    cJSON *sections = cJSON_AddObjectToObject(root, "sections");
    cJSON_AddNumberToObject(sections, "x", m->sections_x);
    cJSON_AddNumberToObject(sections, "z", m->sections_z);
    cJSON_AddNumberToObject(sections, "size_exp", m->section_size_exp);
    cJSON_AddNumberToObject(root, "cubes", m->cube_count);
    cJSON *types = cJSON_AddObjectToObject(root, "cubes_in_tree");
    for (int i = 0; i < 4; i++)
        cJSON_AddNumberToObject(types, cube_type_names[i], m->cubes_by_type[i]);
    cJSON_AddNumberToObject(root, "lit_cubes", m->lit_cubes);
    cJSON_AddNumberToObject(root, "triangles", m->triangle_count);
    cJSON *mats = cJSON_AddArrayToObject(root, "materials");
    for (uint32_t i = 0; i < m->materials_count; i++)
        cJSON_AddItemToArray(mats, json_string(m->materials[i]));
    cJSON *teams = cJSON_AddArrayToObject(root, "teams");
    for (unsigned i = 0; i < m->team_count; i++) {
        cJSON *t = cJSON_CreateObject();
        json_add_string(t, "name", m->teams[i].name);
        cJSON_AddItemToObject(t, "color", json_vec3(m->teams[i].color));
        cJSON_AddItemToArray(teams, t);
    }
    cJSON_AddNumberToObject(root, "string_table_bytes", (double)m->string_table.size);
    cJSON_AddNumberToObject(root, "server_string_table_bytes", (double)m->server_string_table.size);
    cJSON_AddItemToObject(root, "bounds", json_bounds(m->triangle_count > 0, m->bounds_min, m->bounds_max));
    return root;
}

static void legacy_text(FILE *out, const char *path, const pmfl_map *m)
{
    print_field(out, "file:", path);
    fprintf(out, "%-13s legacy PMF draft %u.%u\n", "format:", m->major, m->minor);
    print_field(out, "name:", m->name);
    print_field(out, "description:", m->description);
    print_field(out, "authors:", m->authors);
    fprintf(out, "%-13s %llu\n", "created:", (unsigned long long)m->created);
    fprintf(out, "%-13s %u", "gamemodes:", m->gamemode_count);
    for (unsigned i = 0; i < m->gamemode_count; i++) {
        fputs(i ? ", " : ": ", out);
        print_clean(out, m->gamemodes[i]);
    }
    fputc('\n', out);
    for (int i = 0; i < 3; i++)
        fprintf(out, "%-13s %llu bytes (%s, %llu stored)\n", i == 0 ? "blocks:" : "", (unsigned long long)m->blocks[i].size,
                m->blocks[i].lz4 ? "LZ4" : "uncompressed", (unsigned long long)m->blocks[i].stored);
    fprintf(out, "%-13s %u x %u (x, z) of 2^%u = %.0f m\n", "sections:", m->sections_x, m->sections_z, m->section_size_exp,
            (double)(1ull << m->section_size_exp));
    fprintf(out, "%-13s %u (in the tree: %u empty, %u parent, %u solid, %u angled; %u lit)\n", "cubes:", m->cube_count,
            m->cubes_by_type[0], m->cubes_by_type[1], m->cubes_by_type[2], m->cubes_by_type[3], m->lit_cubes);
    fprintf(out, "%-13s %u\n", "triangles:", m->triangle_count);
    fprintf(out, "%-13s %u", "materials:", m->materials_count);
    for (uint32_t i = 0; i < m->materials_count; i++) {
        fputs(i ? ", " : ": ", out);
        print_clean(out, m->materials[i]);
    }
    fputc('\n', out);
    fprintf(out, "%-13s %u\n", "teams:", m->team_count);
    if (m->triangle_count)
        fprintf(out, "%-13s (%g, %g, %g) .. (%g, %g, %g)\n", "bounds:", (double)m->bounds_min[0], (double)m->bounds_min[1],
                (double)m->bounds_min[2], (double)m->bounds_max[0], (double)m->bounds_max[1], (double)m->bounds_max[2]);
}

/* ---- PM4 ---- */

typedef struct surface_counts { uint32_t walkable, m2, liquid; } surface_counts;

static surface_counts count_surfaces(const pm4_tile *t)
{
    surface_counts c = { 0 };
    for (uint32_t i = 0; i < t->entries[PM4_MSUR]; i++) {
        if (t->msur[i].group_key)
            c.walkable++;
        else
            c.m2++;
        if (t->msur[i].attribute_mask & PM4_MSUR_LIQUID)
            c.liquid++;
    }
    return c;
}

static cJSON *pm4_tile_json(const pm4_tile *t)
{
    cJSON *o = cJSON_CreateObject();
    json_add_string(o, "file", t->file);
    if (t->has_tile_xy) {
        cJSON *xy = cJSON_AddObjectToObject(o, "tile");
        cJSON_AddNumberToObject(xy, "x", t->tile_x);
        cJSON_AddNumberToObject(xy, "y", t->tile_y);
    } else {
        cJSON_AddNullToObject(o, "tile");
    }
    cJSON_AddNumberToObject(o, "version", t->version);
    cJSON *chunks = cJSON_AddObjectToObject(o, "chunks");
    for (int k = 0; k < PM4_CHUNK_KINDS; k++)
        if (t->present[k])
            cJSON_AddNumberToObject(chunks, pm4_chunk_names[k], t->entries[k]);
    cJSON_AddNumberToObject(o, "unknown_chunks", t->unknown_chunks);
    surface_counts sc = count_surfaces(t);
    cJSON_AddNumberToObject(o, "vertices", t->entries[PM4_MSVT]);
    cJSON_AddNumberToObject(o, "surfaces", t->entries[PM4_MSUR]);
    cJSON_AddNumberToObject(o, "walkable_surfaces", sc.walkable);
    cJSON_AddNumberToObject(o, "m2_surfaces", sc.m2);
    cJSON_AddNumberToObject(o, "liquid_surfaces", sc.liquid);
    cJSON_AddNumberToObject(o, "groups", t->groups);
    cJSON_AddNumberToObject(o, "triangles", t->triangles);
    cJSON_AddNumberToObject(o, "path_vertices", t->entries[PM4_MSPV]);
    cJSON_AddNumberToObject(o, "path_indices", t->entries[PM4_MSPI]);
    cJSON_AddNumberToObject(o, "exterior_points", t->entries[PM4_MSCN]);
    cJSON_AddNumberToObject(o, "position_references", t->entries[PM4_MPRL]);
    cJSON_AddItemToObject(o, "bounds", json_bounds(t->has_bounds, t->bounds_min, t->bounds_max));
    return o;
}

static void pm4_tile_text(FILE *out, const pm4_tile *t)
{
    fputs("tile ", out);
    print_clean(out, t->file);
    if (t->has_tile_xy)
        fprintf(out, " (%d, %d)", t->tile_x, t->tile_y);
    fputs(":\n", out);
    fprintf(out, "  %-17s %u\n", "version:", t->version);
    fprintf(out, "  %-17s", "chunks:");
    for (int k = 0; k < PM4_CHUNK_KINDS; k++)
        if (t->present[k])
            fprintf(out, " %s %u", pm4_chunk_names[k], t->entries[k]);
    fprintf(out, "; %u unknown skipped\n", t->unknown_chunks);
    surface_counts sc = count_surfaces(t);
    fprintf(out, "  %-17s %u\n", "vertices:", t->entries[PM4_MSVT]);
    fprintf(out, "  %-17s %u (%u walkable, %u M2 props, %u liquid candidates)\n", "surfaces:", t->entries[PM4_MSUR],
            sc.walkable, sc.m2, sc.liquid);
    fprintf(out, "  %-17s %u\n", "CK24 groups:", t->groups);
    fprintf(out, "  %-17s %u\n", "triangles:", t->triangles);
    fprintf(out, "  %-17s %u vertices, %u indices\n", "path:", t->entries[PM4_MSPV], t->entries[PM4_MSPI]);
    fprintf(out, "  %-17s %u\n", "exterior points:", t->entries[PM4_MSCN]);
    fprintf(out, "  %-17s %u\n", "position refs:", t->entries[PM4_MPRL]);
    if (t->has_bounds)
        fprintf(out, "  %-17s (%g, %g, %g) .. (%g, %g, %g)\n", "bounds:", (double)t->bounds_min[0],
                (double)t->bounds_min[1], (double)t->bounds_min[2], (double)t->bounds_max[0], (double)t->bounds_max[1],
                (double)t->bounds_max[2]);
}

int info_formats(const char *path, const map_source *src, bool json)
{
    pmf_error err;
    if (src->id.kind == PMF_KIND_PMF_LEGACY) {
        pmfl_map *m = pmfl_open(path, &err);
        if (!m)
            return fail_input(&err);
        int rc = 0;
        if (json)
            rc = print_json(legacy_json(path, m));
        else
            legacy_text(stdout, path, m);
        pmfl_close(m);
        return rc;
    }
    pm4_world *w = pm4_world_open(path, &err);
    if (!w)
        return fail_input(&err);
    int rc = 0;
    if (json) {
        cJSON *root = cJSON_CreateObject();
        json_add_string(root, "file", path);
        cJSON_AddStringToObject(root, "format", "pm4");
        cJSON_AddBoolToObject(root, "directory", w->directory);
        cJSON_AddStringToObject(root, "units", "metres");
        cJSON *tiles = cJSON_AddArrayToObject(root, "tiles");
        for (uint32_t i = 0; i < w->tile_count; i++)
            cJSON_AddItemToArray(tiles, pm4_tile_json(w->tiles[i]));
        cJSON_AddItemToObject(root, "bounds", json_bounds(w->has_bounds, w->bounds_min, w->bounds_max));
        rc = print_json(root);
    } else {
        print_field(stdout, "file:", path);
        fprintf(stdout, "%-13s PM4 (%u tile%s)\n", "format:", w->tile_count, w->tile_count == 1 ? "" : "s");
        for (uint32_t i = 0; i < w->tile_count; i++)
            pm4_tile_text(stdout, w->tiles[i]);
    }
    pm4_world_close(w);
    return rc;
}

/* ---- compiled Quake-family maps ---- */

int info_bsp(const char *path, bool json)
{
    pmf_error err;
    bsp_file b;
    if (!bsp_read_file(path, &b, &err))
        return fail_input(&err);
    qmap ents;
    if (!bsp_read_entities(&b, path, &ents, &err)) {
        bsp_free(&b);
        return fail_input(&err);
    }
    const qmap_entity *world = ents.entity_count ? &ents.entities[0] : NULL;
    const char *message = world ? qmap_value(&ents, world, "message") : NULL;
    const char *compiler = bsp_compiler(&ents) ? bsp_compiler(&ents) : "";
    unsigned lights = 0, lit_faces = 0, embedded = 0;
    for (uint32_t e = 0; e < ents.entity_count; e++) {
        const char *cls = qmap_value(&ents, &ents.entities[e], "classname");
        lights += cls && strncmp(cls, "light", 5) == 0;
    }
    for (uint32_t f = 0; f < b.face_count; f++) lit_faces += b.faces[f].light_offset >= 0;
    for (uint32_t t = 0; t < b.texture_count; t++) embedded += b.textures[t].embedded;
    const bsp_model *w = &b.models[0];
    int rc = 0;
    if (json) {
        cJSON *root = cJSON_CreateObject();
        json_add_string(root, "file", path);
        cJSON_AddStringToObject(root, "format", bsp_version_name(b.version));
        cJSON_AddItemToObject(root, "compiler", *compiler ? json_string(compiler) : cJSON_CreateNull());
        cJSON_AddItemToObject(root, "message", message ? json_string(message) : cJSON_CreateNull());
        cJSON_AddNumberToObject(root, "faces", b.face_count);
        cJSON_AddNumberToObject(root, "lit_faces", lit_faces);
        cJSON_AddNumberToObject(root, "luxel_bytes", b.luxel_bytes);
        cJSON_AddNumberToObject(root, "lighting_bytes", (double)b.lighting_size);
        cJSON_AddNumberToObject(root, "models", b.model_count);
        cJSON_AddNumberToObject(root, "leaves", b.leaf_count);
        cJSON_AddNumberToObject(root, "textures", b.texture_count);
        cJSON_AddNumberToObject(root, "embedded_textures", embedded);
        cJSON_AddNumberToObject(root, "entities", ents.entity_count);
        cJSON_AddNumberToObject(root, "lights", lights);
        cJSON_AddBoolToObject(root, "visibility", b.visibility_size > 0);
        cJSON_AddItemToObject(root, "bounds", json_bounds(true, w->mins, w->maxs));
        rc = print_json(root);
    } else {
        print_field(stdout, "file:", path);
        print_field(stdout, "format:", bsp_version_name(b.version));
        print_field(stdout, "compiler:", *compiler ? compiler : "(not named in the entity lump)");
        if (message) print_field(stdout, "message:", message);
        printf("%-13s %u (%u lit, %u byte%s a luxel, %zu lighting bytes)\n", "faces:", b.face_count, lit_faces, b.luxel_bytes,
               b.luxel_bytes == 1 ? "" : "s", b.lighting_size);
        printf("%-13s %u (the world and %u brush entit%s)\n", "models:", b.model_count, b.model_count - 1, b.model_count == 2 ? "y" : "ies");
        printf("%-13s %u (%u embedded)\n", "textures:", b.texture_count, embedded);
        printf("%-13s %u (%u light%s)\n", "entities:", ents.entity_count, lights, lights == 1 ? "" : "s");
        printf("%-13s %u leaves, %s\n", "visibility:", b.leaf_count, b.visibility_size ? "PVS present" : "no PVS (every leaf sees all)");
        printf("%-13s (%g %g %g) .. (%g %g %g)\n", "bounds:", w->mins[0], w->mins[1], w->mins[2], w->maxs[0], w->maxs[1], w->maxs[2]);
    }
    qmap_free(&ents);
    bsp_free(&b);
    return rc;
}
