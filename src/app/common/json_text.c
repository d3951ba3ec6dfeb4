/* json_text.c - file strings into JSON values. */
#include "json_text.h"

#include <stdlib.h>

#include "text_clean.h"

cJSON *json_text(const char *s)
{
    char *clean = text_clean_utf8(s);
    cJSON *item = clean ? cJSON_CreateString(clean) : NULL;
    free(clean);
    return item;
}
