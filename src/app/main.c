/* main.c - pmfview's entry point: dispatches to the viewer, `info` or `shot`. */
#include <string.h>

#include "base/pmf_os.h"
#include "base/stringify.h"
#include "camera.h"
#include "commands.h"
#include "stream.h"
#include "pmf_budget.h"

void print_usage(FILE *out)
{
    fputs("usage: pmfview [FILE] [options]                 fly through a map in a window\n"
          "       pmfview info FILE [--json] [--memory MIB]\n"
          "       pmfview shot FILE -o OUT.png [options]\n"
          "       pmfview --help | --version\n"
          "\n"
          "Window options (FILE defaults to the bundled feature demo map):\n"
          "  --level N                level index from 0 (default 0)\n"
          "  --camera X,Y,Z,YAW,PITCH start camera: world metres and degrees (default 0,0,0,0,0)\n"
          "  --fov DEG                vertical field of view, 1..179 (default " PMF_STRINGIFY(CAMERA_DEFAULT_FOV) ")\n"
          "  --radius N               streaming radius in chunks, 1..64 (default " PMF_STRINGIFY(STREAM_DEFAULT_RADIUS) ")\n"
          "  --no-vsync               do not wait for the display's refresh\n"
          "  --gl-debug               print the OpenGL driver's debug messages to stderr\n"
          "  --shots DIR              where F12 screenshots go (default: the current directory)\n"
          "  --game DIR               game directory for unprefixed texture paths\n"
          "  --size WxH               window size (default " PMF_STRINGIFY(PMFVIEW_DEFAULT_WIDTH) "x" PMF_STRINGIFY(PMFVIEW_DEFAULT_HEIGHT) ")\n"
          "  --memory MIB             memory budget for the map (default from the machine, docs/memory.md)\n"
          "FILE may be a PMF map or an RMF (compiled with pmfc into the cache, $XDG_CACHE_HOME/pmfview;\n"
          "$PMFVIEW_PMFC names the compiler, else the pmfc beside pmfview).\n"
          "In the window, F1 lists every key; docs/viewer.md has them all.\n"
          "\n"
          "Run 'pmfview info --help' or 'pmfview shot --help' for their options.\n", out);
}

int main(int argc, char **argv)
{
    pmf_os_start(&argc, &argv); /* UTF-8 arguments, output bytes as on Linux */
    pmf_budget_set_limit(pmf_budget_default()); /* --memory overrides it */
    if (argc >= 2) {
        if (!strcmp(argv[1], "info"))
            return cmd_info(argc - 1, argv + 1);
        if (!strcmp(argv[1], "shot"))
            return cmd_shot(argc - 1, argv + 1);
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
            print_usage(stdout);
            return 0;
        }
        if (!strcmp(argv[1], "--version")) {
            printf("pmfview %s\n", PMFVIEW_VERSION);
            return 0;
        }
    }
    return cmd_view(argc, argv);
}
