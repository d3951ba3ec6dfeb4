/* json_text.h - a string from a file as a JSON value, through text_clean_utf8 (bad UTF-8 becomes
 * U+FFFD). Shared by `info --json` and `shot --inspect`. */
#ifndef PMFVIEW_JSON_TEXT_H
#define PMFVIEW_JSON_TEXT_H

#include <cjson/cJSON.h>

/* NULL when out of memory. */
cJSON *json_text(const char *s);

#endif
