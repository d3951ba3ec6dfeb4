/* cmd_info.c - `pmfview info FILE [--json]`: validates the whole file (every level, every
 * chunk) and prints what it holds, as text or as one JSON object (schema: docs/info.md). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "info_atlas.h"
#include "info_chunks.h"
#include "memory_option.h"
#include "commands.h"
#include "info_formats.h"
#include "map_source.h"
#include "pmf.h"
#include "pmf_cameras.h"
#include "json_text.h"
#include "pmf_light_styles.h"
#include "pmf_lights.h"
#include "pmf_map_info.h"
#include "text_clean.h"

static const char info_usage[] =
    "usage: pmfview info FILE [--json] [--chunks] [--memory MIB]\n"
    "\n"
    "Validates every level and every chunk of the PMF map FILE and prints a summary:\n"
    "header, archive, extensions, start cameras, lights and, per level, flags, grid, materials,\n"
    "totals, the largest chunk's blocks and layers, and bounds.\n"
    "\n";

static const char info_footer[] =
    "\n"
    "Exit status: 0 valid map, 1 usage error, 2 unreadable or invalid map (one line on\n"
    "stderr naming the file, the block and the byte offset).\n";

/* The creation time as UTC ISO-8601, or "@SECONDS" when it has no calendar date. */
static const char *format_created(uint64_t created, char *buf, size_t size)
{
    struct tm tm;
    time_t t = (time_t)created;
    if (created <= (uint64_t)253402300799ull && gmtime_r(&t, &tm))
        strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        snprintf(buf, size, "@%llu", (unsigned long long)created);
    return buf;
}

/* What one level adds to the summary beyond pmf_level_stats. */
typedef struct level_summary {
    pmf_level lvl;             /* common + client */
    pmf_level_stats stats;
    info_atlas atlas;
    info_chunks chunks;        /* what each chunk takes */
} level_summary;

static const char *const level_flag_names[] = { "keep in-chunk offset", "keep chunk offset", "keep velocity" };

static void print_field(FILE *out, const char *label, const char *value)
{
    fprintf(out, "%-13s ", label);
    text_clean_fputs(value, out);
    fputc('\n', out);
}

/* "N: a, b, c" with "" for an empty name. */
static void print_list(FILE *out, const char *const *names, size_t count)
{
    fprintf(out, "%zu", count);
    for (size_t i = 0; i < count; i++) {
        fputs(i ? ", " : ": ", out);
        text_clean_fputs(names[i][0] ? names[i] : "\"\"", out);
    }
    fputc('\n', out);
}

/* The names of an array of named structs (a name is every such struct's first member). */
static const char **collect_names(const void *array, size_t count, size_t stride)
{
    const char **names = calloc(count + 1, sizeof *names);
    const unsigned char *p = array;
    for (size_t i = 0; names && i < count; i++, p += stride)
        memcpy(&names[i], p, sizeof names[i]);
    return names;
}

static void print_names(FILE *out, const char *label, const void *array, size_t count, size_t stride)
{
    fprintf(out, "  %-17s ", label);
    const char **names = collect_names(array, count, stride);
    print_list(out, names, names ? count : 0);
    free(names);
}

/* A float as the shortest decimal that reads back to it. */
static double shortest(float v)
{
    char buf[32];
    for (int digits = 6; digits < 9; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
        if ((float)strtod(buf, NULL) == v)
            return strtod(buf, NULL);
    }
    return (double)v;
}

static const char *const light_kind_names[] = { "static", "dynamic", "fast" };
static const char *const light_shape_names[] = { "point", "spot", "sun" };

/* What pmfc recorded of the map's origin (pmf_map_info.h). */
typedef struct map_extras {
    pmf_source source;
    pmf_entities entities;
    pmf_leak leak;
} map_extras;

static void print_extras(FILE *out, const map_extras *x)
{
    if (x->source.present) {
        fprintf(out, "%-13s ", "source:");
        text_clean_fputs(x->source.format[0] ? x->source.format : "(unnamed)", out);
        if (x->source.compiler[0]) {
            fputs(", compiled by ", out);
            text_clean_fputs(x->source.compiler, out);
        }
        fputc('\n', out);
        fprintf(out, "%-13s %s\n", "look:", pmf_look_name(x->source.look));
        if (x->source.flags & PMF_SOURCE_FULLBRIGHT)
            fprintf(out, "%-13s no lights: fullbright\n", "lighting:");
    }
    fprintf(out, "%-13s %u\n", "point ents:", x->entities.count);
    if (x->leak.present) {
        fprintf(out, "%-13s the void reaches ", "leak:");
        text_clean_fputs(x->leak.classname, out);
        fprintf(out, " (level %u), %u points:", x->leak.level, x->leak.point_count);
        for (uint32_t i = 0; i < x->leak.point_count; i++)
            fprintf(out, "%s(%g, %g, %g)", i ? " " : " ", shortest(x->leak.points[i][0]), shortest(x->leak.points[i][1]),
                    shortest(x->leak.points[i][2]));
        fputc('\n', out);
    }
}

static void print_text(FILE *out, const char *path, const pmf_file *f, const level_summary *levels,
                       const pmf_cameras *cams, const pmf_lights *lights, const map_extras *extras, bool all_chunks)
{
    char created[32];
    print_field(out, "file:", path);
    print_field(out, "name:", f->header.name);
    print_field(out, "description:", f->header.description);
    print_field(out, "authors:", f->header.authors);
    print_field(out, "compiler:", f->header.compiler);
    print_field(out, "created:", format_created(f->header.created, created, sizeof created));
    fprintf(out, "%-13s ", "gamemodes:");
    print_list(out, f->header.gamemodes, f->header.gamemode_count);
    fprintf(out, "%-13s %llu bytes\n", "archive:", (unsigned long long)f->archive.size);
    fprintf(out, "%-13s %u", "extensions:", f->extension_count);
    for (unsigned i = 0; i < f->extension_count; i++)
        fprintf(out, "%s%llu", i ? ", " : " (bytes: ", (unsigned long long)f->extensions[i].size);
    fputs(f->extension_count ? ")\n" : "\n", out);
    fprintf(out, "%-13s %u\n", "entities:", f->global_entity_count);
    print_extras(out, extras);
    fprintf(out, "%-13s %u\n", "cameras:", cams->count);
    for (uint32_t i = 0; i < cams->count; i++) {
        const pmf_camera *c = &cams->list[i];
        fprintf(out, "  %u: ", i + 1);
        text_clean_fputs(c->name[0] ? c->name : "\"\"", out);
        fprintf(out, " (level %u) at %g, %g, %g yaw %g pitch %g\n", c->level, shortest(c->pos[0]), shortest(c->pos[1]),
                shortest(c->pos[2]), shortest(c->yaw), shortest(c->pitch));
    }
    /* the compiler's light list (pmfview.lights): switchable lights by ID, static ones by their
     * place in the list (#N, as --solo / --mute take them), with their names */
    fprintf(out, "%-13s %u\n", "lights:", lights->count);
    for (uint32_t i = 0; i < lights->count; i++) {
        const pmf_light_info *li = &lights->list[i];
        if (li->kind == PMF_LIGHT_STATIC)
            fprintf(out, "  static #%u: ", i);
        else
            fprintf(out, "  %s %u: ", light_kind_names[li->kind], li->id);
        text_clean_fputs(li->name[0] ? li->name : "\"\"", out);
        fprintf(out, " (level %u, %s", li->level, light_shape_names[li->shape]);
        if (li->style)
            fprintf(out, ", style %u%s", li->style, pmf_light_style_animated(li->style) ? ": plays" : "");
        fputs(")\n", out);
    }
    fprintf(out, "%-13s %u\n", "levels:", f->level_count);
    for (unsigned l = 0; l < f->level_count; l++) {
        const pmf_level *lvl = &levels[l].lvl;
        const pmf_level_stats *s = &levels[l].stats;
        fprintf(out, "level %u:\n", l);
        fprintf(out, "  %-17s 0x%02x", "flags:", lvl->flags);
        for (int b = 0, n = 0; b < 3; b++)
            if (lvl->flags & (1u << b))
                fprintf(out, "%s%s", n++ ? ", " : " (", level_flag_names[b]);
        fputs(lvl->flags ? ")\n" : "\n", out);
        fprintf(out, "  %-17s 2^%u = %.0f m\n", "chunk size:", lvl->chunk_size_exp, (double)(1ull << lvl->chunk_size_exp));
        fprintf(out, "  %-17s %u x %u x %u (x, y, z)\n", "grid:", lvl->count_x, lvl->count_y, lvl->count_z);
        fprintf(out, "  %-17s (%u, %u, %u)\n", "center:", lvl->center.x, lvl->center.y, lvl->center.z);
        fprintf(out, "  %-17s %u of %u\n", "present chunks:", s->present_chunks, f->levels[l].chunk_count);
        print_names(out, "materials:", lvl->common.materials, lvl->common.material_count, sizeof *lvl->common.materials);
        fprintf(out, "  %-17s %llu\n", "cubes:", (unsigned long long)s->cubes);
        fprintf(out, "  %-17s %llu\n", "vertices:", (unsigned long long)s->vertices);
        fprintf(out, "  %-17s %llu\n", "lightmaps:", (unsigned long long)s->lightmaps);
        fprintf(out, "  %-17s %llu\n", "dynamic lights:", (unsigned long long)s->dynamic_lights);
        fprintf(out, "  %-17s %llu\n", "fast lights:", (unsigned long long)s->fast_lights);
        const info_atlas *a = &levels[l].atlas;
        fprintf(out, "  %-17s %llu lightmap%s, %llu luxels (%llu bytes), %u page%s of %u^2, %.3g%% filled%s\n", "atlas:",
                (unsigned long long)a->lightmaps, a->lightmaps == 1 ? "" : "s", (unsigned long long)a->luxels,
                (unsigned long long)a->bytes, a->pages, a->pages == 1 ? "" : "s", a->page_size, 100.0 * a->filled,
                a->complete ? "" : " (not all placed: pages and share of the largest)");
        info_chunks_print(out, &levels[l].chunks, all_chunks);
        print_names(out, "sky environments:", lvl->client.sky_envs, lvl->client.sky_env_count, sizeof *lvl->client.sky_envs);
        if (s->has_bounds)
            fprintf(out, "  %-17s (%g, %g, %g) to (%g, %g, %g) m\n", "bounds:", s->min[0], s->min[1], s->min[2],
                    s->max[0], s->max[1], s->max[2]);
        else
            fprintf(out, "  %-17s none (no vertices)\n", "bounds:");
    }
}

static cJSON *json_coord(uint32_t x, uint32_t y, uint32_t z)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "x", x);
    cJSON_AddNumberToObject(o, "y", y);
    cJSON_AddNumberToObject(o, "z", z);
    return o;
}

/* A JSON string of file text: always valid UTF-8 (U+FFFD for each bad byte). */
static cJSON *json_names(const void *array, size_t count, size_t stride)
{
    const char **names = collect_names(array, count, stride);
    cJSON *a = names ? cJSON_CreateArray() : NULL;
    for (size_t i = 0; a && i < count; i++)
        cJSON_AddItemToArray(a, json_text(names[i]));
    free(names);
    return a;
}

static cJSON *json_vec3(const double v[3])
{
    return cJSON_CreateDoubleArray(v, 3);
}

static cJSON *json_cameras(const pmf_cameras *cams)
{
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && i < cams->count; i++) {
        const pmf_camera *c = &cams->list[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", c->name);
        cJSON_AddNumberToObject(o, "level", c->level);
        double pos[3] = { shortest(c->pos[0]), shortest(c->pos[1]), shortest(c->pos[2]) };
        cJSON_AddItemToObject(o, "position", json_vec3(pos));
        cJSON_AddNumberToObject(o, "yaw", shortest(c->yaw));
        cJSON_AddNumberToObject(o, "pitch", shortest(c->pitch));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *json_lights(const pmf_lights *lights)
{
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && i < lights->count; i++) {
        const pmf_light_info *l = &lights->list[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "name", json_text(l->name));
        cJSON_AddNumberToObject(o, "level", l->level);
        cJSON_AddStringToObject(o, "kind", light_kind_names[l->kind]);
        cJSON_AddStringToObject(o, "shape", light_shape_names[l->shape]);
        cJSON_AddNumberToObject(o, "id", l->id);
        double pos[3] = { shortest(l->position[0]), shortest(l->position[1]), shortest(l->position[2]) };
        double dir[3] = { shortest(l->direction[0]), shortest(l->direction[1]), shortest(l->direction[2]) };
        double color[3] = { l->color[0], l->color[1], l->color[2] };
        cJSON_AddItemToObject(o, "position", json_vec3(pos));
        cJSON_AddItemToObject(o, "direction", json_vec3(dir));
        cJSON_AddItemToObject(o, "color", json_vec3(color));
        cJSON_AddNumberToObject(o, "intensity", shortest(l->intensity));
        cJSON_AddNumberToObject(o, "range", shortest(l->range));
        cJSON_AddNumberToObject(o, "size", shortest(l->size));
        cJSON_AddNumberToObject(o, "style", l->style);
        if (l->shape == PMF_LIGHT_SPOT) {
            cJSON_AddNumberToObject(o, "cos_inner", shortest(l->cos_inner));
            cJSON_AddNumberToObject(o, "cos_outer", shortest(l->cos_outer));
        }
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *json_point(const float p[3])
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < 3; k++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(shortest(p[k])));
    return a;
}

/* pmfview.entity_placement's values of an entity: its angles and scale, and what it gives of its
 * skin, body, sequence, frame and model; pmfview.entity_render's when it sets any. */
static void add_placement(cJSON *o, const pmf_entity_info *e)
{
    cJSON_AddItemToObject(o, "angles", json_point(e->angles));
    cJSON_AddNumberToObject(o, "scale", e->scale);
    const char *names[4] = { "skin", "body", "sequence", "frame" };
    const int32_t values[4] = { e->skin, e->body, e->sequence, e->frame };
    for (int k = 0; k < 4; k++)
        if (values[k] != PMF_NOT_GIVEN)
            cJSON_AddNumberToObject(o, names[k], values[k]);
    if (e->model[0])
        cJSON_AddItemToObject(o, "model", json_text(e->model));
    const uint8_t *c = e->render_color;
    if (e->render_mode || e->render_amount || c[0] || c[1] || c[2] || e->framerate >= 0) {
        cJSON_AddNumberToObject(o, "rendermode", e->render_mode);
        cJSON_AddNumberToObject(o, "renderamt", e->render_amount);
        const float colour[3] = { c[0], c[1], c[2] };
        cJSON_AddItemToObject(o, "rendercolor", json_point(colour));
        if (e->framerate >= 0)
            cJSON_AddNumberToObject(o, "framerate", e->framerate);
    }
}

static void json_extras(cJSON *root, const map_extras *x)
{
    if (x->source.present) {
        cJSON *s = cJSON_AddObjectToObject(root, "source");
        cJSON_AddItemToObject(s, "format", json_text(x->source.format));
        cJSON_AddItemToObject(s, "compiler", json_text(x->source.compiler));
        cJSON_AddStringToObject(s, "look", pmf_look_name(x->source.look));
        cJSON_AddBoolToObject(s, "fullbright", (x->source.flags & PMF_SOURCE_FULLBRIGHT) != 0);
    }
    cJSON *ents = cJSON_AddArrayToObject(root, "entities");
    for (uint32_t i = 0; i < x->entities.count; i++) {
        const pmf_entity_info *e = &x->entities.list[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "class", json_text(e->classname));
        cJSON_AddItemToObject(o, "targetname", json_text(e->targetname));
        cJSON_AddNumberToObject(o, "level", e->level);
        cJSON_AddItemToObject(o, "position", json_point(e->position));
        add_placement(o, e);
        cJSON_AddItemToArray(ents, o);
    }
    if (x->leak.present) {
        cJSON *l = cJSON_AddObjectToObject(root, "leak");
        cJSON_AddItemToObject(l, "entity", json_text(x->leak.classname));
        cJSON_AddNumberToObject(l, "level", x->leak.level);
        cJSON *pts = cJSON_AddArrayToObject(l, "points");
        for (uint32_t i = 0; i < x->leak.point_count; i++)
            cJSON_AddItemToArray(pts, json_point(x->leak.points[i]));
    } else {
        cJSON_AddNullToObject(root, "leak");
    }
}

static cJSON *build_json(const char *path, const pmf_file *f, const level_summary *levels, const pmf_cameras *cams,
                         const pmf_lights *lights, const map_extras *extras, bool all_chunks)
{
    char created[32];
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "file", json_text(path));
    cJSON_AddItemToObject(root, "name", json_text(f->header.name));
    cJSON_AddItemToObject(root, "description", json_text(f->header.description));
    cJSON_AddItemToObject(root, "authors", json_text(f->header.authors));
    cJSON_AddItemToObject(root, "compiler", json_text(f->header.compiler));
    cJSON_AddStringToObject(root, "created", format_created(f->header.created, created, sizeof created));
    cJSON_AddNumberToObject(root, "created_unix", (double)f->header.created);
    cJSON_AddItemToObject(root, "gamemodes", json_names(f->header.gamemodes, f->header.gamemode_count, sizeof *f->header.gamemodes));
    cJSON_AddNumberToObject(root, "archive_size", (double)f->archive.size);
    cJSON *ext = cJSON_AddArrayToObject(root, "extension_sizes");
    for (unsigned i = 0; i < f->extension_count; i++)
        cJSON_AddItemToArray(ext, cJSON_CreateNumber((double)f->extensions[i].size));
    cJSON_AddNumberToObject(root, "global_entities", f->global_entity_count);
    cJSON_AddItemToObject(root, "cameras", json_cameras(cams));
    cJSON_AddItemToObject(root, "lights", json_lights(lights));
    json_extras(root, extras);
    cJSON *arr = cJSON_AddArrayToObject(root, "levels");
    for (unsigned l = 0; l < f->level_count; l++) {
        const pmf_level *lvl = &levels[l].lvl;
        const pmf_level_stats *s = &levels[l].stats;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", l);
        cJSON_AddNumberToObject(o, "flags", lvl->flags);
        cJSON_AddNumberToObject(o, "chunk_size_exp", lvl->chunk_size_exp);
        cJSON_AddItemToObject(o, "chunk_counts", json_coord(lvl->count_x, lvl->count_y, lvl->count_z));
        cJSON_AddItemToObject(o, "center", json_coord(lvl->center.x, lvl->center.y, lvl->center.z));
        cJSON_AddNumberToObject(o, "present_chunks", s->present_chunks);
        cJSON_AddItemToObject(o, "materials",
                              json_names(lvl->common.materials, lvl->common.material_count, sizeof *lvl->common.materials));
        cJSON_AddNumberToObject(o, "cubes", (double)s->cubes);
        cJSON_AddNumberToObject(o, "vertices", (double)s->vertices);
        cJSON_AddNumberToObject(o, "lightmaps", (double)s->lightmaps);
        cJSON_AddNumberToObject(o, "dynamic_lights", (double)s->dynamic_lights);
        cJSON_AddNumberToObject(o, "fast_lights", (double)s->fast_lights);
        const info_atlas *a = &levels[l].atlas;
        cJSON *atlas = cJSON_AddObjectToObject(o, "atlas");
        cJSON_AddNumberToObject(atlas, "lightmaps", (double)a->lightmaps);
        cJSON_AddNumberToObject(atlas, "luxels", (double)a->luxels);
        cJSON_AddNumberToObject(atlas, "bytes", (double)a->bytes);
        cJSON_AddNumberToObject(atlas, "block_texels", (double)a->block_texels);
        cJSON_AddNumberToObject(atlas, "page_size", a->page_size);
        cJSON_AddNumberToObject(atlas, "pages", a->pages);
        cJSON_AddNumberToObject(atlas, "filled", a->filled);
        cJSON_AddBoolToObject(atlas, "complete", a->complete);
        cJSON_AddItemToObject(o, "sky_environments",
                              json_names(lvl->client.sky_envs, lvl->client.sky_env_count, sizeof *lvl->client.sky_envs));
        cJSON_AddNumberToObject(o, "decompressed_bytes", (double)s->decompressed_bytes);
        info_chunks_json(o, &levels[l].chunks, all_chunks);
        if (s->has_bounds) {
            cJSON *b = cJSON_AddObjectToObject(o, "bounds");
            cJSON_AddItemToObject(b, "min", json_vec3(s->min));
            cJSON_AddItemToObject(b, "max", json_vec3(s->max));
        } else {
            cJSON_AddNullToObject(o, "bounds");
        }
        cJSON_AddItemToArray(arr, o);
    }
    return root;
}

static void collect_chunk(void *user, uint32_t level, const pmf_chunk_figures *chunk)
{
    info_chunks_add(&((level_summary *)user)[level].chunks, chunk);
}

static int fail_input(const pmf_error *err)
{
    char line[768];
    fprintf(stderr, "pmfview: %s\n", pmf_error_format(err, line, sizeof line));
    return EXIT_BAD_INPUT;
}

typedef struct info_options { const char *path; bool json, chunks; } info_options;

enum { OPT_JSON = 256, OPT_CHUNKS, OPT_MEMORY };

static const cli_option info_options_table[] = {
    CLI_OPTION_HELP,
    { "json", 0, OPT_JSON, CLI_FLAG, NULL, NULL, 0, 0, 0, "print one JSON object instead (schema: docs/info.md)", NULL },
    { "chunks", 0, OPT_CHUNKS, CLI_FLAG, NULL, NULL, 0, 0, 0, "list every chunk's blocks, lightmaps and layers", NULL },
    CLI_OPTION_MEMORY(OPT_MEMORY),
    { 0 },
};

static int info_option(void *user, int id, const cli_value *v)
{
    info_options *o = user;
    switch (id) {
    case OPT_JSON:
        o->json = true;
        return 0;
    case OPT_CHUNKS:
        o->chunks = true;
        return 0;
    case OPT_MEMORY:
        memory_option_apply(v->count);
        return 0;
    case CLI_OPERAND:
        if (o->path)
            return cli_usage_error("pmfview", "info", "more than one FILE given: '%s'", v->text);
        o->path = v->text;
        return 0;
    }
    return 0; /* getopt_long hands over only the ids of the table */
}

int cmd_info(int argc, char **argv)
{
    info_options o = { 0 };
    int rc = cli_parse(&(cli_desc){ .program = "pmfview", .command = "info", .usage = info_usage, .footer = info_footer,
                                    .options = info_options_table, .handle = info_option, .user = &o }, argc, argv);
    if (rc)
        return rc == CLI_DONE ? 0 : rc;
    const char *path = o.path;
    bool json = o.json;
    if (!path) {
        return cli_usage_error("pmfview", "info", "no FILE given%s", "");
    }

    pmf_file_id id;
    char why[256];
    if (pmf_identify_path(path, &id, why, sizeof why) && id.kind == PMF_KIND_BSP)
        return info_bsp(path, json);
    map_source src;
    rc = map_source_resolve(path, &src);
    if (rc)
        return rc;
    if (map_source_converted(src.id.kind))
        return info_formats(path, &src, json);
    pmf_error err;
    pmf_file *f = pmf_open(src.pmf_path, &err);
    if (!f)
        return fail_input(&err);
    level_summary *levels = calloc(f->level_count + 1u, sizeof *levels);
    pmf_level_stats *stats = calloc(f->level_count + 1u, sizeof *stats);
    if (!levels || !stats) {
        free(levels);
        free(stats);
        pmf_close(f);
        fputs("pmfview: out of memory\n", stderr);
        return EXIT_RUNTIME;
    }
    int status = 0;
    pmf_cameras *cams = calloc(1, sizeof *cams);
    pmf_lights lights = { 0 };
    map_extras extras = { 0 };
    if (!cams) {
        fputs("pmfview: out of memory\n", stderr);
        status = EXIT_RUNTIME;
    } else if (!pmf_validate_chunks(f, stats, collect_chunk, levels, &err) || !pmf_cameras_read(f, cams, &err) || !pmf_lights_read(f, &lights, &err)
               || !pmf_source_read(f, &extras.source, &err) || !pmf_entities_read(f, &extras.entities, &err)
               || !pmf_leak_read(f, &extras.leak, &err)) {
        status = fail_input(&err);
    }
    for (unsigned l = 0; !status && l < f->level_count; l++) {
        levels[l].stats = stats[l];
        if (levels[l].chunks.failed || !info_atlas_measure(stats[l].lightmaps_by_exp, &levels[l].atlas)) {
            fputs("pmfview: out of memory\n", stderr);
            status = EXIT_RUNTIME;
        } else if (!pmf_level_read(f, l, PMF_PART_COMMON | PMF_PART_CLIENT, &levels[l].lvl, &err))
            status = fail_input(&err);
    }
    if (!status) {
        if (json) {
            cJSON *root = build_json(path, f, levels, cams, &lights, &extras, o.chunks);
            char *printed = root ? cJSON_Print(root) : NULL;
            char *text = printed ? text_clean_json(printed) : NULL;
            free(printed);
            if (text) {
                puts(text);
                free(text);
            } else {
                fputs("pmfview: out of memory\n", stderr);
                status = EXIT_RUNTIME;
            }
            cJSON_Delete(root);
        } else {
            print_text(stdout, path, f, levels, cams, &lights, &extras, o.chunks);
        }
    }
    for (unsigned l = 0; l < f->level_count; l++) {
        pmf_level_free(&levels[l].lvl);
        info_chunks_free(&levels[l].chunks);
    }
    free(levels);
    free(stats);
    if (cams)
        pmf_cameras_free(cams);
    free(cams);
    pmf_lights_free(&lights);
    pmf_source_free(&extras.source);
    pmf_entities_free(&extras.entities);
    pmf_leak_free(&extras.leak);
    pmf_close(f);
    return status;
}
