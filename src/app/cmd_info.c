/* cmd_info.c - `pmfview info FILE [--json]`: validates the whole file (every level, every
 * chunk) and prints what it holds, as text or as one JSON object (schema: docs/info.md). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memory_option.h"
#include "commands.h"
#include "map_source.h"
#include "pmf.h"

static void info_usage(FILE *out)
{
    fputs("usage: pmfview info FILE [--json] [--memory MIB]\n"
          "\n"
          "Validates every level and every chunk of the PMF map FILE and prints a summary:\n"
          "header, archive, extensions and, per level, flags, grid, materials and totals.\n"
          "\n"
          "  --json    print one JSON object instead (schema: docs/info.md)\n"
          "  --memory MIB  memory budget for decoding (default from the machine, docs/memory.md)\n"
          "  --help    show this help\n"
          "\n"
          "Exit status: 0 valid map, 1 usage error, 2 unreadable or invalid map (one line on\n"
          "stderr naming the file, the block and the byte offset).\n", out);
}

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
} level_summary;

static const char *const level_flag_names[] = { "keep in-chunk offset", "keep chunk offset", "keep velocity" };

/* Text output keeps every field on one line: control characters become '?'. */
static void print_clean(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7F ? '?' : *s, out);
}

static void print_field(FILE *out, const char *label, const char *value)
{
    fprintf(out, "%-13s ", label);
    print_clean(out, value);
    fputc('\n', out);
}

/* "N: a, b, c" with "" for an empty name. */
static void print_list(FILE *out, const char *const *names, size_t count)
{
    fprintf(out, "%zu", count);
    for (size_t i = 0; i < count; i++) {
        fputs(i ? ", " : ": ", out);
        print_clean(out, names[i][0] ? names[i] : "\"\"");
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

static void print_text(FILE *out, const char *path, const pmf_file *f, const level_summary *levels)
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
        print_names(out, "sky environments:", lvl->client.sky_envs, lvl->client.sky_env_count, sizeof *lvl->client.sky_envs);
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

static cJSON *json_names(const void *array, size_t count, size_t stride)
{
    const char **names = collect_names(array, count, stride);
    cJSON *a = names ? cJSON_CreateStringArray(names, (int)count) : NULL;
    free(names);
    return a;
}

static cJSON *build_json(const char *path, const pmf_file *f, const level_summary *levels)
{
    char created[32];
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "file", path);
    cJSON_AddStringToObject(root, "name", f->header.name);
    cJSON_AddStringToObject(root, "description", f->header.description);
    cJSON_AddStringToObject(root, "authors", f->header.authors);
    cJSON_AddStringToObject(root, "compiler", f->header.compiler);
    cJSON_AddStringToObject(root, "created", format_created(f->header.created, created, sizeof created));
    cJSON_AddNumberToObject(root, "created_unix", (double)f->header.created);
    cJSON_AddItemToObject(root, "gamemodes", cJSON_CreateStringArray(f->header.gamemodes, f->header.gamemode_count));
    cJSON_AddNumberToObject(root, "archive_size", (double)f->archive.size);
    cJSON *ext = cJSON_AddArrayToObject(root, "extension_sizes");
    for (unsigned i = 0; i < f->extension_count; i++)
        cJSON_AddItemToArray(ext, cJSON_CreateNumber((double)f->extensions[i].size));
    cJSON_AddNumberToObject(root, "global_entities", f->global_entity_count);
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
        cJSON_AddItemToObject(o, "sky_environments",
                              json_names(lvl->client.sky_envs, lvl->client.sky_env_count, sizeof *lvl->client.sky_envs));
        cJSON_AddNumberToObject(o, "decompressed_bytes", (double)s->decompressed_bytes);
        cJSON_AddItemToArray(arr, o);
    }
    return root;
}

static int fail_input(const pmf_error *err)
{
    char line[768];
    fprintf(stderr, "pmfview: %s\n", pmf_error_format(err, line, sizeof line));
    return EXIT_BAD_INPUT;
}

int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            info_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--memory") || !strncmp(argv[i], "--memory=", 9)) {
            const char *v = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : "";
            if (!memory_option_set(v)) {
                fprintf(stderr, "pmfview: info: --memory wants MiB in 64..1048576, got '%s'\n", v);
                return EXIT_USAGE;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "pmfview: info: unknown option '%s' (see 'pmfview info --help')\n", argv[i]);
            return EXIT_USAGE;
        } else if (path) {
            fprintf(stderr, "pmfview: info: more than one FILE given (see 'pmfview info --help')\n");
            return EXIT_USAGE;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "pmfview: info: no FILE given (usage: pmfview info FILE [--json])\n");
        return EXIT_USAGE;
    }

    map_source src;
    int rc = map_source_resolve(path, &src);
    if (rc)
        return rc;
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
    if (!pmf_validate(f, stats, &err))
        status = fail_input(&err);
    for (unsigned l = 0; !status && l < f->level_count; l++) {
        levels[l].stats = stats[l];
        if (!pmf_level_read(f, l, PMF_PART_COMMON | PMF_PART_CLIENT, &levels[l].lvl, &err))
            status = fail_input(&err);
    }
    if (!status) {
        if (json) {
            cJSON *root = build_json(path, f, levels);
            char *text = root ? cJSON_Print(root) : NULL;
            if (text) {
                puts(text);
                free(text);
            } else {
                fputs("pmfview: out of memory\n", stderr);
                status = EXIT_RUNTIME;
            }
            cJSON_Delete(root);
        } else {
            print_text(stdout, path, f, levels);
        }
    }
    for (unsigned l = 0; l < f->level_count; l++)
        pmf_level_free(&levels[l].lvl);
    free(levels);
    free(stats);
    pmf_close(f);
    return status;
}
