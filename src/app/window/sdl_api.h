/* sdl_api.h - SDL2, loaded when a window opens rather than at every start.
 *
 * Debian's libSDL2 brings some fifty libraries with it (X11, Wayland, PulseAudio, ALSA, ...):
 * linked, they cost every pmfview process 3.7 ms of CPU before main, which `info`, `shot` and
 * the tests, which never open a window, then pay for nothing. The window code includes this
 * header instead of <SDL.h> and calls SDL as usual: each SDL function it uses is a macro for a
 * pointer in sdl_api, filled by sdl_api_load() from libSDL2 with dlopen. Using an SDL function
 * not in SDL_API_FUNCTIONS fails to link: add it to the list. */
#ifndef PMFVIEW_SDL_API_H
#define PMFVIEW_SDL_API_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

#define SDL_API_FUNCTIONS(X) \
    X(SDL_CreateWindow) X(SDL_Delay) X(SDL_DestroyWindow) X(SDL_GL_CreateContext) X(SDL_GL_DeleteContext) \
    X(SDL_GL_GetDrawableSize) X(SDL_GL_GetProcAddress) X(SDL_GL_SetAttribute) X(SDL_GL_SetSwapInterval) \
    X(SDL_GL_SwapWindow) X(SDL_GetCurrentVideoDriver) X(SDL_GetError) X(SDL_free) X(SDL_GetKeyboardState) \
    X(SDL_GetMouseState) X(SDL_GetPerformanceCounter) X(SDL_GetPerformanceFrequency) X(SDL_GetWindowFlags) \
    X(SDL_GetWindowDisplayMode) X(SDL_GetWindowSize) X(SDL_Init) X(SDL_PollEvent) X(SDL_Quit) X(SDL_SetHint) X(SDL_SetRelativeMouseMode) \
    X(SDL_SetWindowFullscreen) X(SDL_SetWindowTitle) X(SDL_StartTextInput) X(SDL_StopTextInput)

typedef struct sdl_api_table {
#define SDL_API_MEMBER(name) __typeof__(name) *name;
    SDL_API_FUNCTIONS(SDL_API_MEMBER)
#undef SDL_API_MEMBER
} sdl_api_table;

extern sdl_api_table sdl_api;

/* Loads libSDL2 and every function above (once; later calls return the first answer). False
 * with the reason in err when it cannot. */
bool sdl_api_load(char *err, size_t err_size);

#ifndef SDL_API_IMPLEMENTATION
#define SDL_CreateWindow (sdl_api.SDL_CreateWindow)
#define SDL_Delay (sdl_api.SDL_Delay)
#define SDL_DestroyWindow (sdl_api.SDL_DestroyWindow)
#define SDL_GL_CreateContext (sdl_api.SDL_GL_CreateContext)
#define SDL_GL_DeleteContext (sdl_api.SDL_GL_DeleteContext)
#define SDL_GL_GetDrawableSize (sdl_api.SDL_GL_GetDrawableSize)
#define SDL_GL_GetProcAddress (sdl_api.SDL_GL_GetProcAddress)
#define SDL_GL_SetAttribute (sdl_api.SDL_GL_SetAttribute)
#define SDL_GL_SetSwapInterval (sdl_api.SDL_GL_SetSwapInterval)
#define SDL_GL_SwapWindow (sdl_api.SDL_GL_SwapWindow)
#define SDL_GetCurrentVideoDriver (sdl_api.SDL_GetCurrentVideoDriver)
#define SDL_GetError (sdl_api.SDL_GetError)
#define SDL_free (sdl_api.SDL_free)
#define SDL_GetKeyboardState (sdl_api.SDL_GetKeyboardState)
#define SDL_GetMouseState (sdl_api.SDL_GetMouseState)
#define SDL_GetPerformanceCounter (sdl_api.SDL_GetPerformanceCounter)
#define SDL_GetPerformanceFrequency (sdl_api.SDL_GetPerformanceFrequency)
#define SDL_GetWindowFlags (sdl_api.SDL_GetWindowFlags)
#define SDL_GetWindowDisplayMode (sdl_api.SDL_GetWindowDisplayMode)
#define SDL_GetWindowSize (sdl_api.SDL_GetWindowSize)
#define SDL_Init (sdl_api.SDL_Init)
#define SDL_PollEvent (sdl_api.SDL_PollEvent)
#define SDL_Quit (sdl_api.SDL_Quit)
#define SDL_SetHint (sdl_api.SDL_SetHint)
#define SDL_SetRelativeMouseMode (sdl_api.SDL_SetRelativeMouseMode)
#define SDL_SetWindowFullscreen (sdl_api.SDL_SetWindowFullscreen)
#define SDL_SetWindowTitle (sdl_api.SDL_SetWindowTitle)
#define SDL_StartTextInput (sdl_api.SDL_StartTextInput)
#define SDL_StopTextInput (sdl_api.SDL_StopTextInput)
#endif

#endif
