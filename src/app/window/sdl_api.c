/* sdl_api.c - libSDL2 opened on first use (sdl_api.h says why). */
#define SDL_API_IMPLEMENTATION
#include "sdl_api.h"

#include <dlfcn.h>
#include <stdio.h>

/* The library's SONAME: the ABI the headers we compiled against describe. */
#define SDL_LIBRARY "libSDL2-2.0.so.0"

sdl_api_table sdl_api;

bool sdl_api_load(char *err, size_t err_size)
{
    static int loaded; /* 0 not tried, 1 loaded, -1 failed */
    static char failure[256];
    if (!loaded) {
        void *lib = dlopen(SDL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        loaded = lib ? 1 : -1;
        if (!lib)
            snprintf(failure, sizeof failure, "cannot load %s: %s", SDL_LIBRARY, dlerror());
#define SDL_API_RESOLVE(name)                                                                       \
        if (loaded == 1 && !(*(void **)&sdl_api.name = dlsym(lib, #name))) {                         \
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
