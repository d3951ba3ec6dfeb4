/* fuzz_fgd.c - libFuzzer target: read any bytes as an FGD. An error must format to one clean line
 * with a line number; what reads must answer every class's model (its bases walked) with strings
 * inside what it read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgd.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fgd *g = fgd_new();
    pmf_error err;
    if (!g)
        return 0;
    if (!fgd_add_text(g, (const char *)data, size, "fuzz.fgd", &err)) {
        char line[800];
        pmf_error_format(&err, line, sizeof line);
        fuzz_check_line(line);
        if (!err.over_budget && err.line < 1) {
            fprintf(stderr, "an FGD error without a line: %s\n", line);
            abort();
        }
    }
    volatile size_t sum = 0;
    for (size_t i = 0; i < fgd_class_count(g); i++) {
        fgd_model m;
        const char *name = fgd_class_name(g, i);
        if (!name || strlen(name) > size)
            abort();
        if (fgd_class_model(g, name, &m)) {
            if ((!m.path && !m.key) || (m.path && strlen(m.path) > size) || (m.key && strlen(m.key) > size))
                abort();
            sum += m.path ? strlen(m.path) : strlen(m.key);
        }
    }
    fgd_free(g);
    return 0;
}
