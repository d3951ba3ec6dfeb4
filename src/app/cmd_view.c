/* cmd_view.c - `pmfview [FILE] [options]`: the command line of the interactive viewer. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <SDL.h>

#include "memory_option.h"
#include "commands.h"
#include "pmf/pmf.h"
#include "view.h"
#include "view_bookmarks.h"
#include "camera.h"
#include "map_source.h"
#include "formats_scene.h"
#include "pm4_world.h"
#include "render.h"

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "pmfview: %s '%s' (see pmfview --help)\n", what, arg);
    return EXIT_USAGE;
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

static bool have_display(void)
{
    const char *x11 = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    if ((!x11 || !*x11) && (!wayland || !*wayland))
        return false;
    /* Only the kind of display that is named: probing the other one prints errors of its own
     * (libwayland's XDG_RUNTIME_DIR complaint). SDL_VIDEODRIVER in the environment still wins. */
    bool has_x11 = x11 && *x11, has_wayland = wayland && *wayland;
    if (has_x11 != has_wayland)
        SDL_SetHint(SDL_HINT_VIDEODRIVER, has_x11 ? "x11" : "wayland");
    if (SDL_Init(SDL_INIT_VIDEO) != 0)
        return false;
    /* When the named display cannot be reached SDL falls back to drivers that show nothing. */
    const char *driver = SDL_GetCurrentVideoDriver();
    if (!driver || !strcmp(driver, "offscreen") || !strcmp(driver, "dummy")) {
        SDL_Quit();
        return false;
    }
    return true;
}

int cmd_view(int argc, char **argv)
{
    view_desc desc = { 0 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            print_usage(stdout);
            return 0;
        } else if (a[0] != '-' || !a[1]) {
            if (desc.path)
                return usage_error("more than one map file given:", a);
            desc.path = a;
        } else if (!strcmp(a, "--no-vsync")) {
            desc.no_vsync = true;
        } else if (!strcmp(a, "--gl-debug")) {
            render_set_gl_debug(RENDER_GL_DEBUG_REPORT);
        } else if (!next) {
            return usage_error("unknown option or missing value:", a);
        } else if (!strcmp(a, "--level")) {
            if (!parse_int(next, 0, 255, &n))
                return usage_error("--level wants a level number from 0, not", next);
            desc.level = (uint32_t)n;
            i++;
        } else if (!strcmp(a, "--camera")) {
            const char *end = camera_parse_pose(next, desc.camera_pos, &desc.camera_yaw, &desc.camera_pitch);
            if (!end || *end)
                return usage_error("--camera wants X,Y,Z,YAW,PITCH, not", next);
            desc.has_camera = true;
            i++;
        } else if (!strcmp(a, "--fov")) {
            char *end;
            double fov = strtod(next, &end);
            if (end == next || *end || !(fov >= 1.0 && fov <= 179.0))
                return usage_error("--fov wants degrees in 1..179, not", next);
            desc.fov = (float)fov;
            i++;
        } else if (!strcmp(a, "--radius")) {
            if (!parse_int(next, 1, 64, &n))
                return usage_error("--radius wants chunks in 1..64, not", next);
            desc.radius = (int)n;
            i++;
        } else if (!strcmp(a, "--memory")) {
            if (!memory_option_set(next))
                return usage_error("--memory wants MiB in 64..1048576, not", next);
            i++;
        } else if (!strcmp(a, "--shots")) {
            desc.shots_dir = next;
            i++;
        } else if (!strcmp(a, "--game")) {
            desc.game_dir = next;
            i++;
        } else if (!strcmp(a, "--size")) {
            int w = 0, h = 0;
            char tail;
            if (sscanf(next, "%dx%d%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > 16384 || h > 16384)
                return usage_error("--size wants WxH (16..16384), not", next);
            desc.width = w;
            desc.height = h;
            i++;
        } else {
            return usage_error("unknown option", a);
        }
    }

    /* A bad map is reported before a missing display, so the answer does not depend on where
     * the program runs. Without FILE, the demo map is looked for only once a window can open. */
    map_source src;
    formats_scene formats = { 0 };
    if (desc.path) {
        int rc = check_map(&desc, &src, &formats);
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
        fputs("pmfview: no display; use 'pmfview shot FILE -o OUT.png' to render without a window\n", stderr);
        return EXIT_RUNTIME;
    }
    if (!desc.path) {
        desc.path = PMFVIEW_DEFAULT_MAP;
        int rc = check_map(&desc, &src, &formats);
        if (rc) {
            SDL_Quit();
            return rc;
        }
    }
    desc.pmf_path = src.pmf_path;
    desc.compiled = src.id.kind == PMF_KIND_RMF;
    int rc = view_run(&desc);
    SDL_Quit();
    formats_scene_close(&formats);
    return rc;
}
