// sky.frag - a skybox face (texture × colour) or a cloud layer (planar projection of the view
// direction, scrolled by its material's UV scroll).
in vec2 v_uv;
in vec3 v_dir;

uniform sampler2D u_texture;
uniform vec4 u_color;                        // rgb = colour/255, a = alpha/255
uniform int u_cloud;                         // 0 skybox face, 1 top cloud plane, 2 bottom
uniform vec2 u_uv_offset;                    // scroll × time
uniform float u_exposure;

out vec4 o_color;

void main()
{
    vec2 uv = v_uv;
    if (u_cloud != 0) {
        float up = u_cloud == 1 ? v_dir.y : -v_dir.y;
        if (up <= 0.0)
            discard;
        uv = v_dir.xz / up;                  // a plane one unit above (below) the eye
    }
    vec4 texel = texture(u_texture, uv + u_uv_offset);
    o_color = vec4(clamp(u_exposure * u_color.rgb * texel.rgb, 0.0, 1.0), u_color.a * texel.a);
}
