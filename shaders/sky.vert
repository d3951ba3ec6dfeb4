// sky.vert - skybox faces and cloud planes at infinity: rotation-only view, depth forced to the
// far plane. a_pos is a direction; a_uv the face's texture coordinate.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec2 a_uv;

uniform mat4 u_view_proj;                    // projection × rotation-only view
out vec2 v_uv;
out vec3 v_dir;

void main()
{
    v_uv = a_uv;
    v_dir = a_pos;
    vec4 p = u_view_proj * vec4(a_pos, 1.0);
    gl_Position = p.xyww;
}
