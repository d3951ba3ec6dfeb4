/* wgl_context.c - egl_context.h on Windows, which has no EGL: an OpenGL core context through WGL
 * on a hidden window of its own (never shown; rendering goes to framebuffer objects as with EGL).
 * A legacy context on that window fetches wglCreateContextAttribsARB, which then makes the core
 * context. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egl_context.h"

#define WGL_CONTEXT_MAJOR_VERSION_ARB 0x2091
#define WGL_CONTEXT_MINOR_VERSION_ARB 0x2092
#define WGL_CONTEXT_PROFILE_MASK_ARB 0x9126
#define WGL_CONTEXT_CORE_PROFILE_BIT_ARB 0x00000001

typedef HGLRC(WINAPI *create_context_attribs_fn)(HDC, HGLRC, const int *);

struct egl_context {
    HWND window;
    HDC dc;
    HGLRC context;
    char platform[64];
};

static const wchar_t window_class[] = L"pmfview-headless-gl";

static void destroy(egl_context *c)
{
    if (c->context) {
        wglMakeCurrent(NULL, NULL);
        wglDeleteContext(c->context);
    }
    if (c->dc)
        ReleaseDC(c->window, c->dc);
    if (c->window)
        DestroyWindow(c->window);
    free(c);
}

egl_context *egl_context_create(const egl_context_desc *desc, char *err, size_t err_size)
{
    static const int default_versions[2][2] = { { 4, 5 }, { 3, 3 } };
    const int (*versions)[2] = desc && desc->version_count ? desc->versions : default_versions;
    size_t version_count = desc && desc->version_count ? desc->version_count : 2;
    egl_context *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    HINSTANCE instance = GetModuleHandleW(NULL);
    WNDCLASSW wc = { .style = CS_OWNDC, .lpfnWndProc = DefWindowProcW, .hInstance = instance, .lpszClassName = window_class };
    RegisterClassW(&wc); /* fails harmlessly when a previous context registered it */
    c->window = CreateWindowExW(0, window_class, L"pmfview", WS_OVERLAPPEDWINDOW, 0, 0, 64, 64, NULL, NULL, instance, NULL);
    c->dc = c->window ? GetDC(c->window) : NULL;
    if (!c->dc) {
        snprintf(err, err_size, "no headless OpenGL: cannot create a hidden window (Windows error %lu)", (unsigned long)GetLastError());
        destroy(c);
        return NULL;
    }
    PIXELFORMATDESCRIPTOR pfd = { .nSize = sizeof pfd, .nVersion = 1,
                                  .dwFlags = PFD_DRAW_TO_WINDOW | PFD_SUPPORT_OPENGL | PFD_DOUBLEBUFFER,
                                  .iPixelType = PFD_TYPE_RGBA, .cColorBits = 32, .cDepthBits = 24, .cStencilBits = 8,
                                  .iLayerType = PFD_MAIN_PLANE };
    int format = ChoosePixelFormat(c->dc, &pfd);
    HGLRC legacy = format && SetPixelFormat(c->dc, format, &pfd) ? wglCreateContext(c->dc) : NULL;
    if (!legacy || !wglMakeCurrent(c->dc, legacy)) {
        snprintf(err, err_size, "no headless OpenGL: WGL gives no context on a hidden window (Windows error %lu)",
                 (unsigned long)GetLastError());
        if (legacy)
            wglDeleteContext(legacy);
        destroy(c);
        return NULL;
    }
    create_context_attribs_fn create = (create_context_attribs_fn)(void (*)(void))wglGetProcAddress("wglCreateContextAttribsARB");
    for (size_t i = 0; create && !c->context && i < version_count; i++) {
        const int attribs[] = { WGL_CONTEXT_MAJOR_VERSION_ARB, versions[i][0], WGL_CONTEXT_MINOR_VERSION_ARB, versions[i][1],
                                WGL_CONTEXT_PROFILE_MASK_ARB, WGL_CONTEXT_CORE_PROFILE_BIT_ARB, 0 };
        if ((c->context = create(c->dc, NULL, attribs)))
            snprintf(c->platform, sizeof c->platform, "wgl (hidden window, OpenGL %d.%d core)", versions[i][0], versions[i][1]);
    }
    wglMakeCurrent(NULL, NULL);
    wglDeleteContext(legacy);
    if (!c->context || !wglMakeCurrent(c->dc, c->context)) {
        snprintf(err, err_size, "no headless OpenGL: WGL %s", create ? "gives no OpenGL 3.3 core context" : "has no WGL_ARB_create_context");
        destroy(c);
        return NULL;
    }
    return c;
}

void egl_context_destroy(egl_context *c)
{
    if (c)
        destroy(c);
}

const char *egl_context_platform(const egl_context *c)
{
    return c->platform;
}

void *egl_context_getproc(const char *name)
{
    /* wglGetProcAddress knows only what opengl32.dll does not export (GL 1.2 and later) */
    PROC p = wglGetProcAddress(name);
    if (!p || p == (PROC)1 || p == (PROC)2 || p == (PROC)3 || p == (PROC)-1)
        p = GetProcAddress(GetModuleHandleW(L"opengl32.dll"), name);
    void *f;
    memcpy(&f, &p, sizeof f);
    return f;
}
