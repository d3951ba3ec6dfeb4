/* stb_impl.c - the stb functions pmfc calls, for the page. On Linux they come from Debian's
 * libstb; here they are compiled in. src/res/image.c implements stb_image too (BMP and TGA from
 * memory), so this one is static, its entry points given names of their own that web.cmake makes
 * pmfc call. */
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#define STB_PERLIN_IMPLEMENTATION
#include <stb_perlin.h>

unsigned char *pmfc_stbi_load(const char *path, int *x, int *y, int *channels, int wanted);
unsigned char *pmfc_stbi_load_from_memory(const unsigned char *data, int size, int *x, int *y, int *channels, int wanted);
void pmfc_stbi_image_free(void *pixels);
const char *pmfc_stbi_failure_reason(void);

unsigned char *pmfc_stbi_load(const char *path, int *x, int *y, int *channels, int wanted)
{
    return stbi_load(path, x, y, channels, wanted);
}

unsigned char *pmfc_stbi_load_from_memory(const unsigned char *data, int size, int *x, int *y, int *channels, int wanted)
{
    return stbi_load_from_memory(data, size, x, y, channels, wanted);
}

void pmfc_stbi_image_free(void *pixels)
{
    stbi_image_free(pixels);
}

const char *pmfc_stbi_failure_reason(void)
{
    return stbi_failure_reason();
}
