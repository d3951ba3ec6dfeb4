/* map_read.c - the .map reader (map_read.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "map_read.h"
#include "base/pmf_budget.h"

#define MAX_FILE_SIZE ((uint64_t)1 << 30)

/* ---- strings: one arena, freed at once --------------------------------------------------- */

typedef struct arena_block { struct arena_block *next; size_t size, used; char data[]; } arena_block;

static char *arena_copy(void **arena, const char *s, size_t n)
{
    arena_block *b = *arena;
    if (!b || b->size - b->used < n + 1) {
        size_t size = n + 1 > 65536 ? n + 1 : 65536;
        arena_block *nb = pmf_budget_malloc(sizeof *nb + size);
        if (!nb) return NULL;
        nb->next = b;
        nb->size = size;
        nb->used = 0;
        *arena = b = nb;
    }
    char *p = b->data + b->used;
    memcpy(p, s, n);
    p[n] = 0;
    b->used += n + 1;
    return p;
}

static void arena_free(void *arena)
{
    for (arena_block *b = arena, *next; b; b = next) {
        next = b->next;
        pmf_budget_free(b);
    }
}

/* ---- tokens ------------------------------------------------------------------------------- */

typedef enum { TOK_END, TOK_PUNCT, TOK_STRING, TOK_WORD } tok_kind;

typedef struct reader {
    const uint8_t *p;
    size_t size, pos;
    int line, col;
    const char *name;
    pmf_error *err;
    bool failed;
    qmap *map;
    uint32_t entity, brush;              /* for the error's context */
    bool in_brush;
    /* the token just read: any length the file holds (Hammer's `wad` lists run to kilobytes) */
    tok_kind kind;
    char *text;
    size_t len, text_cap;
    int tline, tcol;
    /* the grown arrays' capacities */
    uint32_t entity_cap, kv_cap, brush_cap, face_cap;
} reader;

static bool fail_at(reader *r, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool fail_at(reader *r, int line, int col, const char *fmt, ...)
{
    if (r->failed) return false;
    r->failed = true;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char block[64] = "";
    if (r->in_brush) snprintf(block, sizeof block, "entity %u brush %u", r->entity, r->brush);
    else if (r->map->entity_count || r->entity) snprintf(block, sizeof block, "entity %u", r->entity);
    pmf_error_set_text(r->err, r->name, block, line, col, "%s", msg);
    return false;
}

/* What the token read is, for a message ("'{'", "end of file", "word 'abc'"); escaped later. */
static const char *shown(const reader *r, char *buf, size_t size)
{
    if (r->kind == TOK_END) snprintf(buf, size, "the end of the file");
    else if (r->kind == TOK_STRING) snprintf(buf, size, "\"%.40s\"", r->text);
    else snprintf(buf, size, "'%.40s'", r->text);
    return buf;
}

static void advance(reader *r, size_t n)
{
    for (size_t i = 0; i < n && r->pos < r->size; i++, r->pos++) {
        if (r->p[r->pos] == '\n') {
            r->line++;
            r->col = 1;
        } else {
            r->col++;
        }
    }
}

/* Skips blanks and // comments; the position then is the next token's. */
static void skip_blank(reader *r)
{
    while (r->pos < r->size) {
        uint8_t c = r->p[r->pos];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
            advance(r, 1);
        } else if (c == '/' && r->pos + 1 < r->size && r->p[r->pos + 1] == '/') {
            /* TrenchBroom's "// Game: Quake" tells the game */
            size_t end = r->pos;
            while (end < r->size && r->p[end] != '\n') end++;
            static const char key[] = "// Game:";
            if (!r->map->game[0] && end - r->pos > sizeof key - 1 && !memcmp(r->p + r->pos, key, sizeof key - 1)) {
                size_t s = r->pos + sizeof key - 1, e = end;
                while (s < e && r->p[s] == ' ') s++;
                while (e > s && (r->p[e - 1] == ' ' || r->p[e - 1] == '\r')) e--;
                size_t n = e - s < sizeof r->map->game - 1 ? e - s : sizeof r->map->game - 1;
                memcpy(r->map->game, r->p + s, n);
                r->map->game[n] = 0;
            }
            advance(r, end - r->pos);
        } else {
            return;
        }
    }
}

/* The token's text, n bytes and a NUL, in the reader's buffer grown through the budget. */
static bool set_text(reader *r, const uint8_t *s, size_t n)
{
    if (n >= r->text_cap) {
        size_t cap = n + 1 > 2 * r->text_cap ? n + 1 : 2 * r->text_cap;
        char *text = pmf_budget_realloc(r->text, cap);
        if (!text)
            return fail_at(r, r->tline, r->tcol, "out of memory for a token of %zu bytes (%llu MiB of the budget in use; see --memory)",
                           n, (unsigned long long)(pmf_budget_used() >> 20));
        r->text = text;
        r->text_cap = cap;
    }
    if (n) memcpy(r->text, s, n);
    r->text[n] = 0;
    r->len = n;
    return true;
}

static bool is_punct(uint8_t c)
{
    return c == '{' || c == '}' || c == '(' || c == ')' || c == '[' || c == ']';
}

/* The next token; `raw`: a bare word runs to the next blank whatever it holds (a texture such as
 * {trigger or *water). */
static bool next(reader *r, bool raw)
{
    skip_blank(r);
    r->tline = r->line;
    r->tcol = r->col;
    if (!set_text(r, NULL, 0)) return false;
    if (r->pos >= r->size) {
        r->kind = TOK_END;
        return true;
    }
    uint8_t c = r->p[r->pos];
    if (c == '"') {
        size_t start = r->pos + 1, end = start;
        while (end < r->size && r->p[end] != '"' && r->p[end] != '\n') end++;
        if (end >= r->size || r->p[end] != '"')
            return fail_at(r, r->tline, r->tcol, "a quoted string does not end on its line");
        if (memchr(r->p + start, 0, end - start)) return fail_at(r, r->tline, r->tcol, "a NUL byte inside a string");
        if (!set_text(r, r->p + start, end - start)) return false;
        r->kind = TOK_STRING;
        advance(r, end + 1 - r->pos);
        return true;
    }
    if (!raw && is_punct(c)) {
        if (!set_text(r, &c, 1)) return false;
        r->kind = TOK_PUNCT;
        advance(r, 1);
        return true;
    }
    size_t end = r->pos;
    while (end < r->size) {
        uint8_t d = r->p[end];
        if (d == ' ' || d == '\t' || d == '\r' || d == '\n' || d == '\f' || d == '\v' || d == '"') break;
        if (!raw && end > r->pos && is_punct(d)) break;
        end++;
    }
    if (memchr(r->p + r->pos, 0, end - r->pos)) return fail_at(r, r->tline, r->tcol, "a NUL byte in the text");
    if (!set_text(r, r->p + r->pos, end - r->pos)) return false;
    r->kind = TOK_WORD;
    advance(r, end - r->pos);
    return true;
}

static bool expect_punct(reader *r, char c, const char *where)
{
    char buf[64];
    if (!next(r, false)) return false;
    if (r->kind != TOK_PUNCT || r->text[0] != c)
        return fail_at(r, r->tline, r->tcol, "expected '%c' %s, found %s", c, where, shown(r, buf, sizeof buf));
    return true;
}

static bool number(reader *r, double *out, const char *what)
{
    char buf[64];
    if (!next(r, false)) return false;
    char *end;
    errno = 0;
    double d = r->kind == TOK_WORD ? strtod(r->text, &end) : 0;
    if (r->kind != TOK_WORD || end == r->text || *end || !isfinite(d))
        return fail_at(r, r->tline, r->tcol, "expected %s (a finite number), found %s", what, shown(r, buf, sizeof buf));
    *out = d;
    return true;
}

/* ---- growing the arrays ------------------------------------------------------------------- */

static void *grow(reader *r, void *items, uint32_t count, uint32_t *cap, size_t size)
{
    if (count < *cap) return items;
    uint32_t n = *cap ? *cap * 2 : 16;
    if (n <= count || (uint64_t)n * size > ((uint64_t)1 << 32)) {
        fail_at(r, r->tline, r->tcol, "too many items for one map");
        return NULL;
    }
    void *p = pmf_budget_realloc(items, (size_t)n * size);
    if (!p) {
        fail_at(r, r->tline, r->tcol, "out of memory (%llu MiB of the budget in use; see --memory)",
                (unsigned long long)(pmf_budget_used() >> 20));
        return NULL;
    }
    *cap = n;
    return p;
}

static const char *keep(reader *r, const char *s, size_t n)
{
    const char *p = arena_copy(&r->map->arena_, s, n);
    if (!p) fail_at(r, r->tline, r->tcol, "out of memory");
    return p;
}

/* ---- the grammar -------------------------------------------------------------------------- */

/* Skips a Quake 3 brushDef / patchDef block: its braces balanced, to its closing '}'. */
static bool skip_block(reader *r)
{
    int depth = 0;
    int line = r->tline, col = r->tcol;
    for (;;) {
        if (!next(r, false)) return false;
        if (r->kind == TOK_END) return fail_at(r, line, col, "the file ends inside this block");
        if (r->kind != TOK_PUNCT) continue;
        if (r->text[0] == '{') depth++;
        else if (r->text[0] == '}' && depth-- == 0) return true;
    }
}

static bool read_point(reader *r, double p[3])
{
    if (!expect_punct(r, '(', "before a plane point")) return false;
    for (int a = 0; a < 3; a++)
        if (!number(r, &p[a], "a coordinate")) return false;
    return expect_punct(r, ')', "after a plane point");
}

/* The first face's '(' has been read. */
static bool read_face(reader *r, qmap_face *f)
{
    f->line = r->tline;
    f->column = r->tcol;
    for (int a = 0; a < 3; a++) f->points[0][a] = 0;
    for (int a = 0; a < 3; a++)
        if (!number(r, &f->points[0][a], "a coordinate")) return false;
    if (!expect_punct(r, ')', "after a plane point") || !read_point(r, f->points[1]) || !read_point(r, f->points[2]))
        return false;
    char buf[64];
    if (!next(r, true)) return false;
    if (r->kind != TOK_WORD && r->kind != TOK_STRING)
        return fail_at(r, r->tline, r->tcol, "expected a texture name, found %s", shown(r, buf, sizeof buf));
    if (!(f->texture = keep(r, r->text, r->len))) return false;
    int last_line;
    /* Valve 220's axes, or the standard shift */
    size_t save_pos = r->pos;
    int save_line = r->line, save_col = r->col;
    if (!next(r, false)) return false;
    if (r->kind == TOK_PUNCT && r->text[0] == '[') {
        f->valve = true;
        r->map->valve = true;
        for (int axis = 0; axis < 2; axis++) {
            double *v = axis ? f->v : f->u;
            if (axis && !expect_punct(r, '[', "before the V axis")) return false;
            for (int k = 0; k < 4; k++)
                if (!number(r, &v[k], k < 3 ? "an axis component" : "a shift")) return false;
            if (!expect_punct(r, ']', "after a texture axis")) return false;
        }
        f->shift[0] = f->u[3];
        f->shift[1] = f->v[3];
    } else {
        r->pos = save_pos;
        r->line = save_line;
        r->col = save_col;
        if (!number(r, &f->shift[0], "the texture's U shift") || !number(r, &f->shift[1], "the texture's V shift")) return false;
    }
    if (!number(r, &f->rotation, "the texture's rotation") || !number(r, &f->scale[0], "the texture's U scale")
        || !number(r, &f->scale[1], "the texture's V scale"))
        return false;
    last_line = r->tline;
    /* Quake 2: contents, flags and value on the same line */
    double extra[3];
    int n = 0;
    for (; n < 3; n++) {
        save_pos = r->pos;
        save_line = r->line;
        save_col = r->col;
        skip_blank(r);
        bool same_line = r->line == last_line && r->pos < r->size && !is_punct(r->p[r->pos]);
        r->pos = save_pos;
        r->line = save_line;
        r->col = save_col;
        if (!same_line) break;
        if (!number(r, &extra[n], "a Quake 2 surface number")) return false;
    }
    if (n == 3) {
        f->quake2 = true;
        r->map->quake2 = true;
        f->contents = (uint32_t)(int64_t)extra[0];
        f->flags = (uint32_t)(int64_t)extra[1];
        f->value = (int32_t)extra[2];
    } else if (n) {
        return fail_at(r, r->line, r->col, "%d number(s) after the texture's scale: Quake 2 writes 3 (contents, flags, value)", n);
    }
    return true;
}

/* The brush's '{' has been read. */
static bool read_brush(reader *r, qmap_entity *e)
{
    qmap *m = r->map;
    int line = r->tline;
    r->in_brush = true;
    r->brush = e->brush_count;
    qmap_brush brush = { m->face_count, 0, line };
    for (;;) {
        char buf[64];
        if (!next(r, false)) return false;
        if (r->kind == TOK_END) return fail_at(r, line, 1, "the file ends inside this brush");
        if (r->kind == TOK_PUNCT && r->text[0] == '}') break;
        if (r->kind == TOK_WORD && (!strncasecmp(r->text, "brushDef", 8) || !strncasecmp(r->text, "patchDef", 8))) {
            if (!m->skipped) m->skipped_line = r->tline;
            m->skipped++;
            if (!expect_punct(r, '{', "after a Quake 3 block's name") || !skip_block(r)) return false;
            if (!expect_punct(r, '}', "after a Quake 3 block")) return false;
            r->in_brush = false;
            return true;
        }
        if (r->kind != TOK_PUNCT || r->text[0] != '(')
            return fail_at(r, r->tline, r->tcol, "expected a face '(' or the brush's '}', found %s", shown(r, buf, sizeof buf));
        qmap_face *faces = grow(r, m->faces, m->face_count, &r->face_cap, sizeof *m->faces);
        if (!faces) return false;
        m->faces = faces;
        qmap_face *f = &m->faces[m->face_count];
        memset(f, 0, sizeof *f);
        if (!read_face(r, f)) return false;
        m->face_count++;
        brush.face_count++;
    }
    r->in_brush = false;
    if (!brush.face_count) return true; /* an empty brush: nothing */
    qmap_brush *brushes = grow(r, m->brushes, m->brush_count, &r->brush_cap, sizeof *m->brushes);
    if (!brushes) return false;
    m->brushes = brushes;
    m->brushes[m->brush_count++] = brush;
    e->brush_count++;
    return true;
}

static bool read_entity(reader *r)
{
    qmap *m = r->map;
    qmap_entity e = { m->kv_count, 0, m->brush_count, 0, r->tline };
    r->entity = m->entity_count;
    for (;;) {
        char buf[64];
        if (!next(r, false)) return false;
        if (r->kind == TOK_END) return fail_at(r, e.line, 1, "the file ends inside this entity");
        if (r->kind == TOK_PUNCT && r->text[0] == '}') break;
        if (r->kind == TOK_PUNCT && r->text[0] == '{') {
            if (!read_brush(r, &e)) return false;
            continue;
        }
        if (r->kind != TOK_STRING)
            return fail_at(r, r->tline, r->tcol, "expected a \"key\", a brush '{' or the entity's '}', found %s",
                           shown(r, buf, sizeof buf));
        const char *key = keep(r, r->text, r->len);
        if (!key || !next(r, false)) return false;
        if (r->kind != TOK_STRING)
            return fail_at(r, r->tline, r->tcol, "expected the \"value\" of key \"%.40s\", found %s", key, shown(r, buf, sizeof buf));
        const char *value = keep(r, r->text, r->len);
        if (!value) return false;
        qmap_kv *kvs = grow(r, m->kvs, m->kv_count, &r->kv_cap, sizeof *m->kvs);
        if (!kvs) return false;
        m->kvs = kvs;
        m->kvs[m->kv_count++] = (qmap_kv){ key, value };
        e.kv_count++;
    }
    qmap_entity *entities = grow(r, m->entities, m->entity_count, &r->entity_cap, sizeof *m->entities);
    if (!entities) return false;
    m->entities = entities;
    m->entities[m->entity_count++] = e;
    return true;
}

bool qmap_read(const uint8_t *data, size_t size, const char *name, qmap *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    reader r = { .p = data, .size = size, .line = 1, .col = 1, .name = name, .err = err, .map = out };
    while (!r.failed) {
        char buf[64];
        if (!next(&r, false)) break;
        if (r.kind == TOK_END) break;
        if (r.kind != TOK_PUNCT || r.text[0] != '{') {
            fail_at(&r, r.tline, r.tcol, "expected an entity '{', found %s", shown(&r, buf, sizeof buf));
            break;
        }
        read_entity(&r);
    }
    if (!r.failed && !out->entity_count) fail_at(&r, r.line, r.col, "no entity: a .map holds at least the worldspawn");
    pmf_budget_free(r.text);
    if (r.failed) {
        qmap_free(out);
        return false;
    }
    return true;
}

bool qmap_read_file(const char *path, qmap *out, pmf_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0;
    if (!pmf_read_whole_file(path, MAX_FILE_SIZE, &data, &size, err)) return false;
    bool ok = qmap_read(data, size, path, out, err);
    pmf_budget_free(data);
    return ok;
}

void qmap_free(qmap *map)
{
    pmf_budget_free(map->entities);
    pmf_budget_free(map->kvs);
    pmf_budget_free(map->brushes);
    pmf_budget_free(map->faces);
    arena_free(map->arena_);
    memset(map, 0, sizeof *map);
}

const char *qmap_value(const qmap *map, const qmap_entity *e, const char *key)
{
    for (uint32_t i = 0; i < e->kv_count; i++)
        if (!strcasecmp(map->kvs[e->first_kv + i].key, key)) return map->kvs[e->first_kv + i].value;
    return NULL;
}
