/* relight.c - the state a relight starts from, kept between compiles in a file of --cache DIR
 * (relight.h). The file: "PMFCRLT" and a version, the size of a light, the key, the levels (each:
 * the level as built before the bake (relight_build.c), its visibility, bounced light's transport
 * (with the base lightmaps' bounces of the bake that left it) and its bake, each held or not; the
 * bake: geometry hash, lights, ambient term, which shares were traced, the patches' first luxels,
 * every luxel's sums (term_words), the patches, the probes' static light and the dynamic lights'
 * layer pieces), then a checksum of all that. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/pmf_budget.h"
#include "base/pmf_os.h"
#include "common/memory.h"
#include "common/session.h"
#include "relight.h"
#include "relight_reader.h"

#define RELIGHT_MAGIC "PMFCRLT"
#define RELIGHT_VERSION 11u

static uint64_t hash_words(uint64_t h, const void *data, size_t size)
{
    const uint8_t *p = data;
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < size; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The checksum, over a stream of pieces as over their bytes in one: whole words, the rest last. */
typedef struct checksum { uint64_t h; uint8_t rest[8]; size_t rest_count; } checksum;

static void checksum_add(checksum *c, const void *data, size_t size)
{
    const uint8_t *p = data;
    while (size && (c->rest_count || size < 8)) {
        c->rest[c->rest_count++] = *p++;
        size--;
        if (c->rest_count == 8) {
            c->h = hash_words(c->h, c->rest, 8);
            c->rest_count = 0;
        }
    }
    size_t whole = size / 8 * 8;
    c->h = hash_words(c->h, p, whole);
    for (size_t i = whole; i < size; i++) c->rest[c->rest_count++] = p[i];
}

static uint64_t checksum_end(const checksum *c)
{
    return hash_words(c->h, c->rest, c->rest_count);
}

void relight_cache_seal(uint8_t *bytes, size_t size)
{
    checksum whole = { .h = 0xcbf29ce484222325ull };
    checksum_add(&whole, bytes, size - 8);
    uint64_t sum = checksum_end(&whole);
    memcpy(bytes + size - 8, &sum, sizeof sum);
}

static uint64_t hash_text(uint64_t h, const char *s)
{
    return hash_words(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* The source's own path, every option that changes what a compile makes, and the compiler itself
 * (the program holding it: its path, size and time; another build may bake otherwise). */
static uint64_t cache_key(const pmfc_compile_desc *o, const char *source)
{
    uint64_t h = hash_text(0xcbf29ce484222325ull, PMFC_VERSION);
    char self[4096];
    pmf_os_file_info info = { 0 };
    if (pmf_os_self_path(self, sizeof self) && pmf_os_stat(self, &info) == 0) {
        h = hash_text(h, self);
        h = hash_words(h, &info.size, sizeof info.size);
        h = hash_words(h, &info.mtime_ns, sizeof info.mtime_ns);
    }
    h = hash_text(h, source);
    double numbers[] = { (double)o->samples, (double)o->bounces, o->dirt, o->scale, o->max_luxels };
    h = hash_words(h, numbers, sizeof numbers);
    for (size_t i = 0; i < o->wad_count; i++) h = hash_text(h, o->wads[i]);
    h = hash_text(h, o->game_dir);
    return hash_text(h, o->rad);
}

/* ---- reading (relight_reader.h) ---- */

/* A luxel's sums are kept as the mask of their 4-byte words that differ from the usual (0, and 1
 * for what dirt keeps), then those words: most luxels have no dirt, no sky and no light dirt
 * leaves alone, and a third none at all, so 64 bytes become some 20 and the file a third. */
#define TERM_WORDS (sizeof(bake_term) / 4)
_Static_assert(sizeof(bake_term) == 64 && TERM_WORDS <= 16, "a term's words fit the mask");

static void term_usual(uint32_t usual[TERM_WORDS])
{
    bake_term t;
    memset(&t, 0, sizeof t);
    t.keep = 1;
    memcpy(usual, &t, sizeof t);
}

static bake_term *take_terms(reader *r, uint64_t count)
{
    if (!r->ok || count > (uint64_t)(r->end - r->at) / 2) {
        r->ok = false;
        return NULL;
    }
    uint32_t usual[TERM_WORDS];
    term_usual(usual);
    bake_term *out = xmalloc(count * sizeof *out + 1);
    for (uint64_t i = 0; i < count && r->ok; i++) {
        uint16_t mask = 0;
        const void *m = take(r, sizeof mask);
        if (m) memcpy(&mask, m, sizeof mask);
        uint32_t words[TERM_WORDS];
        for (size_t k = 0; k < TERM_WORDS; k++) {
            const void *w = mask >> k & 1 ? take(r, 4) : &usual[k];
            if (w) memcpy(&words[k], w, 4);
        }
        memcpy(&out[i], words, sizeof words);
    }
    return out;
}

static bool read_vis(reader *r, relight_level *rl)
{
    const uint8_t *have = take(r, 1);
    if (!have || !*have) return r->ok;
    rl->vis_hash = take_u64(r);
    rl->vis_cells = take_u64(r);
    rl->vis_count = take_array(r, rl->vis_cells, sizeof *rl->vis_count);
    rl->vis_total = take_u64(r);
    rl->vis_lists = take_array(r, rl->vis_total, sizeof *rl->vis_lists);
    uint64_t total = 0;
    for (size_t c = 0; r->ok && c < rl->vis_cells; c++) total += rl->vis_count[c];
    rl->have_vis = r->ok && total == rl->vis_total;
    return rl->have_vis;
}

/* The dynamic lights' bounced light (bake_transport.layer_indirect), held or not: each one's
 * first cell ascending within the cells. */
static bool read_layer_bounces(reader *r, bake_transport *t)
{
    const uint8_t *have = take(r, 1);
    if (!have || !*have) return r->ok;
    t->layer_count = take_u64(r);
    if (t->layer_count >= UINT32_MAX) r->ok = false;
    t->layer_keys = take_array(r, t->layer_count, sizeof *t->layer_keys);
    t->layer_base = take_array(r, t->layer_count + 1, sizeof *t->layer_base);
    if (!r->ok) return false;
    if (t->layer_base[0] != 0) r->ok = false;
    for (size_t k = 0; r->ok && k < t->layer_count; k++)
        if (t->layer_base[k] > t->layer_base[k + 1]) r->ok = false;
    if (r->ok) t->layer_indirect = take_array(r, t->layer_base[t->layer_count], sizeof *t->layer_indirect);
    return r->ok;
}

static bool read_transport(reader *r, bake_transport *t)
{
    const uint8_t *have = take(r, 1);
    if (!have || !*have) return r->ok;
    t->hash = take_u64(r);
    t->ray_count = take_u64(r);
    t->cell_count = take_u64(r);
    t->luxel_count = take_u64(r);
    t->hits = take_array(r, t->ray_count, sizeof *t->hits);
    t->cell_open = take_array(r, t->cell_count, 1);
    t->cell_clear = take_array(r, t->cell_count, 1);
    t->cell_send = take_array(r, t->cell_count, sizeof *t->cell_send);
    t->luxel_sees = take_array(r, t->luxel_count, 1);
    /* the base lightmaps' bounces (bake_transport.gathered), held or not */
    have = take(r, 1);
    if (have && *have) {
        t->bounce_count = take_u64(r);
        if (t->bounce_count > BAKE_BOUNCE_MAX) r->ok = false;
        take_into(r, t->direct_read, sizeof t->direct_read);
        t->direct = take_array(r, t->cell_count, sizeof *t->direct);
        t->gathered = take_array(r, t->bounce_count * t->cell_count, sizeof *t->gathered);
    }
    return read_layer_bounces(r, t);
}

/* The level as built before the bake: its key and its block of bytes (read by relight_build_restore). */
static bool read_built(reader *r, relight_level *rl)
{
    const uint8_t *have = take(r, 1);
    if (!have || !*have) return r->ok;
    rl->built_key = take_u64(r);
    rl->built_size = take_u64(r);
    rl->built = take_array(r, rl->built_size, 1);
    return r->ok;
}

/* Bytes kept as runs (put_zero_runs): each a u16 count of zeros, a u16 count of bytes as they are
 * and those bytes; the layers' pieces are most of them dark (85% zeros on lq_e1m7). */
static uint8_t *take_zero_runs(reader *r, uint64_t count)
{
    /* a run's four bytes give at most 65,535 zeros: a count past that is damage, as is one the
     * memory budget refuses (a cache of this pmfc's compile fit it) */
    uint64_t most = (uint64_t)(r->end - r->at) * (UINT16_MAX / 4 + 1);
    uint8_t *out = r->ok && count <= most && count < SIZE_MAX ? pmf_budget_malloc((size_t)count + 1) : NULL;
    if (!out) {
        r->ok = false;
        return NULL;
    }
    for (uint64_t done = 0; done < count && r->ok;) {
        uint16_t runs[2] = { 0, 0 };
        take_into(r, runs, sizeof runs);
        const void *literal = runs[0] + (uint64_t)runs[1] <= count - done ? take(r, runs[1]) : NULL;
        if (!literal || runs[0] + runs[1] == 0) {
            r->ok = false;
            break;
        }
        memset(out + done, 0, runs[0]);
        memcpy(out + done + runs[0], literal, runs[1]);
        done += runs[0] + (uint64_t)runs[1];
    }
    return out;
}

/* The dynamic lights' layer pieces (bake_terms.layer_keys): keys ascending, each piece's bytes
 * inside the bytes read. */
static bool read_layer_pieces(reader *r, bake_terms *t)
{
    t->layer_piece_count = take_u64(r);
    if (t->layer_piece_count >= UINT32_MAX) r->ok = false;
    t->layer_keys = take_array(r, t->layer_piece_count, sizeof *t->layer_keys);
    t->layer_base = take_array(r, t->layer_piece_count + 1, sizeof *t->layer_base);
    t->layer_luxel_count = take_u64(r);
    t->layer_luxels = take_zero_runs(r, t->layer_luxel_count);
    if (!r->ok) return false;
    for (size_t k = 0; k < t->layer_piece_count; k++)
        if (t->layer_base[k] > t->layer_base[k + 1] || (k > 0 && t->layer_keys[k - 1] >= t->layer_keys[k])) return false;
    return t->layer_base[t->layer_piece_count] == t->layer_luxel_count;
}

static bool read_level(reader *r, relight_level *rl)
{
    if (!read_built(r, rl) || !read_vis(r, rl) || !read_transport(r, &rl->transport)) return false;
    const uint8_t *have = take(r, 1);
    if (!have || !*have) return r->ok;
    rl->geometry = take_u64(r);
    rl->light_count = take_u64(r);
    rl->lights = take_array(r, rl->light_count, sizeof *rl->lights);
    const void *ambient = take(r, sizeof rl->ambient);
    const uint8_t *traced = take(r, 3);
    rl->terms.patch_count = take_u64(r);
    if (rl->terms.patch_count >= UINT32_MAX) r->ok = false;
    rl->terms.patch_base = take_array(r, rl->terms.patch_count + 1, sizeof *rl->terms.patch_base);
    rl->terms.luxel_count = take_u64(r);
    rl->terms.luxels = take_terms(r, rl->terms.luxel_count);
    rl->patches = take_array(r, rl->terms.patch_count, sizeof *rl->patches);
    rl->terms.probe_count = take_u64(r);
    rl->terms.probe_inputs = take_u64(r);
    rl->terms.probe_base = take_array(r, rl->terms.probe_count, sizeof *rl->terms.probe_base);
    if (!read_layer_pieces(r, &rl->terms)) return false;
    memcpy(rl->ambient, ambient, sizeof rl->ambient);
    rl->terms.domes[0] = traced[0];
    rl->terms.domes[1] = traced[1];
    rl->terms.sky = traced[2];
    /* the patches' first luxels ascend within the luxels */
    for (size_t p = 0; p < rl->terms.patch_count; p++)
        if (rl->terms.patch_base[p] > rl->terms.patch_base[p + 1]) return false;
    rl->have = rl->terms.patch_base[rl->terms.patch_count] == rl->terms.luxel_count;
    return rl->have;
}

/* Every block a level holds: the one list level_free frees and a cancelled compile hands back
 * (relight_cache_blocks), so a block added to a level is added here. */
static void level_blocks(const relight_level *rl, void (*each)(void *user, void *block), void *user)
{
    const bake_transport *t = &rl->transport;
    void *blocks[] = { rl->lights, rl->patches, rl->terms.patch_base, rl->terms.luxels, rl->terms.probe_base,
                       rl->terms.layer_keys, rl->terms.layer_base, rl->terms.layer_luxels, t->hits,
                       t->cell_open, t->cell_clear, t->cell_send, t->luxel_sees, t->indirect, t->direct, t->gathered,
                       t->layer_keys, t->layer_base, t->layer_indirect, t->receiver_base, t->receivers,
                       rl->vis_count, rl->vis_lists, rl->built, rl->trees.tree.nodes, rl->trees.tree.pair_block,
                       rl->trees.tree.quad_block, rl->trees.tree.triangle_ids, rl->trees.sky_tree.nodes,
                       rl->trees.sky_tree.pair_block, rl->trees.sky_tree.quad_block, rl->trees.sky_tree.triangle_ids };
    for (size_t k = 0; k < sizeof blocks / sizeof *blocks; k++)
        if (blocks[k]) each(user, blocks[k]);
}

static void free_block(void *user, void *block)
{
    (void)user;
    xfree(block);
}

static void level_free(relight_level *rl)
{
    level_blocks(rl, free_block, NULL);
    memset(rl, 0, sizeof *rl);
}

void relight_cache_blocks(const relight_cache *rc, void (*each)(void *user, void *block), void *user)
{
    for (size_t li = 0; li < rc->level_count; li++) level_blocks(&rc->levels[li], each, user);
    if (rc->levels) each(user, rc->levels);
}

const char *relight_cache_parse(relight_cache *rc, const uint8_t *bytes, size_t size)
{
    size_t head = 8 + 4 + 4 + 8 + 8;
    if (size < head + 8 || memcmp(bytes, RELIGHT_MAGIC, 8)) return "not a relight cache";
    uint64_t sum;
    memcpy(&sum, bytes + size - 8, 8);
    checksum whole = { .h = 0xcbf29ce484222325ull };
    checksum_add(&whole, bytes, size - 8);
    if (checksum_end(&whole) != sum) return "damaged (its checksum differs)";
    uint32_t version, light_size;
    uint64_t key, levels;
    memcpy(&version, bytes + 8, 4);
    memcpy(&light_size, bytes + 12, 4);
    memcpy(&key, bytes + 16, 8);
    memcpy(&levels, bytes + 24, 8);
    if (version != RELIGHT_VERSION || light_size != sizeof(bake_light)) return "stale (another version of pmfc wrote it)";
    if (key != rc->key || levels != rc->level_count) return "stale (other options, or another build of pmfc)";
    reader r = { bytes + head, bytes + size - 8, true };
    for (size_t li = 0; li < rc->level_count; li++)
        if (!read_level(&r, &rc->levels[li])) return "damaged (a level's state is cut short)";
    return r.at == r.end ? NULL : "damaged (bytes after its levels)";
}

void relight_cache_read(relight_cache *rc, const pmfc_compile_desc *desc, size_t level_count)
{
    memset(rc, 0, sizeof *rc);
    char source[4096];
    if (!pmf_os_real_path(desc->source, source, sizeof source)) snprintf(source, sizeof source, "%s", desc->source);
    rc->key = cache_key(desc, source);
    snprintf(rc->dir, sizeof rc->dir, "%s", desc->cache_dir);
    rc->level_count = level_count;
    rc->levels = xcalloc(level_count + 1, sizeof *rc->levels);
    /* one file per source: a compile with other options or by another build replaces it */
    snprintf(rc->path, sizeof rc->path, "%s/%s-%016llx.relight", desc->cache_dir, pmf_os_base_name(desc->source),
             (unsigned long long)hash_text(0xcbf29ce484222325ull, source));
    pmf_os_file_info info;
    if (pmf_os_stat(rc->path, &info) != 0) return;
    /* the block first: nothing is allocated while the file is open; a file the budget cannot
     * hold is no cache of this compile's (its levels would not fit either) */
    uint8_t *bytes = info.size < SIZE_MAX ? pmf_budget_malloc((size_t)info.size + 1) : NULL;
    uint64_t size = info.size, done = 0;
    int fd = bytes ? pmf_os_open_regular(rc->path, &info) : -1;
    for (long long got = 1; fd >= 0 && done < size && got > 0; done += got > 0 ? (uint64_t)got : 0)
        got = pmf_os_pread(fd, bytes + done, (size_t)(size - done), done);
    if (fd >= 0) close(fd);
    const char *why = !bytes                                   ? "larger than the memory budget"
                      : fd >= 0 && done == size && info.size == size ? relight_cache_parse(rc, bytes, (size_t)size)
                                                                 : "unreadable";
    pmf_budget_free(bytes);
    if (why) {
        /* a stale cache is what another build or other options leave: no warning */
        bool stale = !strncmp(why, "stale", 5);
        session_say(stale ? PMFC_NOTE : PMFC_WARNING, "pmfc: %scache %s: %s; compiling in full", stale ? "" : "warning: ",
                    rc->path, why);
        for (size_t li = 0; li < level_count; li++) level_free(&rc->levels[li]);
    }
}

void relight_cache_take(relight_cache *rc, relight_cache *kept, const pmfc_compile_desc *desc, size_t level_count)
{
    char source[4096];
    if (!pmf_os_real_path(desc->source, source, sizeof source)) snprintf(source, sizeof source, "%s", desc->source);
    uint64_t key = cache_key(desc, source);
    if (kept->levels && kept->key == key && kept->level_count == level_count) {
        *rc = *kept;
        rc->ledger = NULL;
        kept->levels = NULL;
        kept->level_count = 0;
    } else if (desc->cache_dir) {
        relight_cache_read(rc, desc, level_count);
    } else {
        memset(rc, 0, sizeof *rc);
        rc->key = key;
        rc->level_count = level_count;
        rc->levels = xcalloc(level_count + 1, sizeof *rc->levels);
    }
    struct pmf_budget_ledger *ledger = kept->ledger;
    relight_cache_free(kept);
    kept->ledger = ledger;
}

void relight_cache_free(relight_cache *rc)
{
    for (size_t li = 0; li < rc->level_count; li++) level_free(&rc->levels[li]);
    xfree(rc->levels);
    memset(rc, 0, sizeof *rc);
}

/* ---- writing ---- */

typedef struct writer { FILE *fp; checksum sum; bool ok; } writer;

static void put(writer *w, const void *data, size_t size)
{
    if (size == 0) return; /* an empty list may have no block */
    checksum_add(&w->sum, data, size);
    w->ok = w->ok && fwrite(data, 1, size, w->fp) == size;
}

static void put_u64(writer *w, uint64_t v) { put(w, &v, sizeof v); }

static void write_vis(writer *w, const relight_level *rl)
{
    uint8_t have = rl->have_vis;
    put(w, &have, 1);
    if (!have) return;
    put_u64(w, rl->vis_hash);
    put_u64(w, rl->vis_cells);
    put(w, rl->vis_count, rl->vis_cells * sizeof *rl->vis_count);
    put_u64(w, rl->vis_total);
    put(w, rl->vis_lists, rl->vis_total * sizeof *rl->vis_lists);
}

static void write_transport(writer *w, const bake_transport *t)
{
    uint8_t have = t->hits != NULL;
    put(w, &have, 1);
    if (!have) return;
    put_u64(w, t->hash);
    put_u64(w, t->ray_count);
    put_u64(w, t->cell_count);
    put_u64(w, t->luxel_count);
    put(w, t->hits, t->ray_count * sizeof *t->hits);
    put(w, t->cell_open, t->cell_count);
    put(w, t->cell_clear, t->cell_count);
    put(w, t->cell_send, t->cell_count * sizeof *t->cell_send);
    put(w, t->luxel_sees, t->luxel_count);
    have = t->direct && t->gathered;
    put(w, &have, 1);
    if (have) {
        put_u64(w, t->bounce_count);
        put(w, t->direct_read, sizeof t->direct_read);
        put(w, t->direct, t->cell_count * sizeof *t->direct);
        put(w, t->gathered, t->bounce_count * t->cell_count * sizeof *t->gathered);
    }
    have = t->layer_keys && t->layer_base && t->layer_indirect;
    put(w, &have, 1);
    if (!have) return;
    put_u64(w, t->layer_count);
    put(w, t->layer_keys, t->layer_count * sizeof *t->layer_keys);
    put(w, t->layer_base, (t->layer_count + 1) * sizeof *t->layer_base);
    put(w, t->layer_indirect, t->layer_base[t->layer_count] * sizeof *t->layer_indirect);
}

static void put_terms(writer *w, const bake_term *terms, size_t count)
{
    uint32_t usual[TERM_WORDS];
    term_usual(usual);
    uint8_t buf[1 << 16];
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (used > sizeof buf - 2 - sizeof *terms) {
            put(w, buf, used);
            used = 0;
        }
        uint32_t words[TERM_WORDS];
        memcpy(words, &terms[i], sizeof words);
        uint16_t mask = 0;
        size_t at = used + sizeof mask;
        for (size_t k = 0; k < TERM_WORDS; k++) {
            if (words[k] == usual[k]) continue;
            mask |= (uint16_t)(1u << k);
            memcpy(buf + at, &words[k], 4);
            at += 4;
        }
        memcpy(buf + used, &mask, sizeof mask);
        used = at;
    }
    put(w, buf, used);
}

/* `count` bytes as runs of zeros and of bytes as they are (take_zero_runs). */
static void put_zero_runs(writer *w, const uint8_t *bytes, size_t count)
{
    uint8_t buf[1 << 16];
    size_t used = 0;
    for (size_t at = 0; at < count;) {
        uint16_t runs[2] = { 0, 0 };
        while (at < count && bytes[at] == 0 && runs[0] < UINT16_MAX) runs[0]++, at++;
        /* bytes as they are until four zeros in a row (a run's head costs four bytes) */
        size_t from = at;
        while (at < count && runs[1] < sizeof buf / 2 &&
               !(at + 4 <= count && !bytes[at] && !bytes[at + 1] && !bytes[at + 2] && !bytes[at + 3]))
            runs[1]++, at++;
        if (used + sizeof runs + runs[1] > sizeof buf) {
            put(w, buf, used);
            used = 0;
        }
        memcpy(buf + used, runs, sizeof runs);
        memcpy(buf + used + sizeof runs, bytes + from, runs[1]);
        used += sizeof runs + runs[1];
    }
    put(w, buf, used);
}

static void write_level(writer *w, const relight_level *rl)
{
    uint8_t have_built = rl->built != NULL;
    put(w, &have_built, 1);
    if (have_built) {
        put_u64(w, rl->built_key);
        put_u64(w, rl->built_size);
        put(w, rl->built, rl->built_size);
    }
    write_vis(w, rl);
    write_transport(w, &rl->transport);
    uint8_t have = rl->have, traced[3] = { rl->terms.domes[0], rl->terms.domes[1], rl->terms.sky };
    put(w, &have, 1);
    if (!have) return;
    put_u64(w, rl->geometry);
    put_u64(w, rl->light_count);
    put(w, rl->lights, rl->light_count * sizeof *rl->lights);
    put(w, rl->ambient, sizeof rl->ambient);
    put(w, traced, sizeof traced);
    put_u64(w, rl->terms.patch_count);
    put(w, rl->terms.patch_base, (rl->terms.patch_count + 1) * sizeof *rl->terms.patch_base);
    put_u64(w, rl->terms.luxel_count);
    put_terms(w, rl->terms.luxels, rl->terms.luxel_count);
    put(w, rl->patches, rl->terms.patch_count * sizeof *rl->patches);
    put_u64(w, rl->terms.probe_count);
    put_u64(w, rl->terms.probe_inputs);
    put(w, rl->terms.probe_base, rl->terms.probe_count * sizeof *rl->terms.probe_base);
    put_u64(w, rl->terms.layer_piece_count);
    put(w, rl->terms.layer_keys, rl->terms.layer_piece_count * sizeof *rl->terms.layer_keys);
    uint32_t no_pieces = 0;    /* a bake without dynamic lights laid none out */
    if (rl->terms.layer_base) put(w, rl->terms.layer_base, (rl->terms.layer_piece_count + 1) * sizeof *rl->terms.layer_base);
    else put(w, &no_pieces, sizeof no_pieces);
    put_u64(w, rl->terms.layer_luxel_count);
    put_zero_runs(w, rl->terms.layer_luxels, rl->terms.layer_luxel_count);
}

bool relight_cache_write(const relight_cache *rc)
{
    char why[256];
    atomic_file af;
    pmf_os_mkdir(rc->dir, 0777); /* there already, or said by atomic_file_open */
    if (!atomic_file_open(&af, rc->path, why, sizeof why)) {
        session_say(PMFC_WARNING, "pmfc: warning: cache %s: %s", rc->path, why);
        return false;
    }
    af.unsynced = true; /* a cache: a file a crash cut short fails its checksum and is compiled in full */
    writer w = { af.fp, { .h = 0xcbf29ce484222325ull }, true };
    uint32_t version = RELIGHT_VERSION, light_size = sizeof(bake_light);
    put(&w, RELIGHT_MAGIC, 8);
    put(&w, &version, 4);
    put(&w, &light_size, 4);
    put_u64(&w, rc->key);
    put_u64(&w, rc->level_count);
    for (size_t li = 0; li < rc->level_count; li++) write_level(&w, &rc->levels[li]);
    uint64_t sum = checksum_end(&w.sum);
    w.ok = w.ok && fwrite(&sum, 1, sizeof sum, af.fp) == sizeof sum;
    if (!w.ok) {
        atomic_file_abort(&af);
        session_say(PMFC_WARNING, "pmfc: warning: cache %s: cannot write it", rc->path);
        return false;
    }
    if (!atomic_file_commit(&af, why, sizeof why)) {
        session_say(PMFC_WARNING, "pmfc: warning: cache %s: %s", rc->path, why);
        return false;
    }
    return true;
}

/* ---- a bake's state ---- */

const bake_relight *relight_start(const relight_level *rl, const bake_desc *desc, bake_relight *out)
{
    if (!rl->have) return NULL;
    if (rl->geometry != bake_geometry_hash(desc)) {
        session_say(PMFC_NOTE, "pmfc: cache: more than light changed (the geometry, its lightmaps or the bake's settings): baking in full");
        return NULL;
    }
    *out = (bake_relight){ .terms = &rl->terms, .patches = rl->patches, .lights = rl->lights, .light_count = rl->light_count };
    memcpy(out->ambient, rl->ambient, sizeof out->ambient);
    return out;
}

void relight_keep(relight_level *rl, const bake_desc *desc, bake_terms *terms, const bake_result *res)
{
    rl->relit = desc->relight != NULL;
    rl->relit_lights = res->relit_lights;
    rl->relit_luxels = res->relit_luxels;
    rl->bounce_gathers = res->bounce_gathers;
    rl->bounce_cells = res->bounce_cells;
    rl->old_bounce = res->old_bounce;
    rl->have = true;
    rl->geometry = bake_geometry_hash(desc);
    xfree(rl->lights);
    rl->light_count = desc->light_count;
    rl->lights = xmalloc((desc->light_count + 1) * sizeof *rl->lights);
    memcpy(rl->lights, desc->lights, desc->light_count * sizeof *rl->lights);
    memcpy(rl->ambient, desc->ambient, sizeof rl->ambient);
    xfree(rl->patches);
    rl->patches = xmalloc((desc->patch_count + 1) * sizeof *rl->patches);
    memcpy(rl->patches, desc->patches, desc->patch_count * sizeof *rl->patches);
    bake_terms_free(&rl->terms);
    rl->terms = *terms;
    memset(terms, 0, sizeof *terms);
}

/* ---- visibility ---- */

static uint64_t vis_hash(const vis_desc *desc)
{
    uint64_t h = hash_words(0xcbf29ce484222325ull, &desc->triangle_count, sizeof desc->triangle_count);
    h = hash_words(h, desc->triangles, desc->triangle_count * sizeof *desc->triangles);
    h = hash_words(h, &desc->cell_count, sizeof desc->cell_count);
    h = hash_words(h, desc->cells, desc->cell_count * sizeof *desc->cells);
    h = hash_words(h, &desc->target_count, sizeof desc->target_count);
    h = hash_words(h, desc->targets, desc->target_count * sizeof *desc->targets);
    return hash_words(h, &desc->rays_per_pair, sizeof desc->rays_per_pair);
}

bool relight_vis_lookup(const relight_level *rl, const vis_desc *desc, vis_result *out)
{
    if (!rl->have_vis || rl->vis_cells != desc->cell_count || rl->vis_hash != vis_hash(desc)) return false;
    for (size_t k = 0; k < rl->vis_total; k++)
        if (rl->vis_lists[k] >= desc->target_count) return false;
    out->visible = xmalloc((rl->vis_cells + 1) * sizeof *out->visible);
    out->visible_count = xmalloc((rl->vis_cells + 1) * sizeof *out->visible_count);
    const uint32_t *list = rl->vis_lists;
    for (size_t c = 0; c < rl->vis_cells; c++) {
        out->visible_count[c] = rl->vis_count[c];
        out->visible[c] = xmalloc((rl->vis_count[c] + 1) * sizeof *out->visible[c]);
        memcpy(out->visible[c], list, rl->vis_count[c] * sizeof *list);
        list += rl->vis_count[c];
    }
    return true;
}

void relight_vis_keep(relight_level *rl, const vis_desc *desc, const vis_result *res)
{
    xfree(rl->vis_count);
    xfree(rl->vis_lists);
    rl->vis_hash = vis_hash(desc);
    rl->vis_cells = desc->cell_count;
    rl->vis_total = 0;
    for (size_t c = 0; c < desc->cell_count; c++) rl->vis_total += res->visible_count[c];
    rl->vis_count = xmalloc((rl->vis_cells + 1) * sizeof *rl->vis_count);
    rl->vis_lists = xmalloc((rl->vis_total + 1) * sizeof *rl->vis_lists);
    uint32_t *list = rl->vis_lists;
    for (size_t c = 0; c < desc->cell_count; c++) {
        rl->vis_count[c] = res->visible_count[c];
        memcpy(list, res->visible[c], res->visible_count[c] * sizeof *list);
        list += res->visible_count[c];
    }
    rl->have_vis = true;
}
