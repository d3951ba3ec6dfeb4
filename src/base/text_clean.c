/* text_clean.c - escaping file strings for terminals and JSON (see text_clean.h). */
#include "text_clean.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when the byte at s starts none. */
static size_t utf8_sequence_length(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint32_t cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, cp = c & 0x1Fu, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, cp = c & 0x0Fu, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, cp = c & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0u) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* True for a control character at s whose valid sequence is len bytes long. */
static bool is_control(const unsigned char *s, size_t len)
{
    return (len == 1 && (s[0] < 0x20 || s[0] == 0x7F)) || (len == 2 && s[0] == 0xC2 && s[1] < 0xA0);
}

/* Calls emit(piece, piece_len, ctx) for each output piece of the terminal form; stops when
 * emit returns false. */
static void clean_walk(const char *src, bool (*emit)(const char *, size_t, void *), void *ctx)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)src;
    while (*s) {
        size_t len = utf8_sequence_length(s);
        if (len && !is_control(s, len)) {
            if (!emit((const char *)s, len, ctx))
                return;
            s += len;
            continue;
        }
        /* a control character is escaped byte by byte, a bad byte alone */
        for (size_t i = 0; i < (len ? len : 1); i++, s++) {
            char esc[4] = { '\\', 'x', hex[*s >> 4], hex[*s & 15u] };
            if (!emit(esc, sizeof esc, ctx))
                return;
        }
    }
}

typedef struct buffer_sink {
    char *dst;
    size_t size, used;
} buffer_sink;

static bool emit_buffer(const char *piece, size_t len, void *ctx)
{
    buffer_sink *b = ctx;
    if (b->used + len >= b->size)
        return false;
    memcpy(b->dst + b->used, piece, len);
    b->used += len;
    return true;
}

char *text_clean(const char *src, char *dst, size_t dst_size)
{
    if (!dst_size)
        return dst;
    buffer_sink b = { dst, dst_size, 0 };
    clean_walk(src ? src : "", emit_buffer, &b);
    dst[b.used] = '\0';
    return dst;
}

static bool emit_file(const char *piece, size_t len, void *ctx)
{
    return fwrite(piece, 1, len, ctx) == len;
}

void text_clean_fputs(const char *src, FILE *out)
{
    clean_walk(src ? src : "", emit_file, out);
}

char *text_clean_utf8(const char *src)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    const unsigned char *s = (const unsigned char *)(src ? src : "");
    size_t n = strlen((const char *)s);
    char *out = malloc(n * 3 + 1); /* each bad byte grows to three */
    if (!out)
        return NULL;
    size_t used = 0;
    while (*s) {
        size_t len = utf8_sequence_length(s);
        if (len) {
            memcpy(out + used, s, len);
            used += len;
            s += len;
        } else {
            memcpy(out + used, replacement, 3);
            used += 3;
            s++;
        }
    }
    out[used] = '\0';
    return out;
}

char *text_clean_json(const char *json)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(json);
    char *out = malloc(n * 6 + 1); /* DEL grows to six bytes, two C1 bytes to six */
    if (!out)
        return NULL;
    size_t used = 0;
    for (const unsigned char *s = (const unsigned char *)json; *s; s++) {
        /* outside strings JSON is ASCII with no DEL, so DEL and a C1 sequence can only sit inside one */
        if (s[0] == 0x7F) {
            memcpy(out + used, "\\u007f", 6);
            used += 6;
        } else if (s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F) {
            memcpy(out + used, "\\u00", 4);
            out[used + 4] = hex[s[1] >> 4];
            out[used + 5] = hex[s[1] & 15u];
            used += 6;
            s++;
        } else {
            out[used++] = (char)*s;
        }
    }
    out[used] = '\0';
    return out;
}
