/* view_pace.c - the window's frame pacing (view_pace.h). */
#include "view_pace.h"

double view_pace_interval(double refresh_period, bool compiling, bool still)
{
    if (refresh_period <= 0 || !compiling)
        return refresh_period > 0 ? refresh_period : 0;
    double least = still ? VIEW_PACE_STILL : VIEW_PACE_COMPILE;
    return refresh_period > least ? refresh_period : least;
}

double view_pace_rest(double interval, double frame_start, double now)
{
    double rest = interval - (now - frame_start);
    return rest > 0.001 ? rest : 0;
}
