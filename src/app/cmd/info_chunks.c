/* info_chunks.c - what each chunk of a level takes (info_chunks.h). */
#include "info_chunks.h"

#include <stdlib.h>

void info_chunks_add(info_chunks *c, const pmf_chunk_figures *chunk)
{
    if (c->count == c->cap) {
        uint32_t cap = c->cap ? 2 * c->cap : 64;
        pmf_chunk_figures *more = realloc(c->list, cap * sizeof *more);
        if (!more) {
            c->failed = true;
            return;
        }
        c->list = more;
        c->cap = cap;
    }
    c->list[c->count++] = *chunk;
}

void info_chunks_free(info_chunks *chunks)
{
    free(chunks->list);
    *chunks = (info_chunks){ 0 };
}

static uint64_t lit_bytes(const pmf_chunk_figures *f)
{
    return f->lightmap_bytes + f->layer_bytes;
}

/* The chunks with the largest decompressed client block and the largest lightmaps + layers
 * (the first in grid order of equals); NULL without chunks. */
static void largest(const info_chunks *c, const pmf_chunk_figures **client, const pmf_chunk_figures **lit)
{
    *client = *lit = NULL;
    for (uint32_t i = 0; i < c->count; i++) {
        const pmf_chunk_figures *f = &c->list[i];
        if (!*client || f->decompressed[1] > (*client)->decompressed[1])
            *client = f;
        if (!*lit || lit_bytes(f) > lit_bytes(*lit))
            *lit = f;
    }
}

static void print_chunk(FILE *out, const pmf_chunk_figures *f)
{
    fprintf(out, "    (%u,%u,%u): blocks %u / %u / %u bytes (common / client / server; %u / %u / %u compressed), "
                 "%u lightmap%s %llu bytes, %u dynamic light%s, %u layer%s %llu bytes\n",
            f->coord.x, f->coord.y, f->coord.z, f->decompressed[0], f->decompressed[1], f->decompressed[2],
            f->compressed[0], f->compressed[1], f->compressed[2], f->lightmaps, f->lightmaps == 1 ? "" : "s",
            (unsigned long long)f->lightmap_bytes, f->dynamic_lights, f->dynamic_lights == 1 ? "" : "s", f->layers,
            f->layers == 1 ? "" : "s", (unsigned long long)f->layer_bytes);
}

void info_chunks_print(FILE *out, const info_chunks *chunks, bool all)
{
    const pmf_chunk_figures *client, *lit;
    largest(chunks, &client, &lit);
    if (client)
        fprintf(out, "  %-17s client block %u bytes (%u compressed) at (%u,%u,%u); lightmaps + layers %llu bytes "
                     "at (%u,%u,%u)\n", "largest chunk:", client->decompressed[1], client->compressed[1],
                client->coord.x, client->coord.y, client->coord.z, (unsigned long long)lit_bytes(lit), lit->coord.x,
                lit->coord.y, lit->coord.z);
    if (!all)
        return;
    fprintf(out, "  %-17s %u\n", "chunks:", chunks->count);
    for (uint32_t i = 0; i < chunks->count; i++)
        print_chunk(out, &chunks->list[i]);
}

static cJSON *json_coord(pmf_chunk_coord c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "x", c.x);
    cJSON_AddNumberToObject(o, "y", c.y);
    cJSON_AddNumberToObject(o, "z", c.z);
    return o;
}

static cJSON *json_blocks(const uint32_t bytes[3])
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "common", bytes[0]);
    cJSON_AddNumberToObject(o, "client", bytes[1]);
    cJSON_AddNumberToObject(o, "server", bytes[2]);
    return o;
}

static cJSON *json_chunk(const pmf_chunk_figures *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "coord", json_coord(f->coord));
    cJSON_AddItemToObject(o, "compressed", json_blocks(f->compressed));
    cJSON_AddItemToObject(o, "decompressed", json_blocks(f->decompressed));
    cJSON_AddNumberToObject(o, "lightmaps", f->lightmaps);
    cJSON_AddNumberToObject(o, "lightmap_bytes", (double)f->lightmap_bytes);
    cJSON_AddNumberToObject(o, "dynamic_lights", f->dynamic_lights);
    cJSON_AddNumberToObject(o, "layers", f->layers);
    cJSON_AddNumberToObject(o, "layer_bytes", (double)f->layer_bytes);
    return o;
}

void info_chunks_json(cJSON *level, const info_chunks *chunks, bool all)
{
    const pmf_chunk_figures *client, *lit;
    largest(chunks, &client, &lit);
    if (client) {
        cJSON *o = cJSON_AddObjectToObject(level, "largest");
        cJSON_AddNumberToObject(o, "client_bytes", client->decompressed[1]);
        cJSON_AddNumberToObject(o, "client_compressed", client->compressed[1]);
        cJSON_AddItemToObject(o, "client_chunk", json_coord(client->coord));
        cJSON_AddNumberToObject(o, "lightmap_layer_bytes", (double)lit_bytes(lit));
        cJSON_AddItemToObject(o, "lightmap_layer_chunk", json_coord(lit->coord));
    } else {
        cJSON_AddNullToObject(level, "largest");
    }
    if (!all)
        return;
    cJSON *arr = cJSON_AddArrayToObject(level, "chunks");
    for (uint32_t i = 0; arr && i < chunks->count; i++)
        cJSON_AddItemToArray(arr, json_chunk(&chunks->list[i]));
}
