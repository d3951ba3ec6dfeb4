/* render_world_variants.c - the world shader's variants: one source (shaders/world.*), a
 * #define per switch, built on demand and kept. A frame draws each material with the smallest
 * variant that gives its pixels exactly (a switch left out adds exactly nothing there).
 *
 * Adding a render mode: render_mode.h (the shader sees MODE == MODE_<NAME>, its name in capitals),
 * its branch in world.frag, and in world_variant_key the switches it has no use for. Adding a switch: a WV_* bit
 * (render_world_internal.h), its name in switch_names, its #if in the shaders, and where it
 * comes from in world_variant_key or world_material_switches. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_world_internal.h"
#include "base/pmf_system.h"

static const char *const switch_names[WV_SWITCH_COUNT] = {
    "FAST_LIGHTS", "LIQUID", "MATCAP", "ADDITIVE", "FOG", "LUXEL_GRID", "WIRE",
};

uint32_t world_variant_key(const render_world *w, const render_frame *f, uint32_t material_switches, bool wire)
{
    if (wire) /* a flat colour where the material's (waved) surface is */
        return WV_WIRE | (material_switches & WV_LIQUID);
    render_mode mode = (unsigned)f->mode < RENDER_MODE_COUNT ? f->mode : RENDER_MODE_FULL;
    uint32_t key = material_switches & (WV_LIQUID | WV_MATCAP | WV_ADDITIVE);
    if (mode == RENDER_MODE_LIGHTMAP)
        key &= ~(uint32_t)WV_MATCAP;
    if (mode != RENDER_MODE_FULLBRIGHT && w->fast_chunks)
        key |= WV_FAST_LIGHTS;
    if (f->fog)
        key |= WV_FOG;
    else
        key &= ~(uint32_t)WV_ADDITIVE;
    if (f->luxel_grid)
        key |= WV_LUXEL_GRID;
    if (mode == RENDER_MODE_DENSITY) /* the lightmap's density alone, on the (waved) surface */
        key &= WV_LIQUID | WV_LUXEL_GRID;
    return key | (uint32_t)mode << WV_MODE_SHIFT;
}

uint32_t world_settings_key(const render_world *w, const render_frame *f)
{
    return world_variant_key(w, f, 0, false) | (f->wireframe ? 1u << 31 : 0u);
}

static world_variant *find(render_world *w, uint32_t key)
{
    for (size_t i = 0; i < w->variant_count; i++)
        if (w->variants[i].key == key)
            return &w->variants[i];
    return NULL;
}

bool world_variant_start(render_world *w, uint32_t key)
{
    if (find(w, key))
        return true;
    if (!grow_array((void **)&w->variants, &w->variant_cap, w->variant_count + 1, sizeof *w->variants))
        return false;
    char defines[512];
    int n = 0;
    for (int m = 0; m < RENDER_MODE_COUNT; m++) {
        n += snprintf(defines + n, sizeof defines - (size_t)n, "#define MODE_");
        for (const char *c = render_mode_name((render_mode)m); *c; c++)
            defines[n++] = (char)toupper((unsigned char)*c);
        n += snprintf(defines + n, sizeof defines - (size_t)n, " %d\n", m);
    }
    n += snprintf(defines + n, sizeof defines - (size_t)n, "#define MODE %u\n", key >> WV_MODE_SHIFT);
    for (int s = 0; s < WV_SWITCH_COUNT; s++)
        n += snprintf(defines + n, sizeof defines - (size_t)n, "#define %s %d\n", switch_names[s], (key >> s) & 1);
    w->variants[w->variant_count++] = (world_variant){
        .key = key, .prog = render_program_start(defines, render_shader_world_vert, render_shader_world_frag),
    };
    return true;
}

static void lookup_uniforms(world_variant *v)
{
    GLuint p = v->prog;
    world_uniforms *u = &v->u;
    u->view_proj = glGetUniformLocation(p, "u_view_proj");
    u->view = glGetUniformLocation(p, "u_view");
    u->uv_offset = glGetUniformLocation(p, "u_uv_offset");
    u->fast_table = glGetUniformLocation(p, "u_fast_table");
    u->fast_vertices = glGetUniformLocation(p, "u_fast_vertices");
    u->wave = glGetUniformLocation(p, "u_wave");
    u->wave_offset = glGetUniformLocation(p, "u_wave_offset");
    u->time = glGetUniformLocation(p, "u_time");
    u->texture = glGetUniformLocation(p, "u_texture");
    u->light_atlas = glGetUniformLocation(p, "u_light_atlas");
    u->matcap = glGetUniformLocation(p, "u_matcap");
    u->color = glGetUniformLocation(p, "u_color");
    u->emission = glGetUniformLocation(p, "u_emission");
    u->shading = glGetUniformLocation(p, "u_shading");
    u->shine = glGetUniformLocation(p, "u_shine");
    u->exposure = glGetUniformLocation(p, "u_exposure");
    u->look = glGetUniformLocation(p, "u_look");
    u->wire_color = glGetUniformLocation(p, "u_wire_color");
    u->fog = glGetUniformLocation(p, "u_fog");
    u->fog_color = glGetUniformLocation(p, "u_fog_color");
    glUseProgram(p);
    glUniform1i(u->texture, 0);
    glUniform1i(u->light_atlas, 1);
    glUniform1i(u->matcap, 2);
    glUniform1i(u->fast_table, 3);
    glUniform1i(u->fast_vertices, 4);
}

world_variant *world_variant_get(render_world *w, uint32_t key, char *err, size_t err_size)
{
    world_variant *v = find(w, key);
    if (!v) {
        if (!world_variant_start(w, key)) {
            snprintf(err, err_size, "out of memory");
            return NULL;
        }
        v = find(w, key);
    }
    if (!v->finished) {
        v->finished = true;
        char name[32];
        snprintf(name, sizeof name, "world 0x%x", key);
        v->prog = render_program_finish(v->prog, name, err, err_size);
        if (!v->prog)
            return NULL;
        lookup_uniforms(v);
    } else if (!v->prog) {
        snprintf(err, err_size, "shader world 0x%x does not build", key);
        return NULL;
    }
    return v;
}

bool render_world_prepare_variants(render_world *w, const render_frame *f, double budget_ms)
{
    /* Everything the materials need under these settings was built already: nothing to look at. */
    uint32_t settings = world_settings_key(w, f);
    if (w->prepared && w->prepared_settings == settings)
        return false;
    double start = pmf_seconds();
    char err[640];
    for (uint32_t m = 0; m < w->lvl->common.material_count; m++) {
        uint32_t switches = world_material_switches(w, m);
        for (int wire = 0; wire <= (int)f->wireframe; wire++) {
            uint32_t key = world_variant_key(w, f, switches, wire);
            world_variant *v = find(w, key);
            if (v && (v->finished || !render_program_ready(v->prog)))
                continue;
            if ((pmf_seconds() - start) * 1000.0 >= budget_ms)
                return true;
            if (!v && !world_variant_start(w, key))
                return false;
            if (render_program_ready(find(w, key)->prog))
                world_variant_get(w, key, err, sizeof err); /* a failure is said when it is drawn */
        }
    }
    w->prepared = true;
    w->prepared_settings = settings;
    return false;
}

void world_variants_release(render_world *w)
{
    for (size_t i = 0; i < w->variant_count; i++)
        if (w->variants[i].prog)
            glDeleteProgram(w->variants[i].prog);
    free(w->variants);
    w->variants = NULL;
    w->variant_count = w->variant_cap = 0;
}
