/* light_select.h - which lights a --solo / --mute argument (or the window's light tools) means:
 *   a number     the dynamic and / or fast light of that global ID in the level
 *   #N           entry N of the map's light list (pmfview.lights, in `pmfview info`'s order)
 *   NAME         every light of the level with that source name (RMF targetname, .pms name)
 * Static lights have no ID: they are reached by name or #N, which need the pmfview.lights
 * extension (a map without it says that its static lights are unknown).
 */
#ifndef PMFVIEW_LIGHT_SELECT_H
#define PMFVIEW_LIGHT_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "light_ids.h"
#include "scene.h"

typedef struct light_selection {
    scene_light_ref *refs;           /* malloc'ed, distinct */
    size_t count, cap;
} light_selection;

/* Adds the lights spec names to sel. False with a one-line message (no prefix) when it names
 * none or memory runs out. ids: the level's dynamic and fast IDs (light_ids_read). */
bool light_select_add(light_selection *sel, const char *spec, const pmf_lights *infos, uint32_t level,
                      const light_ids *ids, char *err, size_t err_size);
/* Adds one light (nothing when it is there already). False when out of memory. */
bool light_select_push(light_selection *sel, scene_light_ref ref);
bool light_select_has(const light_selection *sel, scene_light_ref ref);
void light_select_free(light_selection *sel);

#endif
