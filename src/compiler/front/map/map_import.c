/* map_import.c - the .map front end: a Quake-family .map (read by map/map_read.h) becomes an
 * editor map (editor.h), its game told as docs/map.md says; editor_import does the rest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/session.h"
#include "base/pmf_os.h"
#include "base/text_clean.h"
#include "common/memory.h"
#include "front/editor/editor_internal.h"
#include "map_read.h"

/* A face's outward plane from its three points (qbsp's PlaneFromPoints: the points run
 * clockwise seen from outside); false when they lie in a line. */
static bool face_plane(const qmap_face *f, double normal[3], double *dist)
{
    v3 p0 = v3_make(f->points[0][0], f->points[0][1], f->points[0][2]);
    v3 p1 = v3_make(f->points[1][0], f->points[1][1], f->points[1][2]);
    v3 p2 = v3_make(f->points[2][0], f->points[2][1], f->points[2][2]);
    v3 n = v3_cross(v3_sub(p0, p1), v3_sub(p2, p1));
    double len = sqrt(v3_dot(n, n));
    if (!(len > 1e-9) || !isfinite(len)) return false;
    n = v3_scale(n, 1.0 / len);
    memcpy(normal, n.e, sizeof n.e);
    *dist = v3_dot(n, p0);
    return true;
}

/* The file's magic when it is a WAD ("WAD2" Quake, "WAD3" GoldSrc), else "". */
static void wad_magic(const char *path, char magic[5])
{
    magic[0] = 0;
    pmf_os_file_info st;
    if (pmf_os_stat(path, &st) != 0 || !st.regular) return;
    FILE *f = pmf_os_fopen(path, "rb");
    if (!f) return;
    size_t got = fread(magic, 1, 4, f);
    fclose(f);
    magic[got == 4 ? 4 : 0] = 0;
    if (strcmp(magic, "WAD2") && strcmp(magic, "WAD3")) magic[0] = 0;
}

/* The WAD a map names first that exists (--wad, then the `wad` key's places as the import looks
 * for them): its magic, "" for none. */
static void first_wad_magic(const char *path, const editor_import_desc *desc, const char *wad_key, char magic[5])
{
    magic[0] = 0;
    for (size_t i = 0; i < desc->wad_count && !magic[0]; i++) wad_magic(desc->wads[i], magic);
    if (magic[0] || !wad_key) return;
    char *list = xmalloc(strlen(wad_key) + 1);
    strcpy(list, wad_key);
    for (char *save = NULL, *item = strtok_r(list, ";", &save); item && !magic[0]; item = strtok_r(NULL, ";", &save)) {
        char places[3][EDITOR_PLACE_MAX];
        const char *base;
        int n = editor_wad_places(path, desc->game_dir, item, places, &base);
        for (int k = 0; k < n && !magic[0]; k++) wad_magic(places[k], magic);
    }
    xfree(list);
}

/* docs/map.md "Which game": TrenchBroom's game comment, else the WADs the map names, else the
 * format (Valve 220 is Half-Life's editors', Quake 2's numbers Quake 2's, the standard Quake's). */
static editor_game map_game(const qmap *q, const char *path, const editor_import_desc *desc, const char *wad_key)
{
    if (!strcasecmp(q->game, "Half-Life") || strstr(q->game, "Half-Life")) return EDITOR_GAME_GOLDSRC;
    if (!strcasecmp(q->game, "Quake 2") || !strcasecmp(q->game, "Quake2")) return EDITOR_GAME_QUAKE2;
    if (q->game[0] && !strncasecmp(q->game, "Quake", 5)) return EDITOR_GAME_QUAKE;
    if (q->quake2) return EDITOR_GAME_QUAKE2;
    char magic[5];
    first_wad_magic(path, desc, wad_key, magic);
    if (!strcmp(magic, "WAD3")) return EDITOR_GAME_GOLDSRC;
    if (!strcmp(magic, "WAD2")) return EDITOR_GAME_QUAKE;
    return q->valve ? EDITOR_GAME_GOLDSRC : EDITOR_GAME_QUAKE;
}

editor_entity *editor_push_qmap_entity(editor_map *em, const qmap *q, uint32_t i)
{
    const qmap_entity *qe = &q->entities[i];
    editor_entity *e = PUSH(em->entities, em->entity_count, em->entity_cap);
    e->kv = qe->kv_count ? xmalloc(qe->kv_count * sizeof *e->kv) : NULL;
    for (uint32_t k = 0; k < qe->kv_count; k++) e->kv[k] = (editor_kv){ q->kvs[qe->first_kv + k].key, q->kvs[qe->first_kv + k].value };
    e->kv_count = qe->kv_count;
    const char *cls = editor_kv_get(e, "classname");
    e->classname = cls ? cls : "";
    e->spawnflags = (int32_t)editor_kv_number(e, "spawnflags", 0);
    double origin[3] = { 0, 0, 0 };
    const char *o = editor_kv_get(e, "origin");
    if (o && sscanf(o, "%lf %lf %lf", &origin[0], &origin[1], &origin[2]) == 3 && isfinite(origin[0])
        && isfinite(origin[1]) && isfinite(origin[2]))
        memcpy(e->origin, origin, sizeof origin);
    e->index = i;
    e->line = qe->line;
    return e;
}

bool map_import(const char *path, const editor_import_desc *desc, map_def *map)
{
    qmap q;
    pmf_error err;
    if (!qmap_read_file(path, &q, &err)) {
        char line[1024];
        session_say(PMFC_ERROR, "pmfc: %s", pmf_error_format(&err, line, sizeof line));
        return false;
    }
    editor_map em = { .format = q.quake2 ? EDITOR_FORMAT_MAP_QUAKE2 : q.valve ? EDITOR_FORMAT_MAP_VALVE : EDITOR_FORMAT_MAP_STANDARD };
    em.game = map_game(&q, path, desc, qmap_value(&q, &q.entities[0], "wad") ? qmap_value(&q, &q.entities[0], "wad")
                                                                               : qmap_value(&q, &q.entities[0], "_wad"));
    uint32_t degenerate = 0;
    int degenerate_line = 0;
    for (uint32_t i = 0; i < q.entity_count; i++) {
        const qmap_entity *qe = &q.entities[i];
        editor_entity *e = editor_push_qmap_entity(&em, &q, i);
        e->point = qe->brush_count == 0 && i > 0;
        for (uint32_t b = 0; b < qe->brush_count; b++) {
            const qmap_brush *qb = &q.brushes[qe->first_brush + b];
            editor_brush *eb = PUSH(em.brushes, em.brush_count, em.brush_cap);
            eb->first_face = (uint32_t)em.face_count;
            eb->entity = i;
            eb->index = b;
            eb->line = qb->line;
            for (uint32_t k = 0; k < qb->face_count; k++) {
                const qmap_face *qf = &q.faces[qb->first_face + k];
                editor_face *f = PUSH(em.faces, em.face_count, em.face_cap);
                if (!face_plane(qf, f->normal, &f->dist)) {
                    em.face_count--;
                    if (!degenerate++) degenerate_line = qf->line;
                    continue;
                }
                snprintf(f->texture, sizeof f->texture, "%.127s", qf->texture);
                f->has_axes = qf->valve;
                for (int a = 0; a < 3; a++) {
                    f->u_axis[a] = qf->u[a];
                    f->v_axis[a] = qf->v[a];
                }
                f->shift[0] = qf->shift[0];
                f->shift[1] = qf->shift[1];
                f->rotation = qf->rotation;
                f->scale[0] = qf->scale[0];
                f->scale[1] = qf->scale[1];
                f->contents = qf->contents;
                f->flags = qf->flags;
                f->value = qf->value;
                f->index = k;
                f->line = qf->line;
                f->column = qf->column;
            }
            eb->face_count = (uint32_t)em.face_count - eb->first_face;
            em.source_faces += qb->face_count;
        }
        em.source_solids += qe->brush_count;
    }
    editor_map_group_brushes(&em);
    char clean[1024];
    if (q.skipped && !desc->quiet)
        session_say(PMFC_WARNING, "pmfc: warning: %s:%d: %u Quake 3 brushDef / patchDef block(s) left out (pmfc reads brushes of planes)",
                text_clean(path, clean, sizeof clean), q.skipped_line, q.skipped);
    if (degenerate && !desc->quiet)
        session_say(PMFC_WARNING, "pmfc: warning: %s:%d: %u face(s) whose three points lie in a line left out",
                text_clean(path, clean, sizeof clean), degenerate_line, degenerate);
    bool ok = editor_import(path, &em, desc, map);
    editor_map_free(&em);
    qmap_free(&q);
    return ok;
}
