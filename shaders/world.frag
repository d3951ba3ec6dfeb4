// world.frag - the rendering equation of conventions §3, exactly:
//   a = colour/255 × texel;  L = lightmap (+ enabled dynamic layers, composited) + fast lights
//   out = clamp(k × (a × ((1 - s) + s × L) + e + shine/255 × m), 0, 1)
in vec2 v_uv;
in vec3 v_lm_uv;
in vec3 v_fast;
in vec3 v_view_pos;

uniform sampler2D u_texture;                 // white 1×1 when untextured
uniform sampler2DArray u_light_atlas;        // base + enabled dynamic layers, linear RGB
uniform sampler2D u_matcap;
uniform vec4 u_color;                        // rgb = colour/255, a = alpha/255 (1 when opaque)
uniform vec3 u_emission;
uniform float u_shading;
uniform float u_shine;                       // 0 when the material has no matcap
uniform float u_exposure;
uniform int u_mode;                          // 0 full, 1 lightmap, 2 fullbright
uniform int u_wire;                          // 1: flat wireframe colour
uniform vec4 u_wire_color;
uniform int u_luxel_grid;                   // 1: darken lightmap luxel edges (density check)
uniform vec3 u_fog;                          // x = start, y = full (metres from the eye), z = 1 on
uniform vec3 u_fog_color;
uniform int u_additive;                      // additive materials fade out instead

out vec4 o_color;

// Atlas texels are the lightmaps' luxels one to one, so their edges are the luxel grid.
vec3 luxel_grid(vec3 c)
{
    if (u_luxel_grid == 0)
        return c;
    vec2 t = v_lm_uv.xy * vec2(textureSize(u_light_atlas, 0).xy);
    vec2 from_edge = abs(fract(t) - 0.5);
    vec2 line = smoothstep(vec2(0.5) - fwidth(t), vec2(0.5), from_edge);
    return mix(c, vec3(1.0, 0.85, 0.1), 0.7 * max(line.x, line.y));
}

// Distance fog (docs/viewer.md): full at the streaming radius, where the drawn world ends.
vec4 fogged(vec4 c)
{
    if (u_fog.z == 0.0)
        return c;
    float f = clamp((length(v_view_pos) - u_fog.x) / max(u_fog.y - u_fog.x, 1e-3), 0.0, 1.0);
    return u_additive != 0 ? vec4(c.rgb * (1.0 - f), c.a) : vec4(mix(c.rgb, u_fog_color, f), c.a);
}

void main()
{
    if (u_wire != 0) {
        o_color = u_wire_color;
        return;
    }
    vec3 L = texture(u_light_atlas, v_lm_uv).rgb + v_fast;
    if (u_mode == 1) {
        o_color = fogged(vec4(luxel_grid(clamp(u_exposure * L, 0.0, 1.0)), 1.0));
        return;
    }
    if (u_mode == 2)
        L = vec3(1.0);
    vec4 texel = texture(u_texture, v_uv);
    vec3 a = u_color.rgb * texel.rgb;
    vec3 m = vec3(0.0);
    if (u_shine > 0.0) {
        // No normal attribute: the face normal from screen-space derivatives of the view position.
        vec3 n = normalize(cross(dFdx(v_view_pos), dFdy(v_view_pos)));
        m = texture(u_matcap, vec2(0.5 + 0.5 * n.x, 0.5 - 0.5 * n.y)).rgb;
    }
    vec3 lit = a * ((1.0 - u_shading) + u_shading * L) + u_emission + u_shine * m;
    o_color = fogged(vec4(luxel_grid(clamp(u_exposure * lit, 0.0, 1.0)), u_color.a * texel.a));
}
