/* render_matrix.c - the 4x4 product the renderer and the scene build their view-projections
 * with (render_world.h). */
#include <string.h>

#include <cglm/mat4.h>

#include "render_world.h"

void render_mat4_mul(const float a[16], const float b[16], float out[16])
{
    mat4 r;
    /* cglm takes non-const, aligned matrices: copies, so any float[16] will do */
    mat4 ma, mb;
    memcpy(ma, a, sizeof ma);
    memcpy(mb, b, sizeof mb);
    glm_mat4_mul(ma, mb, r);
    memcpy(out, r, sizeof r);
}
