/* render_program.c - GLSL program building from the embedded sources. A program is started
 * (compile and link asked for) and finished (status checked) apart, so that with
 * GL_KHR_parallel_shader_compile the driver builds it while the caller does other work. */
#include <stdio.h>

#include "render_internal.h"

/* GLSL ES has no default precision for floats in fragment shaders nor for these samplers. */
#if RENDER_GLES
#define SHADER_VERSION "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n" \
    "precision highp sampler2DArray;\nprecision highp usampler2D;\n"
#else
#define SHADER_VERSION "#version 330 core\n"
#endif

static GLuint start_shader(GLenum type, const char *defines, const char *src)
{
    const char *parts[3] = { SHADER_VERSION, defines ? defines : "", src };
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 3, parts, NULL);
    glCompileShader(sh);
    return sh;
}

/* The GL's log on one line (its newlines would break the one-line error). */
static void one_line(char *log)
{
    for (char *p = log; *p; p++)
        if (*p == '\n')
            *p = ' ';
}

GLuint render_program_start(const char *defines, const char *vert, const char *frag)
{
    GLuint prog = glCreateProgram();
    GLuint vs = start_shader(GL_VERTEX_SHADER, defines, vert);
    GLuint fs = start_shader(GL_FRAGMENT_SHADER, defines, frag);
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
#if !RENDER_GLES
    /* Flagged for deletion: they go with the program, or when render_program_finish detaches them.
     * (WebGL forgets a deleted shader's name at once: there render_program_finish deletes them.) */
    glDeleteShader(vs);
    glDeleteShader(fs);
#endif
    return prog;
}

bool render_program_ready(GLuint prog)
{
#if RENDER_GLES
    (void)prog;
    return true;
#else
    if (!GLAD_GL_KHR_parallel_shader_compile)
        return true;
    GLint done = GL_TRUE;
    glGetProgramiv(prog, GL_COMPLETION_STATUS_KHR, &done);
    return done;
#endif
}

/* The program's shaders once it is checked: deleted under WebGL (render_program_start). */
static void release_shaders(const GLuint *shaders, GLsizei count)
{
#if RENDER_GLES
    for (GLsizei i = 0; i < count; i++)
        glDeleteShader(shaders[i]);
#else
    (void)shaders;
    (void)count;
#endif
}

GLuint render_program_finish(GLuint prog, const char *name, char *err, size_t err_size)
{
    GLuint shaders[2];
    GLsizei count = 0;
    glGetAttachedShaders(prog, 2, &count, shaders);
    GLint ok = 0;
    char log[512] = "";
    for (GLsizei i = 0; i < count; i++) {
        glGetShaderiv(shaders[i], GL_COMPILE_STATUS, &ok);
        if (!ok) {
            GLint type = 0;
            glGetShaderiv(shaders[i], GL_SHADER_TYPE, &type);
            glGetShaderInfoLog(shaders[i], sizeof log, NULL, log);
            one_line(log);
            snprintf(err, err_size, "shader %s (%s) does not compile: %s", name,
                     type == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
            glDeleteProgram(prog);
            release_shaders(shaders, count);
            return 0;
        }
    }
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        one_line(log);
        snprintf(err, err_size, "shader %s does not link: %s", name, log);
        glDeleteProgram(prog);
        release_shaders(shaders, count);
        return 0;
    }
    for (GLsizei i = 0; i < count; i++)
        glDetachShader(prog, shaders[i]);
    release_shaders(shaders, count);
    return prog;
}

GLuint render_program_build(const char *name, const char *vert, const char *frag, char *err, size_t err_size)
{
    return render_program_finish(render_program_start(NULL, vert, frag), name, err, err_size);
}
