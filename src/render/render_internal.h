/* render_internal.h - what the render library's files share and nobody else sees. */
#ifndef PMFVIEW_RENDER_INTERNAL_H
#define PMFVIEW_RENDER_INTERNAL_H

#include "render_gl_api.h"

#include "render.h"

/* Polygons drawn as their edges (true) or filled: glPolygonMode, which OpenGL ES lacks (there
 * they are always filled, and RENDER_HAS_LINES is 0). */
#define RENDER_HAS_LINES (!RENDER_GLES)
static inline void render_polygon_lines(bool lines)
{
#if RENDER_GLES
    (void)lines;
#else
    glPolygonMode(GL_FRONT_AND_BACK, lines ? GL_LINE : GL_FILL);
#endif
}

/* Shader sources embedded at build time (embed_shaders.cmake). */
extern const char render_shader_world_vert[], render_shader_world_frag[];
extern const char render_shader_sky_vert[], render_shader_sky_frag[];

/* Compiles and links a "#version 330 core" ("300 es" under RENDER_GLES) program. 0 with a message on failure. */
GLuint render_program_build(const char *name, const char *vert, const char *frag, char *err, size_t err_size);
/* The same in steps: start asks for the compile and link of "#version 330 core", defines (NULL =
 * none), then each source; ready tells without waiting whether the driver is done (always true
 * without GL_KHR_parallel_shader_compile); finish waits and checks: the program, or 0 with a
 * message (and the program deleted). */
GLuint render_program_start(const char *defines, const char *vert, const char *frag);
bool render_program_ready(GLuint prog);
GLuint render_program_finish(GLuint prog, const char *name, char *err, size_t err_size);

/* First-fit allocator of element ranges inside a growable GL buffer. */
typedef struct render_span { uint32_t offset, size; } render_span;
typedef struct render_arena {
    GLuint buffer;
    GLenum target;
    uint32_t elem_size;              /* bytes per element */
    uint32_t capacity;               /* elements */
    uint32_t copies;                 /* times grown while holding data (copied to a new buffer) */
    uint64_t copied_elements;        /* elements those copies moved: the live spans only */
    uint32_t free_count;
    size_t free_cap;
    render_span *free;               /* sorted by offset, never adjacent */
} render_arena;

void render_arena_init(render_arena *a, GLenum target, uint32_t elem_size);
void render_arena_release(render_arena *a);
/* Allocates count elements; grows the buffer (copying its live spans, new GL name) when needed.
 * *moved is set true when the buffer was replaced. False when out of memory. */
bool render_arena_alloc(render_arena *a, uint32_t count, uint32_t *offset, bool *moved);
void render_arena_free(render_arena *a, uint32_t offset, uint32_t count);
/* Elements allocated (capacity minus the free spans). */
uint64_t render_arena_used(const render_arena *a);
/* Grows the buffer to hold at least capacity elements (rounded up to 4096) in one step; *moved
 * as for render_arena_alloc. False when out of memory (the arena unchanged). */
bool render_arena_reserve(render_arena *a, uint64_t capacity, bool *moved);

#endif
