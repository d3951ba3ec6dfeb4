/* bench_draw.c - figure 3's baseline: the triangles of the chunks a fly path sees, read with the
 * PMF reader into ONE vertex buffer and ONE index buffer before timing starts, then drawn along
 * the same path with one draw call per frame (glMultiDrawElements over the chunks whose box meets
 * the frustum), each frame timed to glFinish.
 *
 *   bench_draw FILE --path FILE --frames N [--radius N] [--size WxH] [--fov DEG] [--level N]
 *
 * Same defaults as `pmfview shot` (radius 8, 1280x720, 75 degrees). The shader samples a texture
 * by UV and a lightmap by lightmap UV and multiplies them; back faces are culled, counter-clockwise
 * is front. Prints "chunks: N", "vertices: N", "triangles per frame: N" (average),
 * "draw calls per frame: 1" and "average frame time: T ms".
 *
 *   bench_draw FILE --camera X,Y,Z,YAW,PITCH|start --png OUT.png [--radius N] [--size WxH] ...
 *
 * Figure 2's lower bound: the floor program's work plus drawing the view's triangles, nothing
 * else. The view is read into the buffers first (one thread, before any GL), then the context,
 * one frame with no warm-up (textures without mipmaps), the read-back and the PNG written by
 * shot's writer. Prints "cpu before the context: A s" and "cpu to the png: T s" (process CPU
 * time, all threads): T - A is what drawing the picture costs past reading the map. `start` is
 * the camera `pmfview shot` takes by default: the level's first start camera, else the origin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include "bench_gl.h"
#include "bench_view.h"
#include "pmf_cameras.h"
#include "png_write.h"

typedef struct draw_vertex {
    float xyz[3];                    /* relative to the origin chunk's centre */
    float uv[2];
    float lm_uv[2];
} draw_vertex;

typedef struct draw_chunk {
    uint64_t grid;                   /* pmf_grid_index */
    size_t first_index, index_count;
} draw_chunk;

typedef struct draw_mesh {
    draw_vertex *vertices;
    size_t vertex_count, vertex_cap;
    uint32_t *indices;
    size_t index_count, index_cap;
} draw_mesh;

static const char vertex_src[] =
    "#version 450 core\n"
    "layout(location = 0) in vec3 pos;\n"
    "layout(location = 1) in vec2 uv;\n"
    "layout(location = 2) in vec2 lm_uv;\n"
    "uniform mat4 view_proj;\n"
    "out vec2 v_uv, v_lm_uv;\n"
    "void main() { v_uv = uv; v_lm_uv = lm_uv; gl_Position = view_proj * vec4(pos, 1.0); }\n";
static const char fragment_src[] =
    "#version 450 core\n"
    "in vec2 v_uv, v_lm_uv;\n"
    "layout(binding = 0) uniform sampler2D tex;\n"
    "layout(binding = 1) uniform sampler2D lightmap;\n"
    "out vec4 color;\n"
    "void main() { color = vec4(texture(tex, v_uv).rgb * texture(lightmap, v_lm_uv).rgb, 1.0); }\n";

static double process_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec
           + ru.ru_stime.tv_usec * 1e-6;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool push_index(draw_mesh *m, uint32_t index)
{
    if (m->index_count == m->index_cap) {
        size_t cap = m->index_cap ? m->index_cap * 2 : 1 << 16;
        uint32_t *grown = realloc(m->indices, cap * sizeof *grown);
        if (!grown)
            return false;
        m->indices = grown;
        m->index_cap = cap;
    }
    m->indices[m->index_count++] = index;
    return true;
}

/* Appends a chunk's vertices (moved by offset) and the triangles of the cubes reachable from its root. */
static bool append_chunk(draw_mesh *m, const pmf_chunk *ch, const float offset[3])
{
    const pmf_chunk_common *co = &ch->common;
    const pmf_chunk_client *cl = &ch->client;
    if (m->vertex_count + cl->vertex_count > m->vertex_cap) {
        size_t cap = m->vertex_cap ? m->vertex_cap : 1 << 16;
        while (cap < m->vertex_count + cl->vertex_count)
            cap *= 2;
        draw_vertex *grown = realloc(m->vertices, cap * sizeof *grown);
        if (!grown)
            return false;
        m->vertices = grown;
        m->vertex_cap = cap;
    }
    uint32_t base = (uint32_t)m->vertex_count;
    for (uint32_t i = 0; i < cl->vertex_count; i++) {
        const pmf_vertex *v = &cl->vertices[i];
        draw_vertex *d = &m->vertices[m->vertex_count++];
        for (int a = 0; a < 3; a++)
            d->xyz[a] = v->xyz[a] + offset[a];
        memcpy(d->uv, v->uv, sizeof d->uv);
        memcpy(d->lm_uv, v->lm_uv, sizeof d->lm_uv);
    }
    /* The reader has checked the tree (no cycles, depth <= 24) and every vertex range. */
    uint32_t stack[8 * 25], depth = 0;
    stack[depth++] = 0;
    while (depth) {
        uint32_t c = stack[--depth];
        const pmf_cube *cube = &co->cubes[c];
        const pmf_client_cube *cc = &cl->cubes[c];
        bool ok = true;
        if (cube->type == PMF_CUBE_PARENT) {
            for (int o = 0; o < 8; o++)
                if (cube->u.parent.child_mask & (1u << o))
                    stack[depth++] = cube->u.parent.children[o];
        } else if (cube->type == PMF_CUBE_GEOMETRY) {
            uint32_t v = base + cc->u.geom.first_vertex;
            for (int f = 0; f < PMF_FACE_COUNT; f++) {
                if (!(cc->u.geom.face_mask & (1u << f)))
                    continue;
                ok = ok && push_index(m, v) && push_index(m, v + 1) && push_index(m, v + 2) && push_index(m, v) &&
                     push_index(m, v + 2) && push_index(m, v + 3);
                v += 4;
            }
        } else if (cube->type == PMF_CUBE_EXTGEOMETRY) {
            uint32_t v = base + cc->u.ext.first_vertex, triangles = 0;
            for (int f = 0; f < PMF_FACE_COUNT; f++)
                triangles += cc->u.ext.tri_count[f];
            for (uint32_t i = 0; i < triangles * 3 && ok; i++)
                ok = push_index(m, v + i);
        }
        if (!ok)
            return false;
    }
    return true;
}

static GLuint compile(GLenum type, const char *src)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "bench_draw: shader: %s\n", log);
    }
    return s;
}

/* A texture of side `side`: a mipmapped checker when checker, else a smooth light gradient;
 * no mipmaps at all when plain. */
static GLuint make_texture(int side, bool checker, bool plain)
{
    uint8_t *px = malloc((size_t)side * side * 4);
    if (!px)
        return 0;
    for (int y = 0; y < side; y++)
        for (int x = 0; x < side; x++) {
            uint8_t *p = &px[((size_t)y * side + x) * 4];
            uint8_t v = checker ? (((x / 8) ^ (y / 8)) & 1 ? 200 : 120) : (uint8_t)(128 + (x + y) * 127 / (2 * side));
            p[0] = v;
            p[1] = v;
            p[2] = v;
            p[3] = 255;
        }
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, side, side, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    if (!plain)
        glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, checker && !plain ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, checker ? GL_REPEAT : GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, checker ? GL_REPEAT : GL_CLAMP_TO_EDGE);
    free(px);
    return t;
}

static draw_chunk *find_chunk(draw_chunk *chunks, size_t count, uint64_t grid)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (chunks[mid].grid < grid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && chunks[lo].grid == grid ? &chunks[lo] : NULL;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *path_file = NULL, *camera = NULL, *png = NULL;
    bench_projection proj = { 75.0f, 0 };
    int radius = 8, width = 1280, height = 720, frames = 0;
    unsigned level = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        bool ok = true;
        if (argv[i][0] != '-') {
            path = argv[i];
            continue;
        }
        if (!strcmp(argv[i], "--path"))
            path_file = v;
        else if (!strcmp(argv[i], "--camera"))
            camera = v;
        else if (!strcmp(argv[i], "--png"))
            png = v;
        else if (!strcmp(argv[i], "--frames"))
            ok = sscanf(v, "%d", &frames) == 1 && frames > 0;
        else if (!strcmp(argv[i], "--radius"))
            ok = sscanf(v, "%d", &radius) == 1 && radius > 0;
        else if (!strcmp(argv[i], "--size"))
            ok = sscanf(v, "%dx%d", &width, &height) == 2 && width > 0 && height > 0 && width <= 8192 && height <= 8192;
        else if (!strcmp(argv[i], "--fov"))
            ok = sscanf(v, "%f", &proj.fov_y) == 1;
        else if (!strcmp(argv[i], "--level"))
            ok = sscanf(v, "%u", &level) == 1;
        else
            ok = false;
        if (!ok || i + 1 >= argc) {
            fprintf(stderr, "bench_draw: bad option '%s'\n", argv[i]);
            return 1;
        }
        i++;
    }
    if (png && camera && !path_file && !frames)
        frames = 1;
    if (!path || !frames || !(path_file ? !camera && !png : camera && png)) {
        fputs("usage: bench_draw FILE --path FILE --frames N [--radius N] [--size WxH] [--fov DEG] [--level N]\n"
              "       bench_draw FILE --camera X,Y,Z,YAW,PITCH --png OUT.png [--radius N] [--size WxH] [--fov DEG] [--level N]\n",
              stderr);
        return 1;
    }
    proj.aspect = (float)width / (float)height;
    size_t path_count = 1;
    bench_camera *cams = path_file ? bench_path_read(path_file, &path_count) : malloc(sizeof *cams);
    if (!cams)
        return 2;
    bool start_camera = camera && !strcmp(camera, "start");
    if (camera && !start_camera && !bench_camera_parse(camera, cams)) {
        fprintf(stderr, "bench_draw: --camera wants X,Y,Z,YAW,PITCH\n");
        free(cams);
        return 1;
    }
    pmf_error err;
    char msg[768];
    pmf_file *f = pmf_open(path, &err);
    if (!f) {
        fprintf(stderr, "bench_draw: %s\n", pmf_error_format(&err, msg, sizeof msg));
        free(cams);
        return 2;
    }
    if (level >= f->level_count) {
        fprintf(stderr, "bench_draw: %s has no level %u\n", path, level);
        return 2;
    }
    const pmf_level_info *li = &f->levels[level];
    if (start_camera) {
        pmf_cameras starts;
        if (!pmf_cameras_read(f, &starts, &err)) {
            fprintf(stderr, "bench_draw: %s\n", pmf_error_format(&err, msg, sizeof msg));
            return 2;
        }
        *cams = (bench_camera){ { 0, 0, 0 }, 0, 0 };
        for (uint32_t i = 0; i < starts.count; i++) {
            const pmf_camera *c = &starts.list[i];
            if (c->level == level) {
                *cams = (bench_camera){ { c->pos[0], c->pos[1], c->pos[2] }, c->yaw, c->pitch };
                break;
            }
        }
        pmf_cameras_free(&starts);
    }

    /* Every chunk some frame of the path sees, in grid order. */
    uint64_t *grids = NULL;
    size_t grid_count = 0, grid_cap = 0;
    pmf_chunk_coord *coords = NULL;
    size_t coord_cap = 0;
    for (int i = 0; i < frames; i++) {
        bench_camera cam = camera_path_pose(cams, path_count, i, frames);
        size_t n = bench_chunks_in_view(li, &cam, &proj, radius, NULL, 0);
        if (n > coord_cap) {
            coord_cap = n;
            coords = realloc(coords, coord_cap * sizeof *coords);
        }
        if (grid_count + n > grid_cap) {
            grid_cap = (grid_count + n) * 2;
            grids = realloc(grids, grid_cap * sizeof *grids);
        }
        if ((n && !coords) || (grid_cap && !grids)) {
            fputs("bench_draw: out of memory\n", stderr);
            return 3;
        }
        bench_chunks_in_view(li, &cam, &proj, radius, coords, n);
        for (size_t k = 0; k < n; k++)
            grids[grid_count++] = pmf_grid_index(li, coords[k].x, coords[k].y, coords[k].z);
        /* Keep the list unique as it grows so a long path does not pile up duplicates. */
        qsort(grids, grid_count, sizeof *grids, compare_u64);
        size_t u = 0;
        for (size_t k = 0; k < grid_count; k++)
            if (!u || grids[u - 1] != grids[k])
                grids[u++] = grids[k];
        grid_count = u;
    }

    int32_t origin[3];
    bench_camera_chunk(li, &cams[0], origin);
    pmf_level lvl;
    if (!pmf_level_read(f, level, PMF_PART_COMMON | PMF_PART_CLIENT, &lvl, &err)) {
        fprintf(stderr, "bench_draw: %s\n", pmf_error_format(&err, msg, sizeof msg));
        return 2;
    }
    draw_chunk *chunks = calloc(grid_count ? grid_count : 1, sizeof *chunks);
    draw_mesh mesh = { 0 };
    double side = (double)(1u << li->chunk_size_exp);
    for (size_t k = 0; k < grid_count; k++) {
        uint64_t g = grids[k];
        pmf_chunk_coord c = { (uint32_t)(g / li->count_z % li->count_x), (uint32_t)(g / li->count_z / li->count_x),
                              (uint32_t)(g % li->count_z) };
        pmf_chunk ch;
        if (!pmf_chunk_read(f, &lvl, level, c, PMF_PART_COMMON | PMF_PART_CLIENT, &ch, &err)) {
            fprintf(stderr, "bench_draw: %s\n", pmf_error_format(&err, msg, sizeof msg));
            return 2;
        }
        const float offset[3] = { (float)(((int32_t)c.x - origin[0]) * side), (float)(((int32_t)c.y - origin[1]) * side),
                                  (float)(((int32_t)c.z - origin[2]) * side) };
        chunks[k].grid = g;
        chunks[k].first_index = mesh.index_count;
        if (!append_chunk(&mesh, &ch, offset)) {
            fputs("bench_draw: out of memory\n", stderr);
            return 3;
        }
        chunks[k].index_count = mesh.index_count - chunks[k].first_index;
        pmf_chunk_free(&ch);
    }
    pmf_level_free(&lvl);
    double cpu_loaded = process_cpu_seconds();

    char gl_err[256];
    bench_gl *gl = bench_gl_create(gl_err, sizeof gl_err);
    if (!gl) {
        fprintf(stderr, "bench_draw: %s\n", gl_err);
        return 3;
    }
    GLuint fbo, rb[2];
    glGenFramebuffers(1, &fbo);
    glGenRenderbuffers(2, rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);

    GLuint program = glCreateProgram();
    GLuint vs = compile(GL_VERTEX_SHADER, vertex_src), fs = compile(GL_FRAGMENT_SHADER, fragment_src);
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    GLint linked;
    glGetProgramiv(program, GL_LINK_STATUS, &linked);
    if (!linked) {
        fputs("bench_draw: the shader program does not link\n", stderr);
        return 3;
    }
    glUseProgram(program);
    GLint view_proj_loc = glGetUniformLocation(program, "view_proj");

    GLuint vao, buffers[2];
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(2, buffers);
    glBindBuffer(GL_ARRAY_BUFFER, buffers[0]);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(mesh.vertex_count * sizeof(draw_vertex)), mesh.vertices, GL_STATIC_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, buffers[1]);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(mesh.index_count * sizeof(uint32_t)), mesh.indices, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(draw_vertex), (void *)offsetof(draw_vertex, xyz));
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(draw_vertex), (void *)offsetof(draw_vertex, uv));
    glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, sizeof(draw_vertex), (void *)offsetof(draw_vertex, lm_uv));
    for (GLuint a = 0; a < 3; a++)
        glEnableVertexAttribArray(a);
    free(mesh.vertices);
    free(mesh.indices);

    GLuint textures[2] = { make_texture(64, true, png != NULL), make_texture(256, false, png != NULL) };
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, textures[0]);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, textures[1]);

    glViewport(0, 0, width, height);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    glFrontFace(GL_CCW);
    glCullFace(GL_BACK);
    glClearColor(0, 0, 0, 1);

    GLsizei *counts = malloc((grid_count ? grid_count : 1) * sizeof *counts);
    const void **offsets = malloc((grid_count ? grid_count : 1) * sizeof *offsets);
    if (!counts || !offsets || !chunks) {
        fputs("bench_draw: out of memory\n", stderr);
        return 3;
    }
    double total = 0;
    uint64_t triangles = 0;
    /* Frame -1 is a warm-up (shader and texture first use), not timed; none for the first frame. */
    for (int i = png ? 0 : -1; i < frames; i++) {
        bench_camera cam = camera_path_pose(cams, path_count, i < 0 ? 0 : i, frames);
        size_t n = bench_chunks_in_view(li, &cam, &proj, radius, coords, coord_cap);
        GLsizei draws = 0;
        for (size_t k = 0; k < n; k++) {
            draw_chunk *dc = find_chunk(chunks, grid_count, pmf_grid_index(li, coords[k].x, coords[k].y, coords[k].z));
            if (!dc || !dc->index_count)
                continue;
            counts[draws] = (GLsizei)dc->index_count;
            offsets[draws++] = (const void *)(dc->first_index * sizeof(uint32_t));
            if (i >= 0)
                triangles += dc->index_count / 3;
        }
        mat4 vp;
        bench_view_proj(li, &cam, &proj, origin, vp);
        double t0 = now_seconds();
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glUniformMatrix4fv(view_proj_loc, 1, GL_FALSE, (const float *)vp);
        glMultiDrawElements(GL_TRIANGLES, counts, GL_UNSIGNED_INT, offsets, draws);
        glFinish();
        if (i >= 0)
            total += now_seconds() - t0;
    }
    if (png) {
        uint8_t *rgba = malloc((size_t)width * height * 4);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        if (rgba) {
            glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
            /* GL's rows run bottom-up, a PNG's top-down (as shot writes it) */
            size_t row = (size_t)width * 4;
            uint8_t tmp[4 * 8192];
            for (int y = 0; y < height / 2; y++) {
                memcpy(tmp, rgba + y * row, row);
                memcpy(rgba + y * row, rgba + (height - 1 - y) * row, row);
                memcpy(rgba + (height - 1 - y) * row, tmp, row);
            }
        }
        if (!rgba || !png_write_rgba(png, (unsigned)width, (unsigned)height, rgba, gl_err, sizeof gl_err)) {
            fprintf(stderr, "bench_draw: %s: %s\n", png, rgba ? gl_err : "out of memory");
            return 3;
        }
        free(rgba);
        printf("cpu before the context: %.6f s\ncpu to the png: %.6f s\n", cpu_loaded, process_cpu_seconds());
    }
    GLenum gl_error = glGetError();
    printf("chunks: %zu\nvertices: %zu\ntriangles per frame: %.0f\ndraw calls per frame: 1\n"
           "average frame time: %.3f ms\n",
           grid_count, (size_t)mesh.vertex_count, (double)triangles / frames, total / frames * 1000.0);
    if (gl_error != GL_NO_ERROR)
        fprintf(stderr, "bench_draw: GL error 0x%x\n", gl_error);

    glDeleteTextures(2, textures);
    glDeleteBuffers(2, buffers);
    glDeleteVertexArrays(1, &vao);
    glDeleteProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    glDeleteRenderbuffers(2, rb);
    glDeleteFramebuffers(1, &fbo);
    bench_gl_destroy(gl);
    free(counts);
    free(offsets);
    free(chunks);
    free(coords);
    free(grids);
    free(cams);
    pmf_close(f);
    return gl_error == GL_NO_ERROR ? 0 : 3;
}
