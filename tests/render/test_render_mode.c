/* test_render_mode.c - the render modes' one table: every name parses back to its mode, the
 * usage message lists them all in order, and nothing else parses. */
#include "common/check.h"
#include "render/render_mode.h"

int main(void)
{
    for (int m = 0; m < RENDER_MODE_COUNT; m++) {
        render_mode parsed = RENDER_MODE_COUNT;
        CHECK(render_mode_parse(render_mode_name((render_mode)m), &parsed));
        CHECK_EQ(parsed, m);
    }
    CHECK(strcmp(render_mode_name(RENDER_MODE_LIGHTMAP), "lightmap") == 0);
    CHECK(strcmp(render_mode_name(RENDER_MODE_COUNT), "full") == 0);
    char choices[128];
    render_mode_choices(choices, sizeof choices);
    CHECK(strcmp(choices, "full, lightmap, fullbright or density") == 0, "'%s'", choices);
    render_mode out = RENDER_MODE_DENSITY;
    CHECK(!render_mode_parse("Full", &out) && !render_mode_parse("", &out) && !render_mode_parse("lit", &out));
    CHECK_EQ(out, RENDER_MODE_DENSITY);
    TEST_DONE();
}
