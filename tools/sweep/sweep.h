/* sweep.h - pmfsweep, the helper of scripts/sweep.sh (docs/sweep.md): what one compiled map and
 * its start picture show (`probe`), the contact sheet of the pictures (`sheet`) and a name made
 * safe for a Markdown table cell (`label`). Each command returns the process exit code (0 ok,
 * 1 usage, 2 bad input file, 3 runtime failure). */
#ifndef PMFSWEEP_SWEEP_H
#define PMFSWEEP_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "res/res.h"

/* shot's largest --size side: a picture is read whole up to it. */
#define SWEEP_PICTURE_MAX_SIDE 8192

int sweep_probe(int argc, char **argv);
int sweep_sheet(int argc, char **argv);

/* Decodes a PNG (any image res_image_decode reads) into *out; false with one line in why. */
bool sweep_picture_read(const char *path, res_image *out, char *why, size_t why_size);

#endif
