// world.frag - the rendering equation of conventions §3, exactly:
//   a = colour/255 × texel;  L = lightmap (+ enabled dynamic layers, composited) + fast lights
//   out = clamp(k × (a × ((1 - s) + s × L) + e + shine/255 × m), 0, 1)
// Variant switches (render_world_variants.c puts them before this source; a term a variant
// leaves out is one that adds exactly 0 for the draws it is chosen for):
//   MODE  MODE_FULL, MODE_LIGHTMAP, MODE_FULLBRIGHT or MODE_DENSITY (render_world.h RENDER_MODE_*);
//   FAST_LIGHTS  L += the fast lights;  MATCAP  the matcap term (shine > 0);
//   FOG  distance fog;  ADDITIVE  fog fades an additive material out instead;
//   LUXEL_GRID  lightmap luxel edges;  WIRE  the flat wireframe colour.
#if !WIRE
in vec2 v_uv;
in vec3 v_lm_uv;
in vec3 v_view_pos;
#if FAST_LIGHTS
in vec3 v_fast;
#endif

uniform sampler2D u_texture;                 // white 1×1 when untextured
uniform sampler2DArray u_light_atlas;        // base + enabled dynamic layers, linear RGB
uniform vec4 u_color;                        // rgb = colour/255, a = alpha/255 (1 when opaque)
uniform vec3 u_emission;
uniform float u_shading;
uniform float u_exposure;
uniform int u_look;                          // 0 raw, 1 goldsrc, 2 quake (conventions §3 "The look")
#if MATCAP
uniform sampler2D u_matcap;
uniform float u_shine;
#endif
#if FOG
uniform vec3 u_fog;                          // x = start, y = full (metres from the eye)
uniform vec3 u_fog_color;
#endif
#if LIQUID
uniform float u_time;                        // the vertex stage's: one uniform of the program

// Quake's and Half-Life's liquids warp their texture as the engines' turbulence does: each texel
// coordinate moves by 8 texels times the sine of the other over 8, plus the time in seconds
// (docs/materials.md). The raw look leaves the texture as the map maps it.
vec2 liquid_uv(vec2 uv)
{
    if (u_look == 0)
        return uv;
    vec2 size = vec2(textureSize(u_texture, 0));
    return uv + 8.0 * sin((uv * size).yx * 0.125 + u_time) / size;
}
#else
vec2 liquid_uv(vec2 uv) { return uv; }
#endif
#else
uniform vec4 u_wire_color;
#endif

out vec4 o_color;

#if !WIRE
// Atlas texels are the lightmaps' luxels one to one, so their edges are the luxel grid.
vec3 luxel_grid(vec3 c)
{
#if LUXEL_GRID
    vec2 t = v_lm_uv.xy * vec2(textureSize(u_light_atlas, 0).xy);
    vec2 from_edge = abs(fract(t) - 0.5);
    vec2 line = smoothstep(vec2(0.5) - fwidth(t), vec2(0.5), from_edge);
    return mix(c, vec3(1.0, 0.85, 0.1), 0.7 * max(line.x, line.y));
#else
    return c;
#endif
}

// Distance fog (docs/viewer.md): full at the streaming radius, where the drawn world ends.
vec4 fogged(vec4 c)
{
#if FOG
    float f = clamp((length(v_view_pos) - u_fog.x) / max(u_fog.y - u_fog.x, 1e-3), 0.0, 1.0);
#if ADDITIVE
    return vec4(c.rgb * (1.0 - f), c.a);
#else
    return vec4(mix(c.rgb, u_fog_color, f), c.a);
#endif
#else
    return c;
#endif
}

// ---- density heat-map (MODE_DENSITY; docs/viewer.md "Lightmap density heat-map") ----------------
// Luxels per metre from screen-space derivatives: lightmap UV and position are both affine over a
// triangle, so the luxel area one pixel covers over the metre area it covers is exact per pixel.
// Colour: a viridis ramp over log2(luxels per metre) from 1 to 16; coarser than 1 (a luxel wider
// than a metre) in red stripes over the ramp's low end, finer than 16 (wasteful) in magenta
// stripes over its high end; faces without a lightmap grey.
vec3 density_color()
{
    const vec3 ramp[5] = vec3[5](vec3(68, 1, 84), vec3(59, 82, 139), vec3(33, 145, 140), vec3(94, 201, 98),
                                 vec3(253, 231, 37));
    vec2 t = v_lm_uv.xy * vec2(textureSize(u_light_atlas, 0).xy);
    vec2 tx = dFdx(t), ty = dFdy(t);
    float luxel_area = abs(tx.x * ty.y - tx.y * ty.x);
    float metre_area = length(cross(dFdx(v_view_pos), dFdy(v_view_pos)));
    if (luxel_area < 1e-9 || metre_area <= 0.0)
        return vec3(0.5);
    float x = 0.5 * log2(luxel_area / metre_area);   // log2(luxels per metre)
    float c = clamp(x, 0.0, 4.0);
    int i = min(int(c), 3);
    vec3 rgb = mix(ramp[i], ramp[i + 1], c - float(i)) / 255.0;
    bool stripe = mod(floor((gl_FragCoord.x + gl_FragCoord.y) / 8.0), 2.0) == 0.0;
    if (x < 0.0 && stripe)
        rgb = vec3(1.0, 0.0, 0.0);
    if (x > 4.0 && stripe)
        rgb = vec3(1.0, 0.0, 1.0);
    return rgb;
}
// ---- end density heat-map -----------------------------------------------------------------------

// The game's display curve on light (docs/lighting.md "The game's look"): GoldSrc's light gamma
// table (lightgamma 2.5, brightness 0: L^(1/2.5)), Quake's overbright (2L); raw leaves L as stored.
vec3 look(vec3 L)
{
    if (u_look == 1)
        return pow(max(L, vec3(0.0)), vec3(0.4));
    if (u_look == 2)
        return 2.0 * L;
    return L;
}

vec3 light()
{
#if MODE == MODE_FULLBRIGHT
    return vec3(1.0);
#elif FAST_LIGHTS
    return look(texture(u_light_atlas, v_lm_uv).rgb + v_fast);
#else
    return look(texture(u_light_atlas, v_lm_uv).rgb);
#endif
}
#endif

void main()
{
#if WIRE
    o_color = u_wire_color;
#elif MODE == MODE_LIGHTMAP
    o_color = fogged(vec4(luxel_grid(clamp(u_exposure * light(), 0.0, 1.0)), 1.0));
#elif MODE == MODE_DENSITY
    o_color = vec4(luxel_grid(density_color()), 1.0);
#else
    vec3 L = light();
    vec4 texel = texture(u_texture, liquid_uv(v_uv));
    vec3 a = u_color.rgb * texel.rgb;
    vec3 lit = a * ((1.0 - u_shading) + u_shading * L) + u_emission;
#if MATCAP
    // No normal attribute: the face normal from screen-space derivatives of the view position.
    vec3 n = normalize(cross(dFdx(v_view_pos), dFdy(v_view_pos)));
    lit += u_shine * texture(u_matcap, vec2(0.5 + 0.5 * n.x, 0.5 - 0.5 * n.y)).rgb;
#endif
    o_color = fogged(vec4(luxel_grid(clamp(u_exposure * lit, 0.0, 1.0)), u_color.a * texel.a));
#endif
}
