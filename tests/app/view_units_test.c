/* view_units_test.c - the viewer's window-free parts: pose parsing, the cameras file, the live
 * reload watch, the window's frame pacing (on a made-up clock), screenshot names, the light-probe overlay's cube lighting data, the compare
 * picture's signed scale, the region overlay kinds, the window's key table, the line
 * cleaning that relays pmfc's errors, and how the screenshot and cameras files are written (mode,
 * atomically, not through symlinks). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "camera.h"
#include "image_compare.h"
#include "map_compile.h"
#include "pmf.h"
#include "res/png_write.h"
#include "res/res.h"
#include "view_bookmarks.h"
#include "view_keys.h"
#include "view_pace.h"
#include "view_probes.h"
#include "view_regions.h"
#include "view_shot.h"
#include "view_teleport.h"
#include "view_watch.h"
#include "common/check.h"
#include "common/programs.h"



static char work[1024];

static char *read_file(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

static void test_parse_pose(void)
{
    double p[3];
    float yaw, pitch;
    CHECK(camera_parse_pose("1,-2.5,3e2,90,-45", p, &yaw, &pitch), "plain");
    CHECK(p[0] == 1 && p[1] == -2.5 && p[2] == 300 && yaw == 90 && pitch == -45, "values %g %g %g %g %g", p[0], p[1], p[2], yaw, pitch);
    CHECK(camera_parse_pose("0,0,0,0,0 hall", p, &yaw, &pitch), "with a name");
    CHECK(camera_parse_pose("0,0,0,0,0\n", p, &yaw, &pitch), "line end");
    CHECK(!camera_parse_pose("1,2,3,4", p, &yaw, &pitch), "four numbers");
    CHECK(!camera_parse_pose("1,2,3,4,5,6", p, &yaw, &pitch), "six numbers");
    CHECK(!camera_parse_pose("1,2,x,4,5", p, &yaw, &pitch), "not a number");
    CHECK(!camera_parse_pose("1,2,3,4,5x", p, &yaw, &pitch), "trailing junk");
    CHECK(!camera_parse_pose("nan,2,3,4,5", p, &yaw, &pitch), "NaN");
    CHECK(!camera_parse_pose("", p, &yaw, &pitch), "empty");
    /* --camera's largest position: held 2^30 chunks from the centre, the chunk grid's int32 safe */
    CHECK(camera_parse_pose("1e15,-1e15,5,0,0", p, &yaw, &pitch), "1e15");
    camera cam;
    camera_init(&cam, &(camera_desc){ .chunk_size_exp = 4, .center = { 3, 0, -2 } });
    camera_set_world(&cam, p, yaw, pitch);
    double at[3];
    camera_get_world(&cam, at);
    CHECK(at[0] == 16 * CAMERA_MAX_CHUNKS && at[1] == -16 * CAMERA_MAX_CHUNKS && at[2] == 5, "at %g %g %g", at[0], at[1], at[2]);
    CHECK(cam.chunk[0] == 3 + (1 << 30) && cam.chunk[1] == -(1 << 30) && cam.chunk[2] == -2, "chunk %d %d %d", cam.chunk[0],
          cam.chunk[1], cam.chunk[2]);
}

static void test_bookmarks(void)
{
    char map[1100], file[1200], err[1300];
    snprintf(map, sizeof map, "%s/room.pmf", work);
    view_bookmarks_path(map, file, sizeof file);
    CHECK(!strcmp(file + strlen(file) - 17, "/room.pmf.cameras"), "%s", file);
    remove(file);

    double p[3];
    float yaw, pitch;
    long level;
    CHECK(!view_bookmark_load(file, 1, &level, p, &yaw, &pitch, err, sizeof err), "no file, no bookmark");

    /* A hand-written file: recall by position when no line is named bookmarkN. */
    test_write_text(file, "# my cameras\n10,20,30,45,-5 door\n\n-1,-2,-3,180,10 roof\n");
    CHECK(view_bookmark_load(file, 2, &level, p, &yaw, &pitch, err, sizeof err), "%s", err);
    CHECK(p[0] == -1 && p[1] == -2 && p[2] == -3 && yaw == 180 && pitch == 10 && level == -1, "2nd camera line");
    CHECK(!view_bookmark_load(file, 3, &level, p, &yaw, &pitch, err, sizeof err), "only two cameras");

    /* Saving keeps the other lines and reads back bit-exact. */
    const double pos[3] = { 0.1, -1234.5678901234567, 1e-7 };
    CHECK(view_bookmark_save(file, 2, 0, pos, 33.3f, -12.25f, err, sizeof err), "%s", err);
    CHECK(view_bookmark_load(file, 2, &level, p, &yaw, &pitch, err, sizeof err), "%s", err);
    CHECK(p[0] == pos[0] && p[1] == pos[1] && p[2] == pos[2] && yaw == 33.3f && pitch == -12.25f,
          "round trip %.17g %.17g %.17g %.9g %.9g", p[0], p[1], p[2], yaw, pitch);
    const char *text = read_file(file);
    CHECK(!strncmp(text, "# my cameras\n10,20,30,45,-5 door\n\n-1,-2,-3,180,10 roof\n", 55), "kept lines: %s", text);
    CHECK(strstr(text, "0.1,-1234.5678901234567,1e-07,33.3,-12.25 bookmark2\n") != NULL, "saved line: %s", text);

    /* Saving the same slot again replaces its line. */
    CHECK(view_bookmark_save(file, 2, 0, (const double[3]){ 1, 2, 3 }, 4, 5, err, sizeof err), "%s", err);
    text = read_file(file);
    CHECK(strstr(text, "1,2,3,4,5 bookmark2\n") && !strstr(text, "1e-07"), "replaced: %s", text);
    int lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    CHECK(lines == 5, "%d lines", lines);
    /* The named line wins over the positional one. */
    CHECK(view_bookmark_load(file, 2, &level, p, &yaw, &pitch, err, sizeof err) && p[0] == 1 && yaw == 4, "named bookmark2");
    CHECK(level == 0, "bookmark2 is level 0's: %ld", level);
    /* The level it was saved in: bookmarkN@L; saving slot 2 in level 3 replaces level 0's slot 2. */
    CHECK(view_bookmark_save(file, 2, 3, (const double[3]){ 7, 8, 9 }, 10, 11, err, sizeof err), "%s", err);
    text = read_file(file);
    CHECK(strstr(text, "7,8,9,10,11 bookmark2@3\n") && !strstr(text, "bookmark2\n"), "level 3: %s", text);
    CHECK(view_bookmark_load(file, 2, &level, p, &yaw, &pitch, err, sizeof err) && level == 3 && p[2] == 9, "recall level %ld", level);
    test_write_text(file, "1,2,3,4,5 bookmark1@x\n1,2,3,4,5 bookmark12@1\n");
    CHECK(view_bookmark_load(file, 1, &level, p, &yaw, &pitch, err, sizeof err) && level == -1, "not a level: positional, %ld", level);
    test_write_text(file, "1,2,oops,4,5 bookmark1\n");
    CHECK(!view_bookmark_load(file, 1, &level, p, &yaw, &pitch, err, sizeof err) && strstr(err, "bookmark 1"), "bad line: %s", err);
}

static void test_teleport(void)
{
    view_teleport t;
    view_teleport_open(&t);
    view_teleport_type(&t, "1.5, -2,3e1");
    view_teleport_type(&t, "x\x1b!");                       /* not part of a pose: dropped */
    CHECK(!strcmp(t.text, "1.5, -2,3e1"), "typed '%s'", t.text);
    CHECK(!strcmp(t.line, "go to X,Y,Z[,YAW,PITCH]: 1.5, -2,3e1_"), "line '%s'", t.line);
    double p[3];
    float yaw = 7, pitch = 8;
    bool angles = true;
    CHECK(view_teleport_parse(t.text, p, &yaw, &pitch, &angles) && p[0] == 1.5 && p[1] == -2 && p[2] == 30 && !angles &&
              yaw == 7 && pitch == 8, "three numbers keep the angles");
    CHECK(view_teleport_parse(" 1,2,3, 90 ,-10 ", p, &yaw, &pitch, &angles) && angles && yaw == 90 && pitch == -10, "five numbers");
    const char *bad[] = { "", "1,2", "1,2,3,4", "1,2,3,4,5,6", "1,,3", "1,2,3,", "1e999,2,3", "1 2 3" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!view_teleport_parse(bad[i], p, &yaw, &pitch, &angles), "'%s' accepted", bad[i]);
    view_teleport_backspace(&t);
    view_teleport_backspace(&t);
    CHECK(!strcmp(t.text, "1.5, -2,3"), "backspace '%s'", t.text);
    for (int i = 0; i < 200; i++)
        view_teleport_type(&t, "9");
    CHECK(t.len == sizeof t.text - 1 && strlen(t.text) == t.len, "bounded at %zu", t.len);
    view_teleport_close(&t);
    CHECK(!t.open, "closed");
}

static void test_watch(void)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/watched.pmf", work);
    test_write_text(path, "one");
    view_watch w;
    view_watch_init(&w, path, 100.0);
    CHECK(!view_watch_poll(&w, 100.01), "polls only every %g s", VIEW_WATCH_PERIOD);
    CHECK(!view_watch_poll(&w, 100.5), "unchanged");

    /* Rewritten (atomically, as pmf_writer_finish does): reported once it is stable. */
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    test_write_text(tmp, "two, longer");
    CHECK(rename(tmp, path) == 0, "rename");
    CHECK(!view_watch_poll(&w, 101.0), "first sight: wait for it to settle");
    CHECK(view_watch_poll(&w, 101.5), "stable: reload");
    CHECK(!view_watch_poll(&w, 102.0), "reported once");

    /* Still being written between two polls: waits until two polls agree. */
    test_write_text(path, "three");
    CHECK(!view_watch_poll(&w, 102.5), "changed");
    test_write_text(path, "three, still growing");
    CHECK(!view_watch_poll(&w, 103.0), "changed again");
    CHECK(view_watch_poll(&w, 103.5), "settled");

    /* Gone: nothing to reload until it is back. */
    remove(path);
    CHECK(!view_watch_poll(&w, 104.0) && !view_watch_poll(&w, 104.5) && !view_watch_poll(&w, 105.0), "missing file");
    test_write_text(path, "four");
    CHECK(!view_watch_poll(&w, 105.5), "back");
    CHECK(view_watch_poll(&w, 106.0), "back and stable");
}

/* pmfc's messages reach the terminal only as valid UTF-8 without control characters. */
/* Frames drawn in one second of a made-up clock, each taking draw seconds, paced as the window
 * paces them. */
static int frames_in_a_second(double refresh_period, bool compiling, bool still, double draw)
{
    double now = 0;
    int frames = 0;
    while (now < 1.0 - 1e-9) {
        double start = now;
        now += draw;
        now += view_pace_rest(view_pace_interval(refresh_period, compiling, still), start, now);
        frames++;
    }
    return frames;
}

static void test_pacing(void)
{
    const double hz60 = 1.0 / 60, hz144 = 1.0 / 144, draw = 0.004;
    CHECK_EQ(frames_in_a_second(hz60, false, false, draw), 60);      /* the display's rate */
    CHECK_EQ(frames_in_a_second(hz60, false, true, draw), 60);       /* a still picture without a compile: the same */
    CHECK_EQ(frames_in_a_second(hz144, false, false, draw), 144);
    CHECK_EQ(frames_in_a_second(hz60, true, false, draw), 30);       /* a compile runs: at most 30 */
    CHECK_EQ(frames_in_a_second(hz144, true, false, draw), 30);
    CHECK_EQ(frames_in_a_second(hz60, true, true, draw), 10);        /* ... and 10 while nothing moves */
    CHECK_EQ(frames_in_a_second(0.2, true, true, draw), 5);          /* a display slower than that keeps its own */
    CHECK_EQ(frames_in_a_second(0, false, false, draw), 250);        /* --no-vsync: flat out */
    CHECK_EQ(frames_in_a_second(0, true, true, draw), 250);
    CHECK_EQ(frames_in_a_second(hz60, true, false, 0.05), 20);       /* a frame over its interval waits nothing */
    /* within a millisecond of its interval, a frame does not wait (the timer's grain) */
    CHECK(view_pace_rest(hz60, 1.0, 1.0 + hz60 - 0.0005) == 0, "rest %g", view_pace_rest(hz60, 1.0, 1.0 + hz60 - 0.0005));
    CHECK(fabs(view_pace_rest(hz60, 1.0, 1.005) - (hz60 - 0.005)) < 1e-12, "rest %g", view_pace_rest(hz60, 1.0, 1.005));
}

static void test_clean_line(void)
{
    static const struct { const char *in, *out; } cases[] = {
        { "plain text, caf\xc3\xa9 \xe2\x98\x85 \xf0\x9f\x99\x82", "plain text, caf\xc3\xa9 \xe2\x98\x85 \xf0\x9f\x99\x82" },
        { "\x1b[2J\x07\x7f\ttab", "\\x1b[2J\\x07\\x7f\\x09tab" },
        { "c1 csi \xc2\x9b" "31m, nbsp \xc2\xa0", "c1 csi \\xc2\\x9b31m, nbsp \xc2\xa0" },
        { "overlong \xc0\xaf, surrogate \xed\xa0\x80", "overlong \\xc0\\xaf, surrogate \\xed\\xa0\\x80" },
        { "past U+10FFFF \xf4\x90\x80\x80", "past U+10FFFF \\xf4\\x90\\x80\\x80" },
        { "cut \xe2\x98", "cut \\xe2\\x98" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        map_compile_clean_line(cases[i].in, strlen(cases[i].in), out, sizeof out);
        CHECK(!strcmp(out, cases[i].out), "case %zu: got '%s', want '%s'", i, out, cases[i].out);
    }
    /* A small buffer is cut at a whole character or escape, always terminated. */
    char small[8];
    map_compile_clean_line("ab\x1b\x1b\x1b", 5, small, sizeof small);
    CHECK(!strcmp(small, "ab\\x1b"), "small buffer: '%s'", small);
}

static void test_shot_path(void)
{
    char dir[1100], path[1300], want[1300];
    snprintf(dir, sizeof dir, "%s/shots", work);
    test_make_dir(dir);
    struct tm tm = { .tm_year = 2026 - 1900, .tm_mon = 10, .tm_mday = 22, .tm_hour = 4, .tm_min = 5, .tm_sec = 6, .tm_isdst = -1 };
    time_t when = mktime(&tm);
    for (int n = 1; n <= 3; n++) {
        snprintf(path, sizeof path, n == 1 ? "%s/pmfview-20261122-040506.png" : "%s/pmfview-20261122-040506-%d.png", dir, n);
        remove(path);
    }
    CHECK(view_shot_path(dir, when, path, sizeof path), "name");
    snprintf(want, sizeof want, "%s/pmfview-20261122-040506.png", dir);
    CHECK(!strcmp(path, want), "%s", path);
    test_write_text(path, "x");
    CHECK(view_shot_path(dir, when, path, sizeof path), "second name");
    snprintf(want, sizeof want, "%s/pmfview-20261122-040506-2.png", dir);
    CHECK(!strcmp(path, want), "%s", path);
    test_write_text(path, "x");
    CHECK(view_shot_path(dir, when, path, sizeof path) && strstr(path, "-3.png"), "%s", path);
    CHECK(view_shot_path(NULL, when, path, sizeof path) && !strcmp(path, "pmfview-20261122-040506.png"), "current dir: %s", path);
    CHECK(!view_shot_path(dir, when, path, 20), "too small a buffer");
}

/* One 16 m chunk, level centre (1,0,0) of a 2x1x1 grid at grid (1,0,0): root parent cube whose
 * octant 0 (+X +Y +Z) child is empty with lighting base (10, 20, 30), and whose octant 7 child
 * is a parent with lighting (200, 100, 50) holding an empty octant 0 grandchild without any. */
static void write_probe_map(const char *path)
{
    pmf_header hdr = { .name = "probes", .description = "", .authors = "", .compiler = "view_units_test" };
    pmf_data_desc data = { .string_table = { (const uint8_t *)"", 1 } };
    pmf_material mat = { .name = "m", .type = "" };
    pmf_physics_material phys = { .name = "p" };
    pmf_sound_material snd = { 0, 0 };
    pmf_client_material cm = { .texture = "", .color = { 255, 255, 255 }, .alpha = 255, .matcap = "" };
    pmf_level l = {
        .chunk_size_exp = 4, .count_x = 2, .count_y = 1, .count_z = 1, .center = { 1, 0, 0 }, .parts = PMF_PART_ALL,
        .common = { .material_count = 1, .materials = &mat, .physics_material_count = 1, .physics_materials = &phys,
                    .sound_material_count = 1, .sound_materials = &snd, .air_physics_material = "",
                    .default_weather_env = "", .default_gravity_env = "" },
        .client = { .default_sound_env = "", .default_sky_env = "", .material_count = 1, .materials = &cm },
        .server = { .string_table = { (const uint8_t *)"", 1 } },
    };
    pmf_cube cubes[4] = {
        { .type = PMF_CUBE_PARENT, .u.parent = { .child_mask = 0x81, .children = { 1, 0, 0, 0, 0, 0, 0, 2 } } },
        { .type = PMF_CUBE_EMPTY, .flags = PMF_CUBE_HAS_LIGHTING },
        { .type = PMF_CUBE_PARENT, .flags = PMF_CUBE_HAS_LIGHTING, .u.parent = { .child_mask = 0x01, .children = { 3 } } },
        { .type = PMF_CUBE_EMPTY },
    };
    pmf_client_cube ccubes[4] = { 0 };
    ccubes[1].lighting.base[0] = 10, ccubes[1].lighting.base[1] = 20, ccubes[1].lighting.base[2] = 30;
    ccubes[2].lighting.base[0] = 200, ccubes[2].lighting.base[1] = 100, ccubes[2].lighting.base[2] = 50;
    pmf_server_cube scubes[4] = { 0 };
    pmf_chunk ch = { .coord = { 1, 0, 0 }, .parts = PMF_PART_ALL };
    ch.common.cube_count = 4;
    ch.common.cubes = cubes;
    ch.client.cubes = ccubes;
    ch.server.string_table = (pmf_blob){ (const uint8_t *)"", 1 };
    ch.server.cubes = scubes;
    pmf_error err;
    pmf_encoded_chunk enc;
    pmf_writer *w = pmf_writer_create(&hdr, &data, &err);
    bool ok = w && pmf_writer_begin_level(w, &l, &err) && pmf_chunk_encode(&l, &ch, &enc, &err) &&
              pmf_writer_put_chunk(w, ch.coord, &enc, &err) && pmf_writer_finish(w, path, &err);
    pmf_writer_destroy(w);
    if (!ok) {
        char line[1024];
        fprintf(stderr, "probe map: %s\n", pmf_error_format(&err, line, sizeof line));
        exit(1);
    }
}

static void test_probes(void)
{
    char path[1100], err[512];
    snprintf(path, sizeof path, "%s/probes.pmf", work);
    write_probe_map(path);
    view_probes p;
    CHECK(view_probes_open(&p, path, 0, err, sizeof err), "%s", err);
    camera cam;
    camera_init(&cam, &(camera_desc){ .chunk_size_exp = 4, .center = { 1, 0, 0 } });
    camera_set_world(&cam, (const double[3]){ 1, 2, 3 }, 0, 0);
    view_probes_update(&p, &cam);
    CHECK(p.count == 2 && !p.lf.error[0], "%zu probes, error '%s'", p.count, p.lf.error);
    /* Octant 0 child: centre (+4,+4,+4), half 4 -> box 0.5 (capped); octant 7: (-4,-4,-4). */
    for (size_t i = 0; i < p.count; i++) {
        bool first = p.rgb[i][0] == 10;
        float want = first ? 4.0f : -4.0f;
        CHECK(p.boxes[i][0] == want && p.boxes[i][1] == want && p.boxes[i][2] == want && p.boxes[i][3] == 0.5f,
              "probe %zu at %g %g %g size %g", i, p.boxes[i][0], p.boxes[i][1], p.boxes[i][2], p.boxes[i][3]);
        CHECK(first ? (p.rgb[i][1] == 20 && p.rgb[i][2] == 30) : (p.rgb[i][0] == 200 && p.rgb[i][1] == 100 && p.rgb[i][2] == 50),
              "probe %zu colour", i);
    }
    /* From the void chunk beside it the boxes move by a chunk; from outside the grid, they
     * still show (around the nearest grid chunk). */
    camera_set_world(&cam, (const double[3]){ -16, 0, 0 }, 0, 0);
    view_probes_update(&p, &cam);
    CHECK(p.count == 2 && (p.boxes[0][0] == 20.0f || p.boxes[0][0] == 12.0f), "from grid (0,0,0): %zu, x %g", p.count, p.count ? p.boxes[0][0] : 0);
    camera_set_world(&cam, (const double[3]){ 0, 100, 0 }, 0, 0);
    view_probes_update(&p, &cam);
    CHECK(p.count == 2, "from above the grid: %zu", p.count);
    view_probes_close(&p);

    CHECK(!view_probes_open(&p, "/nonexistent.pmf", 0, err, sizeof err) && strstr(err, "nonexistent"), "%s", err);
}

/* Mode of path as created under umask mask, or -1. */
static int mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) ? (int)(st.st_mode & 0777) : -1;
}

/* Screenshots and the cameras file are written atomically: the umask's mode, no temporary file
 * left, a symlink in the way replaced (its target untouched), no fixed ".tmp" name used. */
static void test_output_files(void)
{
    char dir[1100], png[1200], victim[1200], file[1200], tmp[1300], err[600];
    snprintf(dir, sizeof dir, "%s/outputs", work);
    test_make_dir(dir);
    snprintf(png, sizeof png, "%s/shot.png", dir);
    const uint8_t rgba[2 * 2 * 4] = { 255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 9, 9, 9, 7 };
    mode_t old = umask(022);
    CHECK(png_write_rgba(png, 2, 2, rgba, err, sizeof err), "%s", err);
    CHECK(mode_of(png) == 0644, "umask 022: mode %o", mode_of(png));
    /* the pixels read back as written, alpha dropped (an RGB PNG: decoded alpha 255) */
    FILE *f = fopen(png, "rb");
    uint8_t bytes[4096];
    size_t size = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f)
        fclose(f);
    res_image img = { 0 };
    pmf_error perr;
    const uint8_t written[2 * 2 * 4] = { 255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 9, 9, 9, 255 };
    CHECK(res_image_decode(bytes, size, "shot.png", &img, &perr) && img.width == 2 && img.height == 2
          && !memcmp(img.rgba, written, sizeof written), "%zu bytes do not decode to the pixels written", size);
    CHECK(bytes[25] == 2, "PNG colour type %u, want 2 (RGB)", bytes[25]);
    res_image_free(&img);
    umask(027);
    unlink(png);
    CHECK(png_write_rgba(png, 2, 2, rgba, err, sizeof err), "%s", err);
    CHECK(mode_of(png) == 0640, "umask 027: mode %o", mode_of(png));

    snprintf(victim, sizeof victim, "%s/victim", dir);
    test_write_text(victim, "not yours\n");
    snprintf(file, sizeof file, "%s/map.pmf.cameras", dir);
    CHECK(symlink("victim", file) == 0, "symlink");
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    test_write_text(tmp, "someone's file\n");
    umask(022);
    /* a symlink is neither read nor written through: refused, the target untouched */
    CHECK(!view_bookmark_save(file, 1, 0, (const double[3]){ 1, 2, 3 }, 4, 5, err, sizeof err) && strstr(err, "cannot read"),
          "saved through a symlink: %s", err);
    CHECK(!strcmp(read_file(victim), "not yours\n"), "the symlink's target was written: %s", read_file(victim));
    unlink(file);
    CHECK(view_bookmark_save(file, 1, 0, (const double[3]){ 1, 2, 3 }, 4, 5, err, sizeof err), "%s", err);
    CHECK(mode_of(file) == 0644, "cameras file: mode %o (not a regular file: -1)", mode_of(file));
    CHECK(!strcmp(read_file(file), "1,2,3,4,5 bookmark1\n"), "cameras: %s", read_file(file));
    CHECK(!strcmp(read_file(tmp), "someone's file\n"), "%s was used", tmp);
    umask(old);

    /* only what was written is there: no temporary ".NAME.XXXXXX" */
    DIR *d = opendir(dir);
    struct dirent *e;
    int count = 0;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")))
            CHECK(++count && e->d_name[0] != '.', "left behind: %s", e->d_name);
    if (d)
        closedir(d);
    CHECK(count == 4, "%d files in %s", count, dir);
    unlink(png), unlink(victim), unlink(file), unlink(tmp), rmdir(dir);
}

/* image_compare.h's scale, pixel by pixel: the tolerance's edge, both signs, the clamp at 64. */
static void test_image_compare(void)
{
    static const uint8_t a[][4] = {
        { 100, 100, 100, 255 }, { 100, 100, 100, 255 }, { 100, 100, 100, 255 }, { 100, 100, 100, 255 },
        { 100, 100, 100, 255 }, { 0, 0, 0, 255 }, { 200, 0, 0, 255 },
    };
    static const uint8_t b[][4] = {
        { 100, 100, 100, 0 },   { 102, 98, 100, 255 }, { 103, 100, 100, 255 }, { 100, 100, 68, 255 },
        { 100, 100, 100, 255 }, { 255, 255, 255, 255 }, { 0, 100, 0, 255 },
    };
    static const uint8_t want[][3] = {
        { 25, 25, 25 },          /* the same: a quarter of the luma */
        { 25, 25, 25 },          /* d = 2: within the tolerance */
        { 103, 41, 0 },          /* d = 3, brighter: t = 3/64 */
        { 0, 126, 176 },         /* d = 32, darker (less blue): t = 1/2 */
        { 25, 25, 25 },
        { 255, 220, 0 },         /* d = 255: t clamps to 1 */
        { 255, 220, 0 },         /* d = 200, luma 42.5 -> 71.5: brighter */
    };
    enum { N = sizeof a / sizeof a[0] };
    uint8_t out[N][4];
    image_compare_stats st;
    image_compare(&a[0][0], &b[0][0], N, &out[0][0], &st);
    for (int i = 0; i < N; i++)
        CHECK(out[i][0] == want[i][0] && out[i][1] == want[i][1] && out[i][2] == want[i][2] && out[i][3] == 255,
              "pixel %d: %u %u %u %u", i, out[i][0], out[i][1], out[i][2], out[i][3]);
    CHECK(st.pixels == N && st.changed == 4 && st.brighter == 3 && st.darker == 1 && st.max_difference == 255,
          "%llu %llu %llu %llu %d", (unsigned long long)st.pixels, (unsigned long long)st.changed,
          (unsigned long long)st.brighter, (unsigned long long)st.darker, st.max_difference);
    char line[256];
    image_compare_format(&st, line, sizeof line);
    CHECK(!strcmp(line, "changed pixels: 4 of 7 (57.143%), brighter 3, darker 1, max difference 255, mean difference 122.50"),
          "%s", line);
}

static void test_region_kinds(void)
{
    static const char *const names[] = { "weather", "gravity", "sound", "sky", "load", "path" };
    for (int k = 0; k < VIEW_REGION_KIND_COUNT; k++) {
        CHECK(view_region_kind_parse(names[k]) == VIEW_REGION_BIT(k), "%s", names[k]);
        CHECK(!strcmp(view_region_kind_name(k), names[k]), "%d", k);
    }
    CHECK(view_region_kind_parse("all") == 0 && view_region_kind_parse("") == 0 && view_region_kind_parse("Weather") == 0, "unknown");
}

/* Rows of a key table that act on the same key with the same modifiers: a key declared twice. */
static int key_clashes(const view_key *keys, size_t count)
{
    int clashes = 0;
    for (size_t i = 0; i < count; i++)
        for (size_t j = i + 1; j < count; j++) {
            const view_key *a = &keys[i], *b = &keys[j];
            if (!a->action || !b->action || a->mods != b->mods)
                continue;
            if (a->sym ? a->sym == b->sym : !b->sym && a->scan[0] <= b->scan[1] && b->scan[0] <= a->scan[1]) {
                fprintf(stderr, "rows %zu and %zu take the same key\n", i, j);
                clashes++;
            }
        }
    return clashes;
}

static bool key_stub(struct viewer *v, const view_key_press *k)
{
    (void)v;
    (void)k;
    return true;
}

/* The window's keys (view_keys.h): each declared once, each F1 line whole and listed once. */
static void test_keys(void)
{
    CHECK(key_clashes(viewer_keys, viewer_key_count) == 0, "the window's keys clash");
    size_t lines = 0;
    for (size_t i = 0; i < viewer_key_count; i++) {
        const view_key *k = &viewer_keys[i];
        lines += k->help != NULL;
        CHECK((k->keys == NULL) == (k->help == NULL), "row %zu: half a line", i);
        CHECK(k->action || k->help, "row %zu neither acts nor is listed", i);
        CHECK(!k->action || k->sym || (k->scan[0] > 0 && k->scan[0] <= k->scan[1]), "row %zu acts on no key", i);
        for (size_t j = 0; k->keys && j < i; j++)
            CHECK(!viewer_keys[j].keys || strcmp(viewer_keys[j].keys, k->keys), "'%s' listed twice", k->keys);
    }
    CHECK(viewer_keys[0].help && lines == 46, "%zu lines in the F1 list", lines);
    /* the check itself: key 'a' twice, and scancodes 1..9 and 1..4 both with Ctrl; 'b', and 1..9
     * with Shift, clash with nothing */
    const view_key twice[] = {
        { "A", "a", 'a', .action = key_stub }, { "A again", "b", 'a', .action = key_stub },
        { "B", "c", 'b', .action = key_stub },
        { "Ctrl+1..9", "d", 0, .scan = { 1, 9 }, .mods = VIEW_KEY_CTRL, .action = key_stub },
        { "Ctrl+1..4", "e", 0, .scan = { 1, 4 }, .mods = VIEW_KEY_CTRL, .action = key_stub },
        { "Shift+1..9", "f", 0, .scan = { 1, 9 }, .mods = VIEW_KEY_SHIFT, .action = key_stub },
    };
    CHECK(key_clashes(twice, 6) == 2, "clashes in a table with two: %d", key_clashes(twice, 6));
}

int main(int argc, char **argv)
{
    snprintf(work, sizeof work, "%s", argc > 1 ? argv[1] : "view_units_work");
    test_make_dir(work);
    test_parse_pose();
    test_bookmarks();
    test_teleport();
    test_watch();
    test_pacing();
    test_shot_path();
    test_probes();
    test_clean_line();
    test_output_files();
    test_image_compare();
    test_region_kinds();
    test_keys();
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}
