#!/usr/bin/env python3
"""relight_edit.py IN.map OUT.map EDIT - one light-only edit of a Quake .map, as a designer makes it
between two compiles (bench figure 11, pmfc --cache). The same edit of the same source always
writes the same bytes. EDIT, on the entities whose classname is `light`:
  move      the first one's origin 64 units along +x
  recolour  the first one's _color set to 255 128 64
  add       a light of 200 added beside the first one (32 units below it)
  delete    the last one taken out
  style     the first one given "style" "5"
  unstyle   the first one's "style" taken off
Chained (each OUT the next IN), move, recolour, add, delete change one light each. Exit 2 with one
line when the map has no light entity or the edit cannot apply."""
import re, sys

EDITS = ("move", "recolour", "add", "delete", "style", "unstyle")


def fail(message):
    sys.stderr.write("relight_edit: %s\n" % message)
    sys.exit(2)


def entities(lines):
    """(first line, last line) of each top-level { } block; braces of brushes nest inside."""
    spans, depth, start = [], 0, 0
    for i, line in enumerate(lines):
        text = line.strip()
        if text == "{":
            if depth == 0:
                start = i
            depth += 1
        elif text == "}":
            depth -= 1
            if depth == 0:
                spans.append((start, i))
    return spans


def key_line(lines, span, key):
    pattern = re.compile(r'^\s*"%s"\s+"' % re.escape(key))
    for i in range(span[0] + 1, span[1]):
        if pattern.match(lines[i]):
            return i
    return None


def value(line):
    return re.match(r'^\s*"[^"]*"\s+"([^"]*)"', line).group(1)


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in EDITS:
        fail("usage: relight_edit.py IN.map OUT.map %s" % "|".join(EDITS))
    source, out, edit = sys.argv[1:]
    try:
        with open(source, newline="") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail("%s: %s" % (source, e.strerror))
    lights = [s for s in entities(lines)
              if key_line(lines, s, "classname") is not None and value(lines[key_line(lines, s, "classname")]) == "light"
              and key_line(lines, s, "origin") is not None]
    if not lights:
        fail("%s: no light entity with an origin" % source)
    first = lights[0]
    origin_at = key_line(lines, first, "origin")
    origin = value(lines[origin_at]).split()
    if len(origin) != 3:
        fail("%s: the first light's origin is not three numbers" % source)
    if edit == "move":
        moved = [float(origin[0]) + 64] + [float(c) for c in origin[1:]]
        lines[origin_at] = '"origin" "%s"' % " ".join("%g" % c for c in moved)
    elif edit == "recolour":
        at = key_line(lines, first, "_color")
        if at is None:
            lines.insert(origin_at + 1, '"_color" "255 128 64"')
        else:
            lines[at] = '"_color" "255 128 64"'
    elif edit == "add":
        below = "%s %s %g" % (origin[0], origin[1], float(origin[2]) - 32)
        lines[first[1] + 1:first[1] + 1] = ["{", '"classname" "light"', '"origin" "%s"' % below, '"light" "200"', "}"]
    elif edit == "delete":
        if len(lights) < 2:
            fail("%s: one light only, and it is the one the other edits change" % source)
        del lines[lights[-1][0]:lights[-1][1] + 1]
    elif edit == "style":
        if key_line(lines, first, "style") is not None:
            fail("%s: the first light has a style already" % source)
        lines.insert(origin_at + 1, '"style" "5"')
    else:
        at = key_line(lines, first, "style")
        if at is None:
            fail("%s: the first light has no style" % source)
        del lines[at]
    with open(out, "w", newline="") as f:
        f.write("\n".join(lines))


main()
