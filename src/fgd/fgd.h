/* fgd.h - entity definitions (Valve's FGD, as Hammer, J.A.C.K. and TrenchBroom read them): which
 * model each class is shown with, the way the editors show it.
 *   pmf_error err;
 *   fgd *g = fgd_new();
 *   if (!fgd_add_file(g, "quake.fgd", &err)) ... one line: "quake.fgd:12:5: class: ..."
 *   fgd_model m;
 *   if (fgd_class_model(g, "item_armor1", &m)) ... m.path ("progs/armor.mdl") or m.key ("model")
 *   fgd_free(g);
 * Read: `@PointClass`, `@SolidClass`, `@BaseClass` (and the other `@...Class` of Source's FGD) with
 * their attributes before `=` and their name; of the attributes `base(A, B)` and the model ones:
 * `model("path")`, `studio("path")`, `sprite("path")`, `iconsprite("path")`, TrenchBroom's
 * `model({"path": "path", "skin": N, "frame": N})` (a path of a bare word: the entity's key of
 * that name) and `studio()` / `sprite()` with no path (the entity's `model` key); a leading `:`
 * (TrenchBroom's game-relative path) is dropped. A model attribute of another form (TrenchBroom's
 * `{{ condition -> ... }}` expressions) gives no model. Property blocks `[ ... ]`, other
 * attributes and other directives (`@mapsize(...)`, `@MaterialExclusion [...]`) are skipped;
 * `@include "file"` reads that file (beside the including one, 8 deep at most). A class defined
 * again (a later file) takes the place of the earlier one, as the editors do. A class without a
 * model takes its first base's that has one (depth-first, 16 deep at most).
 * Checked: every string closed, every bracket matched, a class's name after its `=` and a body,
 * only `@` directives at the top level, at most FGD_MAX_BYTES a file and FGD_MAX_CLASSES classes;
 * each error one line FILE:LINE:COLUMN. No output, no exit; memory from the budget. */
#ifndef PMF_FGD_H
#define PMF_FGD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmf/pmf.h"

#define FGD_MAX_BYTES ((size_t)16 << 20)
#define FGD_MAX_CLASSES 65536u
#define FGD_NOT_GIVEN (-1)

typedef struct fgd fgd;

typedef struct fgd_model {
    const char *path;                /* the file (game-relative), or NULL: read from `key` */
    const char *key;                 /* the entity's key naming the file, when path is NULL */
    int32_t skin, frame;             /* FGD_NOT_GIVEN unless the object form gives them */
} fgd_model;

fgd *fgd_new(void);                  /* NULL when out of memory */
void fgd_free(fgd *g);
/* One FGD's text (name: for errors and its @include's folder; includes read from files). False
 * with err filled; what was read before the error stays. */
bool fgd_add_text(fgd *g, const char *text, size_t size, const char *name, pmf_error *err);
bool fgd_add_file(fgd *g, const char *path, pmf_error *err);
/* Classes read, in all, and the name of class i (in the order read; NULL past the last). */
size_t fgd_class_count(const fgd *g);
const char *fgd_class_name(const fgd *g, size_t i);
/* The model the class (any case) is shown with, its bases' when it has none itself: false when
 * the class is unknown or has none. Strings valid until fgd_free. */
bool fgd_class_model(const fgd *g, const char *classname, fgd_model *out);

#endif
