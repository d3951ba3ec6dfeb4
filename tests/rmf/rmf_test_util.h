/* rmf_test_util.h - helpers shared by the RMF tests: whole files as bytes, and a walk over every
 * object of a map without recursion (maps may nest 100000 deep). */
#ifndef TESTS_RMF_TEST_UTIL_H
#define TESTS_RMF_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "rmf.h"

static inline uint8_t *read_whole_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *data = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 65536;
            uint8_t *grown = realloc(data, cap);
            if (!grown) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        got = fread(data + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *size = n;
    return data;
}

/* Calls visit(object, depth, user) for every object in file order (pre-order); depth 0 = world.
 * Returns the greatest depth seen. */
typedef void (*rmf_visit_fn)(const rmf_object *object, size_t depth, void *user);

static inline size_t rmf_walk(const rmf_object *world, rmf_visit_fn visit, void *user)
{
    typedef struct { const rmf_object *object; uint32_t next; } walk_frame;
    size_t depth = 1, cap = 64, deepest = 0;
    walk_frame *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return 0;
    stack[0] = (walk_frame){ world, 0 };
    visit(world, 0, user);
    while (depth) {
        walk_frame *top = &stack[depth - 1];
        if (top->next == top->object->child_count) {
            depth--;
            continue;
        }
        const rmf_object *child = &top->object->children[top->next++];
        visit(child, depth, user);
        if (depth > deepest)
            deepest = depth;
        if (depth == cap) {
            walk_frame *grown = realloc(stack, 2 * cap * sizeof *stack);
            if (!grown)
                break;
            stack = grown;
            cap *= 2;
        }
        stack[depth++] = (walk_frame){ child, 0 };
    }
    free(stack);
    return deepest;
}

/* Reads a map, printing the formatted error on failure. */
static inline bool read_map_file(const char *path, rmf_map *map)
{
    pmf_error err;
    if (rmf_read_file(path, map, &err))
        return true;
    char line[512];
    fprintf(stderr, "%s\n", pmf_error_format(&err, line, sizeof line));
    return false;
}

#endif
