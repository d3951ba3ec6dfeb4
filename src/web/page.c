/* page.c - pmfview in the browser (docs/web.md): the scene drawn into the page's WebGL2 canvas.
 * index.html drives it: it fetches or is handed a map, writes it into the in-memory file system,
 * opens it here, calls page_frame once per animation frame and turns keys, mouse and touch into
 * page_fly calls. Everything runs on the page's thread; PAGE_THREADS builds stream the chunks on
 * worker threads, the others decode them inside page_frame within its budget. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if PAGE_THREADS
#include <pthread.h>
#endif

#include <sys/stat.h>

#include <emscripten.h>
#include <emscripten/html5.h>

#include "cli.h"
#include "hud.h"
#include "inspect.h"
#include "map_markers.h"
#include "options.h"
#include "pmf_budget.h"
#include "pmf_os.h"
#include "render.h"
#include "scene.h"
#include "stream.h"
#include "view_options.h"

#define STREAM_WORKERS 3                  /* PAGE_THREADS: the page keeps -sPTHREAD_POOL_SIZE=4 */
#define MAX_PITCH 89.0f

/* A compile in progress: pmfc's command line, and its exit code once it is done. */
static struct {
    char **argv;                     /* argc + 1, the last NULL */
    int argc;
    atomic_int state;                /* COMPILE_* */
    int exit_code;
#if PAGE_THREADS
    pthread_t thread;
    bool on_thread;
#endif
} compile;
enum { COMPILE_IDLE, COMPILE_RUNNING, COMPILE_DONE };

static struct {
    EMSCRIPTEN_WEBGL_CONTEXT_HANDLE gl;
    hud *markers;                    /* the markers of entities whose model is missing or broken */
    scene *s;
    camera cam, start;
    int width, height;
    scene_settings settings;
    char error[sizeof(((scene_error *)0)->message)];
    char stats[512];
    char *inspected_json;            /* page_inspect's answer, kept until the next */
    char inspected_text[2048];
    double pose[5];
    char *fgd_text;                  /* page_open's entity definitions, one a line */
    char *fgds[VIEW_MAX_FGDS];       /* pointing into fgd_text */
} page;

/* The one-line error of the last call that failed (as the command line prints it after "pmfview: "). */
EMSCRIPTEN_KEEPALIVE const char *page_error(void)
{
    return page.error;
}

/* The WebGL2 context of the canvas "#canvas": 0, or 3 with page_error. */
EMSCRIPTEN_KEEPALIVE int page_init(void)
{
    umask(022); /* emscripten starts at 0777: the maps pmfc writes could not be read back */
    EmscriptenWebGLContextAttributes a;
    emscripten_webgl_init_context_attributes(&a);
    a.majorVersion = 2;
    a.minorVersion = 0;
    a.alpha = 0;
    a.antialias = 0;                      /* as `pmfview shot` without --msaa */
    a.preserveDrawingBuffer = 1;          /* the screenshot button and the tests read the canvas */
    page.gl = emscripten_webgl_create_context("#canvas", &a);
    if (page.gl <= 0) {
        snprintf(page.error, sizeof page.error, "this browser gives no WebGL2 context");
        return 3;
    }
    emscripten_webgl_make_context_current(page.gl);
    if (!render_load_gl(NULL, page.error, sizeof page.error) || !(page.markers = hud_create(page.error, sizeof page.error)))
        return 3;
    page.settings.exposure = 1.0f;
    return 0;
}

EMSCRIPTEN_KEEPALIVE void page_close(void)
{
    scene_close(page.s);
    page.s = NULL;
}

static void apply_aspect(void)
{
    page.cam.aspect = page.height > 0 ? (float)page.width / (float)page.height : 1.0f;
    page.start.aspect = page.cam.aspect;
    if (page.s)
        scene_set_camera(page.s, &page.cam);
}

/* The drawing size in pixels (the canvas's). */
EMSCRIPTEN_KEEPALIVE void page_resize(int width, int height)
{
    page.width = width > 0 ? width : 1;
    page.height = height > 0 ? height : 1;
    apply_aspect();
}

/* The entity definitions' files, one a line, as --fgd's list (the first VIEW_MAX_FGDS, as the
 * desktop takes): into page.fgds. */
static size_t split_fgds(const char *fgds)
{
    free(page.fgd_text);
    if (!(page.fgd_text = strdup(fgds)))
        return 0;
    size_t count = 0;
    for (char *save = NULL, *line = strtok_r(page.fgd_text, "\n", &save); line && count < VIEW_MAX_FGDS;
         line = strtok_r(NULL, "\n", &save))
        page.fgds[count++] = line;
    return count;
}

/* Opens level 0 of a PMF in the in-memory file system at its start camera, its entities' models
 * and sprites from game_dir ("" none: the folder of the files dropped with the map, its paks and
 * loose files, as `--game`), the classes' models from the entity definitions fgds (one file a
 * line, as `--fgd`; "" none): 0, else the command line's exit code (2 a bad file or a damaged
 * pak, 3 a runtime failure) with page_error. */
EMSCRIPTEN_KEEPALIVE int page_open(const char *path, const char *game_dir, const char *fgds)
{
    page_close();
    /* the desktop's default budget (docs/memory.md); a compile keeps its own (pmfc.h) */
    pmf_budget_set_limit(pmf_budget_default(PMF_BUDGET_VIEWER));
    size_t fgd_count = split_fgds(fgds);
    scene_error e;
    page.s = scene_open(&(scene_desc){ .path = path, .workers = PAGE_THREADS ? STREAM_WORKERS : STREAM_NO_THREADS,
                                       .moving_camera = true, .game_dir = game_dir[0] ? game_dir : NULL,
                                       .fgds = (const char *const *)page.fgds, .fgd_count = fgd_count },
                        &e);
    if (!page.s) {
        snprintf(page.error, sizeof page.error, "%s", e.message);
        return e.exit_code;
    }
    page.error[0] = '\0';
    scene_set_settings(page.s, &page.settings);
    scene_default_camera(page.s, &page.start);
    page.cam = page.start;
    apply_aspect();
    return 0;
}

/* The camera at a pose: world metres and degrees (`pmfview shot --camera`), the pitch held within
 * ±MAX_PITCH as the window's teleport holds it; nothing for a value that is not finite. */
EMSCRIPTEN_KEEPALIVE void page_set_pose(double x, double y, double z, double yaw, double pitch)
{
    if (!isfinite(x) || !isfinite(y) || !isfinite(z) || !isfinite(yaw) || !isfinite(pitch))
        return;
    camera_set_world(&page.cam, (double[3]){ x, y, z }, (float)(fmod(fmod(yaw, 360.0) + 360.0, 360.0)),
                     (float)fmax(-MAX_PITCH, fmin(MAX_PITCH, pitch)));
    if (page.s)
        scene_set_camera(page.s, &page.cam);
}

/* Back to the start camera (R / Home). */
EMSCRIPTEN_KEEPALIVE void page_reset_pose(void)
{
    page.cam = page.start;
    if (page.s)
        scene_set_camera(page.s, &page.cam);
}

/* The camera's pose: X, Y, Z, yaw, pitch (valid until the next call). */
EMSCRIPTEN_KEEPALIVE const double *page_pose(void)
{
    camera_get_world(&page.cam, page.pose);
    page.pose[3] = page.cam.yaw;
    page.pose[4] = page.cam.pitch;
    return page.pose;
}

/* Turns by (dyaw, dpitch) degrees, then moves forward / right along the view and up along +Y
 * by the metres given. */
EMSCRIPTEN_KEEPALIVE void page_fly(double forward, double right, double up, double dyaw, double dpitch)
{
    page.cam.yaw = (float)fmod(page.cam.yaw + dyaw + 360.0, 360.0);
    page.cam.pitch = fmaxf(-MAX_PITCH, fminf(MAX_PITCH, page.cam.pitch + (float)dpitch));
    float f[3], r[3], u[3];
    camera_basis(&page.cam, f, r, u);
    double delta[3];
    for (int k = 0; k < 3; k++)
        delta[k] = forward * f[k] + right * r[k] + (k == 1 ? up : 0.0);
    camera_move(&page.cam, delta);
    if (page.s)
        scene_set_camera(page.s, &page.cam);
}

/* The lighting preview (docs/viewer.md): mode (render_mode), luxel grid, wireframe (drawn where
 * the GL can), visibility (scene_vis), fog, sky off, exposure (0 = 1). */
EMSCRIPTEN_KEEPALIVE void page_settings(int mode, int luxel_grid, int wireframe, int vis, int fog, int no_sky,
                                        double exposure)
{
    page.settings.mode = (unsigned)mode < RENDER_MODE_COUNT ? (render_mode)mode : RENDER_MODE_FULL;
    page.settings.luxel_grid = luxel_grid;
    page.settings.wireframe = wireframe;
    page.settings.vis = (scene_vis)vis;
    page.settings.fog = fog;
    page.settings.no_sky = no_sky;
    page.settings.exposure = exposure > 0 ? (float)exposure : 1.0f;
    if (page.s)
        scene_set_settings(page.s, &page.settings);
}

/* An entity whose model is missing or broken drawn as its marker, labelled, as `shot` draws it
 * (docs/models.md). */
static void draw_missing_models(void)
{
    const uint8_t *missing = scene_models_missing(page.s);
    if (!missing)
        return;
    float view_proj[16];
    scene_view_proj(page.s, view_proj);
    const overlay_view view = { .view_proj = view_proj, .cam = scene_camera(page.s), .width = page.width,
                                .height = page.height, .scale = page.width >= 1000 ? 2.0f : 1.0f, .hover_x = -1,
                                .hover_y = -1, .label_all = true };
    map_markers_draw(page.markers, &(map_markers_desc){ view, .entities = &scene_map_infos(page.s)->entities,
                                                        .only = missing });
}

/* Streams within budget_ms and draws a frame at `time` seconds (animations; 0 as `shot`) into
 * the canvas. 1 when every chunk in view was
 * resident for it, 2 when a chunk in view failed to load (page_error says which), else 0. */
EMSCRIPTEN_KEEPALIVE int page_frame(double budget_ms, double time)
{
    if (!page.s)
        return 0;
    if (page.settings.time != time) {
        page.settings.time = time;
        scene_set_settings(page.s, &page.settings);
    }
    scene_update(page.s, budget_ms);
    bool complete = scene_view_complete(page.s);
    render_bind_window(page.width, page.height);
    scene_draw(page.s, &(scene_viewport){ .width = page.width, .height = page.height });
    draw_missing_models();
    const char *failure = scene_failure(page.s);
    if (failure) {
        snprintf(page.error, sizeof page.error, "%s", failure);
        return 2;
    }
    return complete;
}

/* The surface inspector (docs/viewer.md "Surface inspector") on canvas pixel x, y from the top
 * left: the surface, its material, lightmap luxel and lights as `pmfview shot --inspect` prints
 * them, as one JSON line; page_inspected_text gives the same result as the desktop panel's
 * lines. "" with no map open. */
EMSCRIPTEN_KEEPALIVE const char *page_inspect(int x, int y)
{
    free(page.inspected_json);
    page.inspected_json = NULL;
    page.inspected_text[0] = '\0';
    if (!page.s || x < 0 || y < 0 || x >= page.width || y >= page.height)
        return "";
    inspect_result r;
    inspect_pixel(page.s, x, y, page.width, page.height, &r);
    inspect_text(&r, page.inspected_text, sizeof page.inspected_text);
    page.inspected_json = inspect_json(&r, true);
    return page.inspected_json ? page.inspected_json : "";
}

EMSCRIPTEN_KEEPALIVE const char *page_inspected_text(void)
{
    return page.inspected_text;
}

/* The HUD's figures, one per line. */
EMSCRIPTEN_KEEPALIVE const char *page_stats(void)
{
    if (!page.s)
        return "";
    scene_stats st;
    scene_get_stats(page.s, &st);
    const double *p = page_pose();
    snprintf(page.stats, sizeof page.stats,
             "camera %.2f,%.2f,%.2f,%.1f,%.1f\nchunks %u / %u (streaming %u, failed %u)\n"
             "triangles %llu, draw calls %u\nGPU %.1f MiB, memory budget %.0f / %.0f MiB\n%s",
             p[0], p[1], p[2], p[3], p[4], st.chunks_loaded, st.chunks_present, st.chunks_streaming, st.chunks_failed,
             (unsigned long long)st.triangles, st.draw_calls, (double)st.gpu_bytes / (1024.0 * 1024.0),
             (double)pmf_budget_used() / (1024.0 * 1024.0), (double)pmf_budget_limit() / (1024.0 * 1024.0),
             PAGE_THREADS ? "streaming on worker threads" : "streaming on the page's thread");
    return page.stats;
}

/* pmfc's command line (src/compiler/options.c) to the library (pmfc.h); its lines on stderr. */
static void *run_compile(void *arg)
{
    (void)arg;
    pmfc_compile_desc d;
    int rc = pmfc_options_parse(compile.argc, compile.argv, &d);
    if (rc == 0) {
        pmfc_result r;
        rc = pmfc_compile(&d, &r);
    }
    pmfc_options_free(&d);
    compile.exit_code = rc == CLI_DONE ? 0 : rc;
    atomic_store(&compile.state, COMPILE_DONE);
    return NULL;
}

/* Starts `pmfc ARGS` (one argument a line, as many as come) in this process: on a thread of its
 * own where the page has threads (page_compile_poll then says when it is done), else here and
 * now. 0, or 1 when a compile is running already or memory ran out. */
EMSCRIPTEN_KEEPALIVE int page_compile_start(const char *args)
{
    if (atomic_load(&compile.state) == COMPILE_RUNNING)
        return 1;
    for (int i = 0; i < compile.argc; i++)
        free(compile.argv[i]);
    free(compile.argv);
    int count = 2; /* "pmfc" and the first argument */
    for (const char *p = args; *p; p++)
        count += *p == '\n';
    compile.argc = 0;
    if (!(compile.argv = calloc((size_t)count + 1, sizeof *compile.argv)))
        return 1;
    compile.argv[compile.argc++] = strdup("pmfc");
    for (const char *p = args; *p;) {
        size_t n = strcspn(p, "\n");
        compile.argv[compile.argc++] = strndup(p, n);
        p += n + (p[n] == '\n');
    }
    for (int i = 0; i < compile.argc; i++)
        if (!compile.argv[i])
            return 1;
    atomic_store(&compile.state, COMPILE_RUNNING);
    page_close(); /* its stream workers give their threads to the compile */
#if PAGE_THREADS
    compile.on_thread = pmf_os_thread_start(&compile.thread, run_compile, NULL) == 0;
    if (compile.on_thread)
        return 0;
#endif
    run_compile(NULL);
    return 0;
}

/* -1 while the compile runs, else pmfc's exit code. */
EMSCRIPTEN_KEEPALIVE int page_compile_poll(void)
{
    if (atomic_load(&compile.state) != COMPILE_DONE)
        return -1;
#if PAGE_THREADS
    if (compile.on_thread)
        pthread_join(compile.thread, NULL);
#endif
    atomic_store(&compile.state, COMPILE_IDLE);
    return compile.exit_code;
}
