/* fuzz_pak.c - libFuzzer target: open any bytes as a PAK archive, look every entry up by its own
 * name and read it. Errors must format to one clean line; a name must find an entry of that name
 * no later than itself (the first of a name wins); a read entry has the size the directory says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "pak.h"
#include "base/pmf_budget.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error_line(const pmf_error *err)
{
    char line[600];
    pmf_error_format(err, line, sizeof line);
    fuzz_check_line(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmf_error err;
    pak_file *p = pak_open_memory(data, size, "fuzz.pak", &err);
    if (!p) {
        check_error_line(&err);
        return 0;
    }
    for (uint32_t i = 0; i < pak_count(p); i++) {
        const char *name = pak_name(p, i);
        int64_t found = pak_find(p, name);
        if (found < 0 || found > i || pak_find(p, pak_name(p, (uint32_t)found)) != found) {
            fprintf(stderr, "entry %u is not found by its own name (found %lld)\n", i, (long long)found);
            abort();
        }
        uint8_t *bytes;
        size_t got;
        if (!pak_read(p, i, 1u << 20, &bytes, &got, &err)) {
            check_error_line(&err);
            continue;
        }
        if (got != pak_entry_size(p, i)) {
            fprintf(stderr, "entry %u read %zu bytes, not %u\n", i, got, pak_entry_size(p, i));
            abort();
        }
        pmf_budget_free(bytes);
    }
    pak_close(p);
    return 0;
}
