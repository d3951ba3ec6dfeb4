/* test_render_scene.c - the scene API as the window drives it, on a headless context: light
 * toggles after upload (atlas recomposite, fast-light table update), modes, the light list,
 * stats, streaming with eviction while the camera moves, uploads of chunks out of view deferred,
 * the GPU buffers sized ahead for a moving camera, the driver's states primed with nothing drawn. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glad/gl.h>

#include "base/pmf_os.h"
#include "render.h"
#include "fixture_map.h"
#include "rt_shot.h"
#include "scene.h"

#define SIZE 32

static render_target target;
static uint8_t pixels[SIZE * SIZE * 4];

/* Draws a frame and returns the centre pixel. */
static const uint8_t *draw(scene *s)
{
    render_target_bind(&target);
    scene_draw(s, &(scene_viewport){ .width = SIZE, .height = SIZE });
    render_target_read(&target, pixels);
    return &pixels[((SIZE / 2) * SIZE + SIZE / 2) * 4];
}

static bool near(const uint8_t *p, int r, int g, int b)
{
    if (abs(p[0] - r) <= 1 && abs(p[1] - g) <= 1 && abs(p[2] - b) <= 1)
        return true;
    fprintf(stderr, "pixel (%d,%d,%d), expected (%d,%d,%d)\n", p[0], p[1], p[2], r, g, b);
    return false;
}

/* A wall at z = -4 in each of `count` chunks along X (16 m apart), with dynamic light 7
 * (colour 255,0,0, layer 100 over base 50) and fast light 3 (colour 0,200,0, all vertices
 * multiplier 255) in chunk 0. */
static bool write_map(const char *path, uint32_t count)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ count, 1, 1 }, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    for (uint32_t x = 0; x < count; x++) {
        fx_chunk *c = fx_wall_chunk(l, (pmf_chunk_coord){ x, 0, 0 }, mat, 1, (uint8_t[]){ 50, 50, 50 });
        if (x == 0) {
            fx_dynamic_light(c, 7, true, (uint8_t[]){ 255, 0, 0 }, 0, 100);
            fx_fast_light(c, 3, 255, (uint8_t[]){ 0, 200, 0 }, 0, 4, 255);
        }
    }
    bool ok = fx_map_write(&m, path);
    fx_map_free(&m);
    return ok;
}

static scene *open_scene(const char *path, int radius)
{
    scene_error err;
    scene *s = scene_open(&(scene_desc){ .path = path, .radius = radius }, &err);
    if (!s)
        fprintf(stderr, "scene_open: %s (exit %d)\n", err.message, err.exit_code);
    return s;
}

static void look(scene *s, double x)
{
    camera cam;
    scene_default_camera(s, &cam);
    cam.fov_y = 90.0f;
    cam.aspect = 1.0f;
    camera_set_world(&cam, (const double[3]){ x, 0, 0 }, 0, 0);
    scene_set_camera(s, &cam);
}

static int test_runtime_lights(void)
{
    REQUIRE(write_map("map.pmf", 1));
    scene *s = open_scene("map.pmf", 0);
    REQUIRE(s);
    look(s, 0);
    REQUIRE(scene_wait_view(s, 60));
    REQUIRE(near(draw(s), 150, 250, 50));                 /* base + layer × red + fast green */
    scene_set_dynamic_light(s, 7, false);
    REQUIRE(near(draw(s), 50, 250, 50));                  /* the same frame: no re-streaming */
    scene_set_fast_light(s, 3, 0);
    REQUIRE(near(draw(s), 50, 50, 50));
    scene_set_fast_light(s, 3, 51);
    scene_set_dynamic_light(s, 7, true);
    REQUIRE(near(draw(s), 150, 90, 50));                  /* 50 + 200 × 51/255 */

    scene_light lights[4];
    REQUIRE(scene_lights(s, lights, 4) == 2);
    REQUIRE(!lights[0].fast && lights[0].id == 7 && lights[0].enabled && lights[0].color[0] == 255);
    REQUIRE(lights[1].fast && lights[1].id == 3 && lights[1].intensity == 51 && lights[1].color[1] == 200);

    scene_settings st;
    scene_get_settings(s, &st);
    st.mode = RENDER_MODE_LIGHTMAP;
    st.exposure = 0.5f;
    scene_set_settings(s, &st);
    REQUIRE(near(draw(s), 75, 45, 25));
    st.mode = RENDER_MODE_FULLBRIGHT;
    st.exposure = 1.0f;
    scene_set_settings(s, &st);
    REQUIRE(near(draw(s), 255, 255, 255));

    scene_stats stats;
    scene_get_stats(s, &stats);
    REQUIRE(stats.chunks_present == 1 && stats.chunks_loaded == 1 && stats.triangles == 2);
    REQUIRE(stats.draw_calls >= 1 && stats.first_complete_seconds >= 0 && !scene_failure(s));
    scene_close(s);
    return 0;
}

/* Radius 1 over 8 chunks: moving from chunk 0 to chunk 7 streams the far end in and evicts
 * the chunks left behind (beyond radius + hysteresis). */
static int test_streaming(void)
{
    REQUIRE(write_map("map.pmf", 8));
    scene *s = open_scene("map.pmf", 1);
    REQUIRE(s);
    look(s, 0);
    REQUIRE(scene_wait_view(s, 60));
    REQUIRE(near(draw(s), 150, 250, 50));
    look(s, 7 * 16.0);
    REQUIRE(scene_wait_view(s, 60));
    for (int i = 0; i < 50; i++) {
        scene_update(s, 4.0);
        usleep(2000);
    }
    REQUIRE(near(draw(s), 50, 50, 50));
    scene_stats stats;
    scene_get_stats(s, &stats);
    REQUIRE(stats.chunks_present == 8 && stats.chunks_loaded >= 2 && stats.chunks_loaded <= 4);
    scene_close(s);
    return 0;
}

/* Chunks delivered outside the view wait: scene_wait_view uploads only those in view, the next
 * scene_update the rest; closing with some still waiting frees them. Three chunks along +X,
 * the camera in chunk 0 looking along -X: chunks 1 and 2 are behind it. */
static int test_deferred(void)
{
    REQUIRE(write_map("map.pmf", 3));
    for (int pass = 0; pass < 2; pass++) {
        scene *s = open_scene("map.pmf", 2);
        REQUIRE(s);
        camera cam;
        scene_default_camera(s, &cam);
        cam.fov_y = 90.0f;
        cam.aspect = 1.0f;
        camera_set_world(&cam, (const double[3]){ 0, 0, 0 }, 90, 0);
        scene_set_camera(s, &cam);
        for (int i = 0; i < 200; i++) {
            REQUIRE(scene_wait_view(s, 60));
            usleep(5000);
        }
        scene_stats st;
        scene_get_stats(s, &st);
        REQUIRE(st.chunks_loaded == 1 && st.chunks_streaming == 2);
        if (pass == 0) {
            scene_update(s, 1000.0);
            scene_get_stats(s, &st);
            REQUIRE(st.chunks_loaded == 3 && st.chunks_streaming == 0);
        } else {
            /* The camera turns (or jumps: shot --cameras) to chunks delivered while out of view:
             * the view is complete only once they are uploaded. */
            camera_set_world(&cam, (const double[3]){ 0, 0, 0 }, 270, 0);
            scene_set_camera(s, &cam);
            REQUIRE(!scene_view_complete(s));
            REQUIRE(scene_wait_view(s, 60));
            scene_get_stats(s, &st);
            REQUIRE(st.chunks_loaded == 3 && st.chunks_streaming == 0, "%u loaded, %u streaming", st.chunks_loaded,
                    st.chunks_streaming);
        }
        scene_close(s);
    }
    return 0;
}

/* The camera's cube (1) sees only cube 2 (left wall); cube 3 (right wall) is hidden. Frozen,
 * the set survives a move into a cube without visibility data; unfrozen, it does not. */
static int test_vis_freeze_wire(void)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 1, 1, 1 }, (pmf_chunk_coord){ 0, 0, 0 });
    fx_visibility_chunk(l, fx_material(l, "wall", NULL, 0, 0), 100);
    REQUIRE(fx_map_write(&m, "map.pmf"));
    fx_map_free(&m);

    scene *s = open_scene("map.pmf", 0);
    REQUIRE(s);
    camera cam;
    scene_default_camera(s, &cam);
    cam.fov_y = 90.0f;
    cam.aspect = 1.0f;
    camera_set_world(&cam, (const double[3]){ 0.5, 4, 4 }, 0, 0);
    scene_set_camera(s, &cam);
    REQUIRE(scene_wait_view(s, 60));
    /* Right of centre, above the horizon: the right wall. */
    draw(s);
    const uint8_t *right = &pixels[((SIZE / 4) * SIZE + SIZE * 3 / 4) * 4];
    REQUIRE(near(right, 0, 0, 0));
    scene_settings st;
    scene_get_settings(s, &st);
    st.vis = SCENE_VIS_FROZEN;
    scene_set_settings(s, &st);
    camera_set_world(&cam, (const double[3]){ 0.4, 4, 4 }, 0, 0);   /* still cube 1 */
    scene_set_camera(s, &cam);
    scene_update(s, 4);
    camera_set_world(&cam, (const double[3]){ -0.5, 4, 4 }, 0, 0);  /* the root: no data */
    scene_set_camera(s, &cam);
    scene_update(s, 4);
    draw(s);
    REQUIRE(near(right, 0, 0, 0));
    st.vis = SCENE_VIS_ON;
    scene_set_settings(s, &st);
    scene_update(s, 4);
    draw(s);
    REQUIRE(near(right, 100, 100, 100));

    /* Wireframe: white lines over the triangles' edges (the quad's diagonal crosses the view). */
    st.wireframe = true;
    scene_set_settings(s, &st);
    draw(s);
    int white = 0;
    for (int i = 0; i < SIZE * SIZE; i++)
        white += pixels[i * 4] == 255 && pixels[i * 4 + 1] == 255 && pixels[i * 4 + 2] == 255;
    REQUIRE(white > 10);
    scene_close(s);
    return 0;
}

/* 12 chunks in a row, each one extended cube with two faces of 255 (degenerate) triangles: 1530
 * vertices a chunk, so the 7 that radius 1 + hysteresis 2 keep resident (10710 vertices) outgrow
 * the vertex buffer's first 4096. */
static bool write_heavy_map(const char *path)
{
    fx_map m = { 0 };
    fx_level *l = fx_level_add(&m, 4, (pmf_chunk_coord){ 12, 1, 1 }, (pmf_chunk_coord){ 0, 0, 0 });
    uint8_t mat = fx_material(l, "wall", NULL, 0, 0);
    for (uint32_t x = 0; x < 12; x++) {
        fx_chunk *c = fx_chunk_add(l, (pmf_chunk_coord){ x, 0, 0 });
        uint8_t lm = fx_lightmap(c, 1, 40, 40, 40);
        fx_touch_cube(c, 0);
        c->cubes[0].type = PMF_CUBE_EXTGEOMETRY;
        c->ccubes[0].u.ext.first_vertex = 0;
        for (int f = 0; f < 2; f++) {
            c->cubes[0].u.ext.material[f] = mat;
            c->ccubes[0].u.ext.lightmap[f] = lm;
            c->ccubes[0].u.ext.tri_count[f] = 255;
            for (int v = 0; v < 255 * 3; v++)
                memcpy(c->verts[c->ch.client.vertex_count++].xyz, (float[]){ -4, 0, -4 }, 12);
        }
    }
    bool ok = fx_map_write(&m, path);
    fx_map_free(&m);
    return ok;
}

/* A flight along the row: with moving_camera the buffers are sized for what can be resident while
 * the first view streams in, and never grow (nor copy) on the way; without, they double as the
 * chunks come. */
static int test_reserve_ahead(void)
{
    REQUIRE(write_heavy_map("heavy.pmf"));
    for (int moving = 1; moving >= 0; moving--) {
        scene_error err;
        scene *s = scene_open(&(scene_desc){ .path = "heavy.pmf", .radius = 1, .moving_camera = moving }, &err);
        REQUIRE(s);
        look(s, 16.0);
        REQUIRE(scene_wait_view(s, 60));
        scene_update(s, 1000.0);
        scene_stats first, last;
        scene_get_stats(s, &first);
        REQUIRE(first.chunk_vertices == 1530u * first.chunks_loaded);
        uint32_t most = first.chunks_loaded;
        for (int x = 16; x <= 10 * 16; x += 4) {
            look(s, x);
            REQUIRE(scene_wait_view(s, 60));
            scene_update(s, 1000.0);
            draw(s);
            scene_get_stats(s, &last);
            most = last.chunks_loaded > most ? last.chunks_loaded : most;
        }
        /* moving forward: the chunk ahead, the camera's, and the three behind within hysteresis */
        REQUIRE(most == 5 && last.chunks_present == 12);
        if (moving) {
            /* 7 chunks (radius + hysteresis each side) and an eighth: 12049 vertices, in 4096
             * steps; the atlas page; the fast-light buffers' first 4096 */
            uint64_t expected = 2048u * 2048u * 4u + 12288u * (16u + 2u) + 4096u * (16u + 8u);
            REQUIRE(first.gpu_bytes == expected && last.gpu_bytes == expected);
            REQUIRE(first.buffer_copies == 0 && last.buffer_copies == 0);
        } else {
            /* 5 x 1530 = 7650 vertices and u16 indices: 4096 -> 8192 each */
            REQUIRE(last.buffer_copies == 2 && last.gpu_bytes > first.gpu_bytes);
        }
        scene_close(s);
    }
    return 0;
}

/* While the view streams in, each material a chunk brought is drawn once with its state into the
 * bound framebuffer, every vertex outside the view (render_world_prime): its one triangle goes
 * through the GL, and no pixel changes; a second wait has nothing left to prime. */
static int test_prime(void)
{
    REQUIRE(write_map("map.pmf", 1));
    scene *s = open_scene("map.pmf", 1);
    REQUIRE(s);
    render_target_bind(&target);
    glClearColor(10 / 255.0f, 20 / 255.0f, 30 / 255.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    look(s, 0);
    GLuint query, primitives[2];
    glGenQueries(1, &query);
    for (int pass = 0; pass < 2; pass++) {
        glBeginQuery(GL_PRIMITIVES_GENERATED, query);
        REQUIRE(scene_wait_view(s, 60));
        glEndQuery(GL_PRIMITIVES_GENERATED);
        glGetQueryObjectuiv(query, GL_QUERY_RESULT, &primitives[pass]);
    }
    glDeleteQueries(1, &query);
    REQUIRE(primitives[0] == 1 && primitives[1] == 0);
    render_target_read(&target, pixels);
    for (int i = 0; i < SIZE * SIZE; i++)
        REQUIRE(near(&pixels[i * 4], 10, 20, 30));
    REQUIRE(near(draw(s), 150, 250, 50));
    scene_close(s);
    return 0;
}

/* PMFVIEW_GL_VERIFY=1 catches a buffer that does not hold its upload: after a verified frame,
 * one vertex of the wall is overwritten behind the renderer's back, the light filter asks for
 * every chunk to be read back again, and the next frame ends the process with exit 3 and one
 * "pmfview: GL verify: vertex buffer ..." line. verify_corrupt does it; verify_catches runs it
 * as a child (this program again: a fork would not carry llvmpipe's threads). */
static int test_verify_corrupt(void)
{
    const char *map = getenv("RT_VERIFY_MAP");
    REQUIRE(map && getenv("PMFVIEW_GL_VERIFY"));
    /* the exit below skips rt_main's clean-up of this run's (empty) directory */
    char dir[512];
    REQUIRE(getcwd(dir, sizeof dir) && chdir("/") == 0 && rmdir(dir) == 0);
    scene *s = open_scene(map, 1);
    REQUIRE(s);
    look(s, 0);
    REQUIRE(scene_wait_view(s, 60));
    draw(s); /* verified: every upload equal */
    /* the world's vertex buffer: what feeds attribute 0 as u16x4 (mesh_vertex.pos) in some VAO */
    GLint vbo = 0;
    for (GLuint vao = 1; vao < 64 && !vbo; vao++) {
        if (!glIsVertexArray(vao))
            continue;
        glBindVertexArray(vao);
        GLint type = 0, size = 0, enabled = 0;
        glGetVertexAttribiv(0, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
        glGetVertexAttribiv(0, GL_VERTEX_ATTRIB_ARRAY_TYPE, &type);
        glGetVertexAttribiv(0, GL_VERTEX_ATTRIB_ARRAY_SIZE, &size);
        if (enabled && type == GL_UNSIGNED_SHORT && size == 4)
            glGetVertexAttribiv(0, GL_VERTEX_ATTRIB_ARRAY_BUFFER_BINDING, &vbo);
    }
    glBindVertexArray(0);
    REQUIRE(vbo);
    static const uint8_t junk[16] = { 0xAB, 0xAB, 0xAB, 0xAB };
    glBindBuffer(GL_COPY_WRITE_BUFFER, (GLuint)vbo);
    glBufferSubData(GL_COPY_WRITE_BUFFER, 0, sizeof junk, junk);
    scene_set_light_filter(s, false, NULL, 0);
    draw(s);
    return 0; /* not reached when verification works */
}

static int test_verify_catches(void)
{
    REQUIRE(write_map("map.pmf", 1));
    char map[600], dir[512];
    REQUIRE(getcwd(dir, sizeof dir));
    snprintf(map, sizeof map, "%s/map.pmf", dir);
    int pipefd[2];
    REQUIRE(pipe(pipefd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        close(pipefd[1]);
        pmf_os_setenv("PMFVIEW_GL_VERIFY", "1");
        pmf_os_setenv("RT_VERIFY_MAP", map);
        execl("/proc/self/exe", "test_render_scene", "-", "verify_corrupt", (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    char text[2048];
    size_t n = 0;
    ssize_t got;
    while (n + 1 < sizeof text && (got = read(pipefd[0], text + n, sizeof text - 1 - n)) > 0)
        n += (size_t)got;
    text[n] = '\0';
    close(pipefd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    fprintf(stderr, "child: %s", text);
    REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    REQUIRE(!strncmp(text, "pmfview: GL verify: vertex buffer byte ", 39));
    REQUIRE(strstr(text, "chunk (0,0,0)") != NULL);
    REQUIRE(n > 0 && strchr(text, '\n') == text + n - 1); /* one line */
    return 0;
}

static const rt_test tests[] = {
    { "verify_catches", test_verify_catches },
    { "verify_corrupt", test_verify_corrupt },
    { "vis_freeze_wire", test_vis_freeze_wire },
    { "runtime_lights", test_runtime_lights },
    { "streaming", test_streaming },
    { "deferred", test_deferred },
    { "reserve_ahead", test_reserve_ahead },
    { "prime", test_prime },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    char err[256];
    render_set_gl_debug(RENDER_GL_DEBUG_FATAL); /* every GL error aborts: the test fails */
    render_headless *ctx = render_headless_create(err, sizeof err);
    if (!ctx) {
        fprintf(stderr, "no headless GL: %s\n", err);
        return 77;
    }
    if (!render_target_create(SIZE, SIZE, 0, &target, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int rc = rt_main(argc, argv, tests);
    render_target_destroy(&target);
    render_headless_destroy(ctx);
    return rc;
}
