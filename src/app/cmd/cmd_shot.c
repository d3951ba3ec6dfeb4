/* cmd_shot.c - `pmfview shot`: headless render of one frame per camera to PNG
 * (../shared/conventions.md §4, docs/shot.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "memory_option.h"
#include "commands.h"
#include "formats_scene.h"
#include "image_compare.h"
#include "inspect.h"
#include "light_gizmos.h"
#include "light_ids.h"
#include "light_select.h"
#include "map_source.h"
#include "pm4_world.h"
#include "stream.h"
#include "map_markers.h"
#include "region_overlay.h"
#include "render.h"
#include "res/png_write.h"
#include "render/hud.h"
#include "scene.h"
#include "text_clean.h"
#include "view_options.h"
#include "pmf_os.h"
#include "pmf_system.h"
#include "base/order.h"

#define MAX_TILE 4096                /* larger frames are drawn in tiles: bounded GPU memory */
#define WAIT_SECONDS 300.0

static const char shot_usage[] =
    "usage: pmfview shot FILE -o OUT.png [options]\n"
    "       pmfview shot FILE --inspect X,Y [options]\n"
    "\n"
    "Renders frames without a window or display (EGL surfaceless, else device) and writes PNG files.\n"
    "\n";

typedef struct shot_camera {
    camera_pose pose;
    char name[128];
} shot_camera;

typedef struct shot_options {
    const char *file, *output, *game_dir, *cameras_file, *path_file;
    const char *compare_file;        /* --compare: the second map */
    unsigned overlays;               /* --overlay: VIEW_REGION_BIT()s */
    bool overlay_entities, overlay_leak;  /* --overlay entities / leak (map_markers.h) */
    bool no_models;                  /* --no-models: the entities' models not read (docs/models.md) */
    const char *fgds[VIEW_MAX_FGDS]; /* --fgd: entity definitions */
    int fgd_count;
    view_regions *regions;           /* opened for --overlay, with the hud that draws them */
    hud *overlay_hud;
    int width, height;
    shot_camera camera;
    bool has_camera;                 /* --camera given; else the level's default camera */
    float fov;
    uint32_t level;
    scene_settings settings;
    int radius, msaa, frames;
    bool stats;
    struct { uint32_t id; bool on; } lights[256];
    int light_count;
    struct { uint32_t id; uint8_t intensity; } fasts[256];
    int fast_count;
    const char *solo[64], *mute[64]; /* light tools: --solo / --mute arguments (light_select.h) */
    int solo_count, mute_count;
    bool gizmos;                     /* light gizmos over the picture, every light labelled */
    int inspect[2];                  /* --inspect X,Y: the surface inspector's JSON; x < 0 = none */
    unsigned pm4_layers;             /* PM4_LAYER_* */
    double started;                  /* cmd_shot entry, before the GL context */
    double first_frame;              /* seconds from started to the first complete frame; <0 = none yet */
} shot_options;

static bool parse_u32(const char *s, uint32_t max, uint32_t *out)
{
    unsigned long long v;
    if (!cli_parse_unsigned(s, max, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

/* "X,Y,Z,YAW,PITCH" and nothing else */
static bool parse_camera(const char *s, shot_camera *cam)
{
    const char *end = camera_parse_pose(s, cam->pose.pos, &cam->pose.yaw, &cam->pose.pitch);
    return end && !*end;
}

#define OVERLAY_KINDS "weather, gravity, sound, sky, load, path, entities, leak, all"

enum {
    OPT_SIZE = 256, OPT_CAMERA, OPT_FOV, OPT_LEVEL, OPT_MODE, OPT_EXPOSURE, OPT_TIME, OPT_LIGHT, OPT_FAST, OPT_NO_VIS,
    OPT_LAYER, OPT_LUXEL_GRID, OPT_WIREFRAME, OPT_FOG, OPT_RADIUS, OPT_MSAA, OPT_GAME, OPT_FGD, OPT_CAMERAS, OPT_FRAMES, OPT_PATH,
    OPT_STATS, OPT_MEMORY, OPT_GL_DEBUG,
    OPT_COMPARE, OPT_OVERLAY,
    OPT_SOLO, OPT_MUTE, OPT_GIZMOS, OPT_INSPECT, OPT_LOOK, OPT_NO_MODELS,
};

static const cli_option shot_options_table[] = {
    { "output", 'o', 0, CLI_TEXT, "OUT", NULL, 0, 0, 0,
      "output PNG; with --cameras a pattern (%s = name, %d or %03d = index from 0) or a directory (OUT/NAME.png, else OUT/NNN.png)", NULL },
    VIEW_OPTION_SIZE(OPT_SIZE, "image size"),
    VIEW_OPTION_CAMERA(OPT_CAMERA),
    VIEW_OPTION_FOV(OPT_FOV),
    VIEW_OPTION_LEVEL(OPT_LEVEL),
    { "mode", 0, OPT_MODE, CLI_TEXT, "MODE", NULL, 0, 0, 0, "full | lightmap | fullbright | density", "full" },
    { "exposure", 0, OPT_EXPOSURE, CLI_NUMBER, "E", NULL, 0, 0, CLI_ABOVE_MIN | CLI_NO_MAX,
      "multiplies the result before clamping", "1" },
    { "look", 0, OPT_LOOK, CLI_TEXT, "LOOK", NULL, 0, 0, 0,
      "raw | goldsrc | quake: the display curve on light", "the map's own, from where it was compiled; raw for .pms maps" },
    { "time", 0, OPT_TIME, CLI_NUMBER, "SECONDS", "seconds", 0, 0, CLI_NO_MAX,
      "animation, UV scroll, liquids, clouds and light styles time; without it, styled lights show as baked", "0" },
    { "light", 0, OPT_LIGHT, CLI_TEXT, "ID=on|off", NULL, 0, 0, 0, "dynamic light enable by global ID (repeatable)", NULL },
    { "fast", 0, OPT_FAST, CLI_TEXT, "ID=0..255", NULL, 0, 0, 0, "fast light intensity by global ID (repeatable)", NULL },
    { "no-vis", 0, OPT_NO_VIS, CLI_FLAG, NULL, NULL, 0, 0, 0, "ignore visibility data (frustum culling only)", NULL },
    { "layer", 0, OPT_LAYER, CLI_TEXT, "NAME=on|off", NULL, 0, 0, 0, "PM4: draw surfaces, paths, exterior or references",
      "all on" },
    { "luxel-grid", 0, OPT_LUXEL_GRID, CLI_FLAG, NULL, NULL, 0, 0, 0, "draw the lightmap luxel grid over the picture", NULL },
    { "wireframe", 0, OPT_WIREFRAME, CLI_FLAG, NULL, NULL, 0, 0, 0, "draw the triangles' edges in white over the picture",
      NULL },
    { "fog", 0, OPT_FOG, CLI_FLAG, NULL, NULL, 0, 0, 0, "distance fog, full at the streaming radius (as in the window)",
      NULL },
    VIEW_OPTION_RADIUS(OPT_RADIUS),
    { "msaa", 0, OPT_MSAA, CLI_COUNT, "N", "a sample count", 0, 64, 0, "multisample anti-aliasing with N samples", "0" },
    VIEW_OPTION_GAME(OPT_GAME),
    VIEW_OPTION_FGD(OPT_FGD),
    VIEW_OPTION_NO_MODELS(OPT_NO_MODELS),
    { "cameras", 0, OPT_CAMERAS, CLI_TEXT, "FILE", NULL, 0, 0, 0, "one camera per line: X,Y,Z,YAW,PITCH [name]; one PNG each",
      NULL },
    { "frames", 0, OPT_FRAMES, CLI_COUNT, "N", "a count", 1, 1000000, 0, "render N frames and report the average frame time",
      NULL },
    { "path", 0, OPT_PATH, CLI_TEXT, "FILE", NULL, 0, 0, 0,
      "with --frames: cameras (as --cameras) interpolated over the frames; the PNG is the path's end", NULL },
    { "stats", 0, OPT_STATS, CLI_FLAG, NULL, NULL, 0, 0, 0, "print chunk, triangle, draw-call and timing figures to stderr",
      NULL },
    { "overlay", 0, OPT_OVERLAY, CLI_TEXT, "KINDS", NULL, 0, 0, 0,
      "overlays, comma-separated: regions (weather, gravity, sound, sky, load, path: pathfinding data), entities (a box per point entity, labelled), leak (the way the void reaches in), or all", NULL },
    { "compare", 0, OPT_COMPARE, CLI_TEXT, "B", NULL, 0, 0, 0,
      "render FILE and map B with the same camera and write where they differ (signed colour scale); changed-pixel figures on stdout", NULL },
    CLI_OPTION_MEMORY(OPT_MEMORY),
    VIEW_OPTION_GL_DEBUG(OPT_GL_DEBUG),
    { "solo", 0, OPT_SOLO, CLI_TEXT, "ID|#N|NAME", NULL, 0, 0, 0,
      "only this light lights the world (repeatable; static lights by their direct term, shadowed by the loaded geometry)", NULL },
    { "mute", 0, OPT_MUTE, CLI_TEXT, "ID|#N|NAME", NULL, 0, 0, 0, "take this light out of the picture (repeatable)", NULL },
    { "inspect", 0, OPT_INSPECT, CLI_TEXT, "X,Y", NULL, 0, 0, 0,
      "print the surface under pixel X,Y (from the top-left) as JSON on stdout: material, lightmap, luxel, lights (-o optional then)", NULL },
    { "gizmos", 0, OPT_GIZMOS, CLI_FLAG, NULL, NULL, 0, 0, 0,
      "draw every light (pmfview.lights) as an icon in its colour with its reach and name (frames up to 4096x4096)", NULL },
    CLI_OPTION_HELP,
    { 0 },
};

static const cli_desc shot_cli = { .program = "pmfview", .command = "shot", .usage = shot_usage, .options = shot_options_table };

static int usage_error(const char *fmt, const char *arg)
{
    return cli_usage_error("pmfview", "shot", fmt, arg);
}

/* The usage error of option id's value; want NULL: what the table says it takes. */
static int bad_value(int id, const char *want, const char *value)
{
    return cli_bad_value(&shot_cli, cli_find(shot_options_table, id), want, value);
}

/* --overlay KIND[,KIND...]: region kinds, entities, leak or all. */
static int overlay_option(shot_options *o, int id, const char *v)
{
    char buf[128];
    if (strlen(v) >= sizeof buf)
        return bad_value(id, "kinds among " OVERLAY_KINDS, v);
    strcpy(buf, v);
    for (char *save = NULL, *kind = strtok_r(buf, ",", &save); kind; kind = strtok_r(NULL, ",", &save)) {
        bool all = !strcmp(kind, "all");
        if (all || !strcmp(kind, "entities"))
            o->overlay_entities = true;
        if (all || !strcmp(kind, "leak"))
            o->overlay_leak = true;
        unsigned bit = all ? VIEW_REGION_BIT(VIEW_REGION_KIND_COUNT) - 1 : view_region_kind_parse(kind);
        if (!bit && strcmp(kind, "entities") && strcmp(kind, "leak"))
            return bad_value(id, "kinds among " OVERLAY_KINDS, v);
        o->overlays |= bit;
    }
    if (!o->overlays && !o->overlay_entities && !o->overlay_leak)
        return bad_value(id, "kinds among " OVERLAY_KINDS, v);
    return 0;
}

/* --light ID=on|off, --fast ID=0..255: one light's setting. */
static int light_option(shot_options *o, int id, const char *v)
{
    char buf[64];
    char *eq = strlen(v) < sizeof buf ? strchr(strcpy(buf, v), '=') : NULL;
    uint32_t light, value = 0;
    bool fast = id == OPT_FAST;
    if (eq)
        *eq = 0;
    bool ok = eq && parse_u32(buf, UINT32_MAX, &light);
    if (ok && fast)
        ok = parse_u32(eq + 1, 255, &value);
    else if (ok)
        ok = !strcmp(eq + 1, "on") || !strcmp(eq + 1, "off");
    if (!ok)
        return bad_value(id, fast ? "ID=0..255" : "ID=on|off", v);
    if ((fast ? o->fast_count : o->light_count) >= 256)
        return usage_error("too many %s options", fast ? "--fast" : "--light");
    if (fast) {
        o->fasts[o->fast_count].id = light;
        o->fasts[o->fast_count++].intensity = (uint8_t)value;
    } else {
        o->lights[o->light_count].id = light;
        o->lights[o->light_count++].on = !strcmp(eq + 1, "on");
    }
    return 0;
}

/* One option or operand of the command line (cli_desc.handle); numbers come checked. */
static int shot_option(void *user, int id, const cli_value *value)
{
    shot_options *o = user;
    const char *v = value->text;
    switch (id) {
    case CLI_OPERAND:
        if (o->file)
            return usage_error("more than one FILE: '%s'", v);
        o->file = v;
        return 0;
    case 'o': o->output = v; return 0;
    case OPT_NO_VIS: o->settings.vis = SCENE_VIS_OFF; return 0;
    case OPT_STATS: o->stats = true; return 0;
    case OPT_GIZMOS: o->gizmos = true; return 0;
    case OPT_INSPECT: {
        uint32_t x, y;
        char buf[32];
        char *comma = strlen(v) < sizeof buf ? strchr(strcpy(buf, v), ',') : NULL;
        if (!comma || (*comma = 0, !parse_u32(buf, VIEW_MAX_SIZE - 1, &x)) || !parse_u32(comma + 1, VIEW_MAX_SIZE - 1, &y))
            return bad_value(id, "a pixel X,Y (from the top-left)", v);
        o->inspect[0] = (int)x;
        o->inspect[1] = (int)y;
        return 0;
    }
    case OPT_LUXEL_GRID: o->settings.luxel_grid = true; return 0;
    case OPT_WIREFRAME: o->settings.wireframe = true; return 0;
    case OPT_FOG: o->settings.fog = true; return 0;
    case OPT_GL_DEBUG: render_set_gl_debug(RENDER_GL_DEBUG_REPORT); return 0;
    case OPT_GAME: o->game_dir = v; return 0;
    case OPT_FGD:
        if (o->fgd_count == VIEW_MAX_FGDS)
            return bad_value(id, "at most " PMF_STRINGIFY(VIEW_MAX_FGDS) " FGD files", v);
        o->fgds[o->fgd_count++] = v;
        return 0;
    case OPT_NO_MODELS: o->no_models = true; return 0;
    case OPT_CAMERAS: o->cameras_file = v; return 0;
    case OPT_PATH: o->path_file = v; return 0;
    case OPT_COMPARE: o->compare_file = v; return 0;
    case OPT_OVERLAY: return overlay_option(o, id, v);
    case OPT_SIZE:
        o->width = (int)value->count;
        o->height = (int)value->count2;
        return 0;
    case OPT_CAMERA:
        if (!parse_camera(v, &o->camera))
            return bad_value(id, "X,Y,Z,YAW,PITCH", v);
        o->has_camera = true;
        return 0;
    case OPT_FOV: o->fov = (float)value->number; return 0;
    case OPT_LEVEL: o->level = (uint32_t)value->count; return 0;
    case OPT_MODE:
        if (!render_mode_parse(v, &o->settings.mode)) {
            char choices[128];
            render_mode_choices(choices, sizeof choices);
            return bad_value(id, choices, v);
        }
        return 0;
    case OPT_LOOK:
        if (!strcmp(v, "raw"))
            o->settings.look = SCENE_LOOK_RAW;
        else if (!strcmp(v, "goldsrc"))
            o->settings.look = SCENE_LOOK_GOLDSRC;
        else if (!strcmp(v, "quake"))
            o->settings.look = SCENE_LOOK_QUAKE;
        else
            return bad_value(id, "raw, goldsrc or quake", v);
        return 0;
    case OPT_EXPOSURE: o->settings.exposure = (float)value->number; return 0;
    case OPT_TIME:
        o->settings.time = value->number;
        o->settings.light_styles = true;
        return 0;
    case OPT_LIGHT:
    case OPT_FAST: return light_option(o, id, v);
    case OPT_SOLO:
    case OPT_MUTE: {
        bool solo = id == OPT_SOLO;
        if (!*v)
            return bad_value(id, "ID, #N or NAME", v);
        if ((solo ? o->solo_count : o->mute_count) >= 64)
            return usage_error("too many %s options", solo ? "--solo" : "--mute");
        if (solo)
            o->solo[o->solo_count++] = v;
        else
            o->mute[o->mute_count++] = v;
        return 0;
    }
    case OPT_LAYER: {
        char buf[32];
        char *eq = strlen(v) < sizeof buf ? strchr(strcpy(buf, v), '=') : NULL;
        unsigned layer = eq ? (*eq = 0, formats_layer_parse(buf)) : 0;
        if (!layer || (strcmp(eq + 1, "on") && strcmp(eq + 1, "off")))
            return bad_value(id, "surfaces|paths|exterior|references=on|off", v);
        o->pm4_layers = !strcmp(eq + 1, "on") ? o->pm4_layers | layer : o->pm4_layers & ~layer;
        return 0;
    }
    case OPT_RADIUS: o->radius = (int)value->count; return 0;
    case OPT_MEMORY: memory_option_apply(value->count); return 0;
    case OPT_MSAA: o->msaa = (int)value->count; return 0;
    case OPT_FRAMES: o->frames = (int)value->count; return 0;
    }
    return 0; /* getopt_long hands over only the ids of the table */
}

/* 0, CLI_DONE (help printed) or an exit code. */
static int parse_args(int argc, char **argv, shot_options *o)
{
    memset(o, 0, sizeof *o);
    o->width = PMFVIEW_DEFAULT_WIDTH;
    o->height = PMFVIEW_DEFAULT_HEIGHT;
    o->fov = (float)CAMERA_DEFAULT_FOV;
    o->settings.exposure = 1.0f;
    o->pm4_layers = PM4_LAYER_ALL;
    o->inspect[0] = o->inspect[1] = -1;
    cli_desc cli = shot_cli;
    cli.handle = shot_option;
    cli.user = o;
    int rc = cli_parse(&cli, argc, argv);
    if (rc)
        return rc;
    if (!o->file)
        return usage_error("%s", "no FILE given");
    if (!o->output && o->inspect[0] < 0)
        return usage_error("%s", "no output given (-o OUT.png)");
    if (o->inspect[0] >= o->width || o->inspect[1] >= o->height) {
        char px[64];
        snprintf(px, sizeof px, "%d,%d", o->inspect[0], o->inspect[1]);
        return usage_error("--inspect %s lies outside the frame (--size)", px);
    }
    if (o->path_file && !o->frames)
        return usage_error("%s", "--path needs --frames N");
    if (o->compare_file && (o->cameras_file || o->frames))
        return usage_error("%s", "--compare renders one camera: not with --cameras or --frames");
    if (o->gizmos && (o->width > MAX_TILE || o->height > MAX_TILE))
        return usage_error("--gizmos draws frames up to 4096x4096%s", "");
    return 0;
}

/* ---- camera lists --------------------------------------------------------------------------- */

/* Reads "X,Y,Z,YAW,PITCH [name]" lines; '#' starts a comment. Exit code or 0. */
static int read_cameras(const char *path, shot_camera **out, size_t *count)
{
    FILE *f = pmf_os_fopen(path, "r");
    if (!f) {
        fprintf(stderr, "pmfview: %s: %s\n", path, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    shot_camera *list = NULL;
    size_t n = 0, cap = 0;
    char line[1024];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        char *end = p + strlen(p);
        while (end > p && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
            *--end = 0;
        if (!*p)
            continue;
        char *name = p;
        while (*name && *name != ' ' && *name != '\t')
            name++;
        if (*name) {
            *name++ = 0;
            while (*name == ' ' || *name == '\t')
                name++;
        }
        shot_camera cam = { 0 };
        if (!parse_camera(p, &cam) || strlen(name) >= sizeof cam.name || strchr(name, '/')) {
            fprintf(stderr, "pmfview: %s: line %d: expected X,Y,Z,YAW,PITCH [name]\n", path, lineno);
            rc = EXIT_BAD_INPUT;
            break;
        }
        strcpy(cam.name, name);
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            shot_camera *grown = realloc(list, cap * sizeof *grown);
            if (!grown) {
                fprintf(stderr, "pmfview: out of memory\n");
                rc = EXIT_RUNTIME;
                break;
            }
            list = grown;
        }
        list[n++] = cam;
    }
    fclose(f);
    if (!rc && !n) {
        fprintf(stderr, "pmfview: %s: no cameras in the file\n", path);
        rc = EXIT_BAD_INPUT;
    }
    if (rc) {
        free(list);
        return rc;
    }
    *out = list;
    *count = n;
    return 0;
}

/* -o names a directory: an existing one, or any path ending in '/' (made when missing). */
static bool output_is_dir(const char *out)
{
    pmf_os_file_info st;
    size_t len = strlen(out);
    return (len && strchr(pmf_os_separators, out[len - 1])) || (!strchr(out, '%') && pmf_os_stat(out, &st) == 0 && st.directory);
}

/* The output path of camera `index` for a pattern (%s name, %d / %0Nd index) or a directory. */
static bool output_path(const char *out, const shot_camera *cam, size_t index, char *buf, size_t size)
{
    char idx[32], name[160];
    snprintf(idx, sizeof idx, "%03zu", index);
    snprintf(name, sizeof name, "%s", cam->name[0] ? cam->name : idx);
    if (output_is_dir(out)) {
        size_t len = strlen(out);
        return snprintf(buf, size, "%s%s%s.png", out, strchr(pmf_os_separators, out[len - 1]) ? "" : "/", name) < (int)size;
    }
    /* Conversions: %s, %d or %0Nd, each as often as wanted; "%%" is a literal percent. */
    size_t o = 0;
    bool used = false;
    for (const char *p = out; *p; p++) {
        char piece[256];
        if (*p != '%') {
            piece[0] = *p;
            piece[1] = 0;
        } else if (p[1] == '%') {
            strcpy(piece, "%");
            p++;
        } else if (p[1] == 's') {
            snprintf(piece, sizeof piece, "%s", name);
            p++;
            used = true;
        } else {
            int width = 0;
            const char *q = p + 1;
            if (*q == '0')
                q++;
            while (*q >= '0' && *q <= '9' && width < 20)
                width = width * 10 + (*q++ - '0');
            if (*q != 'd')
                return false;
            snprintf(piece, sizeof piece, "%0*zu", width, index);
            p = q;
            used = true;
        }
        size_t len = strlen(piece);
        if (o + len >= size)
            return false;
        memcpy(buf + o, piece, len);
        o += len;
    }
    buf[o] = 0;
    return used;
}

/* ---- output ---------------------------------------------------------------------------------- */

/* Makes the directories path's file goes in (mkdir -p of its parent). */
static bool make_parents(const char *path)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return false;
    char *base = (char *)pmf_os_base_name(dir);
    if (base <= dir + 1)
        return true;
    base[-1] = 0;
    for (char *p = dir + 1;; p++) {
        if (*p && (!strchr(pmf_os_separators, *p) || p[-1] == ':'))
            continue;
        char c = *p;
        *p = 0;
        pmf_os_file_info st;
        bool exists = pmf_os_stat(dir, &st) == 0;
        if ((exists && !st.directory) || (!exists && pmf_os_mkdir(dir, 0777) != 0 && errno != EEXIST)) {
            fprintf(stderr, "pmfview: shot: cannot create directory '%s': %s\n", dir, strerror(exists ? ENOTDIR : errno));
            return false;
        }
        if (!c)
            return true;
        *p = c;
    }
}

/* The PNG written atomically (res/png_write.h). */
static bool write_png(const char *path, int w, int h, const uint8_t *rgba)
{
    char why[300];
    if (png_write_rgba(path, (uint32_t)w, (uint32_t)h, rgba, why, sizeof why))
        return true;
    char shown[1024];
    fprintf(stderr, "pmfview: %s: %s\n", text_clean(path, shown, sizeof shown), why);
    return false;
}

/* ---- rendering ------------------------------------------------------------------------------- */

typedef struct shot_frame {
    render_target target;
    int tile;                        /* tile side; the whole image when it fits */
    uint8_t *image, *tile_pixels;
    hud *overlay_hud;                /* --overlay: region volumes over one-tile images */
    view_regions *regions;
    /* drawn over an untiled frame before it is read (the light gizmos); NULL = none */
    void (*overlay)(void *user, scene *s, int w, int h);
    void *overlay_user;
} shot_frame;

static bool frame_create(shot_frame *fr, const shot_options *o)
{
    int w = o->width, h = o->height, msaa = o->msaa;
    const render_caps *caps = render_get_caps();
    int limit = caps->max_renderbuffer_size < MAX_TILE ? caps->max_renderbuffer_size : MAX_TILE;
    if (caps->max_viewport[0] < limit)
        limit = caps->max_viewport[0];
    if (caps->max_viewport[1] < limit)
        limit = caps->max_viewport[1];
    /* PMFVIEW_SHOT_TILE=N draws in tiles of at most N pixels (to test tiling at small sizes). */
    const char *tile_env = getenv("PMFVIEW_SHOT_TILE");
    if (tile_env && atoi(tile_env) > 0 && atoi(tile_env) < limit)
        limit = atoi(tile_env);
    /* even, so tiles keep the frame's 2x2 pixel quads (texture derivatives) */
    if (limit > 1)
        limit &= ~1;
    fr->tile = w <= limit && h <= limit ? 0 : limit;
    if (o->regions && fr->tile)
        fprintf(stderr, "pmfview: shot: warning: --overlay is drawn only on images of one tile (at most %d pixels a side)\n", limit);
    else if (o->regions) {
        fr->regions = o->regions;
        fr->overlay_hud = o->overlay_hud;
    }
    int tw = fr->tile ? fr->tile : w, th = fr->tile ? fr->tile : h;
    char err[256];
    if (!render_target_create(tw, th, msaa, &fr->target, err, sizeof err)) {
        fprintf(stderr, "pmfview: %s\n", err);
        return false;
    }
    fr->image = malloc((size_t)w * h * 4);
    fr->tile_pixels = fr->tile ? malloc((size_t)tw * th * 4) : NULL;
    if (!fr->image || (fr->tile && !fr->tile_pixels)) {
        fprintf(stderr, "pmfview: out of memory for a %dx%d image\n", w, h);
        return false;
    }
    return true;
}

static void frame_destroy(shot_frame *fr)
{
    render_target_destroy(&fr->target);
    free(fr->image);
    free(fr->tile_pixels);
}

/* Draws the whole image (in tiles when it exceeds the GL limits) and reads it back, top row first. */
static void frame_render(shot_frame *fr, scene *s, int w, int h)
{
    if (!fr->tile) {
        render_target_bind(&fr->target);
        scene_draw(s, &(scene_viewport){ .width = w, .height = h });
        if (fr->regions)
            region_overlay_draw(fr->overlay_hud, fr->regions, s, w, h);
        if (fr->overlay)
            fr->overlay(fr->overlay_user, s, w, h);
        render_target_read(&fr->target, fr->image);
        return;
    }
    int t = fr->tile;
    for (int y = 0; y < h; y += t) {
        for (int x = 0; x < w; x += t) {
            int tw = w - x < t ? w - x : t, th = h - y < t ? h - y : t;
            render_target_bind(&fr->target);
            scene_draw(s, &(scene_viewport){ .width = w, .height = h, .tile_x = x, .tile_y = y, .tile_w = tw, .tile_h = th });
            render_target_read(&fr->target, fr->tile_pixels);
            /* The tile's rows come top first within the target; GL tile y counts from the bottom. */
            for (int row = 0; row < th; row++) {
                int src_row = fr->target.height - th + row;
                int dst_row = h - (y + th) + row;
                memcpy(fr->image + ((size_t)dst_row * w + x) * 4, fr->tile_pixels + (size_t)src_row * t * 4, (size_t)tw * 4);
            }
        }
    }
}

static void set_camera(scene *s, const shot_options *o, const camera_pose *pose)
{
    camera cam;
    scene_default_camera(s, &cam);
    cam.fov_y = o->fov;
    cam.aspect = (float)o->width / (float)o->height;
    camera_set_world(&cam, pose->pos, pose->yaw, pose->pitch);
    scene_set_camera(s, &cam);
}

static void print_stats(scene *s, const shot_options *o, const char *egl_platform)
{
    scene_stats st;
    scene_get_stats(s, &st);
    const render_caps *caps = render_get_caps();
    fprintf(stderr,
            "chunks loaded: %u (present %u, streaming %u, failed %u)\n"
            "visible chunks: %u\n"
            "triangles: %llu\n"
            "draw calls: %u\n"
            "world draw calls: %u\n"
            "visible materials: %u\n"
            "shader variants: %u\n"
            "blend splits: %u\n"
            "state splits: %u\n"
            "time to first complete frame: %.3f s\n"
            "process time to first complete frame: %.3f s\n"
            "decode time: %.3f s (CPU, summed over stream workers)\n"
            "mesh time: %.3f s (CPU, summed over stream workers)\n"
            "upload time: %.3f s\n"
            "gpu memory: %.1f MiB\n"
            "gpu bytes per vertex: %.2f\n"
            "gpu buffer copies: %u\n"
            "draw path: %s (OpenGL %d.%d, %s)\n",
            st.chunks_loaded, st.chunks_present, st.chunks_streaming, st.chunks_failed, st.visible_chunks,
            (unsigned long long)st.triangles, st.draw_calls, st.world_draw_calls, st.visible_materials,
            st.shader_variants, st.blend_splits, st.state_splits,
            st.first_complete_seconds, o->first_frame, st.decode_seconds, st.mesh_seconds, st.upload_seconds,
            st.gpu_bytes / 1048576.0, st.chunk_vertices ? (double)st.chunk_buffer_bytes / (double)st.chunk_vertices : 0.0,
            st.buffer_copies,
            st.multi_draw_indirect ? "glMultiDrawElementsIndirect" : "glDrawElementsBaseVertex",
            caps->gl_major, caps->gl_minor, caps->renderer);
    fprintf(stderr, "egl platform: %s\n", egl_platform);
    const scene_map_info *mi = scene_map_infos(s);
    fprintf(stderr, "look: %s%s\n", pmf_look_name((unsigned)scene_look_drawn(s)),
            mi->source.flags & PMF_SOURCE_FULLBRIGHT ? " (no lights: fullbright)" : "");
    if (st.gl_verify)
        fprintf(stderr, "gl verify: %llu uploads\n", (unsigned long long)st.gl_verified);
}

/* Of sorted values. */
static double median(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) * 0.5;
}

/* --light / --fast naming an ID the level has no light of that kind for: a warning naming the
 * IDs it has (the option is still applied, in case chunks add such a light later). */
static void warn_unknown_lights(const shot_options *o, const char *pmf_path)
{
    if (!o->light_count && !o->fast_count)
        return;
    light_ids ids;
    if (!light_ids_read(pmf_path, o->level, &ids))
        return;
    char dyn[256], fast[256];
    light_ids_format(ids.dynamic, ids.dynamic_count, dyn, sizeof dyn);
    light_ids_format(ids.fast, ids.fast_count, fast, sizeof fast);
    for (int i = 0; i < o->light_count; i++)
        if (!light_ids_has(ids.dynamic, ids.dynamic_count, o->lights[i].id))
            fprintf(stderr, "pmfview: shot: warning: --light %u: level %u has no dynamic light %u (dynamic lights: %s; fast lights: %s)\n",
                    o->lights[i].id, o->level, o->lights[i].id, dyn, fast);
    for (int i = 0; i < o->fast_count; i++)
        if (!light_ids_has(ids.fast, ids.fast_count, o->fasts[i].id))
            fprintf(stderr, "pmfview: shot: warning: --fast %u: level %u has no fast light %u (fast lights: %s; dynamic lights: %s)\n",
                    o->fasts[i].id, o->level, o->fasts[i].id, fast, dyn);
    light_ids_free(&ids);
}

/* --solo / --mute: resolved against the level's lights once the map is open. Exit code. */
static int apply_light_filter(scene *s, const shot_options *o, const char *pmf_path)
{
    if (!o->solo_count && !o->mute_count)
        return 0;
    if (o->solo_count && o->mute_count)
        return usage_error("--solo and --mute do not go together%s", "");
    light_ids ids = { 0 };
    if (!light_ids_read(pmf_path, o->level, &ids))
        memset(&ids, 0, sizeof ids);
    light_selection sel = { 0 };
    int n = o->solo_count ? o->solo_count : o->mute_count;
    const char *const *specs = o->solo_count ? o->solo : o->mute;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        char err[512];
        if (!light_select_add(&sel, specs[i], scene_light_infos(s), o->level, &ids, err, sizeof err)) {
            char line[600];
            snprintf(line, sizeof line, "%s %s: %s", o->solo_count ? "--solo" : "--mute", specs[i], err);
            rc = usage_error("%s", line);
        }
    }
    if (!rc && !scene_set_light_filter(s, o->solo_count > 0, sel.refs, sel.count)) {
        fprintf(stderr, "pmfview: out of memory\n");
        rc = EXIT_RUNTIME;
    }
    light_select_free(&sel);
    light_ids_free(&ids);
    return rc;
}

/* Waits until every chunk in view has streamed in. Exit code. */
static int wait_view(scene *s, const shot_options *o)
{
    if (!scene_wait_view(s, WAIT_SECONDS)) {
        fprintf(stderr, "pmfview: %s: chunks in view did not stream in within %.0f s\n", o->file, WAIT_SECONDS);
        return EXIT_RUNTIME;
    }
    if (scene_failure(s)) {
        fprintf(stderr, "pmfview: %s\n", scene_failure(s));
        return EXIT_BAD_INPUT;
    }
    return 0;
}

typedef struct shot_gizmos { hud *hud; const shot_options *o; } shot_gizmos;

/* --gizmos, --overlay entities and leak: drawn over an untiled frame, every label shown. */
static void draw_gizmos(void *user, scene *s, int w, int h)
{
    const shot_gizmos *g = user;
    float view_proj[16];
    scene_view_proj(s, view_proj);
    const overlay_view view = { .view_proj = view_proj, .cam = scene_camera(s), .level = g->o->level, .width = w,
                                .height = h, .hover_x = -1, .hover_y = -1, .label_all = true };
    const uint8_t *missing = scene_models_missing(s);  /* a model that did not open: its marker */
    if (g->o->overlay_entities || g->o->overlay_leak || missing) {
        const scene_map_info *mi = scene_map_infos(s);
        map_markers_draw(g->hud, &(map_markers_desc){ view, .entities = g->o->overlay_entities || missing ? &mi->entities : NULL,
                                                      .only = g->o->overlay_entities ? NULL : missing,
                                                      .leak = g->o->overlay_leak ? &mi->leak : NULL });
    }
    if (g->o->gizmos)
        light_gizmos_draw(g->hud, &(light_gizmos_desc){ view, .lights = scene_light_infos(s) });
}

/* One timed frame of a flight, in seconds: the streaming update, the draw calls issued, the draw
 * to glFinish, and the GPU's own time for the draw (negative when the GL could not tell). */
typedef struct flight_frame {
    int index;
    double update, issued, render, gpu;
} flight_frame;

static int compare_slowest(const void *pa, const void *pb)
{
    const flight_frame *a = pa, *b = pb;
    double ta = a->update + a->render, tb = b->update + b->render;
    return (ta < tb) - (ta > tb);
}

/* --frames N: the camera flown along the path (or held), each frame streamed, drawn and waited
 * for; the figures on stderr (docs/shot.md). Exit code. */
static int fly(scene *s, shot_options *o, shot_frame *fr, const camera_pose *path, size_t path_count)
{
    flight_frame *frames = malloc((size_t)o->frames * sizeof *frames);
    double *totals = malloc((size_t)o->frames * sizeof *totals);
    if (!frames || !totals) {
        free(frames);
        free(totals);
        fprintf(stderr, "pmfview: out of memory\n");
        return EXIT_RUNTIME;
    }
    render_gpu_timer timer = { 0 };
    double last_frame_ms = 0;   /* the first frame uploads as little as one after a fast frame */
    int rc = 0;
    /* Frame -1 is not timed, as bench_draw's first frames are not: the window has drawn many
     * before anyone flies, and a driver does its first-use work at the first draw. */
    for (int i = -1; i < o->frames && !rc; i++) {
        if (path) {
            camera_pose pose = camera_path_pose(path, path_count, i < 0 ? 0 : i, o->frames);
            set_camera(s, o, &pose);
        }
        double t0 = pmf_seconds();
        scene_update(s, scene_upload_budget_ms(last_frame_ms));
        if (scene_failure(s)) { /* e.g. the file shrank while we fly */
            fprintf(stderr, "pmfview: %s\n", scene_failure(s));
            rc = EXIT_BAD_INPUT;
            break;
        }
        double t1 = pmf_seconds();
        render_target_bind(&fr->target);
        render_gpu_timer_begin(&timer);
        scene_draw(s, &(scene_viewport){ .width = fr->target.width, .height = fr->target.height });
        render_gpu_timer_end(&timer);
        double issued = pmf_seconds();
        render_wait_idle();
        double t2 = pmf_seconds();
        if (o->first_frame < 0 && scene_view_complete(s))
            o->first_frame = t2 - o->started;
        last_frame_ms = (t2 - t0) * 1000.0;
        if (i >= 0)
            frames[i] = (flight_frame){ i, t1 - t0, issued - t1, t2 - t1, render_gpu_timer_seconds(&timer) };
    }
    render_gpu_timer_destroy(&timer);
    if (!rc) {
        double total = 0, render = 0, issued = 0, gpu = 0;
        int gpu_frames = 0;
        for (int i = 0; i < o->frames; i++) {
            const flight_frame *f = &frames[i];
            totals[i] = f->update + f->render;
            total += totals[i];
            render += f->render;
            issued += f->issued;
            if (f->gpu >= 0) {
                gpu += f->gpu;
                gpu_frames++;
            }
        }
        fprintf(stderr, "frames: %d, average frame time: %.3f ms (%.1f fps)\n", o->frames,
                total / o->frames * 1000.0, o->frames / (total > 0 ? total : 1e-9));
        fprintf(stderr, "render time: average %.3f ms (draw calls issued in %.3f ms, then glFinish)\n",
                render / o->frames * 1000.0, issued / o->frames * 1000.0);
        if (o->stats && gpu_frames)
            fprintf(stderr, "gpu time: average %.3f ms (the GPU's own, over %d frames)\n", gpu / gpu_frames * 1000.0,
                    gpu_frames);
        order_sort(totals, (size_t)o->frames, sizeof *totals, order_double);
        fprintf(stderr, "frame times: min %.3f ms, median %.3f ms, max %.3f ms\n", totals[0] * 1000.0,
                median(totals, (size_t)o->frames) * 1000.0, totals[o->frames - 1] * 1000.0);
        order_sort(frames, (size_t)o->frames, sizeof *frames, compare_slowest);
        if (o->stats) {
            fprintf(stderr, "longest frame: #%d, update %.3f ms, render %.3f ms\n", frames[0].index,
                    frames[0].update * 1000.0, frames[0].render * 1000.0);
            fputs("slowest frames:", stderr);
            for (int k = 0; k < 3 && k < o->frames; k++) {
                const flight_frame *f = &frames[k];
                fprintf(stderr, "%s #%d %.3f ms (update %.3f, issued %.3f, render %.3f, GPU ", k ? "," : "", f->index,
                        (f->update + f->render) * 1000.0, f->update * 1000.0, f->issued * 1000.0, f->render * 1000.0);
                if (f->gpu >= 0)
                    fprintf(stderr, "%.3f)", f->gpu * 1000.0);
                else
                    fputs("?)", stderr);
            }
            fputc('\n', stderr);
        }
        /* the picture is the last frame (the end of the path), complete: the frames may have
         * flown past what streams in */
        if (path) {
            camera_pose last = camera_path_pose(path, path_count, o->frames - 1, o->frames);
            set_camera(s, o, &last);
        }
        rc = wait_view(s, o);
    }
    free(frames);
    free(totals);
    return rc;
}

/* Renders every camera (or the --frames benchmark) with a ready scene. Exit code. */
static int run(scene *s, shot_options *o, const shot_camera *cams, size_t cam_count, const camera_pose *path,
               size_t path_count)
{
    shot_frame fr = { 0 };
    if (!frame_create(&fr, o)) {
        frame_destroy(&fr);
        return EXIT_RUNTIME;
    }
    shot_gizmos gizmos = { .o = o };
    if (o->gizmos || o->overlay_entities || o->overlay_leak || scene_models_missing(s)) {
        char err[512];
        if (!(gizmos.hud = hud_create(err, sizeof err))) {
            fprintf(stderr, "pmfview: %s\n", err);
            frame_destroy(&fr);
            return EXIT_RUNTIME;
        }
        if (fr.tile && (o->gizmos || o->overlay_entities || o->overlay_leak))
            fprintf(stderr, "pmfview: shot: warning: --gizmos: the frame is drawn in tiles here: no gizmos\n");
        if (o->gizmos && !scene_light_infos(s)->count)
            fprintf(stderr, "pmfview: shot: warning: --gizmos: %s has no pmfview.lights extension: its lights' places (and its static lights) are unknown\n",
                    o->file);
        fr.overlay = draw_gizmos;
        fr.overlay_user = &gizmos;
    }
    int rc = 0;
    for (size_t c = 0; c < cam_count && !rc; c++) {
        set_camera(s, o, &cams[c].pose);
        render_target_bind(&fr.target); /* the scene readies the driver's states for it meanwhile */
        if ((rc = wait_view(s, o)))
            break;
        if (o->frames && (rc = fly(s, o, &fr, path, path_count)))
            break;
        frame_render(&fr, s, o->width, o->height);
        if (o->first_frame < 0)
            o->first_frame = pmf_seconds() - o->started;
        if (o->inspect[0] >= 0) {
            inspect_result ir;
            inspect_pixel(s, o->inspect[0], o->inspect[1], o->width, o->height, &ir);
            char *json = inspect_json(&ir, false);
            if (!json) {
                fprintf(stderr, "pmfview: out of memory\n");
                rc = EXIT_RUNTIME;
                break;
            }
            printf("%s\n", json);
            fflush(stdout);
            free(json);
        }
        if (!o->output)
            continue;
        char out[4096];
        if (cam_count > 1 || o->cameras_file || output_is_dir(o->output)) {
            if (!output_path(o->output, &cams[c], c, out, sizeof out)) {
                fprintf(stderr, "pmfview: shot: with --cameras, -o must hold %%s or %%d, or name a directory\n");
                rc = EXIT_USAGE;
                break;
            }
        } else {
            snprintf(out, sizeof out, "%s", o->output);
        }
        if (!make_parents(out) || !write_png(out, o->width, o->height, fr.image))
            rc = EXIT_RUNTIME;
    }
    const char *warnings[2];
    for (size_t i = 0, n = scene_budget_warnings(s, warnings); i < n; i++)
        fprintf(stderr, "pmfview: warning: %s\n", warnings[i]);
    frame_destroy(&fr);
    hud_destroy(gizmos.hud);
    return rc;
}

/* The level of a map, streaming, with the command line's settings and light states applied.
 * NULL with *err filled. */
static scene *open_scene(const shot_options *o, const char *pmf_path, scene_error *err)
{
    /* A stream worker per core: the main thread mostly waits for the view to stream in. */
    int cores = pmf_cores();
    scene *s = scene_open(&(scene_desc){ .path = pmf_path, .level = o->level, .game_dir = o->game_dir, .fgds = o->fgds,
                                         .fgd_count = (size_t)o->fgd_count, .radius = o->radius,
                                         .no_models = o->no_models, .workers = cores > 1 && cores < 64 ? cores : 0,
                                         .moving_camera = o->path_file != NULL },
                          err);
    if (!s)
        return NULL;
    scene_set_settings(s, &o->settings);
    for (int i = 0; i < o->light_count; i++)
        scene_set_dynamic_light(s, o->lights[i].id, o->lights[i].on);
    for (int i = 0; i < o->fast_count; i++)
        scene_set_fast_light(s, o->fasts[i].id, o->fasts[i].intensity);
    return s;
}

/* --overlay: the regions of the map and the hud that draws them. Exit code. */
static int open_overlays(shot_options *o, const char *pmf_path)
{
    if (!o->overlays)
        return 0;
    char err[512];
    o->regions = malloc(sizeof *o->regions);
    if (!o->regions || !(o->overlay_hud = hud_create(err, sizeof err))) {
        fprintf(stderr, "pmfview: %s\n", o->regions ? err : "out of memory");
        return EXIT_RUNTIME;
    }
    if (!view_regions_open(o->regions, pmf_path, o->level, err, sizeof err)) {
        fprintf(stderr, "pmfview: %s\n", err);
        free(o->regions);
        o->regions = NULL;
        return EXIT_BAD_INPUT;
    }
    o->regions->kinds = o->overlays;
    return 0;
}

/* --compare: FILE's picture (scene a), then B's from the same camera with the same settings, and
 * the signed difference written to -o (image_compare.h); the figures go to stdout. Exit code. */
static int run_compare(scene *a, shot_options *o)
{
    map_source src;
    formats_scene formats = { 0 };
    int rc = map_source_open(&(map_source_desc){ .path = o->compare_file, .game_dir = o->game_dir }, &src);
    if (rc)
        return rc;
    if (map_source_converted(src.id.kind) &&
        (rc = formats_scene_open(o->compare_file, &src, o->pm4_layers, &formats)))
        return rc;
    if (formats.pmf_path[0])
        snprintf(src.pmf_path, sizeof src.pmf_path, "%s", formats.pmf_path);
    size_t pixels = (size_t)o->width * (size_t)o->height;
    uint8_t *first = malloc(pixels * 4), *diff = malloc(pixels * 4);
    shot_frame fr = { 0 };
    scene *b = NULL;
    if (!first || !diff || !frame_create(&fr, o)) {
        if (!first || !diff)
            fprintf(stderr, "pmfview: out of memory for a %dx%d image\n", o->width, o->height);
        rc = EXIT_RUNTIME;
        goto out;
    }
    set_camera(a, o, &o->camera.pose);
    if ((rc = wait_view(a, o)))
        goto out;
    frame_render(&fr, a, o->width, o->height);
    memcpy(first, fr.image, pixels * 4);
    scene_error serr;
    if (!(b = open_scene(o, src.pmf_path, &serr))) {
        fprintf(stderr, "pmfview: %s\n", serr.message);
        rc = serr.exit_code;
        goto out;
    }
    if ((rc = apply_light_filter(b, o, src.pmf_path)))
        goto out;
    set_camera(b, o, &o->camera.pose);
    if ((rc = wait_view(b, o)))
        goto out;
    frame_render(&fr, b, o->width, o->height);
    image_compare_stats st;
    image_compare(first, fr.image, pixels, diff, &st);
    if (!write_png(o->output, o->width, o->height, diff)) {
        rc = EXIT_RUNTIME;
        goto out;
    }
    char line[256];
    image_compare_format(&st, line, sizeof line);
    printf("%s\n", line);
    fflush(stdout);
out:
    if (b)
        scene_close(b);
    frame_destroy(&fr);
    free(first);
    free(diff);
    formats_scene_close(&formats);
    return rc;
}

int cmd_shot(int argc, char **argv)
{
    double started = pmf_seconds();
    atomic_file_remove_on_signals(); /* a killed shot leaves no temporary PNG behind */
    shot_options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc == CLI_DONE ? 0 : rc;
    map_source src;
    if ((rc = map_source_open(&(map_source_desc){ .path = o.file, .game_dir = o.game_dir }, &src)))
        return rc;
    formats_scene formats = { 0 };
    o.started = started;
    o.first_frame = -1;
    shot_camera *cams = NULL, *path_cams = NULL;
    camera_pose *path = NULL;
    size_t cam_count = 1, path_count = 0;
    if (o.cameras_file && (rc = read_cameras(o.cameras_file, &cams, &cam_count)))
        return rc;
    if (o.path_file && (rc = read_cameras(o.path_file, &path_cams, &path_count))) {
        free(cams);
        return rc;
    }
    if (path_cams) {
        path = malloc(path_count * sizeof *path);
        for (size_t i = 0; path && i < path_count; i++)
            path[i] = path_cams[i].pose;
        free(path_cams);
        if (!path) {
            fprintf(stderr, "pmfview: out of memory\n");
            free(cams);
            return EXIT_RUNTIME;
        }
    }
    if (!cams)
        cams = &o.camera;
    /* the first output's directory exists before anything is rendered */
    char first_out[4096];
    if (!o.output) {
        first_out[0] = '\0';
    } else if (o.cameras_file || output_is_dir(o.output)) {
        if (!output_path(o.output, &cams[0], 0, first_out, sizeof first_out)) {
            rc = usage_error("with --cameras, -o must hold %%s or %%d, or name a directory: '%s'", o.output);
            goto done;
        }
    } else {
        snprintf(first_out, sizeof first_out, "%s", o.output);
    }
    if (first_out[0] && !make_parents(first_out)) {
        rc = EXIT_RUNTIME;
        goto done;
    }

    /* the legacy draft and PM4 are drawn through a PMF written for them (formats_scene.h) */
    if (map_source_converted(src.id.kind)) {
        if ((rc = formats_scene_open(o.file, &src, o.pm4_layers, &formats)))
            goto done;
        snprintf(src.pmf_path, sizeof src.pmf_path, "%s", formats.pmf_path);
    }
    char err[512];
    render_headless *ctx = render_headless_create(err, sizeof err);
    if (!ctx) {
        fprintf(stderr, "pmfview: %s\n", err);
        rc = EXIT_RUNTIME;
        goto done;
    }
    scene_error serr;
    scene *s = open_scene(&o, src.pmf_path, &serr);
    if (!s) {
        fprintf(stderr, "pmfview: %s\n", serr.message);
        rc = serr.exit_code;
    } else {
        if (cams == &o.camera && !o.has_camera) {
            camera start;
            scene_default_camera(s, &start);
            camera_get_world(&start, o.camera.pose.pos);
            o.camera.pose.yaw = start.yaw;
            o.camera.pose.pitch = start.pitch;
        }
        warn_unknown_lights(&o, src.pmf_path);
        rc = apply_light_filter(s, &o, src.pmf_path);
        if (!rc)
            rc = open_overlays(&o, src.pmf_path);
        if (!rc)
            rc = o.compare_file ? run_compare(s, &o) : run(s, &o, cams, cam_count, path, path_count);
        if (o.stats && !rc)
            print_stats(s, &o, render_headless_platform(ctx));
        scene_close(s);
    }
    if (o.regions && o.regions->lf.error[0])
        fprintf(stderr, "pmfview: shot: warning: --overlay: %s\n", o.regions->lf.error);
    if (o.regions)
        view_regions_close(o.regions);
    free(o.regions);
    hud_destroy(o.overlay_hud);
    render_headless_destroy(ctx);
done:
    if (cams != &o.camera)
        free(cams);
    free(path);
    formats_scene_close(&formats);
    return rc;
}
