/* render_models.c - entities' models: a VAO and a skin texture per model (render_models.h). */
#include "render_models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

typedef struct model_gl {
    GLuint vao, vbo, skin;
    GLsizei vertices;
    float lo[3], hi[3];              /* its positions' bounds */
    bool owns_skin;                  /* false: another model's (render_models_add_pose) */
} model_gl;

struct render_models {
    GLuint program;
    GLint u_transform, u_skin, u_light, u_cut;
    model_gl *models;
    size_t count, capacity;
};

/* Embedded from shaders/model.vert and shaders/model.frag (embed_shaders.cmake). */
extern const char render_shader_model_vert[], render_shader_model_frag[];

render_models *render_models_create(char *err, size_t err_size)
{
    GLuint prog = render_program_build("model", render_shader_model_vert, render_shader_model_frag, err, err_size);
    if (!prog)
        return NULL;
    render_models *rm = calloc(1, sizeof *rm);
    if (!rm) {
        snprintf(err, err_size, "out of memory");
        glDeleteProgram(prog);
        return NULL;
    }
    rm->program = prog;
    rm->u_transform = glGetUniformLocation(prog, "u_transform");
    rm->u_skin = glGetUniformLocation(prog, "u_skin");
    rm->u_light = glGetUniformLocation(prog, "u_light");
    rm->u_cut = glGetUniformLocation(prog, "u_cut");
    return rm;
}

void render_models_destroy(render_models *rm)
{
    if (!rm)
        return;
    for (size_t i = 0; i < rm->count; i++) {
        glDeleteBuffers(1, &rm->models[i].vbo);
        glDeleteVertexArrays(1, &rm->models[i].vao);
        if (rm->models[i].owns_skin)
            glDeleteTextures(1, &rm->models[i].skin);
    }
    glDeleteProgram(rm->program);
    free(rm->models);
    free(rm);
}

/* A mesh's positions' bounds. */
static void position_bounds(model_gl *m, const float *positions, size_t corners)
{
    for (int k = 0; k < 3; k++) {
        m->lo[k] = corners ? positions[k] : 0;
        m->hi[k] = m->lo[k];
    }
    for (size_t c = 1; c < corners; c++)
        for (int k = 0; k < 3; k++) {
            m->lo[k] = fminf(m->lo[k], positions[3 * c + k]);
            m->hi[k] = fmaxf(m->hi[k], positions[3 * c + k]);
        }
}

/* The mesh's triangles into a new model (its skin left to the caller): its slot, or NULL. */
static model_gl *add_triangles(render_models *rm, const render_model_mesh *mesh)
{
    if (rm->count == rm->capacity) {
        size_t cap = rm->capacity ? rm->capacity * 2 : 16;
        model_gl *grown = realloc(rm->models, cap * sizeof *grown);
        if (!grown)
            return NULL;
        rm->models = grown;
        rm->capacity = cap;
    }
    size_t corners = (size_t)mesh->triangle_count * 3, positions = corners * 3 * sizeof(float);
    model_gl *m = &rm->models[rm->count];
    m->vertices = (GLsizei)corners;
    position_bounds(m, mesh->positions, corners);
    /* the positions, then the texture places: a pose drawn again rewrites the first alone */
    glGenVertexArrays(1, &m->vao);
    glGenBuffers(1, &m->vbo);
    glBindVertexArray(m->vao);
    glBindBuffer(GL_ARRAY_BUFFER, m->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(corners * 5 * sizeof(float)), NULL, GL_STATIC_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)positions, mesh->positions);
    glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)positions, (GLsizeiptr)(corners * 2 * sizeof(float)), mesh->uvs);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 2 * sizeof(float), (void *)positions);
    glBindVertexArray(0);
    return m;
}

int render_models_add(render_models *rm, const render_model_mesh *mesh)
{
    model_gl *m = add_triangles(rm, mesh);
    if (!m)
        return -1;
    m->owns_skin = true;
    glGenTextures(1, &m->skin);
    glBindTexture(GL_TEXTURE_2D, m->skin);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)mesh->skin_width, (GLsizei)mesh->skin_height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 mesh->rgba);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glBindTexture(GL_TEXTURE_2D, 0);
    return (int)rm->count++;
}

int render_models_add_pose(render_models *rm, int like, const render_model_mesh *mesh)
{
    if (like < 0 || (size_t)like >= rm->count)
        return -1;
    GLuint skin = rm->models[like].skin;
    model_gl *m = add_triangles(rm, mesh);
    if (!m)
        return -1;
    m->owns_skin = false;
    m->skin = skin;
    return (int)rm->count++;
}

bool render_models_set_positions(render_models *rm, int model, const float *positions, uint32_t triangle_count)
{
    if (model < 0 || (size_t)model >= rm->count || (size_t)triangle_count * 3 != (size_t)rm->models[model].vertices)
        return false;
    model_gl *m = &rm->models[model];
    position_bounds(m, positions, (size_t)m->vertices);
    glBindBuffer(GL_ARRAY_BUFFER, m->vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)((size_t)m->vertices * 3 * sizeof(float)), positions);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return true;
}

#define MODEL_HOLE_CUT (127.0f / 255.0f)  /* an alias or studio model's texels under half opacity are holes */

void render_models_draw(render_models *rm, int model, const float transform[16], const float light[3])
{
    render_model_look look = { RENDER_MODEL_OPAQUE, { light[0], light[1], light[2], 1 }, MODEL_HOLE_CUT, false };
    render_models_draw_look(rm, model, transform, &look);
}

static void set_blend(render_model_blend blend)
{
    if (blend == RENDER_MODEL_GLOW)
        glDisable(GL_DEPTH_TEST);
    else
        glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(blend == RENDER_MODEL_OPAQUE ? GL_TRUE : GL_FALSE);
    if (blend == RENDER_MODEL_OPAQUE) {
        glDisable(GL_BLEND);
        return;
    }
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_SRC_ALPHA, blend == RENDER_MODEL_ALPHA ? GL_ONE_MINUS_SRC_ALPHA : GL_ONE);
}

void render_models_draw_look(render_models *rm, int model, const float transform[16], const render_model_look *look)
{
    if (model < 0 || (size_t)model >= rm->count)
        return;
    const model_gl *m = &rm->models[model];
    glUseProgram(rm->program);
    glUniformMatrix4fv(rm->u_transform, 1, GL_FALSE, transform);
    glUniform1i(rm->u_skin, 0);
    glUniform4fv(rm->u_light, 1, look->colour);
    glUniform1f(rm->u_cut, look->cut);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, m->skin);
    glDisable(GL_CULL_FACE);
    render_polygon_lines(false);
    glBindVertexArray(m->vao);
    if (look->nearest_layer && look->blend != RENDER_MODEL_OPAQUE) {
        set_blend(RENDER_MODEL_OPAQUE);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        glDrawArrays(GL_TRIANGLES, 0, m->vertices);
    }
    set_blend(look->blend);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_FALSE);  /* the target's alpha stays the world's, as its blending keeps it */
    glDrawArrays(GL_TRIANGLES, 0, m->vertices);
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    if (look->blend != RENDER_MODEL_OPAQUE) {
        glDisable(GL_BLEND);
        glDepthMask(GL_TRUE);
        glEnable(GL_DEPTH_TEST);
    }
}

bool render_models_bounds(const render_models *rm, int model, float lo[3], float hi[3])
{
    if (model < 0 || (size_t)model >= rm->count)
        return false;
    memcpy(lo, rm->models[model].lo, sizeof rm->models[model].lo);
    memcpy(hi, rm->models[model].hi, sizeof rm->models[model].hi);
    return true;
}
