/* view_bookmarks.c - MAP.pmf.cameras: save and recall camera bookmarks. */
#include "view_bookmarks.h"

#include "atomic_file.h"
#include "camera.h"
#include "pmf_os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void view_bookmarks_path(const char *map_path, char *out, size_t size)
{
    snprintf(out, size, "%s.cameras", map_path);
}

/* The shortest %g form that reads back as exactly v (as a float when is_float). */
static void format_exact(double v, bool is_float, char *out, size_t size)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(out, size, "%.*g", digits, v);
        double back = strtod(out, NULL);
        if (is_float ? (float)back == (float)v : back == v)
            return;
    }
}

/* The whole file as a NUL-terminated string ("" when it does not exist); NULL on a read error. */
/* The whole cameras file ("" when there is none). Not through a symlink, not from a FIFO or a
 * device: the file is ours, next to the map. */
static char *read_all(const char *file)
{
    pmf_os_file_info st;
    int fd = pmf_os_open_own(file, &st);
    if (fd < 0)
        return errno == ENOENT ? calloc(1, 1) : NULL;
    FILE *f = pmf_os_fdopen(fd, "rb");
    if (!f) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            char *grown = realloc(text, cap * 2);
            if (!grown) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (text)
        text[len] = '\0';
    return text;
}

/* The name of a camera line (after the numbers and blanks), its length in *len; NULL when the
 * line is blank or a comment. */
static const char *line_name(const char *line, size_t line_len, size_t *len)
{
    size_t i = 0;
    while (i < line_len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i == line_len || line[i] == '#')
        return NULL;
    while (i < line_len && line[i] != ' ' && line[i] != '\t')
        i++;
    while (i < line_len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    size_t end = line_len;
    while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r'))
        end--;
    *len = end - i;
    return line + i;
}

/* "bookmarkN" (level 0) or "bookmarkN@L": true for slot N, with L in *level. */
static bool is_slot_name(const char *name, size_t len, int slot, long *level)
{
    char want[16];
    size_t n = (size_t)snprintf(want, sizeof want, "bookmark%d", slot);
    if (len < n || memcmp(name, want, n))
        return false;
    *level = 0;
    if (len == n)
        return true;
    if (name[n] != '@' || len == n + 1 || len > n + 11)
        return false;
    unsigned long long l = 0; /* not long: 32 bits on Windows */
    for (size_t i = n + 1; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        l = l * 10 + (name[i] - '0');
    }
    if (l > UINT32_MAX)
        return false;
    *level = l;
    return true;
}

bool view_bookmark_save(const char *file, int slot, uint32_t level, const double pos[3], float yaw, float pitch,
                        char *err, size_t err_size)
{
    char *old = read_all(file);
    if (!old) {
        snprintf(err, err_size, "%s: cannot read: %s", file, strerror(errno));
        return false;
    }
    char num[5][32], line[200], at[16] = "";
    if (level)
        snprintf(at, sizeof at, "@%u", level);
    for (int i = 0; i < 3; i++)
        format_exact(pos[i], false, num[i], sizeof num[i]);
    format_exact(yaw, true, num[3], sizeof num[3]);
    format_exact(pitch, true, num[4], sizeof num[4]);
    snprintf(line, sizeof line, "%s,%s,%s,%s,%s bookmark%d%s\n", num[0], num[1], num[2], num[3], num[4], slot, at);

    atomic_file af;
    char why[300];
    if (!atomic_file_open(&af, file, why, sizeof why)) {
        snprintf(err, err_size, "%s: %s", file, why);
        free(old);
        return false;
    }
    FILE *f = af.fp;
    bool written = false;
    for (const char *p = old; *p;) {
        const char *nl = strchr(p, '\n');
        size_t line_len = nl ? (size_t)(nl - p) : strlen(p);
        size_t name_len;
        long old_level;
        const char *name = line_name(p, line_len, &name_len);
        if (name && is_slot_name(name, name_len, slot, &old_level)) {
            if (!written)
                fputs(line, f);
            written = true;
        } else {
            fwrite(p, 1, line_len, f);
            fputc('\n', f);
        }
        p += line_len + (nl ? 1 : 0);
    }
    if (!written)
        fputs(line, f);
    free(old);
    if (!atomic_file_commit(&af, why, sizeof why)) {
        snprintf(err, err_size, "%s: %s", file, why);
        return false;
    }
    return true;
}

bool view_bookmark_load(const char *file, int slot, long *level, double pos[3], float *yaw, float *pitch,
                        char *err, size_t err_size)
{
    char *text = read_all(file);
    if (!text) {
        snprintf(err, err_size, "%s: cannot read: %s", file, strerror(errno));
        return false;
    }
    const char *named = NULL, *nth = NULL;
    long named_level = -1;
    int index = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t line_len = nl ? (size_t)(nl - p) : strlen(p);
        size_t name_len;
        const char *name = line_name(p, line_len, &name_len);
        if (name) {
            if (++index == slot)
                nth = p;
            if (!named && is_slot_name(name, name_len, slot, &named_level))
                named = p;
        }
        p += line_len + (nl ? 1 : 0);
    }
    const char *line = named ? named : nth;
    *level = named ? named_level : -1;
    bool ok = false;
    if (!line)
        snprintf(err, err_size, "no bookmark %d in %s", slot, file);
    else if (!(ok = camera_parse_pose(line + strspn(line, " \t"), pos, yaw, pitch) != NULL))
        snprintf(err, err_size, "%s: bookmark %d is not X,Y,Z,YAW,PITCH", file, slot);
    free(text);
    return ok;
}
