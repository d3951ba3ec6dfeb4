/* bsp_entities.c - a BSP's entity lump read as the .map text it is (see bsp_read.h). */
#include "bsp_read.h"
#include "map_read.h"

#include <stdio.h>

bool bsp_read_entities(const bsp_file *bsp, const char *name, qmap *out, pmf_error *err)
{
    if (qmap_read((const uint8_t *)bsp->entities, bsp->entities_size, name, out, err)) return true;
    if (err) snprintf(err->block, sizeof err->block, "lump entities");
    return false;
}

const char *bsp_compiler(const qmap *entities)
{
    /* compilers spell the worldspawn key differently */
    static const char *const keys[] = { "compiler", "_compiler", "_generator", "_qbsp_version" };
    if (!entities->entity_count) return NULL;
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const char *v = qmap_value(entities, &entities->entities[0], keys[i]);
        if (v && *v) return v;
    }
    return NULL;
}
