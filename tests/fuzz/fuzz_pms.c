/* fuzz_pms.c - libFuzzer target: any bytes as a pmfc source (.pms) through parse_source, the
 * parser pmfc runs before compiling. Image textures named by the input are looked up relative
 * to the working directory, like a source file named "fuzz" would. */
#include <stdlib.h>

#include "common/world.h"
#include "front/pms/pms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    map_def map;
    map_init(&map);
    parse_source("fuzz", (const char *)data, size, &map);
    map_free(&map);
    return 0;
}
