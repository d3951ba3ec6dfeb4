/* fgd_read.c - the FGD reader (fgd.h): a tokenizer over the text, the class headers read, every
 * bracketed group skipped whole. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/grow.h"
#include "base/pmf_budget.h"
#include "base/pmf_os.h"
#include "fgd.h"

#define MAX_INCLUDE_DEPTH 8
#define MAX_BASE_DEPTH 16
#define MAX_NESTING 64
#define MAX_INDEX 65535

typedef struct fgd_class {
    char *name;
    char **bases;
    size_t base_count, base_cap;
    bool has_model;
    char *path, *key;
    int32_t skin, frame;
} fgd_class;

struct fgd {
    fgd_class *classes;
    size_t count, cap;
    int include_depth;
};

typedef enum { TOK_END, TOK_WORD, TOK_STRING, TOK_PUNCT } tok_kind;

typedef struct token {
    tok_kind kind;
    const char *s;                   /* its text (a string's without its quotes) */
    size_t n;
    int line, column;
} token;

typedef struct lexer {
    fgd *g;
    const char *p, *end, *line_start, *name;
    int line;
    pmf_error *err;
    bool failed;
    token peeked;
    bool has_peeked;
} lexer;

static const char punctuation[] = "()[]{},=:@";

static void fail(lexer *lx, const token *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(lexer *lx, const token *at, const char *fmt, ...)
{
    if (lx->failed)
        return;
    char message[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    pmf_error_set_text(lx->err, lx->name, "", at->line, at->column, "%s", message);
    lx->failed = true;
}

static bool is_punct(char c)
{
    return c && strchr(punctuation, c);
}

static void skip_space(lexer *lx)
{
    while (lx->p < lx->end) {
        if (*lx->p == '\n') {
            lx->line++;
            lx->line_start = ++lx->p;
        } else if (isspace((unsigned char)*lx->p)) {
            lx->p++;
        } else if (*lx->p == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else {
            return;
        }
    }
}

static token lex(lexer *lx)
{
    skip_space(lx);
    token t = { TOK_END, lx->p, 0, lx->line, (int)(lx->p - lx->line_start) + 1 };
    if (lx->failed || lx->p >= lx->end)
        return t;
    const char c = *lx->p;
    if (c == '"') {
        const char *start = ++lx->p;
        while (lx->p < lx->end && *lx->p != '"') {
            if (*lx->p == '\n') {
                lx->line++;
                lx->line_start = lx->p + 1;
            }
            lx->p++;
        }
        if (lx->p >= lx->end) {
            fail(lx, &t, "a string not closed");
            return (token){ TOK_END, lx->p, 0, t.line, t.column };
        }
        t = (token){ TOK_STRING, start, (size_t)(lx->p++ - start), t.line, t.column };
    } else if (is_punct(c)) {
        t = (token){ TOK_PUNCT, lx->p++, 1, t.line, t.column };
    } else if (!c) {
        fail(lx, &t, "a NUL byte");
        t.kind = TOK_END;
    } else {
        const char *start = lx->p;
        while (lx->p < lx->end && *lx->p && !isspace((unsigned char)*lx->p) && !is_punct(*lx->p) && *lx->p != '"')
            lx->p++;
        t = (token){ TOK_WORD, start, (size_t)(lx->p - start), t.line, t.column };
    }
    return t;
}

static token next(lexer *lx)
{
    if (lx->has_peeked) {
        lx->has_peeked = false;
        return lx->peeked;
    }
    return lex(lx);
}

static const token *peek(lexer *lx)
{
    if (!lx->has_peeked) {
        lx->peeked = lex(lx);
        lx->has_peeked = true;
    }
    return &lx->peeked;
}

static bool is(const token *t, char c)
{
    return t->kind == TOK_PUNCT && *t->s == c;
}

static bool word_is(const token *t, const char *w)
{
    return t->kind == TOK_WORD && t->n == strlen(w) && !strncasecmp(t->s, w, t->n);
}

/* The rest of a group whose opener was just read (depth groups open), up to its closer. */
static void skip_group(lexer *lx, const token *opener)
{
    char expect[MAX_NESTING];
    int depth = 0;
    expect[depth++] = *opener->s == '(' ? ')' : *opener->s == '[' ? ']' : '}';
    while (depth > 0 && !lx->failed) {
        token t = next(lx);
        if (t.kind == TOK_END) {
            fail(lx, opener, "'%c' not closed", *opener->s);
        } else if (is(&t, '(') || is(&t, '[') || is(&t, '{')) {
            if (depth == MAX_NESTING)
                fail(lx, &t, "brackets nested more than %d deep", MAX_NESTING);
            else
                expect[depth++] = *t.s == '(' ? ')' : *t.s == '[' ? ']' : '}';
        } else if (is(&t, ')') || is(&t, ']') || is(&t, '}')) {
            if (*t.s != expect[depth - 1])
                fail(lx, &t, "'%c' where '%c' closes the '%c' at line %d", *t.s, expect[depth - 1], *opener->s, opener->line);
            depth--;
        }
    }
}

static char *copy(lexer *lx, const token *t)
{
    char *s = pmf_budget_malloc(t->n + 1);
    if (!s) {
        fail(lx, t, "out of memory");
        return NULL;
    }
    memcpy(s, t->s, t->n);
    s[t->n] = 0;
    return s;
}

/* A number of the object form: 0..MAX_INDEX, else FGD_NOT_GIVEN. */
static int32_t read_index(const token *t)
{
    char digits[16];
    if (t->kind != TOK_WORD || t->n >= sizeof digits)
        return FGD_NOT_GIVEN;
    memcpy(digits, t->s, t->n);
    digits[t->n] = 0;
    char *end;
    long v = strtol(digits, &end, 10);
    return *end || v < 0 || v > MAX_INDEX ? FGD_NOT_GIVEN : (int32_t)v;
}

static void set_path(lexer *lx, fgd_class *c, const token *t)
{
    token path = *t;
    if (path.kind == TOK_STRING && path.n && *path.s == ':') {
        path.s++;
        path.n--;
    }
    pmf_budget_free(c->path);
    pmf_budget_free(c->key);
    c->path = path.kind == TOK_STRING ? copy(lx, &path) : NULL;
    c->key = path.kind == TOK_WORD ? copy(lx, &path) : NULL;
    c->has_model = c->path || c->key;
}

/* TrenchBroom's {"path": ..., "skin": N, "frame": N}, its '{' read, up to its '}': not that form
 * (an expression) sets nothing. */
static void read_model_object(lexer *lx, fgd_class *c, const token *opener)
{
    for (;;) {
        token k = next(lx);
        if (is(&k, '}'))
            return;
        token colon = k.kind == TOK_STRING ? next(lx) : k;
        token v = is(&colon, ':') ? next(lx) : colon;
        if (!is(&colon, ':') || (v.kind != TOK_STRING && v.kind != TOK_WORD)) {
            if (is(&v, '(') || is(&v, '[') || is(&v, '{'))
                skip_group(lx, &v);
            if (!is(&v, '}'))
                skip_group(lx, opener);
            return;
        }
        if (k.n == 4 && !memcmp(k.s, "path", 4))
            set_path(lx, c, &v);
        else if (k.n == 4 && !memcmp(k.s, "skin", 4))
            c->skin = read_index(&v);
        else if (k.n == 5 && !memcmp(k.s, "frame", 5))
            c->frame = read_index(&v);
        token sep = next(lx);
        if (is(&sep, '}'))
            return;
        if (!is(&sep, ',')) {
            fail(lx, sep.kind == TOK_END ? opener : &sep, "',' or '}' after a model's \"%.*s\"", (int)(k.n < 40 ? k.n : 40), k.s);
            return;
        }
    }
}

/* model(...), studio(...), sprite(...), iconsprite(...): its '(' read. */
static void read_model(lexer *lx, fgd_class *c, const token *opener)
{
    token t = next(lx);
    if (is(&t, ')')) {
        token key = { TOK_WORD, "model", 5, t.line, t.column };
        set_path(lx, c, &key);
        return;
    }
    if (t.kind == TOK_STRING) {
        set_path(lx, c, &t);
    } else if (is(&t, '{')) {
        c->skin = c->frame = FGD_NOT_GIVEN;
        read_model_object(lx, c, &t);
    } else if (is(&t, '(') || is(&t, '[')) {
        skip_group(lx, &t);
    } else if (t.kind == TOK_END) {
        fail(lx, opener, "'(' not closed");
    }
    if (!lx->failed)
        skip_group(lx, opener);
}

static void read_base(lexer *lx, fgd_class *c, const token *opener)
{
    for (;;) {
        token t = next(lx);
        if (is(&t, ')') || lx->failed)
            return;
        if (t.kind == TOK_WORD) {
            if (!grow_array_budget((void **)&c->bases, &c->base_cap, c->base_count + 1, sizeof *c->bases)) {
                fail(lx, &t, "out of memory");
                return;
            }
            c->bases[c->base_count] = copy(lx, &t);
            c->base_count += c->bases[c->base_count] != NULL;
        } else if (!is(&t, ',')) {
            fail(lx, t.kind == TOK_END ? opener : &t, t.kind == TOK_END ? "'(' not closed" : "a base class name or ')' in base()");
            return;
        }
    }
}

static void free_class(fgd_class *c)
{
    for (size_t i = 0; i < c->base_count; i++)
        pmf_budget_free(c->bases[i]);
    pmf_budget_free(c->bases);
    pmf_budget_free(c->name);
    pmf_budget_free(c->path);
    pmf_budget_free(c->key);
}

/* After its name, the class's description and body: up to its '[ ... ]'. */
static void skip_to_body(lexer *lx, const token *name)
{
    while (!lx->failed) {
        token t = next(lx);
        if (is(&t, '[')) {
            skip_group(lx, &t);
            return;
        }
        if (t.kind == TOK_END || is(&t, '@')) {
            fail(lx, name, "class %.*s has no [ ] body", (int)(name->n < 60 ? name->n : 60), name->s);
            return;
        }
        if (is(&t, '(') || is(&t, '{'))
            skip_group(lx, &t);
    }
}

static void read_class(lexer *lx, const token *directive)
{
    fgd_class c = { .skin = FGD_NOT_GIVEN, .frame = FGD_NOT_GIVEN };
    while (!lx->failed && !c.name) {
        token t = next(lx);
        if (t.kind == TOK_WORD && is(peek(lx), '(')) {
            token opener = next(lx);
            if (word_is(&t, "base"))
                read_base(lx, &c, &opener);
            else if (word_is(&t, "model") || word_is(&t, "studio") || word_is(&t, "sprite") || word_is(&t, "iconsprite"))
                read_model(lx, &c, &opener);
            else
                skip_group(lx, &opener);
        } else if (is(&t, '=')) {
            token name = next(lx);
            if (name.kind != TOK_WORD && name.kind != TOK_STRING)
                fail(lx, &name, "a class name after '='");
            else if ((c.name = copy(lx, &name)))
                skip_to_body(lx, &name);
        } else if (t.kind != TOK_WORD) {
            fail(lx, t.kind == TOK_END ? directive : &t, "@%.*s without '= name [ ... ]'", (int)(directive->n < 40 ? directive->n : 40),
                 directive->s);
        }
    }
    fgd *g = lx->g;
    if (!lx->failed && g->count == FGD_MAX_CLASSES)
        fail(lx, directive, "more than %u classes", FGD_MAX_CLASSES);
    if (!lx->failed && !grow_array_budget((void **)&g->classes, &g->cap, g->count + 1, sizeof *g->classes))
        fail(lx, directive, "out of memory");
    if (lx->failed)
        free_class(&c);
    else
        g->classes[g->count++] = c;
}

/* @include "file": the file beside the including one. */
static void read_include(lexer *lx, const token *directive)
{
    token file = next(lx);
    if (file.kind != TOK_STRING) {
        fail(lx, file.kind == TOK_END ? directive : &file, "a file name in quotes after @include");
        return;
    }
    if (lx->g->include_depth >= MAX_INCLUDE_DEPTH) {
        fail(lx, &file, "@include more than %d deep", MAX_INCLUDE_DEPTH);
        return;
    }
    const char *slash = strrchr(lx->name, '/'), *back = strrchr(lx->name, '\\');
    size_t dir = slash || back ? (size_t)((slash > back ? slash : back) - lx->name) + 1 : 0;
    char path[1024];
    if (dir + file.n >= sizeof path) {
        fail(lx, &file, "an @include path too long");
        return;
    }
    snprintf(path, sizeof path, "%.*s%.*s", (int)dir, lx->name, (int)file.n, file.s);
    lx->g->include_depth++;
    pmf_error inner;
    bool read = fgd_add_file(lx->g, path, &inner);
    if (!read && inner.line > 0) {
        *lx->err = inner;   /* a line of the included file */
        lx->failed = true;
    } else if (!read) {
        fail(lx, &file, "@include \"%.*s\": %s", (int)(file.n < 80 ? file.n : 80), file.s, inner.message);
    }
    lx->g->include_depth--;
}

/* Any other directive (@mapsize(...), @MaterialExclusion [...], @AutoVisGroup = "x" [...]): up to
 * the next '@'. */
static void skip_directive(lexer *lx)
{
    while (!lx->failed) {
        const token *t = peek(lx);
        if (t->kind == TOK_END || is(t, '@'))
            return;
        token u = next(lx);
        if (is(&u, '(') || is(&u, '[') || is(&u, '{'))
            skip_group(lx, &u);
        else if (is(&u, ')') || is(&u, ']') || is(&u, '}'))
            fail(lx, &u, "'%c' closes nothing", *u.s);
    }
}

bool fgd_add_text(fgd *g, const char *text, size_t size, const char *name, pmf_error *err)
{
    lexer lx = { .g = g, .p = text, .end = text + size, .line_start = text, .name = name, .line = 1, .err = err };
    if (size > FGD_MAX_BYTES) {
        pmf_error_set_text(err, name, "", 1, 1, "%zu bytes, more than an FGD's %zu", size, FGD_MAX_BYTES);
        return false;
    }
    while (!lx.failed) {
        token t = next(&lx);
        if (t.kind == TOK_END)
            break;
        token directive = next(&lx);
        if (!is(&t, '@'))
            fail(&lx, &t, "'%.*s' where a '@' directive starts", (int)(t.n < 40 ? t.n : 40), t.s);
        else if (directive.kind != TOK_WORD)
            fail(&lx, &directive, "a directive's name after '@'");
        else if (directive.n >= 5 && !strncasecmp(directive.s + directive.n - 5, "class", 5))
            read_class(&lx, &directive);
        else if (word_is(&directive, "include"))
            read_include(&lx, &directive);
        else
            skip_directive(&lx);
    }
    return !lx.failed;
}

bool fgd_add_file(fgd *g, const char *path, pmf_error *err)
{
    /* a FIFO or device named as a file is not opened (it could block), as every reader refuses one */
    pmf_os_file_info st;
    FILE *f = pmf_os_stat(path, &st) == 0 && st.regular ? pmf_os_fopen(path, "rb") : NULL;
    long length = f && !fseek(f, 0, SEEK_END) ? ftell(f) : -1;
    size_t size = length > 0 && (unsigned long)length <= FGD_MAX_BYTES ? (size_t)length : length > 0 ? FGD_MAX_BYTES + 1 : 0;
    char *text = length >= 0 ? pmf_budget_malloc(size + 1) : NULL;
    bool ok = text && !fseek(f, 0, SEEK_SET) && fread(text, 1, size, f) == size;
    if (f)
        fclose(f);
    if (!ok)
        pmf_error_set(err, path, "file", 0, "%s", length < 0 || text ? "cannot be read" : "out of memory");
    ok = ok && fgd_add_text(g, text, size, path, err);
    pmf_budget_free(text);
    return ok;
}

fgd *fgd_new(void)
{
    return pmf_budget_calloc(1, sizeof(fgd));
}

void fgd_free(fgd *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->count; i++)
        free_class(&g->classes[i]);
    pmf_budget_free(g->classes);
    pmf_budget_free(g);
}

size_t fgd_class_count(const fgd *g)
{
    return g->count;
}

const char *fgd_class_name(const fgd *g, size_t i)
{
    return i < g->count ? g->classes[i].name : NULL;
}

/* The last definition of the class (a later one replaces an earlier one). */
static const fgd_class *find(const fgd *g, const char *name)
{
    for (size_t i = g->count; i-- > 0;)
        if (!strcasecmp(g->classes[i].name, name))
            return &g->classes[i];
    return NULL;
}

static const fgd_class *with_model(const fgd *g, const fgd_class *c, int depth, bool *seen)
{
    if (c->has_model)
        return c;
    if (depth == MAX_BASE_DEPTH || seen[c - g->classes])
        return NULL;
    seen[c - g->classes] = true;
    for (size_t i = 0; i < c->base_count; i++) {
        const fgd_class *b = find(g, c->bases[i]), *m = b ? with_model(g, b, depth + 1, seen) : NULL;
        if (m)
            return m;
    }
    return NULL;
}

bool fgd_class_model(const fgd *g, const char *classname, fgd_model *out)
{
    const fgd_class *c = find(g, classname);
    bool *seen = c ? pmf_budget_calloc(g->count, sizeof *seen) : NULL;
    const fgd_class *m = seen ? with_model(g, c, 0, seen) : NULL;
    pmf_budget_free(seen);
    if (!m)
        return false;
    *out = (fgd_model){ m->path, m->key, m->skin, m->frame };
    return true;
}
