/* view_options.h - the options the window and `shot` both take, each declared once as an entry
 * of a cli_option table (base/cli.h): the same name, range, unit, default and help in both. */
#ifndef PMFVIEW_APP_VIEW_OPTIONS_H
#define PMFVIEW_APP_VIEW_OPTIONS_H

#include "base/cli.h"
#include "base/stringify.h"
#include "camera.h"
#include "commands.h"
#include "stream.h"

#define VIEW_MAX_SIZE 8192           /* the largest picture or window side */

#define VIEW_OPTION_LEVEL(id) \
    { "level", 0, (id), CLI_COUNT, "N", "a level index", 0, 255, 0, "the level to open, from 0", "0" }
#define VIEW_OPTION_CAMERA(id) \
    { "camera", 0, (id), CLI_TEXT, "X,Y,Z,YAW,PITCH", NULL, 0, 0, 0, \
      "world metres and degrees", "the level's first start camera, else 0,0,0,0,0" }
#define VIEW_OPTION_FOV(id) \
    { "fov", 0, (id), CLI_NUMBER, "DEG", "degrees", 0, 180, CLI_ABOVE_MIN | CLI_BELOW_MAX, \
      "vertical field of view", PMF_STRINGIFY(CAMERA_DEFAULT_FOV) }
#define VIEW_OPTION_RADIUS(id) \
    { "radius", 0, (id), CLI_COUNT, "N", "chunks", 1, STREAM_MAX_RADIUS, 0, "streaming radius in chunks", \
      PMF_STRINGIFY(STREAM_DEFAULT_RADIUS) }
#define VIEW_OPTION_SIZE(id, what) \
    { "size", 0, (id), CLI_SIZE, "WxH", NULL, 1, VIEW_MAX_SIZE, 0, what, \
      PMF_STRINGIFY(PMFVIEW_DEFAULT_WIDTH) "x" PMF_STRINGIFY(PMFVIEW_DEFAULT_HEIGHT) }
#define VIEW_OPTION_GAME(id) \
    { "game", 0, (id), CLI_TEXT, "DIR", NULL, 0, 0, 0, \
      "game directory for unprefixed texture paths, and (its loose files and paks) the models of a Quake map's entities", NULL }
#define VIEW_MAX_FGDS 16
#define VIEW_OPTION_FGD(id) \
    { "fgd", 0, (id), CLI_TEXT, "FILE", NULL, 0, 0, 0, \
      "entity definitions: the model each class shows, over the built-in Quake classes (repeatable, " \
      PMF_STRINGIFY(VIEW_MAX_FGDS) " at most; docs/models.md)", NULL }
#define VIEW_OPTION_NO_MODELS(id) \
    { "no-models", 0, (id), CLI_FLAG, NULL, NULL, 0, 0, 0, "do not draw the point entities' models (docs/models.md)", NULL }
#define VIEW_OPTION_GL_DEBUG(id) \
    { "gl-debug", 0, (id), CLI_FLAG, NULL, NULL, 0, 0, 0, "print the OpenGL driver's debug messages to stderr", NULL }

#endif
