/* cmd_view.c - `pmfview [FILE] [options]`: the command line of the interactive viewer. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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

static int usage_error(const char *fmt, const char *arg)
{
    return cli_usage_error("pmfview", NULL, fmt, arg);
}

static bool parse_int(const char *s, long min, long max, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
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
    if (src->id.kind == PMF_KIND_PMF_LEGACY || src->id.kind == PMF_KIND_PM4) {
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

enum { OPT_NO_VSYNC = 256, OPT_GL_DEBUG, OPT_LEVEL, OPT_CAMERA, OPT_FOV, OPT_RADIUS, OPT_MEMORY, OPT_SHOTS, OPT_GAME, OPT_SIZE };

static const struct option view_long_options[] = {
    { "help", no_argument, NULL, 'h' },
    { "no-vsync", no_argument, NULL, OPT_NO_VSYNC },
    { "gl-debug", no_argument, NULL, OPT_GL_DEBUG },
    { "level", required_argument, NULL, OPT_LEVEL },
    { "camera", required_argument, NULL, OPT_CAMERA },
    { "fov", required_argument, NULL, OPT_FOV },
    { "radius", required_argument, NULL, OPT_RADIUS },
    { "memory", required_argument, NULL, OPT_MEMORY },
    { "shots", required_argument, NULL, OPT_SHOTS },
    { "game", required_argument, NULL, OPT_GAME },
    { "size", required_argument, NULL, OPT_SIZE },
    { NULL, 0, NULL, 0 },
};

/* One option or operand of the window's command line (cli_desc.handle). */
static int view_option(void *user, int id, const char *v)
{
    view_desc *desc = user;
    long n;
    switch (id) {
    case 'h':
        print_usage(stdout);
        return CLI_DONE;
    case CLI_OPERAND:
        if (desc->path)
            return usage_error("more than one map file given: '%s'", v);
        desc->path = v;
        return 0;
    case OPT_NO_VSYNC: desc->no_vsync = true; return 0;
    case OPT_GL_DEBUG: render_set_gl_debug(RENDER_GL_DEBUG_REPORT); return 0;
    case OPT_SHOTS: desc->shots_dir = v; return 0;
    case OPT_GAME: desc->game_dir = v; return 0;
    case OPT_LEVEL:
        if (!parse_int(v, 0, 255, &n))
            return usage_error("--level wants a level number from 0, not '%s'", v);
        desc->level = (uint32_t)n;
        return 0;
    case OPT_CAMERA: {
        const char *end = camera_parse_pose(v, desc->camera_pos, &desc->camera_yaw, &desc->camera_pitch);
        if (!end || *end)
            return usage_error("--camera wants X,Y,Z,YAW,PITCH, not '%s'", v);
        desc->has_camera = true;
        return 0;
    }
    case OPT_FOV: {
        char *end;
        double fov = strtod(v, &end);
        if (end == v || *end || !(fov >= 1.0 && fov <= 179.0))
            return usage_error("--fov wants degrees in 1..179, not '%s'", v);
        desc->fov = (float)fov;
        return 0;
    }
    case OPT_RADIUS:
        if (!parse_int(v, 1, 64, &n))
            return usage_error("--radius wants chunks in 1..64, not '%s'", v);
        desc->radius = (int)n;
        return 0;
    case OPT_MEMORY:
        return memory_option_set(v) ? 0 : usage_error("--memory wants MiB in 64..1048576, not '%s'", v);
    case OPT_SIZE: {
        int w = 0, h = 0;
        char tail;
        if (sscanf(v, "%dx%d%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > 16384 || h > 16384)
            return usage_error("--size wants WxH (16..16384), not '%s'", v);
        desc->width = w;
        desc->height = h;
        return 0;
    }
    }
    return 0; /* getopt_long hands over only the ids of view_long_options */
}

int cmd_view(int argc, char **argv)
{
    view_desc desc = { 0 };
    int rc = cli_parse(&(cli_desc){ .program = "pmfview", .short_options = "h", .long_options = view_long_options, .handle = view_option,
                                    .user = &desc }, argc, argv);
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
