/* camera.h - the viewer's camera (../shared/conventions.md §2) with a floating origin.
 *
 * The position is kept as a chunk (grid coordinates, may lie outside the grid) plus a
 * chunk-local offset from that chunk's centre in double precision, so a camera far from the
 * world origin still renders without float jitter: the renderer draws every chunk relative to
 * the camera's chunk.
 *
 *   camera cam;
 *   camera_init(&cam, &(camera_desc){ .chunk_size_exp = lvl.chunk_size_exp, .center = lvl.center });
 *   camera_set_world(&cam, (double[3]){ 0, 1.7, 5 }, 0, 0);   // X Y Z, yaw, pitch (degrees)
 *   camera_move(&cam, (double[3]){ 0, 0, -0.1 });             // world-space delta
 */
#ifndef PMFVIEW_CAMERA_H
#define PMFVIEW_CAMERA_H

#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

#define CAMERA_DEFAULT_FOV 75         /* degrees, vertical, when camera_desc.fov_y is 0 */

typedef struct camera_desc {
    uint8_t chunk_size_exp;          /* chunk side = 2^exp metres */
    pmf_chunk_coord center;          /* the level's centre chunk */
    float fov_y;                     /* vertical field of view, degrees; 0 = CAMERA_DEFAULT_FOV */
} camera_desc;

typedef struct camera {
    int32_t chunk[3];                /* grid x, y, z of the chunk holding the camera */
    double local[3];                 /* metres from that chunk's centre, in [-S/2, S/2) */
    float yaw, pitch;                /* degrees; yaw 0 looks along -Z, yaw 90 along -X */
    float fov_y;                     /* degrees */
    float aspect;                    /* view width / height (the window sets it on resize); 16/9 at init */
    double chunk_size;               /* S = 2^chunk_size_exp */
    int32_t center[3];               /* the level's centre chunk */
} camera;

/* A camera's place in the world: metres and degrees. */
typedef struct camera_pose {
    double pos[3];
    float yaw, pitch;
} camera_pose;

/* The pose at frame i of n along a path of count poses (n frames spread evenly over it): linear
 * in position and pitch, yaw turning the short way round (350 -> 10 passes 0). */
camera_pose camera_path_pose(const camera_pose *path, size_t count, int i, int n);

/* Parses a pose "X,Y,Z,YAW,PITCH" (world metres, degrees: the --camera, --cameras and bookmark
 * format) at the start of text. Returns the first character after it, or NULL when malformed
 * (a number missing, not finite, beyond 1e15, or glued to what follows). */
const char *camera_parse_pose(const char *text, double pos[3], float *yaw, float *pitch);

void camera_init(camera *cam, const camera_desc *desc);
/* World position in metres (world origin = centre of the centre chunk), each coordinate held
 * within CAMERA_MAX_CHUNKS chunks of it, so that the chunk grid's int32 coordinates cannot
 * overflow. The window should keep pitch within ±89 for mouse look; any pitch renders (the right
 * vector depends on yaw only). */
#define CAMERA_MAX_CHUNKS 1073741824.0 /* 2^30 */
void camera_set_world(camera *cam, const double world[3], float yaw, float pitch);
void camera_get_world(const camera *cam, double out[3]);
/* Moves by a world-space delta, renormalising chunk + local. */
void camera_move(camera *cam, const double delta[3]);
/* forward = (-sin(yaw) cos(pitch), sin(pitch), -cos(yaw) cos(pitch)); right and up complete
 * a right-handed basis (right = forward × +Y normalised). */
void camera_basis(const camera *cam, float forward[3], float right[3], float up[3]);
/* Column-major 4x4 view matrix with the camera at its chunk-local position (floating origin:
 * world space is "relative to the camera chunk's centre"). rotation_only drops the translation. */
void camera_view_matrix(const camera *cam, int rotation_only, float out[16]);
/* The offset of chunk c's centre from the camera chunk's centre, in metres (exact in double). */
void camera_chunk_offset(const camera *cam, const int32_t c[3], double out[3]);
/* A world point (metres) in the camera chunk's frame, where scene_view_proj's matrix applies. */
void camera_frame_point(const camera *cam, const float world[3], float out[3]);
/* Where a camera-frame point lands on a width x height frame (pixels from the top-left) under
 * view_proj; *w (when not NULL) gets its clip w. False when it is behind the eye. */
bool camera_project_pixel(const float view_proj[16], int width, int height, const float p[3], float out[2], float *w);

/* The frame the overlays (entity markers, light gizmos) are drawn over, and whom for. */
typedef struct overlay_view {
    const float *view_proj;          /* scene_view_proj: camera-chunk frame */
    const camera *cam;
    uint32_t level;                  /* what is drawn: this level's */
    int width, height;               /* the frame, pixels */
    float scale;                     /* HUD scale for the labels; 0 = 1 */
    int hover_x, hover_y;            /* the mouse (pixels from the top-left); < 0 = none */
    bool label_all;                  /* every label with room, not only the hovered one */
} overlay_view;
/* camera_project_pixel on the overlay's frame. */
static inline bool overlay_project(const overlay_view *v, const float p[3], float out[2], float *w)
{
    return camera_project_pixel(v->view_proj, v->width, v->height, p, out, w);
}

#endif
