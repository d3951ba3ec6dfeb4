/* render_gl.c - loading the GL entry points and recording what the context can do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_gl_api.h"

#include "render.h"
#include "text_clean.h"

static render_caps caps;
static render_gl_debug debug_mode;
static unsigned gl_errors;

void render_set_gl_debug(render_gl_debug mode)
{
    debug_mode = mode;
}

unsigned render_gl_error_count(void)
{
    return gl_errors;
}

#if !RENDER_GLES
static const char *debug_type_name(GLenum type)
{
    switch (type) {
    case GL_DEBUG_TYPE_ERROR: return "error";
    case GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR: return "deprecated";
    case GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR: return "undefined behaviour";
    case GL_DEBUG_TYPE_PORTABILITY: return "portability";
    case GL_DEBUG_TYPE_PERFORMANCE: return "performance";
    default: return "message";
    }
}

static const char *debug_severity_name(GLenum severity)
{
    switch (severity) {
    case GL_DEBUG_SEVERITY_HIGH: return "high";
    case GL_DEBUG_SEVERITY_MEDIUM: return "medium";
    case GL_DEBUG_SEVERITY_LOW: return "low";
    default: return "notification";
    }
}

static void GLAD_API_PTR on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                                     const GLchar *message, const void *user)
{
    (void)source;
    (void)length;
    render_gl_debug mode = *(const render_gl_debug *)user;
    bool error = type == GL_DEBUG_TYPE_ERROR;
    gl_errors += error;
    if (severity == GL_DEBUG_SEVERITY_NOTIFICATION || (mode == RENDER_GL_DEBUG_FATAL && !error))
        return;
    fprintf(stderr, "pmfview: GL %s (%s, id %u): ", debug_type_name(type), debug_severity_name(severity), id);
    text_clean_fputs(message, stderr);
    fputc('\n', stderr);
    if (error && mode == RENDER_GL_DEBUG_FATAL)
        abort(); /* the tests' and debug builds' way of never passing over a GL error */
}

/* Installs the callback on the current context when the mode asks for it and KHR_debug is there. */
static void install_debug_callback(void)
{
    static render_gl_debug active;
    active = debug_mode;
    const char *env = getenv("PMFVIEW_GL_DEBUG");
    if (env && !strcmp(env, "fatal"))
        active = RENDER_GL_DEBUG_FATAL;
    else if (env && !strcmp(env, "1") && active < RENDER_GL_DEBUG_REPORT)
        active = RENDER_GL_DEBUG_REPORT;
#ifndef NDEBUG
    active = RENDER_GL_DEBUG_FATAL;
#endif
    if (active == RENDER_GL_DEBUG_OFF)
        return;
    if (!GLAD_GL_KHR_debug && caps.gl_major * 10 + caps.gl_minor < 43) {
        fputs("pmfview: this OpenGL has no KHR_debug: GL errors are not reported\n", stderr);
        return;
    }
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS); /* the message arrives inside the call at fault */
    glDebugMessageCallback(on_gl_debug, &active);
    glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, NULL, GL_TRUE);
}
#endif

#if RENDER_GLES
/* WebGL2: the context is current already and its functions linked; it has no debug output. */
bool render_load_gl(render_getproc getproc, char *err, size_t err_size)
{
    (void)getproc;
    (void)err;
    (void)err_size;
    (void)gl_errors;
    memset(&caps, 0, sizeof caps);
    caps.gl_major = 3;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &caps.max_renderbuffer_size);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, caps.max_viewport);
    glGetIntegerv(GL_MAX_SAMPLES, &caps.max_samples);
    const char *name = (const char *)glGetString(GL_RENDERER);
    snprintf(caps.renderer, sizeof caps.renderer, "%s", name ? name : "unknown");
    return true;
}
#else
bool render_load_gl(render_getproc getproc, char *err, size_t err_size)
{
    int version = gladLoadGL((GLADloadfunc)getproc);
    if (!version) {
        snprintf(err, err_size, "cannot load the OpenGL functions of the context");
        return false;
    }
    memset(&caps, 0, sizeof caps);
    caps.gl_major = GLAD_VERSION_MAJOR(version);
    caps.gl_minor = GLAD_VERSION_MINOR(version);
    if (caps.gl_major * 10 + caps.gl_minor < 33) {
        snprintf(err, err_size, "OpenGL %d.%d found, 3.3 core needed", caps.gl_major, caps.gl_minor);
        return false;
    }
    caps.multi_draw_indirect = caps.gl_major * 10 + caps.gl_minor >= 43
        || (GLAD_GL_ARB_multi_draw_indirect && GLAD_GL_ARB_base_instance && GLAD_GL_ARB_draw_indirect);
    /* PMFVIEW_GL_BASELINE=1 takes the GL 3.3 path on any context (tests, comparisons). */
    const char *baseline = getenv("PMFVIEW_GL_BASELINE");
    if (baseline && baseline[0] == '1')
        caps.multi_draw_indirect = false;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &caps.max_renderbuffer_size);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, caps.max_viewport);
    glGetIntegerv(GL_MAX_SAMPLES, &caps.max_samples);
    const char *name = (const char *)glGetString(GL_RENDERER);
    snprintf(caps.renderer, sizeof caps.renderer, "%s", name ? name : "unknown");
    install_debug_callback();
    /* Shader variants build in the background where the driver can (render_program_start). */
    if (GLAD_GL_KHR_parallel_shader_compile)
        glMaxShaderCompilerThreadsKHR(0xFFFFFFFFu);
    return true;
}
#endif

const render_caps *render_get_caps(void)
{
    return &caps;
}

void render_wait_idle(void)
{
    glFinish();
}

#if RENDER_GLES
/* WebGL2 has no timer queries: no result. */
void render_gpu_timer_begin(render_gpu_timer *t)
{
    (void)t;
}

void render_gpu_timer_end(const render_gpu_timer *t)
{
    (void)t;
}

double render_gpu_timer_seconds(const render_gpu_timer *t)
{
    (void)t;
    return -1;
}

void render_gpu_timer_destroy(render_gpu_timer *t)
{
    t->query = 0;
}
#else
void render_gpu_timer_begin(render_gpu_timer *t)
{
    if (!t->query)
        glGenQueries(1, &t->query);
    glBeginQuery(GL_TIME_ELAPSED, t->query);
}

void render_gpu_timer_end(const render_gpu_timer *t)
{
    (void)t;
    glEndQuery(GL_TIME_ELAPSED);
}

double render_gpu_timer_seconds(const render_gpu_timer *t)
{
    GLuint ready = 0;
    if (t->query)
        glGetQueryObjectuiv(t->query, GL_QUERY_RESULT_AVAILABLE, &ready);
    if (!ready)
        return -1;
    GLuint64 ns = 0;
    glGetQueryObjectui64v(t->query, GL_QUERY_RESULT, &ns);
    return (double)ns * 1e-9;
}

void render_gpu_timer_destroy(render_gpu_timer *t)
{
    if (t->query)
        glDeleteQueries(1, &t->query);
    t->query = 0;
}
#endif
