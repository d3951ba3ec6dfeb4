/* render_gl_api.h - the GL the render library is compiled against: desktop GL 3.3+ through the
 * glad loader, or OpenGL ES 3.0 (WebGL2) when PMFVIEW_GLES is defined (the page, docs/web.md).
 * RENDER_GLES tells the files which; what ES 3.0 lacks is given another form where it is used:
 *   texture buffers   2D textures of RENDER_BUFFER_TEXTURE_WIDTH texels a row, read with texelFetch
 *   base-vertex draws the vertex attributes pointed at the chunk's first vertex per draw
 *   glPolygonMode     none: no wireframe;  timer queries, KHR_debug, glGetTexImage: none */
#ifndef PMFVIEW_RENDER_GL_API_H
#define PMFVIEW_RENDER_GL_API_H

#ifdef PMFVIEW_GLES
#include <GLES3/gl3.h>
#define RENDER_GLES 1
#define GLAD_API_PTR
#else
#include <glad/gl.h>
#define RENDER_GLES 0
#endif

/* Row width of the 2D textures standing for texture buffers (shaders/world.vert FETCH_BUFFER). */
#define RENDER_BUFFER_TEXTURE_WIDTH 4096u

#endif
