/* bench_view.h - what the baselines need of the viewer's camera (../shared/conventions.md §2):
 * a camera in world metres, its chunk, the chunks in view (within the streaming radius and
 * meeting the frustum, as the streamer counts them) and the fly paths `pmfview shot --path`
 * reads. Poses are the viewer's own (src/app/camera.c): parsed and interpolated by the same code. */
#ifndef PMFVIEW_BENCH_VIEW_H
#define PMFVIEW_BENCH_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cglm/cglm.h>

#include "camera.h"
#include "pmf.h"

#define BENCH_NEAR_PLANE 0.05f
#define BENCH_FAR_PLANE 100000.0f

typedef camera_pose bench_camera;  /* world metres, degrees */

typedef struct bench_projection {
    float fov_y;                     /* degrees */
    float aspect;                    /* width / height */
} bench_projection;

/* "X,Y,Z,YAW,PITCH". */
bool bench_camera_parse(const char *s, bench_camera *out);

/* The grid position holding the camera (may lie outside the grid). */
void bench_camera_chunk(const pmf_level_info *li, const bench_camera *cam, int32_t out[3]);

/* View-projection with positions relative to the centre of chunk `origin`. */
void bench_view_proj(const pmf_level_info *li, const bench_camera *cam, const bench_projection *proj,
                     const int32_t origin[3], mat4 out);

/* Present chunks within `radius` (largest axis difference) of the camera's chunk whose box meets
 * the frustum (every one in the radius when proj is NULL). Returns the count; writes at most max. */
size_t bench_chunks_in_view(const pmf_level_info *li, const bench_camera *cam, const bench_projection *proj,
                            int radius, pmf_chunk_coord *out, size_t max);

/* Reads a `--path` / `--cameras` file: "X,Y,Z,YAW,PITCH [name]" lines, '#' comments.
 * malloc'd array, NULL with a message on stderr when unreadable or empty. */
bench_camera *bench_path_read(const char *path, size_t *count);


#endif
