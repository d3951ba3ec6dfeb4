/* cmd_view.c - `pmfview [FILE] [options]`: the command line of the interactive viewer. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memory_option.h"
#include "commands.h"
#include "pmf/pmf.h"
#include "view.h"
#include "view_bookmarks.h"
#include "camera.h"
#include "map_source.h"
#include "formats_scene.h"
#include "pm4_world.h"
#include "pmf_os.h"
#include "render.h"
#include "sdl_api.h"
#include "view_options.h"

static const char view_usage[] =
    "usage: pmfview [FILE] [options]                 fly through a map in a window\n"
    "       pmfview info FILE [--json] [--memory MIB]\n"
    "       pmfview shot FILE -o OUT.png [options]\n"
    "       pmfview --help | --version\n"
    "\n"
    "Window options (FILE defaults to the bundled feature demo map):\n";

static const char view_footer[] =
    "FILE may be a PMF map, or an RMF, .map or BSP (compiled into the cache, $XDG_CACHE_HOME/pmfview,\n"
    "on a thread; $PMFVIEW_PMFC names a pmfc to run as a separate process instead, crash-safe).\n"
    "In the window, F1 lists every key; docs/viewer.md has them all.\n"
    "\n"
    "Run 'pmfview info --help' or 'pmfview shot --help' for their options.\n";

enum { OPT_NO_VSYNC = 256, OPT_GL_DEBUG, OPT_LEVEL, OPT_CAMERA, OPT_FOV, OPT_RADIUS, OPT_MEMORY, OPT_SHOTS, OPT_GAME, OPT_FGD, OPT_SIZE,
       OPT_NO_MODELS };

static const cli_option view_options[] = {
    CLI_OPTION_HELP,
    VIEW_OPTION_LEVEL(OPT_LEVEL),
    VIEW_OPTION_CAMERA(OPT_CAMERA),
    VIEW_OPTION_FOV(OPT_FOV),
    VIEW_OPTION_RADIUS(OPT_RADIUS),
    VIEW_OPTION_SIZE(OPT_SIZE, "window size"),
    { "no-vsync", 0, OPT_NO_VSYNC, CLI_FLAG, NULL, NULL, 0, 0, 0, "do not wait for the display's refresh", NULL },
    VIEW_OPTION_GL_DEBUG(OPT_GL_DEBUG),
    { "shots", 0, OPT_SHOTS, CLI_TEXT, "DIR", NULL, 0, 0, 0, "where F12 screenshots go", "the current directory" },
    VIEW_OPTION_GAME(OPT_GAME),
    VIEW_OPTION_FGD(OPT_FGD),
    VIEW_OPTION_NO_MODELS(OPT_NO_MODELS),
    CLI_OPTION_MEMORY(OPT_MEMORY),
    { 0 },
};

static const cli_desc view_cli = { .program = "pmfview", .usage = view_usage, .footer = view_footer, .options = view_options };

void print_usage(FILE *out)
{
    cli_print_help(&view_cli, out);
}

/* Checks the map opens (header, Data, chunk index) and has the level: exit 2 otherwise, with
 * the same words as `pmfview shot`. An RMF is compiled (or found in the cache) into src; a legacy
 * draft or PM4 file is read and written as the PMF the window opens (formats). */
static int check_map(const view_desc *desc, map_source *src, formats_scene *formats)
{
    const char *path = desc->path;
    uint32_t level = desc->level;
    int rc = map_source_open(&(map_source_desc){ .path = path, .game_dir = desc->game_dir }, src);
    if (rc)
        return rc;
    if (map_source_converted(src->id.kind)) {
        if ((rc = formats_scene_open(path, src, PM4_LAYER_ALL, formats)))
            return rc;
        snprintf(src->pmf_path, sizeof src->pmf_path, "%s", formats->pmf_path);
    }
    pmf_error err;
    pmf_file *f = pmf_open(src->pmf_path, &err);
    if (!f) {
        char line[1024];
        fprintf(stderr, "pmfview: %s\n", pmf_error_format(&err, line, sizeof line));
        return EXIT_BAD_INPUT;
    }
    uint32_t levels = f->level_count;
    pmf_close(f);
    if (level >= levels) {
        fprintf(stderr, "pmfview: %s: level %u does not exist (the file has %u)\n", path, level, levels);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* The bundled feature demo: where the build put it, else in assets/ beside the program (an
 * unpacked release, such as the Windows zip). */
static const char *find_default_map(char *buf, size_t size)
{
    pmf_os_file_info st;
    char self[4096];
    if (pmf_os_stat(PMFVIEW_DEFAULT_MAP, &st) == 0 || !pmf_os_self_path(self, sizeof self))
        return PMFVIEW_DEFAULT_MAP;
    snprintf(buf, size, "%.*sassets/feature_demo.pmf", (int)(pmf_os_base_name(self) - self), self);
    return buf;
}

#define NO_DISPLAY "pmfview: no display; use 'pmfview shot FILE -o OUT.png' to render without a window\n"

/* Whether a window can open; false with a line on stderr when not. */
static bool have_display(void)
{
    const char *driver_hint;
    char err[300];
    if (!pmf_os_window_system(&driver_hint)) {
        fputs(NO_DISPLAY, stderr);
        return false;
    }
    if (!sdl_api_load(err, sizeof err)) {
        fprintf(stderr, "pmfview: no window: %s; 'pmfview shot FILE -o OUT.png' renders without one\n", err);
        return false;
    }
    if (driver_hint)
        SDL_SetHint(SDL_HINT_VIDEODRIVER, driver_hint);
    /* When the named display cannot be reached SDL falls back to drivers that show nothing. */
    const char *driver = SDL_Init(SDL_INIT_VIDEO) == 0 ? SDL_GetCurrentVideoDriver() : NULL;
    if (!driver || !strcmp(driver, "offscreen") || !strcmp(driver, "dummy")) {
        SDL_Quit();
        fputs(NO_DISPLAY, stderr);
        return false;
    }
    return true;
}

/* One option or operand of the window's command line (cli_desc.handle); numbers come checked. */
static int view_option(void *user, int id, const cli_value *v)
{
    view_desc *desc = user;
    switch (id) {
    case CLI_OPERAND:
        if (desc->path)
            return cli_usage_error("pmfview", NULL, "more than one map file given: '%s'", v->text);
        desc->path = v->text;
        return 0;
    case OPT_NO_VSYNC: desc->no_vsync = true; return 0;
    case OPT_GL_DEBUG: render_set_gl_debug(RENDER_GL_DEBUG_REPORT); return 0;
    case OPT_SHOTS: desc->shots_dir = v->text; return 0;
    case OPT_GAME: desc->game_dir = v->text; return 0;
    case OPT_FGD:
        if (desc->fgd_count == VIEW_MAX_FGDS)
            return cli_bad_value(&view_cli, cli_find(view_options, id), "at most " PMF_STRINGIFY(VIEW_MAX_FGDS) " FGD files", v->text);
        desc->fgds[desc->fgd_count++] = v->text;
        return 0;
    case OPT_NO_MODELS: desc->no_models = true; return 0;
    case OPT_LEVEL: desc->level = (uint32_t)v->count; return 0;
    case OPT_CAMERA: {
        const char *end = camera_parse_pose(v->text, desc->camera_pos, &desc->camera_yaw, &desc->camera_pitch);
        if (!end || *end)
            return cli_bad_value(&view_cli, cli_find(view_options, id), "X,Y,Z,YAW,PITCH", v->text);
        desc->has_camera = true;
        return 0;
    }
    case OPT_FOV: desc->fov = (float)v->number; return 0;
    case OPT_RADIUS: desc->radius = (int)v->count; return 0;
    case OPT_MEMORY: memory_option_apply(v->count); return 0;
    case OPT_SIZE:
        desc->width = (int)v->count;
        desc->height = (int)v->count2;
        return 0;
    }
    return 0; /* getopt_long hands over only the ids of the table */
}

int cmd_view(int argc, char **argv)
{
    view_desc desc = { 0 };
    cli_desc cli = view_cli;
    cli.handle = view_option;
    cli.user = &desc;
    int rc = cli_parse(&cli, argc, argv);
    if (rc)
        return rc == CLI_DONE ? 0 : rc;

    /* A bad map is reported before a missing display, so the answer does not depend on where
     * the program runs. Without FILE, the demo map is looked for only once a window can open. */
    map_source src;
    formats_scene formats = { 0 };
    if (desc.path) {
        rc = check_map(&desc, &src, &formats);
        if (rc) {
            formats_scene_close(&formats);
            return rc;
        }
        if (formats.kind) {
            desc.path = formats.pmf_path;
            desc.formats = &formats;
        }
    }
    if (!have_display()) {
        formats_scene_close(&formats);
        return EXIT_RUNTIME;
    }
    char default_map[4096];
    if (!desc.path) {
        desc.path = find_default_map(default_map, sizeof default_map);
        rc = check_map(&desc, &src, &formats);
        if (rc) {
            SDL_Quit();
            return rc;
        }
    }
    desc.pmf_path = src.pmf_path;
    desc.compiled = map_source_compiled(src.id.kind);
    rc = view_run(&desc);
    SDL_Quit();
    formats_scene_close(&formats);
    return rc;
}
