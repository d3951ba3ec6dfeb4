/* pmf_cameras.h - the `pmfview.cameras` extension: a map's start cameras (conventions §4).
 *
 * Layout of the extension blob: "pmfview.cameras" NUL, u8 count, then per camera its name
 * NUL-terminated, u8 level, float[3] world position (metres), float yaw, float pitch (degrees).
 * Cameras are in order of preference: the first of a level is that level's default camera.
 *
 *   // writing (pmfc): the blob goes into pmf_data_desc.extensions
 *   uint8_t *blob; size_t size;
 *   pmf_cameras_encode(cams, n, &blob, &size, &err);  ...  free(blob);
 *   // reading: every other extension is skipped; none = count 0
 *   pmf_cameras cams;
 *   if (!pmf_cameras_read(f, &cams, &err)) ...        // a damaged one: "extension pmfview.cameras"
 *   ... pmf_cameras_free(&cams);
 */
#ifndef PMF_CAMERAS_H
#define PMF_CAMERAS_H

#include "pmf.h"

#define PMF_CAMERAS_EXTENSION "pmfview.cameras"
#define PMF_CAMERAS_MAX 255

typedef struct pmf_camera {
    const char *name;      /* decoded: points into the extension's bytes (until pmf_cameras_free) */
    uint8_t level;
    float pos[3];          /* world metres (conventions §2) */
    float yaw, pitch;      /* degrees */
} pmf_camera;

typedef struct pmf_cameras {
    uint32_t count;
    pmf_camera list[PMF_CAMERAS_MAX];
    void *bytes_;          /* the extension's bytes the names point into; pmf_cameras_free */
} pmf_cameras;

/* The whole extension blob (name included) for count <= 255 cameras with finite numbers.
 * *out is malloc'ed (caller frees). False with err filled otherwise. */
bool pmf_cameras_encode(const pmf_camera *cams, size_t count, uint8_t **out, size_t *size, pmf_error *err);

/* Decodes the file's first `pmfview.cameras` extension into out (count 0 when there is none).
 * False for a damaged one: err names block "extension pmfview.cameras" and the file offset. */
bool pmf_cameras_read(const pmf_file *f, pmf_cameras *out, pmf_error *err);

void pmf_cameras_free(pmf_cameras *cams);

/* The first camera of level, or NULL when it has none. */
const pmf_camera *pmf_cameras_first(const pmf_cameras *cams, uint32_t level);

#endif
