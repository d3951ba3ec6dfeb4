// A model's skin as it is (the game's own shading is not reproduced); its holes left out.
uniform sampler2D u_skin;
in vec2 v_uv;
out vec4 o_color;

void main()
{
    vec4 texel = texture(u_skin, v_uv);
    if (texel.a < 0.5)
        discard;
    o_color = vec4(texel.rgb, 1.0);
}
