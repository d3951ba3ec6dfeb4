/* xdnd_drop.c - drops files on an X window as a file manager does, through the XDND protocol
 * (version 5, https://freedesktop.org/wiki/Specifications/XDND): enter, position at the window's
 * centre, drop once the target accepts, then hand it the text/uri-list whenever it asks for the
 * selection (SDL asks after the drop; wine already on enter), until it says it has finished.
 *
 * Usage: xdnd_drop WINDOW_ID FILE...   (WINDOW_ID as xdotool prints it; FILE absolute)
 * Exit 0 when the target finished the drop and accepted it, 1 otherwise (said on stderr). */
#include <X11/Xatom.h>
#include <X11/Xlib.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

#define WAIT_SECONDS 30

static Display *dpy;
static Window source, target;
static Atom xdnd_aware, xdnd_enter, xdnd_position, xdnd_status, xdnd_drop, xdnd_finished, xdnd_selection,
    xdnd_action_copy, uri_list;

static void send_message(Atom type, long l1, long l2, long l3, long l4)
{
    XEvent e = { 0 };
    e.xclient.type = ClientMessage;
    e.xclient.display = dpy;
    e.xclient.window = target;
    e.xclient.message_type = type;
    e.xclient.format = 32;
    e.xclient.data.l[0] = (long)source;
    e.xclient.data.l[1] = l1;
    e.xclient.data.l[2] = l2;
    e.xclient.data.l[3] = l3;
    e.xclient.data.l[4] = l4;
    XSendEvent(dpy, target, False, NoEventMask, &e);
    XFlush(dpy);
}

/* "file:///a%20b\r\n..." for the given absolute paths: every byte but the unreserved ones and
 * '/' percent-encoded. */
static char *uri_list_of(int count, char **paths)
{
    size_t size = 1;
    for (int i = 0; i < count; i++)
        size += 7 + 3 * strlen(paths[i]) + 2;
    char *list = malloc(size), *p = list;
    if (!list)
        return NULL;
    for (int i = 0; i < count; i++) {
        p += sprintf(p, "file://");
        for (const unsigned char *c = (const unsigned char *)paths[i]; *c; c++)
            p += strchr("-._~/", *c) || (*c >= '0' && *c <= '9') || ((*c | 32) >= 'a' && (*c | 32) <= 'z')
                     ? sprintf(p, "%c", *c)
                     : sprintf(p, "%%%02X", *c);
        p += sprintf(p, "\r\n");
    }
    return list;
}

static void answer_selection_request(const XSelectionRequestEvent *r, const char *list)
{
    XEvent reply = { 0 };
    reply.xselection.type = SelectionNotify;
    reply.xselection.display = r->display;
    reply.xselection.requestor = r->requestor;
    reply.xselection.selection = r->selection;
    reply.xselection.target = r->target;
    reply.xselection.time = r->time;
    reply.xselection.property = None;
    if (r->selection == xdnd_selection && r->target == uri_list && r->property != None) {
        XChangeProperty(dpy, r->requestor, r->property, uri_list, 8, PropModeReplace, (const unsigned char *)list,
                        (int)strlen(list));
        reply.xselection.property = r->property;
    }
    XSendEvent(dpy, r->requestor, False, NoEventMask, &reply);
    XFlush(dpy);
}

/* The next event, or false after WAIT_SECONDS without one. */
static bool next_event(XEvent *e, time_t deadline)
{
    while (!XPending(dpy)) {
        if (time(NULL) >= deadline)
            return false;
        int fd = ConnectionNumber(dpy);
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        select(fd + 1, &fds, NULL, NULL, &(struct timeval){ 0, 100000 });
    }
    XNextEvent(dpy, e);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: xdnd_drop WINDOW_ID FILE...\n");
        return 1;
    }
    if (!(dpy = XOpenDisplay(NULL))) {
        fprintf(stderr, "xdnd_drop: cannot open the display\n");
        return 1;
    }
    target = (Window)strtoul(argv[1], NULL, 0);
    char *list = uri_list_of(argc - 2, argv + 2);
#define ATOM(name) XInternAtom(dpy, name, False)
    xdnd_aware = ATOM("XdndAware");
    xdnd_enter = ATOM("XdndEnter");
    xdnd_position = ATOM("XdndPosition");
    xdnd_status = ATOM("XdndStatus");
    xdnd_drop = ATOM("XdndDrop");
    xdnd_finished = ATOM("XdndFinished");
    xdnd_selection = ATOM("XdndSelection");
    xdnd_action_copy = ATOM("XdndActionCopy");
    uri_list = ATOM("text/uri-list");

    Atom type;
    int format;
    unsigned long items, after;
    unsigned char *aware = NULL;
    if (!list || XGetWindowProperty(dpy, target, xdnd_aware, 0, 1, False, XA_ATOM, &type, &format, &items, &after,
                                    &aware) != Success || !aware || items != 1) {
        fprintf(stderr, "xdnd_drop: window 0x%lx does not take drops (no XdndAware)\n", (unsigned long)target);
        return 1;
    }
    long version = *(Atom *)aware < 5 ? (long)*(Atom *)aware : 5;
    XFree(aware);

    XWindowAttributes wa;
    Window child;
    int x, y;
    XGetWindowAttributes(dpy, target, &wa);
    XTranslateCoordinates(dpy, target, wa.root, wa.width / 2, wa.height / 2, &x, &y, &child);
    source = XCreateSimpleWindow(dpy, wa.root, 0, 0, 1, 1, 0, 0, 0);
    XSetSelectionOwner(dpy, xdnd_selection, source, CurrentTime);

    send_message(xdnd_enter, version << 24, (long)uri_list, None, None);
    send_message(xdnd_position, 0, ((long)x << 16) | y, CurrentTime, (long)xdnd_action_copy);
    time_t deadline = time(NULL) + WAIT_SECONDS;
    bool dropped = false;
    XEvent e;
    while (next_event(&e, deadline)) {
        if (e.type == SelectionRequest) {
            answer_selection_request(&e.xselectionrequest, list);
        } else if (e.type == ClientMessage && e.xclient.message_type == xdnd_status && !dropped) {
            if (!(e.xclient.data.l[1] & 1)) {
                fprintf(stderr, "xdnd_drop: window 0x%lx refused the drop\n", (unsigned long)target);
                return 1;
            }
            send_message(xdnd_drop, 0, CurrentTime, 0, 0);
            dropped = true;
        } else if (e.type == ClientMessage && e.xclient.message_type == xdnd_finished) {
            /* version 5 says whether it took the data; older targets do not */
            bool accepted = version < 5 || (e.xclient.data.l[1] & 1);
            if (!accepted)
                fprintf(stderr, "xdnd_drop: window 0x%lx did not take the files\n", (unsigned long)target);
            free(list);
            XCloseDisplay(dpy);
            return accepted ? 0 : 1;
        }
    }
    fprintf(stderr, "xdnd_drop: no %s from window 0x%lx in %d s\n", dropped ? "XdndFinished" : "XdndStatus",
            (unsigned long)target, WAIT_SECONDS);
    return 1;
}
