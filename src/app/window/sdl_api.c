/* sdl_api.c - libSDL2 opened on first use (sdl_api.h says why). */
#define SDL_API_IMPLEMENTATION
#include "sdl_api.h"

#include <stdio.h>

#include "pmf_os.h"

/* The library's SONAME (libSDL2-2.0.so.0, SDL2.dll): the ABI the headers we compiled against
 * describe. */
#define SDL_LIBRARY pmf_os_sdl2_library

sdl_api_table sdl_api;

bool sdl_api_load(char *err, size_t err_size)
{
    static int loaded; /* 0 not tried, 1 loaded, -1 failed */
    static char failure[256];
    if (!loaded) {
        char why[200];
        void *lib = pmf_os_library_open(SDL_LIBRARY, why, sizeof why);
        loaded = lib ? 1 : -1;
        if (!lib)
            snprintf(failure, sizeof failure, "cannot load %s: %s", SDL_LIBRARY, why);
#define SDL_API_RESOLVE(name)                                                                       \
        if (loaded == 1 && !(*(void **)&sdl_api.name = pmf_os_library_symbol(lib, #name))) {                         \
            snprintf(failure, sizeof failure, "%s has no %s", SDL_LIBRARY, #name);                  \
            loaded = -1;                                                                            \
        }
        SDL_API_FUNCTIONS(SDL_API_RESOLVE)
#undef SDL_API_RESOLVE
    }
    if (loaded < 0)
        snprintf(err, err_size, "%s", failure);
    return loaded > 0;
}
