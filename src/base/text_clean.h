/* text_clean.h - the one sanitiser for strings that come from files (map names, texture paths,
 * error messages quoting them) before they reach a terminal or a JSON document.
 *
 * Terminal form: valid UTF-8 passes unchanged except C0 controls (0x00-0x1F), DEL and C1
 * controls (U+0080-U+009F); those and every byte that is not part of a valid UTF-8 sequence
 * (overlong, surrogate, past U+10FFFF, truncated) are written as the four characters \xNN.
 * JSON form: valid UTF-8 with U+FFFD in place of each bad byte (controls are left to the JSON
 * writer, which escapes them).
 */
#ifndef PMF_TEXT_CLEAN_H
#define PMF_TEXT_CLEAN_H

#include <stddef.h>
#include <stdio.h>

/* Terminal form of src into dst (always NUL-terminated when dst_size > 0; cut at a whole
 * character or escape when it does not fit). Returns dst. */
char *text_clean(const char *src, char *dst, size_t dst_size);

/* Terminal form of src written to out. */
void text_clean_fputs(const char *src, FILE *out);

/* JSON form of src in a new malloc'd string (NULL when out of memory). */
char *text_clean_utf8(const char *src);

/* A printed JSON document with DEL and each C1 control (valid UTF-8 the JSON writer leaves raw,
 * but a terminal may obey) written as \u007f and \u0080-\u009F; a new malloc'd string (NULL when
 * out of memory). */
char *text_clean_json(const char *json);

#endif
