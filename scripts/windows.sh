#!/bin/sh
# Cross-builds pmfview for Windows x86-64 on Debian 12 (mingw-w64): build-win/pmfview.exe,
# build-win/pmfc.exe, build-win/SDL2.dll and build-win/pmfview-VERSION-windows-x86_64.zip.
#
# The dependencies are built from Debian's own source packages, the versions the Linux build
# uses (a version the archive no longer serves falls back to one it does, and says so), and
# cached outside the checkout in ${PMFVIEW_DEPS_CACHE:-$HOME/.cache/pmfview-deps}/windows-x86_64/,
# one prefix per package and version: a second run rebuilds only the project. The source lists
# are a private copy of the system's, as deb-src, under the cache; the system's apt configuration
# is never touched. Nothing is downloaded from anywhere but Debian's archive.
#
# Options: --deps-only (stop after the dependencies), --no-zip, --tests (build the test suite too,
# for `ctest --test-dir build-win`, which runs it under wine: scripts/test.sh does).
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DEPS_ONLY=0
ZIP=1
TESTS=OFF
for arg in "$@"; do
    case $arg in
        --deps-only) DEPS_ONLY=1 ;;
        --no-zip) ZIP=0 ;;
        --tests) TESTS=ON ;;
        *) echo "usage: sh scripts/windows.sh [--deps-only] [--no-zip] [--tests]" >&2; exit 1 ;;
    esac
done

TRIPLE=x86_64-w64-mingw32
TOOLCHAIN=$ROOT/cmake/mingw-w64-x86_64.cmake
CACHE_ROOT=${PMFVIEW_DEPS_CACHE:-$HOME/.cache/pmfview-deps}
CACHE=$CACHE_ROOT/windows-x86_64
JOBS=$(nproc)
mkdir -p "$CACHE"
say() { echo "windows.sh: $*" >&2; }

for tool in $TRIPLE-gcc-posix $TRIPLE-g++-posix $TRIPLE-windres nasm wine dpkg-source; do
    command -v "$tool" >/dev/null || { say "$tool is missing: run sh scripts/setup.sh"; exit 1; }
done

# --- Debian source packages through a private source list -------------------------------------
APT_DIR=$CACHE_ROOT/apt
apt_private() { # apt-get|apt-cache ARGS...
    tool=$1
    shift
    "$tool" -q -o APT::Sandbox::User="$(id -un)" -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$APT_DIR/sources" \
        -o Dir::State::Lists="$APT_DIR/lists" -o Dir::Cache="$APT_DIR/cache" \
        -o Debug::NoLocking=1 "$@"
}
apt_sources_ready=0
apt_sources() {
    [ "$apt_sources_ready" = 1 ] && return 0
    mkdir -p "$APT_DIR/sources" "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
    rm -f "$APT_DIR/sources/"*
    # The system's own sources, turned into deb-src: deb822 files and one-line lists alike.
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$APT_DIR/sources/$(basename "$f")"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] && sed -n 's/^deb[[:space:]]/deb-src /p' "$f" >"$APT_DIR/sources/$(basename "$f" .list).list"
    done
    apt_private apt-get update >/dev/null
    apt_sources_ready=1
}

# The source package and version behind an installed -dev package ("" when it is not installed).
installed_source() { # DEV_PACKAGE -> "SOURCE VERSION"
    dpkg-query -W -f='${source:Package} ${source:Version}\n' "$1" 2>/dev/null | head -n 1
}

# Unpacks SOURCE at VERSION (or the nearest served) into $CACHE/src/SOURCE-VERSION; sets SRC_DIR
# and GOT_VERSION.
fetch_source() { # SOURCE VERSION
    src=$1 want=$2
    for dir in "$CACHE"/src/"$src"-*/; do
        [ -f "$dir/.pmfview-version" ] && [ "$(cat "$dir/.pmfview-version")" = "$want" ] &&
            { SRC_DIR=${dir%/}; GOT_VERSION=$want; return 0; }
    done
    apt_sources
    work=$CACHE/download/$src
    rm -rf "$work" && mkdir -p "$work"
    GOT_VERSION=""
    # The installed version first, then every version the archive lists, newest first.
    for v in $want $(apt_private apt-cache showsrc "$src" 2>/dev/null | sed -n 's/^Version: //p' | sort -ru); do
        if (cd "$work" && apt_private apt-get source --download-only "$src=$v" >/dev/null 2>&1); then
            GOT_VERSION=$v
            break
        fi
        say "$src $v is not served by the archive"
    done
    [ -n "$GOT_VERSION" ] || { say "no version of the source package $src could be downloaded"; exit 1; }
    [ "$GOT_VERSION" = "$want" ] || say "using $src $GOT_VERSION instead of the Linux build's $want"
    SRC_DIR=$CACHE/src/$src-${GOT_VERSION#*:}
    rm -rf "$SRC_DIR" && mkdir -p "$CACHE/src"
    (cd "$work" && dpkg-source --no-check -x ./*.dsc "$SRC_DIR" >/dev/null)
    echo "$GOT_VERSION" >"$SRC_DIR/.pmfview-version"
    rm -rf "$work"
}

# Builds one CMake project of a source package into its own prefix, once per version. Sets PREFIX.
PREFIXES=""
build_dep() { # DEV_PACKAGE SOURCE_SUBDIR [CMAKE OPTIONS...]
    dev=$1 subdir=$2
    shift 2
    found=$(installed_source "$dev")
    [ -n "$found" ] || { say "$dev is not installed: run sh scripts/setup.sh"; exit 1; }
    src=${found% *} want=${found#* }
    # A prefix already built for the wanted version (or its recorded fallback) is reused as is.
    # (Folder names leave the epoch out: a colon would split PKG_CONFIG_LIBDIR.)
    for p in "$CACHE/$src-${want#*:}" "$CACHE/$src-"*; do
        if [ -f "$p/.pmfview-built" ] && { [ "$p" = "$CACHE/$src-${want#*:}" ] || [ "$(cat "$p/.pmfview-built")" = "fallback-for $want" ]; }; then
            PREFIX=$p
            PREFIXES="$PREFIXES;$PREFIX"
            return 0
        fi
    done
    fetch_source "$src" "$want"
    PREFIX=$CACHE/$src-${GOT_VERSION#*:}
    say "building $src $GOT_VERSION for Windows"
    rm -rf "$PREFIX" "$CACHE/build/$src"
    cmake -S "$SRC_DIR/$subdir" -B "$CACHE/build/$src" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_PREFIX_PATH="$PREFIXES" \
        -DZLIB_ROOT=/usr/$TRIPLE "$@" >"$CACHE/build-$src.log" 2>&1 ||
        { tail -n 30 "$CACHE/build-$src.log" >&2; exit 1; }
    cmake --build "$CACHE/build/$src" -j"$JOBS" >>"$CACHE/build-$src.log" 2>&1 &&
        cmake --install "$CACHE/build/$src" >>"$CACHE/build-$src.log" 2>&1 ||
        { tail -n 30 "$CACHE/build-$src.log" >&2; exit 1; }
    # The licence as Debian ships it, for the zip.
    mkdir -p "$PREFIX/licences"
    cp "$SRC_DIR/debian/copyright" "$PREFIX/licences/$src.txt"
    if [ "$GOT_VERSION" = "$want" ]; then echo "built" >"$PREFIX/.pmfview-built"
    else echo "fallback-for $want" >"$PREFIX/.pmfview-built"; fi
    rm -rf "$CACHE/build/$src" "$SRC_DIR"
    PREFIXES="$PREFIXES;$PREFIX"
}

build_dep liblz4-dev build/cmake -DBUILD_SHARED_LIBS=OFF -DLZ4_BUILD_CLI=OFF -DLZ4_BUILD_LEGACY_LZ4C=OFF
build_dep libpng-dev . -DPNG_SHARED=OFF -DPNG_STATIC=ON -DPNG_TESTS=OFF -DPNG_EXECUTABLES=OFF
# The .pc of a static libpng must name zlib for pkg-config users.
sed -i 's/^Libs: \(.*\)-lpng16$/Libs: \1-lpng16 -lz/' "$PREFIX"/lib/pkgconfig/libpng16.pc
build_dep libjpeg62-turbo-dev . -DENABLE_SHARED=OFF -DENABLE_STATIC=ON -DWITH_TURBOJPEG=OFF -DWITH_SIMD=ON
build_dep libcjson-dev . -DBUILD_SHARED_LIBS=OFF -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF \
    -DENABLE_CUSTOM_COMPILER_FLAGS=OFF -DENABLE_TARGET_EXPORT=OFF
# SDL2.dll with what the window uses (video, events, GL); no audio, joysticks or renderers.
build_dep libsdl2-dev . -DSDL_SHARED=ON -DSDL_STATIC=OFF -DSDL_TEST=OFF -DSDL2_DISABLE_SDL2MAIN=OFF \
    -DSDL_AUDIO=OFF -DSDL_JOYSTICK=OFF -DSDL_HAPTIC=OFF -DSDL_HIDAPI=OFF -DSDL_SENSOR=OFF \
    -DSDL_POWER=OFF -DSDL_RENDER=OFF -DSDL_LIBC=ON
SDL_PREFIX=$PREFIX

# cglm (header-only use) and stb: their headers as Debian installs them, and stb's implementations
# that Debian's libstb holds, compiled once with mingw; pkg-config files of their own so nothing
# of the build machine's /usr/include reaches the compiler.
headers_prefix() { # DEV_PACKAGE NAME
    set -- "$1" "$2" "$(dpkg-query -W -f='${Version}' "$1")"
    HPREFIX=$CACHE/$2-headers-$3
    PREFIXES="$PREFIXES;$HPREFIX"
}
headers_prefix libcglm-dev cglm
if [ ! -f "$HPREFIX/.pmfview-built" ]; then
    rm -rf "$HPREFIX" && mkdir -p "$HPREFIX/include" "$HPREFIX/lib/pkgconfig" "$HPREFIX/licences"
    cp -r /usr/include/cglm "$HPREFIX/include/"
    cp /usr/share/doc/libcglm-dev/copyright "$HPREFIX/licences/cglm.txt"
    printf 'prefix=%s\nincludedir=${prefix}/include\n\nName: cglm\nDescription: cglm headers\nVersion: %s\nCflags: -I${includedir}\n' \
        "$HPREFIX" "$(dpkg-query -W -f='${Version}' libcglm-dev)" >"$HPREFIX/lib/pkgconfig/cglm.pc"
    echo built >"$HPREFIX/.pmfview-built"
fi
headers_prefix libstb-dev stb
if [ ! -f "$HPREFIX/.pmfview-built" ]; then
    rm -rf "$HPREFIX" && mkdir -p "$HPREFIX/include" "$HPREFIX/lib/pkgconfig" "$HPREFIX/licences"
    cp -r /usr/include/stb "$HPREFIX/include/"
    cp /usr/share/doc/libstb-dev/copyright "$HPREFIX/licences/stb.txt"
    # one object per header, so that a program with an implementation of its own (src/res/image.c)
    # does not pull in a second one
    for h in image image_write perlin; do
        printf '#define STB_%s_IMPLEMENTATION\n#include <stb_%s.h>\n' "$(echo $h | tr a-z A-Z)" "$h" >"$HPREFIX/stb_$h.c"
        $TRIPLE-gcc-posix -O2 -I"$HPREFIX/include/stb" -c "$HPREFIX/stb_$h.c" -o "$HPREFIX/stb_$h.o"
    done
    $TRIPLE-ar rcs "$HPREFIX/lib/libstb.a" "$HPREFIX"/stb_*.o
    printf 'prefix=%s\nincludedir=${prefix}/include/stb\nlibdir=${prefix}/lib\n\nName: stb\nDescription: stb headers and implementations\nVersion: %s\nLibs: -L${libdir} -lstb\nCflags: -I${includedir}\n' \
        "$HPREFIX" "$(dpkg-query -W -f='${Version}' libstb-dev)" >"$HPREFIX/lib/pkgconfig/stb.pc"
    echo built >"$HPREFIX/.pmfview-built"
fi
PREFIXES=${PREFIXES#;}
[ "$DEPS_ONLY" = 1 ] && { say "dependencies ready in $CACHE"; exit 0; }

# --- wine, for the demo maps pmfc.exe compiles at build time and for the tests -------------------
# A prefix of its own outside the checkout, made once; no Mono or Gecko asked for.
WINEPREFIX=${PMFVIEW_WINEPREFIX:-$CACHE_ROOT/wine-prefix}
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    say "making the wine prefix $WINEPREFIX"
    wineboot --init >/dev/null 2>&1 || true
    wineserver -w 2>/dev/null || true
fi
EMULATOR="env;WINEPREFIX=$WINEPREFIX;WINEDEBUG=-all;WINEDLLOVERRIDES=mscoree,mshtml=;wine"

# --- the project -------------------------------------------------------------------------------
PKG_CONFIG_LIBDIR=/usr/$TRIPLE/lib/pkgconfig
old_ifs=$IFS; IFS=';'
for p in $PREFIXES; do PKG_CONFIG_LIBDIR="$PKG_CONFIG_LIBDIR:$p/lib/pkgconfig"; done
IFS=$old_ifs
export PKG_CONFIG_LIBDIR
export PKG_CONFIG_PATH=""
export PKG_CONFIG_SYSROOT_DIR=""
cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$PREFIXES" -DPMFVIEW_SDL2_DLL="$SDL_PREFIX/bin/SDL2.dll" \
    "-DPMFVIEW_LICENCES=$(for p in $(echo "$PREFIXES" | tr ';' ' '); do printf '%s;' "$p"/licences/*; done)" \
    "-DCMAKE_CROSSCOMPILING_EMULATOR=$EMULATOR" -DPMFVIEW_TESTS=$TESTS >/dev/null
cmake --build build-win -j"$JOBS"
[ "$ZIP" = 1 ] && cmake --build build-win --target windows_zip
for f in pmfview.exe pmfc.exe SDL2.dll; do
    [ -f "build-win/$f" ] || { say "build-win/$f was not built"; exit 1; }
done
say "built build-win/pmfview.exe build-win/pmfc.exe build-win/SDL2.dll $(ls build-win/pmfview-*-windows-x86_64.zip 2>/dev/null || true)"
