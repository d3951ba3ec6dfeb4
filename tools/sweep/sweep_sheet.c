/* sweep_sheet.c - `pmfsweep sheet -o OUT.png [--columns N] PICTURE LABEL...`: the contact sheet
 * of the sweep's start pictures (docs/sweep.md "The sheet"). Each picture fills a cell of the
 * largest picture's size (smaller ones centred), its label under it in the HUD's font
 * (stb_easy_font), drawn on the CPU so that the sheet needs no GL. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stb_easy_font is header-only with static functions; its initialisers trip -Wmissing-braces. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-braces"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

#include "base/cli.h"
#include "base/pmf_budget.h"
#include "base/text_clean.h"
#include "render/hud.h"
#include "res/png_write.h"
#include "sweep.h"

#define SHEET_GAP 8
/* A sheet side stays within this: the cells shrink by a whole factor when they would not fit. */
#define SHEET_MAX_SIDE 16384
#define SHEET_LABEL_LINES 3
#define SHEET_LINE_CHARS 255

static const uint8_t background[3] = { 32, 32, 32 }, missing_tile[3] = { 72, 24, 24 };
static const uint8_t name_colour[3] = { 255, 255, 255 }, note_colour[3] = { 190, 190, 190 },
                     alarm_colour[3] = { 255, 90, 70 };

typedef struct sheet {
    uint8_t *rgba;
    int width, height;
} sheet;

typedef struct sheet_options {
    const char *output;
    unsigned long long columns;      /* 0 = ceil(sqrt(pictures)) */
    char **items;                    /* PICTURE LABEL pairs */
    int item_count;
} sheet_options;

static void fill(sheet *s, int x0, int y0, int w, int h, const uint8_t rgb[3])
{
    for (int y = y0 < 0 ? 0 : y0; y < y0 + h && y < s->height; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x0 + w && x < s->width; x++)
            memcpy(&s->rgba[((size_t)y * (size_t)s->width + (size_t)x) * 4], rgb, 3);
}

/* One line of text (printable ASCII) with its top-left at (x, y), every stroke scale pixels. */
static void draw_text(sheet *s, int x, int y, const char *text, int scale, const uint8_t rgb[3])
{
    /* stb_easy_font writes at most ~270 bytes (17 vertices) per character */
    static hud_vertex quads[(SHEET_LINE_CHARS + 1) * 32];
    int count = stb_easy_font_print(0.0f, 0.0f, (char *)text, NULL, quads, (int)sizeof quads);
    for (int q = 0; q < count; q++) {
        const hud_vertex *v = &quads[q * 4];
        int x0 = (int)lroundf(v[0].xyz[0] * (float)scale), y0 = (int)lroundf(v[0].xyz[1] * (float)scale);
        int x1 = (int)lroundf(v[2].xyz[0] * (float)scale), y1 = (int)lroundf(v[2].xyz[1] * (float)scale);
        fill(s, x + x0, y + y0, x1 - x0, y1 - y0, rgb);
    }
}

/* Line `index` of a label as the font draws it: bytes outside printable ASCII become '?', and a
 * line wider than `width` keeps its end behind "..." (a path's file name matters most). Sets
 * *alarm for a line that starts with '!' (the '!' dropped). False when the label has no such line. */
static bool label_line(const char *label, int index, int width, int scale, char *out, bool *alarm)
{
    const char *p = label;
    for (int i = 0; i < index && p; i++)
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    if (!p)
        return false;
    size_t n = strcspn(p, "\n");
    *alarm = index > 0 && p[0] == '!';
    if (*alarm) {
        p++;
        n--;
    }
    char line[SHEET_LINE_CHARS + 1];
    size_t skip = n > SHEET_LINE_CHARS ? n - SHEET_LINE_CHARS : 0;
    size_t len = n - skip;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[skip + i];
        line[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    line[len] = '\0';
    const char *from = line;
    if (skip || stb_easy_font_width(line) * scale > width) {
        while (*from && stb_easy_font_width((char *)from) * scale + stb_easy_font_width("...") * scale > width)
            from++;
        snprintf(out, SHEET_LINE_CHARS + 4, "...%s", from);
    } else {
        snprintf(out, SHEET_LINE_CHARS + 4, "%s", line);
    }
    return true;
}

/* The picture into the cell at (x, y) of cell_w x cell_h, shrunk by a whole factor, centred. */
static void draw_picture(sheet *s, const res_image *img, int shrink, int x, int y, int cell_w, int cell_h)
{
    int w = (int)img->width / shrink, h = (int)img->height / shrink;
    x += (cell_w - w) / 2;
    y += (cell_h - h) / 2;
    for (int py = 0; py < h; py++)
        for (int px = 0; px < w; px++) {
            unsigned sum[3] = { 0, 0, 0 };
            for (int sy = 0; sy < shrink; sy++)
                for (int sx = 0; sx < shrink; sx++) {
                    const uint8_t *src = &img->rgba[(((size_t)py * shrink + sy) * img->width + (size_t)px * shrink + sx) * 4];
                    for (int c = 0; c < 3; c++)
                        sum[c] += src[c];
                }
            uint8_t *dst = &s->rgba[((size_t)(y + py) * (size_t)s->width + (size_t)(x + px)) * 4];
            for (int c = 0; c < 3; c++)
                dst[c] = (uint8_t)(sum[c] / (unsigned)(shrink * shrink));
        }
}

enum { OPT_COLUMNS = 256 };

static const cli_option sheet_options_table[] = {
    CLI_OPTION_HELP,
    { "output", 'o', 0, CLI_TEXT, "OUT.png", NULL, 0, 0, 0, "the contact sheet to write", NULL },
    { "columns", 0, OPT_COLUMNS, CLI_COUNT, "N", "columns", 1, 4096, 0, "pictures in a row", "as square as the count" },
    { 0 },
};

static int handle(void *user, int id, const cli_value *v)
{
    sheet_options *o = user;
    switch (id) {
    case 'o': o->output = v->text; return 0;
    case OPT_COLUMNS: o->columns = v->count; return 0;
    case CLI_OPERAND: o->items[o->item_count++] = (char *)v->text; return 0;
    }
    return 0; /* getopt_long hands over only the ids of the table */
}

int sweep_sheet(int argc, char **argv)
{
    sheet_options o = { .items = calloc((size_t)argc, sizeof(char *)) };
    if (!o.items) {
        fprintf(stderr, "pmfsweep: out of memory\n");
        return 3;
    }
    int rc = cli_parse(&(cli_desc){ .program = "pmfsweep", .command = "sheet", .options = sheet_options_table,
                                    .usage = "usage: pmfsweep sheet -o OUT.png [--columns N] PICTURE LABEL [PICTURE LABEL]...\n"
                                             "A label's lines are split at newlines; a line after the first that starts\n"
                                             "with '!' is red.\n\n",
                                    .handle = handle, .user = &o }, argc, argv);
    if (!rc && (!o.output || o.item_count == 0 || o.item_count % 2))
        rc = cli_usage_error("pmfsweep", "sheet", "%s", "needs -o OUT.png and PICTURE LABEL pairs");
    if (rc) {
        free(o.items);
        return rc == CLI_DONE ? 0 : rc;
    }
    pmf_budget_set_limit(pmf_budget_default(PMF_BUDGET_VIEWER));
    int pictures = o.item_count / 2, cell_w = 0, cell_h = 0, lines = 1;
    /* the cell: the largest picture; the label: as many lines as the longest has */
    for (int i = 0; i < pictures; i++) {
        res_image img;
        char why[1024];
        if (sweep_picture_read(o.items[2 * i], &img, why, sizeof why)) {
            cell_w = (int)img.width > cell_w ? (int)img.width : cell_w;
            cell_h = (int)img.height > cell_h ? (int)img.height : cell_h;
            res_image_free(&img);
        } else {
            fprintf(stderr, "pmfsweep: sheet: warning: %s (an empty tile)\n", why);
        }
        int n = 1;
        for (const char *p = o.items[2 * i + 1]; (p = strchr(p, '\n')); p++)
            n++;
        lines = n > lines ? n : lines;
    }
    if (!cell_w) {
        cell_w = 320;
        cell_h = 180;
    }
    lines = lines < SHEET_LABEL_LINES ? lines : SHEET_LABEL_LINES;
    int columns = o.columns ? (int)o.columns : (int)ceil(sqrt((double)pictures));
    columns = columns < pictures ? columns : pictures;
    int rows = (pictures + columns - 1) / columns, shrink = 1, scale, label_h;
    sheet s;
    for (;; shrink++) {
        scale = cell_w / shrink >= 400 ? 2 : 1;
        label_h = lines * 12 * scale + 4;
        s.width = columns * (cell_w / shrink + SHEET_GAP) + SHEET_GAP;
        s.height = rows * (cell_h / shrink + label_h + SHEET_GAP) + SHEET_GAP;
        if ((s.width <= SHEET_MAX_SIDE && s.height <= SHEET_MAX_SIDE) || cell_w / shrink <= 16)
            break;
    }
    int tile_w = cell_w / shrink, tile_h = cell_h / shrink;
    s.rgba = pmf_budget_malloc((size_t)s.width * (size_t)s.height * 4);
    if (!s.rgba) {
        fprintf(stderr, "pmfsweep: sheet: %dx%d pixels pass the memory budget\n", s.width, s.height);
        free(o.items);
        return 3;
    }
    fill(&s, 0, 0, s.width, s.height, background);
    for (int i = 0; i < pictures; i++) {
        int x = SHEET_GAP + (i % columns) * (tile_w + SHEET_GAP);
        int y = SHEET_GAP + (i / columns) * (tile_h + label_h + SHEET_GAP);
        res_image img;
        char why[1024];
        if (sweep_picture_read(o.items[2 * i], &img, why, sizeof why)) {
            /* a picture larger than the cell (it changed since the first pass) is shrunk more */
            int k = shrink;
            while ((int)img.width / k > tile_w || (int)img.height / k > tile_h)
                k++;
            draw_picture(&s, &img, k, x, y, tile_w, tile_h);
            res_image_free(&img);
        } else {
            fill(&s, x, y, tile_w, tile_h, missing_tile);
            draw_text(&s, x + 4, y + 4, "no picture", scale, note_colour);
        }
        char line[SHEET_LINE_CHARS + 4];
        bool alarm;
        for (int l = 0; l < lines && label_line(o.items[2 * i + 1], l, tile_w, scale, line, &alarm); l++)
            draw_text(&s, x, y + tile_h + 3 + l * 12 * scale, line, scale,
                      alarm ? alarm_colour : l ? note_colour : name_colour);
    }
    char why[256];
    rc = 0;
    if (!png_write_rgba(o.output, (uint32_t)s.width, (uint32_t)s.height, s.rgba, why, sizeof why)) {
        char shown[1024];
        fprintf(stderr, "pmfsweep: sheet: %s: %s\n", text_clean(o.output, shown, sizeof shown), why);
        rc = 3;
    }
    pmf_budget_free(s.rgba);
    free(o.items);
    return rc;
}
