// A model's skin lit by the level's light where it stands (render_models.c: u_light, the light
// through the game's look and the exposure; 1 for a level without lightmaps); its holes left out.
uniform sampler2D u_skin;
uniform vec3 u_light;
in vec2 v_uv;
out vec4 o_color;

void main()
{
    vec4 texel = texture(u_skin, v_uv);
    if (texel.a < 0.5)
        discard;
    o_color = vec4(min(texel.rgb * u_light, vec3(1.0)), 1.0);
}
