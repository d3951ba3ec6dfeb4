#!/bin/bash
# sweep_test.sh CASE SWEEP_SH PMFC PMFVIEW PMFSWEEP SHARED_DATA WORKDIR
#
# scripts/sweep.sh (docs/sweep.md):
#   shared  the sweep over ../shared/data (the full-size levels of lq/ too): every map compiles,
#           no triangle is left out, no leak at a brush entity, every chunk decoded within the
#           default memory budget (pmfview info), none is empty (but a source that has nothing to
#           draw, refused or compiled empty with the reason), no BSP leaks; the rows' figures
#           where they are known, and the sheet's size
#   names   names with spaces, an escape sequence, non-ASCII and '|', upper-case extensions, a
#           damaged BSP and a file that is no map: clean cells, one row each, the damaged one exit 2
#   stuck   a pmfc that hangs and one that crashes (a stub): rows with their exits, the sweep goes
#           on; --game and --wad reach pmfc as whole arguments
set -u
CASE=$1 SWEEP=$2 PMFC=$3 PMFVIEW=$4 PMFSWEEP=$5 DATA=$6 WORK=$7
export PMFC PMFVIEW PMFSWEEP
# Mesa keeps allocations at exit (as tests/render does)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

fail() { echo "FAIL ($CASE): $*" >&2; [ -f "$WORK/out/sweep.md" ] && sed 's/^/  sweep.md: /' "$WORK/out/sweep.md" >&2; exit 1; }

rm -rf "$WORK" && mkdir -p "$WORK" || exit 1

# The table's rows (the lines after the header's separator).
rows() { sed -n '/^| --- /,$p' "$WORK/out/sweep.md" | tail -n +2; }
# cell ROW N: the Nth cell (from 1) of a row; cells are split at '|' not escaped by a backslash.
cell() { printf '%s\n' "$1" | sed 's/\\|/\x01/g' | awk -F '|' -v n=$(($2 + 1)) '{ gsub(/^ +| +$/, "", $n); gsub(/\x01/, "\\|", $n); print $n }'; }
# The row of the map named NAME (its first cell).
row_of() { rows | while IFS= read -r r; do [ "$(cell "$r" 1)" = "$1" ] && printf '%s\n' "$r"; done; }
# PNG width and height from its IHDR.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d\n", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'; }

case $CASE in
shared)
    # SWEEP_SKIP names folders of DATA left out (the ASan leg leaves out lq/: pmfc_triangles_real
    # compiles a full-size level there)
    dirs=()
    for d in "$DATA"/*/; do
        case " ${SWEEP_SKIP:-} " in *" $(basename "$d") "*) continue ;; esac
        dirs+=("${d%/}")
    done
    sh "$SWEEP" --out "$WORK/out" --size 320x180 "${dirs[@]}" 2>"$WORK/err" || fail "sweep exit $?: $(cat "$WORK/err")"
    maps=$(find "${dirs[@]}" -type f \( -iname '*.rmf' -o -iname '*.map' -o -iname '*.bsp' \) | wc -l)
    [ "$(rows | wc -l)" -eq "$maps" ] || fail "$(rows | wc -l) rows for $maps maps"
    bad=0
    while IFS= read -r r; do
        name=$(cell "$r" 1) exit_code=$(cell "$r" 2) faces=$(cell "$r" 4) triangles=$(cell "$r" 5) leak=$(cell "$r" 7)
        why=
        log=$WORK/out/logs/$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_').txt
        # A source with nothing to draw (no brush, or only tool textures, hidden visgroups and
        # volumes: the MESS templates) is refused or compiled empty with a word; any other empty
        # result is a failure (issue 33 point 4).
        nothing_drawn=no
        [ "$faces" = 0 ] && nothing_drawn=yes
        grep -q 'has no geometry left' "$log" && ! grep -q 'has no geometry left.*\(outside fill\|bad brush\)' "$log" &&
            nothing_drawn=yes
        [ "$exit_code" = 0 ] || [ $nothing_drawn = yes ] || why="$why does not compile (exit $exit_code);"
        case $triangles in '' | *[!0-9]* | 0)
            [ $nothing_drawn = yes ] || why="$why is empty ($faces faces in the source, $triangles triangles compiled);" ;;
        esac
        case $name in *.bsp | *.BSP) [ "$leak" = no ] || why="$why a BSP that leaks;" ;; esac
        # issue 39: nothing drawn is dropped, the void reaches no brush entity, and the full-size
        # levels of lq/ are sealed as ericw-tools' qbsp finds them
        grep -q 'found no room' "$log" && why="$why triangles left out;"
        grep -q '^pmfc: warning: leak:.*func_' "$log" && why="$why a leak at a brush entity;"
        [ "$exit_code" = 0 ] && grep -q '^sweep: pmfview info failed\|not drawn, nor any chunk' "$log" &&
            why="$why a chunk beyond the default memory budget;"
        case $name in lq/*) [ "$leak" = no ] || why="$why a full-size level that leaks;" ;; esac
        if [ -n "$why" ]; then
            echo "FAIL (shared): $name:$why log: $(grep -v '^pmfc: note:' "$log" | head -n 1)" >&2
            bad=$((bad + 1))
        fi
    done < <(rows)
    # figures known from the sources: hl_currents has 302 faces and its spawn stands in a sealed room
    r=$(row_of map/hl_currents.map)
    [ "$(cell "$r" 4)" = 302 ] || fail "hl_currents.map: faces '$(cell "$r" 4)', want 302"
    [ "$(cell "$r" 8)" = "info_player_start 1" ] || fail "hl_currents.map: camera '$(cell "$r" 8)'"
    [ "$(cell "$r" 9)" = yes ] || fail "hl_currents.map: camera inside '$(cell "$r" 9)'"
    r=$(row_of goldsrc/foutpost.bsp)
    [ "$(cell "$r" 4)" = 2271 ] || fail "foutpost.bsp: faces '$(cell "$r" 4)', want the BSP's 2271"
    [ "$(cell "$r" 9)" = yes ] || fail "foutpost.bsp: camera inside '$(cell "$r" 9)'"
    # a prefab (one box, no spawn) is seen from outside
    r=$(row_of rmf/test-cube-2.2.rmf)
    [ "$(cell "$r" 8)" = overview ] && [ "$(cell "$r" 9)" = "no (outside)" ] || fail "test-cube-2.2.rmf: '$r'"
    for name in map/hl_currents.map goldsrc/foutpost.bsp; do
        png=$WORK/out/shots/$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_').png
        [ "$(png_size "$png")" = 320x180 ] || fail "$png: $(png_size "$png")"
    done
    # ceil(sqrt(maps)) columns of 320 + 8, rows of 180 + 28 (two label lines) + 8, 8 around
    columns=$(awk -v n="$maps" 'BEGIN { c = int(sqrt(n)); if (c * c < n) c++; print c }')
    lines=$(( (maps + columns - 1) / columns ))
    want=$((columns * 328 + 8))x$((lines * 216 + 8))
    [ "$(png_size "$WORK/out/sweep.png")" = "$want" ] || fail "sweep.png is $(png_size "$WORK/out/sweep.png"), want $want"
    [ $bad -eq 0 ] || fail "$bad of $maps maps fail the sweep's conditions"
    ;;
names)
    mkdir -p "$WORK/maps/sub dir" || exit 1
    room=$DATA/map/qbsp_simple_sealed.map
    esc=$(printf 'esc\033[31m.MAP')
    cp "$room" "$WORK/maps/a room.map" && cp "$room" "$WORK/maps/$esc" && cp "$room" "$WORK/maps/naïve|pipe.Map" &&
        printf 'BSP? no' >"$WORK/maps/sub dir/broken.bsp" && cp "$room" "$WORK/maps/notes.txt" || exit 1
    sh "$SWEEP" --out "$WORK/out" --size 64x36 --jobs 2 "$WORK/maps" 2>"$WORK/err" || fail "sweep exit $?: $(cat "$WORK/err")"
    [ "$(rows | wc -l)" -eq 4 ] || fail "$(rows | wc -l) rows for 4 maps (notes.txt is none)"
    LC_ALL=C grep -q "$(printf '\033')" "$WORK/out/sweep.md" && fail "a raw escape byte in sweep.md"
    for name in 'a room.map' 'esc\\x1B\[31m.MAP' 'naïve\|pipe.Map'; do
        r=$(row_of "$name")
        [ -n "$r" ] || fail "no row named '$name'"
        [ "$(cell "$r" 2)" = 0 ] && [ "$(cell "$r" 9)" = yes ] && [ "$(cell "$r" 5)" = 32 ] || fail "'$name': $r"
        # 12 unescaped bars: 11 cells
        [ "$(printf '%s' "$r" | sed 's/\\|//g' | tr -cd '|' | wc -c)" -eq 12 ] || fail "'$name': cells split: $r"
    done
    r=$(row_of 'sub dir/broken.bsp')
    [ "$(cell "$r" 2)" = 2 ] && [ "$(cell "$r" 5)" = - ] || fail "the damaged BSP: '$r'"
    # 2 columns, 2 rows of 64x36 pictures (label lines: 2)
    [ "$(png_size "$WORK/out/sweep.png")" = 152x152 ] || fail "sweep.png is $(png_size "$WORK/out/sweep.png")"
    ;;
stuck)
    mkdir -p "$WORK/maps" "$WORK/game dir" || exit 1
    printf 'x' >"$WORK/maps/hangs.map" && printf 'x' >"$WORK/maps/crashes.rmf" || exit 1
    cat >"$WORK/stub_pmfc.sh" <<'EOF'
#!/bin/sh
for a; do printf '[%s]' "$a"; done >>"$STUB_LOG"; echo >>"$STUB_LOG"
case $1 in
*hangs.map) exec sleep 60 ;;
*) kill -SEGV $$ ;;
esac
EOF
    chmod +x "$WORK/stub_pmfc.sh"
    export STUB_LOG=$WORK/log
    PMFC=$WORK/stub_pmfc.sh sh "$SWEEP" --out "$WORK/out" --timeout 2 --game "$WORK/game dir" \
        --wad "$WORK/a b.wad" --wad "$WORK/c.wad" "$WORK/maps" 2>"$WORK/err" || fail "sweep exit $?: $(cat "$WORK/err")"
    r=$(row_of hangs.map)
    [ "$(cell "$r" 2)" = "124 (timed out after 2 s)" ] || fail "the hanging pmfc: '$r'"
    r=$(row_of crashes.rmf)
    [ "$(cell "$r" 2)" = "139 (signal 11)" ] || fail "the crashing pmfc: '$r'"
    grep -qF "[--game][$WORK/game dir][--wad][$WORK/a b.wad][--wad][$WORK/c.wad]" "$WORK/log" ||
        fail "pmfc's options: $(cat "$WORK/log")"
    [ "$(grep -c . "$WORK/log")" -eq 2 ] || fail "pmfc ran $(grep -c . "$WORK/log") times"
    [ -f "$WORK/out/sweep.png" ] || fail "no sheet"
    ;;
*)
    echo "sweep_test.sh: unknown case $CASE" >&2
    exit 1
    ;;
esac
echo "ok ($CASE)"
