/* light_select.c - --solo / --mute arguments to lights. */
#include "light_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_clean.h"
#include "base/cli.h"
#include "base/grow.h"

bool light_select_has(const light_selection *sel, scene_light_ref ref)
{
    for (size_t i = 0; i < sel->count; i++)
        if (sel->refs[i].kind == ref.kind && sel->refs[i].id == ref.id)
            return true;
    return false;
}

bool light_select_push(light_selection *sel, scene_light_ref ref)
{
    if (light_select_has(sel, ref))
        return true;
    if (!grow_array((void **)&sel->refs, &sel->cap, sel->count + 1, sizeof *sel->refs))
        return false;
    sel->refs[sel->count++] = ref;
    return true;
}

void light_select_free(light_selection *sel)
{
    free(sel->refs);
    memset(sel, 0, sizeof *sel);
}

bool light_select_add(light_selection *sel, const char *spec, const pmf_lights *infos, uint32_t level,
                      const light_ids *ids, char *err, size_t err_size)
{
    char clean[160];
    text_clean(spec, clean, sizeof clean);
    unsigned long long n;
    bool ok = true;
    if (cli_parse_unsigned(spec, UINT32_MAX, &n)) {
        uint32_t id = (uint32_t)n;
        if (light_ids_has(ids->dynamic, ids->dynamic_count, id))
            ok = light_select_push(sel, (scene_light_ref){ PMF_LIGHT_DYNAMIC, id });
        if (ok && light_ids_has(ids->fast, ids->fast_count, id))
            ok = light_select_push(sel, (scene_light_ref){ PMF_LIGHT_FAST, id });
        if (ok && !light_ids_has(ids->dynamic, ids->dynamic_count, id) && !light_ids_has(ids->fast, ids->fast_count, id)) {
            char dyn[256], fast[256];
            light_ids_format(ids->dynamic, ids->dynamic_count, dyn, sizeof dyn);
            light_ids_format(ids->fast, ids->fast_count, fast, sizeof fast);
            snprintf(err, err_size, "level %u has no dynamic or fast light %u (dynamic lights: %s; fast lights: %s)",
                     level, id, dyn, fast);
            return false;
        }
    } else if (spec[0] == '#') {
        if (!infos->count) {
            snprintf(err, err_size, "'%s': the map lists no lights (no pmfview.lights extension: static lights are unknown)", clean);
            return false;
        }
        if (!cli_parse_unsigned(spec + 1, infos->count - 1, &n) || infos->list[n].level != level) {
            snprintf(err, err_size, "'%s': no light #N of level %u in the map's light list (#0..#%u, pmfview info)", clean,
                     level, infos->count - 1);
            return false;
        }
        const pmf_light_info *l = &infos->list[n];
        ok = light_select_push(sel, (scene_light_ref){ l->kind, l->kind == PMF_LIGHT_STATIC ? (uint32_t)n : l->id });
    } else {
        bool matched = false;
        for (uint32_t i = 0; ok && i < infos->count; i++) {
            const pmf_light_info *l = &infos->list[i];
            if (l->level == level && spec[0] && !strcmp(l->name, spec)) {
                matched = true;
                ok = light_select_push(sel, (scene_light_ref){ l->kind, l->kind == PMF_LIGHT_STATIC ? i : l->id });
            }
        }
        if (ok && !matched) {
            if (infos->count)
                snprintf(err, err_size, "level %u has no light named '%s' (pmfview info lists them)", level, clean);
            else
                snprintf(err, err_size, "no light named '%s': the map has no pmfview.lights extension, so its light names and static lights are unknown",
                         clean);
            return false;
        }
    }
    if (!ok)
        snprintf(err, err_size, "out of memory");
    return ok;
}
