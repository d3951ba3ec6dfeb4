/* render_program.c - GLSL program building from the embedded sources. */
#include <stdio.h>

#include "render_internal.h"

static GLuint compile(GLenum type, const char *name, const char *src, char *err, size_t err_size)
{
    const char *parts[2] = { "#version 330 core\n", src };
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 2, parts, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[512] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        for (char *p = log; *p; p++)
            if (*p == '\n')
                *p = ' ';
        snprintf(err, err_size, "shader %s (%s) does not compile: %s", name,
                 type == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
        glDeleteShader(sh);
        return 0;
    }
    return sh;
}

GLuint render_program_build(const char *name, const char *vert, const char *frag, char *err, size_t err_size)
{
    GLuint vs = compile(GL_VERTEX_SHADER, name, vert, err, err_size);
    if (!vs)
        return 0;
    GLuint fs = compile(GL_FRAGMENT_SHADER, name, frag, err, err_size);
    if (!fs) {
        glDeleteShader(vs);
        return 0;
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[512] = "";
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        for (char *p = log; *p; p++)
            if (*p == '\n')
                *p = ' ';
        snprintf(err, err_size, "shader %s does not link: %s", name, log);
        glDeleteProgram(prog);
        return 0;
    }
    return prog;
}
