/* egl_context.c - a headless OpenGL core context on EGL's surfaceless or device platform
 * (egl_context.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include "egl_context.h"

#define MAX_DEVICES 16

struct egl_context {
    EGLDisplay display;
    EGLContext context;
    EGLSurface surface;              /* a 1x1 pbuffer where EGL_KHR_surfaceless_context is missing */
    char platform[160];
};

/* Whether a space-separated extension list names ext exactly. */
static bool has_extension(const char *list, const char *ext)
{
    size_t n = strlen(ext);
    for (const char *p = list; p && (p = strstr(p, ext)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* A short reason appended to the running report. */
static void say(char *out, size_t size, const char *fmt, ...)
{
    size_t used = strlen(out);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + used, size - used, fmt, ap);
    va_end(ap);
}

static void close_display(EGLDisplay display, EGLContext context, EGLSurface surface)
{
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface != EGL_NO_SURFACE)
        eglDestroySurface(display, surface);
    if (context != EGL_NO_CONTEXT)
        eglDestroyContext(display, context);
    eglTerminate(display);
}

/* Initialises the display and makes a core context of the first version it gives current. */
static bool open_on(EGLDisplay display, const egl_context_desc *desc, egl_context *out, char *why, size_t why_size)
{
    EGLint major, minor;
    if (display == EGL_NO_DISPLAY) {
        say(why, why_size, "no display (EGL error 0x%x)", (unsigned)eglGetError());
        return false;
    }
    if (!eglInitialize(display, &major, &minor)) {
        say(why, why_size, "eglInitialize failed (EGL error 0x%x)", (unsigned)eglGetError());
        return false;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        say(why, why_size, "no OpenGL API (EGL error 0x%x)", (unsigned)eglGetError());
        eglTerminate(display);
        return false;
    }
    const char *ext = eglQueryString(display, EGL_EXTENSIONS);
    EGLConfig config = EGL_NO_CONFIG_KHR;
    bool no_config = has_extension(ext, "EGL_KHR_no_config_context") || has_extension(ext, "EGL_MESA_configless_context");
    bool surfaceless = has_extension(ext, "EGL_KHR_surfaceless_context");
    if (!no_config || !surfaceless) {
        static const EGLint config_attribs[] = {
            EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE,
        };
        EGLint count = 0;
        if (!eglChooseConfig(display, config_attribs, &config, 1, &count) || count < 1) {
            say(why, why_size, "no OpenGL pbuffer config (EGL error 0x%x)", (unsigned)eglGetError());
            eglTerminate(display);
            return false;
        }
    }
    static const int default_versions[][2] = { { 4, 5 }, { 3, 3 } };
    const int (*versions)[2] = desc && desc->version_count ? desc->versions : default_versions;
    size_t version_count = desc && desc->version_count ? desc->version_count : 2;
    EGLContext context = EGL_NO_CONTEXT;
    for (size_t i = 0; i < version_count && context == EGL_NO_CONTEXT; i++) {
        const EGLint attribs[] = {
            EGL_CONTEXT_MAJOR_VERSION, versions[i][0], EGL_CONTEXT_MINOR_VERSION, versions[i][1],
            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
        };
        context = eglCreateContext(display, config, EGL_NO_CONTEXT, attribs);
    }
    if (context == EGL_NO_CONTEXT) {
        char version[16];
        snprintf(version, sizeof version, "%d.%d", versions[version_count - 1][0], versions[version_count - 1][1]);
        say(why, why_size, "no OpenGL %s core context (EGL error 0x%x)", version, (unsigned)eglGetError());
        eglTerminate(display);
        return false;
    }
    EGLSurface surface = EGL_NO_SURFACE;
    if (!surfaceless) {
        static const EGLint pbuffer_attribs[] = { EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE };
        surface = eglCreatePbufferSurface(display, config, pbuffer_attribs);
    }
    if ((!surfaceless && surface == EGL_NO_SURFACE) || !eglMakeCurrent(display, surface, surface, context)) {
        say(why, why_size, "the context cannot be made current (EGL error 0x%x)", (unsigned)eglGetError());
        close_display(display, context, surface);
        return false;
    }
    out->display = display;
    out->context = context;
    out->surface = surface;
    return true;
}

static PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display_proc(void)
{
    return (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
}

static bool try_surfaceless(const char *client, const egl_context_desc *desc, egl_context *out, char *why, size_t size)
{
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display = platform_display_proc();
    if (!has_extension(client, "EGL_MESA_platform_surfaceless") || !get_display) {
        say(why, size, "EGL_MESA_platform_surfaceless missing");
        return false;
    }
    if (!open_on(get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL), desc, out, why, size))
        return false;
    snprintf(out->platform, sizeof out->platform, "surfaceless");
    return true;
}

/* What names a device: its DRM node when it has one, else its extensions (Mesa's software
 * device says EGL_MESA_device_software). */
static void device_name(EGLDeviceEXT device, int index, char *out, size_t size)
{
    PFNEGLQUERYDEVICESTRINGEXTPROC query = (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
    const char *ext = query ? query(device, EGL_EXTENSIONS) : NULL;
    const char *node = ext && has_extension(ext, "EGL_EXT_device_drm") ? query(device, EGL_DRM_DEVICE_FILE_EXT) : NULL;
    if (node)
        snprintf(out, size, "device %d, %s", index, node);
    else
        snprintf(out, size, "device %d, %s", index, ext && *ext ? ext : "no name");
}

static bool try_device(const char *client, const egl_context_desc *desc, egl_context *out, char *why, size_t size)
{
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display = platform_display_proc();
    PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    if (!has_extension(client, "EGL_EXT_platform_device") || !get_display || !query_devices) {
        say(why, size, "EGL_EXT_platform_device missing");
        return false;
    }
    EGLDeviceEXT devices[MAX_DEVICES];
    EGLint count = 0;
    if (!query_devices(MAX_DEVICES, devices, &count) || count < 1) {
        say(why, size, "no EGL device (EGL error 0x%x)", (unsigned)eglGetError());
        return false;
    }
    for (EGLint i = 0; i < count; i++) {
        char name[128];
        device_name(devices[i], (int)i, name, sizeof name);
        say(why, size, "%s%s: ", i ? "; " : "", name);
        if (open_on(get_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL), desc, out, why, size)) {
            snprintf(out->platform, sizeof out->platform, "device (%s)", name);
            return true;
        }
    }
    return false;
}

egl_context *egl_context_create(const egl_context_desc *desc, char *err, size_t err_size)
{
    const char *forced = getenv("PMFVIEW_EGL_PLATFORM");
    if (forced && !*forced)
        forced = NULL;
    if (forced && strcmp(forced, "surfaceless") && strcmp(forced, "device")) {
        snprintf(err, err_size, "PMFVIEW_EGL_PLATFORM=%.40s: use surfaceless or device", forced);
        return NULL;
    }
    egl_context *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    /* NULL without EGL_EXT_client_extensions; empty under glvnd when no vendor library loads */
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    char surfaceless_why[400] = "", device_why[600] = "";
    if ((!forced || !strcmp(forced, "surfaceless")) && try_surfaceless(client, desc, c, surfaceless_why, sizeof surfaceless_why))
        return c;
    if ((!forced || !strcmp(forced, "device")) && try_device(client, desc, c, device_why, sizeof device_why))
        return c;
    free(c);
    char offered[300];
    snprintf(offered, sizeof offered, "%s", client && *client ? client : "none (no EGL vendor library loaded? docs/shot.md)");
    if (forced)
        snprintf(err, err_size, "no headless OpenGL on the EGL %s platform (PMFVIEW_EGL_PLATFORM): %s; EGL client extensions: %s",
                 forced, !strcmp(forced, "surfaceless") ? surfaceless_why : device_why, offered);
    else
        snprintf(err, err_size, "no headless OpenGL: EGL surfaceless platform: %s; EGL device platform: %s; EGL client extensions: %s",
                 surfaceless_why, device_why, offered);
    return NULL;
}

void egl_context_destroy(egl_context *c)
{
    if (!c)
        return;
    close_display(c->display, c->context, c->surface);
    free(c);
}

const char *egl_context_platform(const egl_context *c)
{
    return c->platform;
}

void *egl_context_getproc(const char *name)
{
    return (void *)eglGetProcAddress(name);
}
