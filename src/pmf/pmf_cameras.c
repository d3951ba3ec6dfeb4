/* pmf_cameras.c - encoder and decoder of the `pmfview.cameras` extension (pmf_cameras.h). */
#include <math.h>
#include <stdlib.h>

#include "pmf_cameras.h"
#include "pmf_internal.h"

#define BLOCK "extension " PMF_CAMERAS_EXTENSION
#define CAMERA_FIXED_BYTES (1 + 5 * 4)  /* level, position, yaw, pitch */

static bool finite_camera(const pmf_camera *c)
{
    return isfinite(c->pos[0]) && isfinite(c->pos[1]) && isfinite(c->pos[2]) && isfinite(c->yaw) && isfinite(c->pitch);
}

bool pmf_cameras_encode(const pmf_camera *cams, size_t count, uint8_t **out, size_t *size, pmf_error *err)
{
    *out = NULL;
    *size = 0;
    if (count > PMF_CAMERAS_MAX) {
        pmf_error_set(err, "(writer)", BLOCK, 0, "%zu cameras, at most %d fit", count, PMF_CAMERAS_MAX);
        return false;
    }
    pmf_buf b = { 0 };
    pmf_put_bytes(&b, PMF_CAMERAS_EXTENSION, sizeof PMF_CAMERAS_EXTENSION);
    pmf_put_u8(&b, (uint8_t)count);
    for (size_t i = 0; i < count; i++) {
        const pmf_camera *c = &cams[i];
        if (!finite_camera(c)) {
            pmf_buf_free(&b);
            pmf_error_set(err, "(writer)", BLOCK, 0, "camera %zu has a number that is not finite", i);
            return false;
        }
        const char *name = c->name ? c->name : "";
        pmf_put_bytes(&b, name, strlen(name) + 1);
        pmf_put_u8(&b, c->level);
        pmf_put_f32s(&b, c->pos, 3);
        pmf_put_f32(&b, c->yaw);
        pmf_put_f32(&b, c->pitch);
    }
    return pmf_buf_take(&b, BLOCK, out, size, err);
}

static bool decode(pmf_cursor *c, const pmf_file *f, pmf_cameras *out)
{
    pmf_take(c, sizeof PMF_CAMERAS_EXTENSION, "extension name");
    out->count = pmf_read_u8(c, "camera count");
    if (!pmf_cursor_fits(c, out->count, 1 + CAMERA_FIXED_BYTES, "cameras"))
        return false;
    for (uint32_t i = 0; i < out->count && !c->failed; i++) {
        pmf_camera *cam = &out->list[i];
        size_t at = c->pos;
        const char *name = (const char *)c->data + c->pos;
        const char *nul = memchr(name, 0, c->size - c->pos);
        if (!nul)
            return pmf_cursor_fail_at(c, at, "camera %u name: no NUL before the end of the extension", i);
        pmf_take(c, (size_t)(nul - name) + 1, "camera name");
        cam->name = name;
        at = c->pos;
        if (c->size - c->pos < CAMERA_FIXED_BYTES)
            return pmf_cursor_fail_at(c, at, "camera %u: level, position, yaw and pitch need %d bytes, %zu left", i,
                                      CAMERA_FIXED_BYTES, c->size - c->pos);
        cam->level = pmf_read_u8(c, "camera level");
        pmf_read_f32s(c, cam->pos, 3, "camera position");
        cam->yaw = pmf_read_f32(c, "camera yaw");
        cam->pitch = pmf_read_f32(c, "camera pitch");
        if (c->failed)
            return false;
        if (cam->level >= f->level_count)
            return pmf_cursor_fail_at(c, at, "camera %u is on level %u, the file has %u", i, cam->level, f->level_count);
        if (!finite_camera(cam))
            return pmf_cursor_fail_at(c, at + 1, "camera %u has a number that is not finite", i);
    }
    return pmf_cursor_expect_end(c, "the cameras");
}

bool pmf_cameras_read(const pmf_file *f, pmf_cameras *out, pmf_error *err)
{
    out->count = 0;
    out->bytes_ = NULL;
    uint8_t *bytes;
    unsigned i;
    if (!pmf_extension_read(f, PMF_CAMERAS_EXTENSION, &bytes, &i, BLOCK, err))
        return false;
    if (!bytes)
        return true;
    pmf_cursor c = pmf_cursor_make(bytes, (size_t)f->extensions[i].size, f->extensions[i].offset, f->name, BLOCK, err);
    out->bytes_ = bytes;
    if (!decode(&c, f, out)) {
        pmf_cameras_free(out);
        return false;
    }
    return true;
}

void pmf_cameras_free(pmf_cameras *cams)
{
    free(cams->bytes_);
    cams->bytes_ = NULL;
    cams->count = 0;
}

const pmf_camera *pmf_cameras_first(const pmf_cameras *cams, uint32_t level)
{
    for (uint32_t i = 0; i < cams->count; i++)
        if (cams->list[i].level == level)
            return &cams->list[i];
    return NULL;
}
