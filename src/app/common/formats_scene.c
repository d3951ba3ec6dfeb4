/* formats_scene.c - the legacy draft and PM4 worlds as PMF files for the scene (formats_scene.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "formats_scene.h"
#include "pm4_world.h"
#include "pmf_legacy.h"
#include "pmf_os.h"

static const char *const layer_names[4] = { "surfaces", "paths", "exterior", "references" };

unsigned formats_layer_parse(const char *name)
{
    for (unsigned i = 0; i < 4; i++)
        if (!strcmp(name, layer_names[i]))
            return 1u << i;
    return 0;
}

const char *formats_layer_name(unsigned layer)
{
    for (unsigned i = 0; i < 4; i++)
        if (layer == 1u << i)
            return layer_names[i];
    return "";
}

static bool write_pmf(formats_scene *fs, pmf_error *err)
{
    if (fs->kind == PMF_KIND_PMF_LEGACY)
        return pmfl_to_pmf(fs->source_, fs->pmf_path, err);
    return pm4_world_to_pmf(fs->source_, fs->layers, fs->pmf_path, err);
}

/* out closed, its error line kept and printed: the exit code. */
static int open_failed(formats_scene *out, int code, const char *line)
{
    char kept[sizeof out->error];
    snprintf(kept, sizeof kept, "%s", line);
    formats_scene_close(out);
    snprintf(out->error, sizeof out->error, "%s", kept);
    fprintf(stderr, "pmfview: %s\n", out->error);
    return code;
}

int formats_scene_open(const char *path, const map_source *src, unsigned layers, formats_scene *out)
{
    memset(out, 0, sizeof *out);
    out->kind = src->id.kind;
    out->layers = layers;
    pmf_error err;
    out->source_ = out->kind == PMF_KIND_PMF_LEGACY ? (void *)pmfl_open(path, &err) : (void *)pm4_world_open(path, &err);
    char line[1024];
    if (!out->source_)
        return open_failed(out, EXIT_BAD_INPUT, pmf_error_format(&err, line, sizeof line));
    char tmp[1024];
    pmf_os_temp_dir(tmp, sizeof tmp);
    snprintf(out->pmf_path, sizeof out->pmf_path, "%s/pmfview-%s-XXXXXX.pmf", tmp,
             out->kind == PMF_KIND_PM4 ? "pm4" : "legacy");
    int fd = pmf_os_mkstemps(out->pmf_path, 4);
    if (fd < 0) {
        snprintf(line, sizeof line, "%.900s: cannot create a temporary map: %s", out->pmf_path, strerror(errno));
        out->pmf_path[0] = 0;
        return open_failed(out, EXIT_RUNTIME, line);
    }
    close(fd);
    if (out->kind == PMF_KIND_PM4)
        out->has_camera = pm4_world_overview(out->source_, out->camera_pos, &out->camera_yaw, &out->camera_pitch);
    if (!write_pmf(out, &err))
        return open_failed(out, EXIT_BAD_INPUT, pmf_error_format(&err, line, sizeof line));
    return 0;
}

bool formats_scene_set_layers(formats_scene *fs, unsigned layers, char *err, size_t err_size)
{
    unsigned before = fs->layers;
    fs->layers = layers;
    pmf_error e;
    if (fs->kind == PMF_KIND_PM4 && !write_pmf(fs, &e)) {
        fs->layers = before;
        pmf_error_format(&e, err, err_size);
        return false;
    }
    return true;
}

void formats_scene_close(formats_scene *fs)
{
    if (fs->pmf_path[0])
        pmf_os_remove(fs->pmf_path);
    if (fs->kind == PMF_KIND_PMF_LEGACY)
        pmfl_close(fs->source_);
    else if (fs->kind == PMF_KIND_PM4)
        pm4_world_close(fs->source_);
    memset(fs, 0, sizeof *fs);
}
