// world.vert - chunk geometry. Positions and UVs come quantised (src/mesh/mesh.h, vertex
// format): q × step + origin, where a_chunk is the chunk's origin moved to the camera chunk's
// frame (floating origin) and a_uv_frame the batch's UV origin and step. Fast-light data is stored only for chunks with fast lights:
// a_fast.x is the chunk's first slot in the fast-light table (-1 = none), and its vertex's
// slots and multipliers are at gl_VertexID (base vertex included) + a_fast.y in u_fast_vertices,
// for the vertices below a_fast.z (those a fast light reaches come first; the others have none).
// Variant switches (render_world_variants.c puts them, 0 or 1, before this source):
//   FAST_LIGHTS  the frame has chunks with fast lights;  LIQUID  the material's standing wave;
//   WIRE  the wireframe overlay (no varyings but the position).
layout(location = 0) in uvec4 a_pos;        // x, y, z high bits; low bits of x y z u v
layout(location = 1) in uvec2 a_uv;          // u, v high bits
layout(location = 2) in uvec2 a_lm_uv;       // atlas UV in 1/65536
layout(location = 3) in vec3 a_chunk;        // per draw: chunk origin in the camera chunk's frame
layout(location = 4) in float a_page;        // per draw: lightmap atlas page
layout(location = 5) in ivec3 a_fast;        // per draw: fast-light base, fast-vertex delta and end
layout(location = 6) in vec3 a_step;         // per draw: the chunk's position step
layout(location = 7) in vec4 a_uv_frame;     // per draw: the batch's UV origin (xy) and step (zw)

uniform mat4 u_view_proj;
uniform mat4 u_view;
uniform vec2 u_uv_offset;                    // UV scroll × time
#if FAST_LIGHTS
#ifdef GL_ES
// OpenGL ES has no texture buffers: the same texels in 2D textures of 4096 a row
// (src/render/render_gl_api.h RENDER_BUFFER_TEXTURE_WIDTH).
uniform sampler2D u_fast_table;
uniform usampler2D u_fast_vertices;
#define FETCH_BUFFER(t, i) texelFetch(t, ivec2((i) & 4095, (i) >> 12), 0)
#else
uniform samplerBuffer u_fast_table;          // rgb = colour/255 × intensity/255 (0 when disabled)
uniform usamplerBuffer u_fast_vertices;      // RG32UI: x = 4 slot bytes (255 = unused), y = 4 multiplier bytes
#define FETCH_BUFFER(t, i) texelFetch(t, i)
#endif
#endif
#if LIQUID
// Liquids (docs/materials.md): a standing wave along the horizontal wave + wind direction.
uniform vec4 u_wave;                         // xy = horizontal direction, z = angular speed, w = scale
uniform float u_wave_offset;
uniform float u_time;
#endif

#if !WIRE
out vec2 v_uv;
out vec3 v_lm_uv;
out vec3 v_view_pos;
#if FAST_LIGHTS
out vec3 v_fast;
#endif
#endif

void main()
{
    uvec3 q = (a_pos.xyz << 4u) | ((uvec3(a_pos.w) >> uvec3(0u, 4u, 8u)) & 15u);
    vec3 pos = vec3(q) * a_step + a_chunk;
#if LIQUID
    float phase = dot(pos.xz, u_wave.xy) + u_wave_offset;
    pos.y += u_wave.w * sin(phase) * sin(u_wave.z * u_time);
#endif
#if !WIRE
#if FAST_LIGHTS
    vec3 fast = vec3(0.0);
    if (a_fast.x >= 0 && gl_VertexID < a_fast.z) {
        uvec2 fv = FETCH_BUFFER(u_fast_vertices, gl_VertexID + a_fast.y).xy;
        for (int i = 0; i < 4; i++) {
            uint slot = (fv.x >> (8 * i)) & 255u;
            if (slot != 255u)
                fast += FETCH_BUFFER(u_fast_table, a_fast.x + int(slot)).rgb * (float((fv.y >> (8 * i)) & 255u) / 255.0);
        }
    }
    v_fast = fast;
#endif
    uvec2 t = (a_uv << 2u) | ((uvec2(a_pos.w) >> uvec2(12u, 14u)) & 3u);
    v_uv = (vec2(t) * a_uv_frame.zw + a_uv_frame.xy) + u_uv_offset;
    v_lm_uv = vec3(vec2(a_lm_uv) * (1.0 / 65536.0), a_page);
    v_view_pos = (u_view * vec4(pos, 1.0)).xyz;
#endif
    gl_Position = u_view_proj * vec4(pos, 1.0);
}
