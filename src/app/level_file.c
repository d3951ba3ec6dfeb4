/* level_file.c - one level of a map file kept open (level_file.h). */
#include "level_file.h"

#include <string.h>

bool level_file_open(level_file *lf, const char *path, uint32_t level, unsigned parts, char *err, size_t err_size)
{
    memset(lf, 0, sizeof *lf);
    pmf_error e;
    lf->file = pmf_open(path, &e);
    if (lf->file && !pmf_level_read(lf->file, level, parts, &lf->lvl, &e)) {
        pmf_close(lf->file);
        lf->file = NULL;
    }
    if (!lf->file) {
        pmf_error_format(&e, err, err_size);
        return false;
    }
    return true;
}

void level_file_close(level_file *lf)
{
    if (lf->file) {
        pmf_level_free(&lf->lvl);
        pmf_close(lf->file);
    }
    memset(lf, 0, sizeof *lf);
}
