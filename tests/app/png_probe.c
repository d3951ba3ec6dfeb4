/* png_probe.c - reads PNGs for the viewer's window tests (shell scripts cannot decode them).
 *
 *   png_probe size FILE          -> "W H"
 *   png_probe pixel FILE X Y     -> "R G B" (X, Y from the top-left)
 *   png_probe lit FILE           -> how many pixels are not black
 *   png_probe count FILE R G B   -> how many pixels are within 3 of that colour in every channel
 *   png_probe diff A B [TOL]     -> how many pixels differ by more than TOL (default 2) in a
 *                                   channel (exit 1 when the sizes differ)
 * Exit 2 when a file does not decode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image.h>

static unsigned char *load(const char *path, int *w, int *h)
{
    int n;
    unsigned char *px = stbi_load(path, w, h, &n, 3);
    if (!px) {
        fprintf(stderr, "png_probe: %s: %s\n", path, stbi_failure_reason());
        exit(2);
    }
    return px;
}

int main(int argc, char **argv)
{
    int w, h, w2, h2;
    if (argc == 3 && !strcmp(argv[1], "size")) {
        stbi_image_free(load(argv[2], &w, &h));
        printf("%d %d\n", w, h);
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "pixel")) {
        unsigned char *px = load(argv[2], &w, &h);
        int x = atoi(argv[3]), y = atoi(argv[4]);
        if (x < 0 || y < 0 || x >= w || y >= h) {
            fprintf(stderr, "png_probe: %d,%d is outside %dx%d\n", x, y, w, h);
            return 1;
        }
        const unsigned char *p = px + ((size_t)y * w + x) * 3;
        printf("%d %d %d\n", p[0], p[1], p[2]);
        stbi_image_free(px);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "lit")) {
        unsigned char *px = load(argv[2], &w, &h);
        long lit = 0;
        for (size_t i = 0; i < (size_t)w * h; i++)
            lit += px[i * 3] > 8 || px[i * 3 + 1] > 8 || px[i * 3 + 2] > 8;
        printf("%ld\n", lit);
        stbi_image_free(px);
        return 0;
    }
    if (argc == 6 && !strcmp(argv[1], "count")) {
        unsigned char *px = load(argv[2], &w, &h);
        int want[3] = { atoi(argv[3]), atoi(argv[4]), atoi(argv[5]) };
        long n = 0;
        for (size_t i = 0; i < (size_t)w * h; i++)
            n += abs(px[i * 3] - want[0]) <= 3 && abs(px[i * 3 + 1] - want[1]) <= 3 && abs(px[i * 3 + 2] - want[2]) <= 3;
        printf("%ld\n", n);
        stbi_image_free(px);
        return 0;
    }
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "diff")) {
        int tolerance = argc == 5 ? atoi(argv[4]) : 2;
        unsigned char *a = load(argv[2], &w, &h), *b = load(argv[3], &w2, &h2);
        if (w != w2 || h != h2) {
            printf("size %dx%d vs %dx%d\n", w, h, w2, h2);
            return 1;
        }
        long differ = 0;
        for (size_t i = 0; i < (size_t)w * h; i++)
            for (int c = 0; c < 3; c++)
                if (abs(a[i * 3 + c] - b[i * 3 + c]) > tolerance) {
                    differ++;
                    break;
                }
        printf("%ld\n", differ);
        stbi_image_free(a);
        stbi_image_free(b);
        return 0;
    }
    fputs("usage: png_probe size FILE | pixel FILE X Y | lit FILE | count FILE R G B | diff A B [TOL]\n", stderr);
    return 1;
}
