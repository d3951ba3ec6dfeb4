// world.vert - chunk geometry. Positions are chunk-local; a_chunk moves them to the camera
// chunk's frame (floating origin). Fast-light data is stored only for chunks with fast lights:
// a_fast.x is the chunk's first slot in the fast-light table (-1 = none), and its vertex's
// slots and multipliers are at gl_VertexID (base vertex included) + a_fast.y in u_fast_vertices.
// Variant switches (render_world_variants.c puts them, 0 or 1, before this source):
//   FAST_LIGHTS  the frame has chunks with fast lights;  LIQUID  the material's standing wave;
//   WIRE  the wireframe overlay (no varyings but the position).
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in uvec2 a_lm_uv;       // atlas UV in 1/65536
layout(location = 3) in vec3 a_chunk;        // per draw: chunk offset
layout(location = 4) in float a_page;        // per draw: lightmap atlas page
layout(location = 5) in ivec2 a_fast;        // per draw: fast-light base, fast-vertex delta

uniform mat4 u_view_proj;
uniform mat4 u_view;
uniform vec2 u_uv_offset;                    // UV scroll × time
#if FAST_LIGHTS
uniform samplerBuffer u_fast_table;          // rgb = colour/255 × intensity/255 (0 when disabled)
uniform usamplerBuffer u_fast_vertices;      // RG32UI: x = 4 slot bytes (255 = unused), y = 4 multiplier bytes
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
    vec3 pos = a_pos + a_chunk;
#if LIQUID
    float phase = dot(pos.xz, u_wave.xy) + u_wave_offset;
    pos.y += u_wave.w * sin(phase) * sin(u_wave.z * u_time);
#endif
#if !WIRE
#if FAST_LIGHTS
    vec3 fast = vec3(0.0);
    if (a_fast.x >= 0) {
        uvec2 fv = texelFetch(u_fast_vertices, gl_VertexID + a_fast.y).xy;
        for (int i = 0; i < 4; i++) {
            uint slot = (fv.x >> (8 * i)) & 255u;
            if (slot != 255u)
                fast += texelFetch(u_fast_table, a_fast.x + int(slot)).rgb * (float((fv.y >> (8 * i)) & 255u) / 255.0);
        }
    }
    v_fast = fast;
#endif
    v_uv = a_uv + u_uv_offset;
    v_lm_uv = vec3(vec2(a_lm_uv) * (1.0 / 65536.0), a_page);
    v_view_pos = (u_view * vec4(pos, 1.0)).xyz;
#endif
    gl_Position = u_view_proj * vec4(pos, 1.0);
}
