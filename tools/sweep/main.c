/* main.c - pmfsweep: the figures, names and contact sheet of scripts/sweep.sh (docs/sweep.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_clean.h"
#include "sweep.h"

static void usage(FILE *out)
{
    fputs("usage: pmfsweep probe MAP.pmf [--picture PICTURE.png] [--at X,Y,Z]   figures of one sweep row\n"
          "       pmfsweep sheet -o OUT.png [--columns N] PICTURE LABEL...   the contact sheet\n"
          "       pmfsweep label TEXT   TEXT made safe for a Markdown table cell\n"
          "(scripts/sweep.sh runs them; docs/sweep.md)\n",
          out);
}

/* The terminal form of text_clean (controls and bad bytes as \xNN), then each character that
 * Markdown or a table would read as markup behind a backslash (not '_': GitHub's Markdown reads
 * none inside a word, and file names are full of them). */
static int label(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "pmfsweep: label: usage: pmfsweep label TEXT\n");
        return 1;
    }
    size_t size = strlen(argv[1]) * 4 + 1;
    char *clean = malloc(size);
    if (!clean) {
        fprintf(stderr, "pmfsweep: out of memory\n");
        return 3;
    }
    text_clean(argv[1], clean, size);
    for (const char *p = clean; *p; p++) {
        if (strchr("\\`*[]<>|", *p))
            putchar('\\');
        putchar(*p);
    }
    putchar('\n');
    free(clean);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    if (!strcmp(argv[1], "probe"))
        return sweep_probe(argc - 1, argv + 1);
    if (!strcmp(argv[1], "sheet"))
        return sweep_sheet(argc - 1, argv + 1);
    if (!strcmp(argv[1], "label"))
        return label(argc - 1, argv + 1);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 1;
}
