// A model's skin lit by the level's light where it stands (render_models.c: u_light's rgb, the
// light through the game's look and the exposure; 1 for a level without lightmaps; a sprite's
// rendercolor), its alpha times u_light.a (a sprite's renderamt, for GL's blending); texels of
// alpha <= u_cut are holes.
uniform sampler2D u_skin;
uniform vec4 u_light;
uniform float u_cut;
in vec2 v_uv;
out vec4 o_color;

void main()
{
    vec4 texel = texture(u_skin, v_uv);
    if (texel.a <= u_cut)
        discard;
    o_color = vec4(min(texel.rgb * u_light.rgb, vec3(1.0)), texel.a * u_light.a);
}
