/* pmf_error.c - filling and formatting pmf_error values. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmf_budget.h"
#include "pmf_internal.h"
#include "text_clean.h"

void pmf_error_vset(pmf_error *err, const char *file, const char *block, uint64_t offset, const char *fmt, va_list ap)
{
    if (!err)
        return;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    snprintf(err->block, sizeof err->block, "%s", block ? block : "");
    err->offset = offset;
    err->over_budget = false;
    err->line = err->column = 0;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
}

void pmf_error_set(pmf_error *err, const char *file, const char *block, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pmf_error_vset(err, file, block, offset, fmt, ap);
    va_end(ap);
}

const char *pmf_block_name(const char *prefix, const char *part, char buf[PMF_BLOCK_NAME_SIZE])
{
    if (!part)
        return prefix;
    snprintf(buf, PMF_BLOCK_NAME_SIZE, "%s %s data", prefix, part);
    return buf;
}

void pmf_error_set_text(pmf_error *err, const char *file, const char *block, int line, int column, const char *fmt, ...)
{
    if (!err)
        return;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    snprintf(err->block, sizeof err->block, "%s", block ? block : "");
    err->offset = 0;
    err->over_budget = false;
    err->line = line > 0 ? line : 1;
    err->column = column > 0 ? column : 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

char *pmf_error_format(const pmf_error *err, char *buf, size_t size)
{
    char raw[sizeof err->file + sizeof err->block + sizeof err->message + 48];
    if (err->line > 0)
        snprintf(raw, sizeof raw, "%s:%d:%d: %s%s%s", err->file, err->line, err->column, err->block,
                 err->block[0] ? ": " : "", err->message);
    else
        snprintf(raw, sizeof raw, "%s: %s, byte %llu: %s", err->file, err->block, (unsigned long long)err->offset, err->message);
    /* one line with no control bytes, whatever the file name or the file's strings hold */
    return text_clean(raw, buf, size);
}

void *pmf_reader_handle(size_t size, size_t name_offset, const char *name, pmf_error *err)
{
    size_t name_size = strnlen(name ? name : "", sizeof err->file - 1) + 1;
    char *handle = pmf_budget_calloc(1, size + name_size);
    if (!handle) {
        pmf_error_set(err, name, "header", 0, "out of memory");
        return NULL;
    }
    memcpy(handle + name_offset, name ? name : "", name_size - 1);
    return handle;
}
