/* options.h - pmfc's command line: one option table over the shared parser (base/cli.h), into
 * the library's compile description (pmfc.h). */
#ifndef PMFC_OPTIONS_H
#define PMFC_OPTIONS_H

#include "pmfc.h"

/* Fills *d from the command line, its defaults resolved here (the creation time: --time, else
 * SOURCE_DATE_EPOCH, else now; 0 for a generated city). 0: compile; otherwise the exit status,
 * with what was wrong printed (CLI_DONE: --help or --version was answered). */
int pmfc_options_parse(int argc, char **argv, pmfc_compile_desc *d);
/* Frees the --wad list. */
void pmfc_options_free(pmfc_compile_desc *d);

#endif
