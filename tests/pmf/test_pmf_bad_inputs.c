/* test_pmf_bad_inputs.c - specific damage gives the expected error: block, offset, message.
 * Chunk blocks are damaged by decompressing them, patching bytes, recompressing and fixing the
 * size tables, so each test hits exactly one check. The writer refuses the same mistakes. */
#include <string.h>

#include "block_patch.h"
#include "sample_map.h"
#include "test_util.h"

static uint8_t *file_bytes;
static size_t file_size;

typedef test_bytes bytes;

static const pmf_chunk_coord rich = { 1, 0, 0 };

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static bytes copy_file(void)
{
    bytes b = { malloc(file_size), file_size };
    memcpy(b.data, file_bytes, file_size);
    return b;
}

static bytes decompress_block(int part)
{
    bytes b = block_get(file_bytes, file_size, (block_ref){ 0, &rich, part });
    CHECK(b.data != NULL, "test setup: block %d", part);
    return b;
}

static bytes replace_block(int part, const bytes *content, uint32_t declared)
{
    return block_replace(file_bytes, file_size, (block_ref){ 0, &rich, part }, content->data, content->size, declared);
}

/* File offsets of the rich chunk's size entry and of level 0's data size. */
static uint64_t chunk_entry(void)
{
    pmf_error err;
    pmf_file *f = pmf_open_memory(file_bytes, file_size, "x", &err);
    const pmf_level_info *li = &f->levels[0];
    uint64_t at = li->offset + 1 + 24 + li->compressed[0] + li->compressed[1] + li->compressed[2] + 1 + 4 + 4 +
                  24ull * pmf_grid_index(li, rich.x, rich.y, rich.z);
    pmf_close(f);
    return at;
}

static size_t find(const bytes *b, const uint8_t *pattern, size_t n)
{
    for (size_t i = 0; i + n <= b->size; i++)
        if (!memcmp(b->data + i, pattern, n))
            return i;
    CHECK(0, "test setup: pattern not found");
    return 0;
}

/* Opens and validates; expects an error in `block` at `offset` whose message holds `text`. */
static void expect_error(bytes b, const char *block, uint64_t offset, const char *text, const char *what)
{
    pmf_error err;
    memset(&err, 0, sizeof err);
    pmf_file *f = pmf_open_memory(b.data, b.size, "bad.pmf", &err);
    bool ok = f && pmf_validate(f, NULL, &err);
    char line[600];
    pmf_error_format(&err, line, sizeof line);
    CHECK(!ok, "%s: accepted", what);
    CHECK(!strcmp(err.block, block), "%s: block '%s', expected '%s' (%s)", what, err.block, block, line);
    CHECK(err.offset == offset, "%s: offset %llu, expected %llu (%s)", what, (unsigned long long)err.offset,
          (unsigned long long)offset, line);
    CHECK(strstr(err.message, text) != NULL, "%s: message '%s' lacks '%s'", what, err.message, text);
    CHECK(!strncmp(line, "bad.pmf: ", 9) && strchr(line, '\n') == NULL, "%s: formatted '%s'", what, line);
    pmf_close(f);
    free(b.data);
}

#define CHUNK_BLOCK(part) "level 0 chunk (1,0,0) " part " data"

static void file_level_errors(void)
{
    bytes b = copy_file();
    b.data[0] = 'X';
    expect_error(b, "header", 0, "magic", "bad magic");

    b = copy_file();
    b.data[3] = 1;
    expect_error(b, "header", 3, "version", "major version");

    b = copy_file();
    b.size = 15; /* inside the name "Small" */
    expect_error(b, "header", 12, "no NUL", "unterminated name");

    pmf_error err;
    pmf_file *f = pmf_open_memory(file_bytes, file_size, "x", &err);
    uint64_t level_at = f->levels[0].offset;
    uint64_t size_at = level_at - 4;
    uint64_t entry = chunk_entry();
    pmf_close(f);
    b = copy_file();
    b.data[level_at] = 0x08;
    expect_error(b, "data", level_at, "reserved", "level flags");

    /* chunk (0,0,0) is void: declaring decompressed bytes for it is an error */
    b = copy_file();
    wr32(b.data + entry - 24 + 12, 5);
    expect_error(b, "data", entry - 24, "void chunk", "void chunk with a size");

    b = copy_file();
    wr32(b.data + size_at, rd32(b.data + size_at) + 1);
    expect_error(b, "data", level_at, "level data size", "level size mismatch");

    b = copy_file();
    b.size--; /* the global entity count loses a byte */
    expect_error(b, "data", b.size - 3, "needs 4 bytes", "truncated entity count");
}

static void lz4_size_errors(void)
{
    bytes common = decompress_block(0);
    uint32_t n = (uint32_t)common.size;
    expect_error(replace_block(0, &common, n + 1), CHUNK_BLOCK("common"), n, "fewer bytes than declared", "frame too short");
    expect_error(replace_block(0, &common, n - 1), CHUNK_BLOCK("common"), n - 1, "more bytes than declared", "frame too long");
    /* a cap of max(64 MiB, 1024 x compressed) refuses this before allocating anything */
    expect_error(replace_block(0, &common, 0x3FFFFFFFu), CHUNK_BLOCK("common"), 0, "exceeds the cap", "absurd size");
    expect_error(replace_block(0, &common, 0xFFFFFFFFu), CHUNK_BLOCK("common"), 0, "exceeds the cap", "absurd size 4G");
    /* garbage instead of a frame */
    pmf_error err;
    pmf_file *f = pmf_open_memory(file_bytes, file_size, "x", &err);
    uint64_t frame_at = f->levels[0].chunks[pmf_grid_index(&f->levels[0], rich.x, rich.y, rich.z)].offset;
    pmf_close(f);
    bytes b = copy_file();
    b.data[frame_at] ^= 0xFF;
    expect_error(b, CHUNK_BLOCK("common"), 0, "LZ4F", "bad frame magic");
    free(common.data);
}

static void common_block_errors(void)
{
    bytes common = decompress_block(0);
    uint32_t table = rd32(common.data);
    size_t used_at = 4 + table + 1; /* first used material String */

    bytes b = { malloc(common.size), common.size };
    memcpy(b.data, common.data, common.size);
    memcpy(b.data + find(&b, (const uint8_t *)"water", 6), "wader", 5);
    expect_error(replace_block(0, &b, (uint32_t)b.size), CHUNK_BLOCK("common"), used_at, "'wader' does not exist",
                 "material name not in the level");

    memcpy(b.data, common.data, common.size);
    wr32(b.data + used_at, 0xFFFF);
    expect_error(replace_block(0, &b, (uint32_t)b.size), CHUNK_BLOCK("common"), used_at, "outside the string table",
                 "string offset");

    /* cube 3: parent, child mask 0x80, child 5 */
    static const uint8_t cube3[] = { 0x01, 0x80, 0x05, 0, 0, 0 };
    memcpy(b.data, common.data, common.size);
    size_t at = find(&b, cube3, sizeof cube3);
    b.data[at + 2] = 3;
    expect_error(replace_block(0, &b, (uint32_t)b.size), CHUNK_BLOCK("common"), at, "reached twice", "octree cycle");
    b.data[at + 2] = 1;
    expect_error(replace_block(0, &b, (uint32_t)b.size), CHUNK_BLOCK("common"), at, "reached twice", "second parent");
    b.data[at + 2] = 0;
    expect_error(replace_block(0, &b, (uint32_t)b.size), CHUNK_BLOCK("common"), at + 2, "root", "root as a child");
    b.data[at + 2] = 7;
    expect_error(replace_block(0, &b, (uint32_t)b.size), CHUNK_BLOCK("common"), at + 2, "past the cube count", "child index");

    /* cube 5: lighting + geometry, material 2, physics 0, sound 1 */
    static const uint8_t cube5[] = { 0x22, 2, 0, 1 };
    memcpy(b.data, common.data, common.size);
    at = find(&b, cube5, sizeof cube5);
    b.data[at + 1] = 3;
    expect_error(replace_block(0, &b, (uint32_t)b.size), CHUNK_BLOCK("common"), at + 1, "material index 3",
                 "material index past the used list");
    b.data[at + 1] = 2;
    b.data[at] = 0x24;
    expect_error(replace_block(0, &b, (uint32_t)b.size), CHUNK_BLOCK("common"), at, "unknown type", "cube type");

    memcpy(b.data, common.data, common.size);
    b.size = common.size - 1;
    expect_error(replace_block(0, &b, (uint32_t)b.size), CHUNK_BLOCK("common"), common.size - 1, "needs 1 bytes",
                 "cube cut short");
    free(b.data);
    free(common.data);
}

/* Client block layout of the rich chunk: sound regions (1 + 100), sky regions (1 + 100),
 * lightmap count at 202, lightmap 0 (2^2: 1 + 48) at 203, lightmap 1 (2^1: 1 + 12) at 252,
 * vertex count at 265, 50 vertices, dynamic light 0 at 269 + 1400 = 1669. */
static void client_block_errors(void)
{
    bytes client = decompress_block(1);
    bytes b = { malloc(client.size), client.size };

    memcpy(b.data, client.data, client.size);
    b.data[203] = 12;
    expect_error(replace_block(1, &b, (uint32_t)b.size), CHUNK_BLOCK("client"), 203, "more than 2^11", "lightmap size");

    memcpy(b.data, client.data, client.size);
    CHECK(b.data[1669 + 3] == 2 && b.data[1669 + 4] == 0, "test setup: dynamic light layout");
    b.data[1669 + 4] = 2;
    expect_error(replace_block(1, &b, (uint32_t)b.size), CHUNK_BLOCK("client"), 1673, "target lightmap 2",
                 "layer target past the lightmaps");

    /* cube 5: lightmap none, first vertex 42, faces +X +Z (8 vertices) */
    static const uint8_t cube5[] = { 0xFF, 42, 0, 0, 0, 0x05 };
    memcpy(b.data, client.data, client.size);
    size_t at = find(&b, cube5, sizeof cube5);
    b.data[at + 1] = 47;
    expect_error(replace_block(1, &b, (uint32_t)b.size), CHUNK_BLOCK("client"), at + 1, "past the vertex count",
                 "vertex range past the end");
    b.data[at + 1] = 42;
    b.data[at] = 2;
    expect_error(replace_block(1, &b, (uint32_t)b.size), CHUNK_BLOCK("client"), at, "lightmap 2", "lightmap index");

    /* fast light 1's range: skip 42, 8 multipliers */
    static const uint8_t range[] = { 42, 0, 0, 0, 8, 0, 0, 0 };
    memcpy(b.data, client.data, client.size);
    at = find(&b, range, sizeof range);
    b.data[at] = 43;
    expect_error(replace_block(1, &b, (uint32_t)b.size), CHUNK_BLOCK("client"), at, "runs to vertex 51", "fast light range");

    memcpy(b.data, client.data, client.size);
    wr32(b.data + 265, 1000000);
    expect_error(replace_block(1, &b, (uint32_t)b.size), CHUNK_BLOCK("client"), 269, "1000000 vertices need", "vertex count");

    memcpy(b.data, client.data, client.size);
    wr32(b.data + 1 + 96, 0xFFFFFF);
    expect_error(replace_block(1, &b, (uint32_t)b.size), CHUNK_BLOCK("client"), 97, "outside the string table",
                 "region name resolves in the common table");
    free(b.data);
    free(client.data);
}

static bool valid(test_bytes b, const char *what)
{
    pmf_error err;
    pmf_file *f = pmf_open_memory(b.data, b.size, "empty.pmf", &err);
    bool ok = f && pmf_validate(f, NULL, &err);
    CHECK(ok, "%s: %s: %s", what, err.block, err.message);
    pmf_close(f);
    return ok;
}

/* A block whose sizes are both 0 is empty: valid where nothing needs its data. */
static void empty_blocks(void)
{
    bytes b = block_replace(file_bytes, file_size, (block_ref){ 0, &rich, 2 }, NULL, 0, 0);
    expect_error(b, CHUNK_BLOCK("server"), 0, "cube 1 needs pathfinding data", "empty server block");
    b = block_replace(file_bytes, file_size, (block_ref){ 0, &rich, 1 }, NULL, 0, 0);
    expect_error(b, CHUNK_BLOCK("client"), 0, "lights need client data", "empty client block");
    b = block_replace(file_bytes, file_size, (block_ref){ 0, NULL, 1 }, NULL, 0, 0);
    expect_error(b, "level 0 client data", 0, "10 materials need client-side data", "empty level client block");

    /* one empty root cube, no lights: its client and server blocks may be empty */
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_SMALL);
    pmf_chunk *ch = &m.levels[0].chunks[0];
    ch->common.cube_count = 1;
    ch->common.cubes[0] = (pmf_cube){ 0 };
    ch->common.dynamic_light_count = ch->common.fast_light_count = 0;
    uint8_t *map;
    size_t size;
    pmf_error err;
    CHECK(sample_map_write_memory(&m, &map, &size, &err), "write: %s", err.message);
    sample_map_free(&m);
    bytes no_client = block_replace(map, size, (block_ref){ 0, &rich, 1 }, NULL, 0, 0);
    bytes neither = block_replace(no_client.data, no_client.size, (block_ref){ 0, &rich, 2 }, NULL, 0, 0);
    bytes level_server = block_replace(neither.data, neither.size, (block_ref){ 0, NULL, 2 }, NULL, 0, 0);
    if (valid(level_server, "empty chunk client and server, level server")) {
        pmf_file *f = pmf_open_memory(level_server.data, level_server.size, "empty.pmf", &err);
        pmf_level lvl;
        pmf_chunk got;
        CHECK(f->levels[0].chunks[1].compressed[1] == 0 && f->levels[0].chunks[1].compressed[2] == 0, "sizes 0");
        CHECK(pmf_level_read(f, 0, PMF_PART_ALL, &lvl, &err) && lvl.server.entity_count == 0, "level: %s", err.message);
        CHECK(pmf_chunk_read(f, &lvl, 0, rich, PMF_PART_ALL, &got, &err) && got.client.vertex_count == 0 &&
                  got.client.cubes && got.server.cubes && got.server.entity_count == 0, "chunk: %s", err.message);
        pmf_chunk_free(&got);
        pmf_level_free(&lvl);
        pmf_close(f);
    }
    /* an LZ4F frame of nothing is the same empty block */
    static const uint8_t nothing[1];
    bytes framed = block_replace(map, size, (block_ref){ 0, &rich, 2 }, nothing, 0, 0);
    valid(framed, "empty frame");
    free(framed.data);
    free(level_server.data);
    free(neither.data);
    free(no_client.data);
    free(map);

    /* a level with no materials and no chunks may have three empty blocks */
    sample_map_build(&m, SAMPLE_MAP_KITCHEN_SINK);
    CHECK(sample_map_write_memory(&m, &map, &size, &err), "write: %s", err.message);
    sample_map_free(&m);
    bytes l2 = { map, size };
    for (int part = 0; part < 3; part++) {
        bytes next = block_replace(l2.data, l2.size, (block_ref){ 2, NULL, part }, NULL, 0, 0);
        free(l2.data);
        l2 = next;
    }
    valid(l2, "level 2 without blocks");
    free(l2.data);
}

static void writer_refuses(void)
{
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_SMALL);
    pmf_level *lvl = &m.levels[0].level;
    pmf_chunk *ch = &m.levels[0].chunks[0];
    pmf_encoded_chunk enc;
    pmf_error err;

    ch->common.used_materials[1] = "nonexistent";
    CHECK(!pmf_chunk_encode(lvl, ch, &enc, &err) && !strcmp(err.block, "chunk (1,0,0) common data") &&
              strstr(err.message, "'nonexistent' does not exist"), "writer: unknown material: %s", err.message);
    ch->common.used_materials[1] = "stone";

    ch->client.cubes[5].u.geom.first_vertex = 47;
    CHECK(!pmf_chunk_encode(lvl, ch, &enc, &err) && strstr(err.message, "past the vertex count"), "writer: vertex range: %s",
          err.message);
    ch->client.cubes[5].u.geom.first_vertex = 42;

    ch->common.cubes[3].u.parent.children[7] = 3;
    CHECK(!pmf_chunk_encode(lvl, ch, &enc, &err) && strstr(err.message, "reached twice"), "writer: cycle: %s", err.message);
    ch->common.cubes[3].u.parent.children[7] = 5;

    ch->client.lightmaps[1].size_exp = 12;
    CHECK(!pmf_chunk_encode(lvl, ch, &enc, &err) && strstr(err.message, "2^11"), "writer: lightmap size: %s", err.message);
    ch->client.lightmaps[1].size_exp = 1;

    ch->parts = PMF_PART_COMMON;
    CHECK(!pmf_chunk_encode(lvl, ch, &enc, &err), "writer: partial chunk");
    ch->parts = PMF_PART_ALL;
    CHECK(pmf_chunk_encode(lvl, ch, &enc, &err), "writer: restored chunk: %s", err.message);
    pmf_encoded_chunk_free(&enc);

    /* an octree 25 levels deep: each parent's one child is the next cube */
    pmf_chunk deep = *ch;
    pmf_cube cubes[27];
    pmf_client_cube ccubes[27];
    pmf_server_cube scubes[27];
    memset(cubes, 0, sizeof cubes);
    memset(ccubes, 0, sizeof ccubes);
    memset(scubes, 0, sizeof scubes);
    for (int i = 0; i < 26; i++) {
        cubes[i].type = PMF_CUBE_PARENT;
        cubes[i].u.parent.child_mask = 1;
        cubes[i].u.parent.children[0] = (uint32_t)i + 1;
    }
    deep.common.cube_count = 27;
    deep.common.cubes = cubes;
    deep.client.cubes = ccubes;
    deep.server.cubes = scubes;
    CHECK(!pmf_chunk_encode(lvl, &deep, &enc, &err) && strstr(err.message, "deeper than 24"), "writer: depth: %s", err.message);
    deep.common.cube_count = 25; /* cube 24 at depth 24, with one child too many */
    cubes[24].type = PMF_CUBE_EMPTY;
    CHECK(pmf_chunk_encode(lvl, &deep, &enc, &err), "writer: depth 24 is fine: %s", err.message);
    pmf_encoded_chunk_free(&enc);
    deep.common.cube_count = 0;
    CHECK(!pmf_chunk_encode(lvl, &deep, &enc, &err) && strstr(err.message, "at least one cube"), "writer: no cube: %s",
          err.message);

    pmf_writer *w = pmf_writer_create(&m.header, &m.data, &err);
    lvl->client.default_sky_env = "nope";
    CHECK(!pmf_writer_begin_level(w, lvl, &err) && !strcmp(err.block, "level 0 client data") && strstr(err.message, "'nope'"),
          "writer: default sky: %s", err.message);
    lvl->client.default_sky_env = "day";
    lvl->center.x = 5;
    CHECK(!pmf_writer_begin_level(w, lvl, &err) && strstr(err.message, "center"), "writer: center: %s", err.message);
    lvl->center.x = 1;
    CHECK(pmf_writer_begin_level(w, lvl, &err), "writer: level: %s", err.message);
    CHECK(pmf_chunk_encode(lvl, ch, &enc, &err), "encode: %s", err.message);
    pmf_encoded_chunk copy = enc;
    copy.bytes = malloc(1);
    CHECK(pmf_writer_put_chunk(w, ch->coord, &enc, &err) && enc.bytes == NULL, "put takes ownership");
    CHECK(!pmf_writer_put_chunk(w, ch->coord, &copy, &err) && strstr(err.message, "twice"), "put twice: %s", err.message);
    pmf_writer_destroy(w);

    /* the comparison itself notices a changed float */
    sample_map other;
    sample_map_build(&other, SAMPLE_MAP_SMALL);
    char why[256];
    CHECK(pmf_compare_chunk(ch, &other.levels[0].chunks[0], why, sizeof why), "compare equal: %s", why);
    other.levels[0].chunks[0].client.vertices[7].lm_uv[1] = 0.5f;
    CHECK(!pmf_compare_chunk(ch, &other.levels[0].chunks[0], why, sizeof why) && strstr(why, "vertices"), "compare: %s", why);
    sample_map_free(&other);
    sample_map_free(&m);
}

int main(void)
{
    sample_map m;
    sample_map_build(&m, SAMPLE_MAP_SMALL);
    pmf_error err;
    if (!sample_map_write_memory(&m, &file_bytes, &file_size, &err)) {
        fprintf(stderr, "setup: %s\n", err.message);
        return 1;
    }
    sample_map_free(&m);
    file_level_errors();
    lz4_size_errors();
    common_block_errors();
    client_block_errors();
    empty_blocks();
    writer_refuses();
    free(file_bytes);
    TEST_DONE();
}
