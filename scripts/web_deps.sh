#!/bin/sh
# Builds the page's libraries (zlib, lz4, libpng, libjpeg-turbo, cJSON) for WebAssembly from
# Debian's source packages, the versions the Linux build uses, into a cache outside the checkout:
#   ${PMFVIEW_DEPS_CACHE:-$HOME/.cache/pmfview-deps}/web/prefix   (include/, lib/)
# The sources come through a private apt source list: the system's apt configuration is not
# touched. Compiled with -pthread so that both the threaded and the single-threaded page link
# them. Prints the prefix on stdout. Usage: sh scripts/web_deps.sh
set -eu
CACHE="${PMFVIEW_DEPS_CACHE:-$HOME/.cache/pmfview-deps}/web"
PREFIX="$CACHE/prefix"
JOBS=$(nproc)
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
mkdir -p "$CACHE/apt/sources.list.d" "$CACHE/apt/lists/partial" "$CACHE/src" "$PREFIX"

say() { echo "web_deps: $*" >&2; }

# Runs a command with its output in $CACHE/log, shown only when it fails.
quietly() {
    if ! "$@" >"$CACHE/log" 2>&1; then
        tail -30 "$CACHE/log" >&2
        say "failed: $*"
        exit 1
    fi
}

APT_OPTS="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$CACHE/apt/sources.list.d
  -o Dir::State::Lists=$CACHE/apt/lists -o Dir::Cache=$CACHE/apt/cache -o Debug::NoLocking=1 -o APT::Sandbox::User=root"

apt_ready=
apt_update() {
    [ -n "$apt_ready" ] && return 0
    src=/etc/apt/sources.list.d/debian.sources
    if [ -f "$src" ]; then
        sed 's/^Types:.*/Types: deb-src/' "$src" > "$CACHE/apt/sources.list.d/debian.sources"
    else
        grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > "$CACHE/apt/sources.list.d/debian.list"
    fi
    # shellcheck disable=SC2086
    quietly apt-get $APT_OPTS -qq update
    apt_ready=1
}

# The source version the Linux build's -dev package came from, else empty (the newest).
linux_version() {
    dpkg-query -W -f='${source:Version}' "$1" 2>/dev/null || true
}

# fetch SOURCE DEVPKG: unpacks SOURCE's Debian source into $CACHE/src/SOURCE, echoes the folder.
fetch() {
    name=$1 want=$(linux_version "$2")
    dir="$CACHE/src/$name"
    if [ -f "$dir/.unpacked" ]; then
        cat "$dir/.unpacked"
        return 0
    fi
    apt_update
    rm -rf "$dir" && mkdir -p "$dir"
    # the Linux build's version first, then every version the archive lists, newest first
    # (a security update's .dsc may be listed yet answer 404)
    # shellcheck disable=SC2086
    listed=$(apt-cache $APT_OPTS showsrc "$name" 2>/dev/null | sed -n 's/^Version: //p' | sort -u \
        | sort -r -t: -k1,1 -V)
    got=
    for v in $want $listed; do
        rm -f "$dir"/*
        # shellcheck disable=SC2086
        if (cd "$dir" && apt-get $APT_OPTS -qq source --download-only "$name=$v" >/dev/null 2>&1); then
            got=$v
            break
        fi
    done
    if [ -z "$got" ]; then
        say "no version of the source package $name can be downloaded"
        exit 1
    fi
    [ "$got" = "$want" ] || say "$name ${want:-?} (the Linux build's) is not served: using $got"
    (cd "$dir" && quietly dpkg-source --no-check -x ./*.dsc tree)
    echo "$dir/tree" > "$dir/.unpacked"
    echo "$dir/tree"
}

# build NAME CMAKE_SOURCE_DIR [cmake options...]: static library into the prefix, once.
build() {
    name=$1 srcdir=$2
    shift 2
    [ -f "$PREFIX/.built-$name" ] && return 0
    say "building $name"
    bdir="$CACHE/build/$name"
    rm -rf "$bdir"
    quietly emcmake cmake -S "$srcdir" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
        -DCMAKE_C_FLAGS="-pthread -O2" -DBUILD_SHARED_LIBS=OFF -DCMAKE_PREFIX_PATH="$PREFIX" "$@"
    quietly cmake --build "$bdir" -j"$JOBS"
    quietly cmake --install "$bdir"
    touch "$PREFIX/.built-$name"
}

z=$(fetch zlib zlib1g-dev)
# zlib's CMake list always adds a shared library with a Windows resource the Debian tarball
# leaves out: its own configure script builds the static one alone.
if [ ! -f "$PREFIX/.built-zlib" ]; then
    say "building zlib"
    (cd "$z" && export CFLAGS="-pthread -O2" && quietly emconfigure ./configure --static --prefix="$PREFIX" \
        && quietly emmake make -j"$JOBS" libz.a && quietly emmake make install)
    touch "$PREFIX/.built-zlib"
fi

l=$(fetch lz4 liblz4-dev)
build lz4 "$l/build/cmake" -DLZ4_BUILD_CLI=OFF -DLZ4_BUILD_LEGACY_LZ4C=OFF -DBUILD_STATIC_LIBS=ON

p=$(fetch libpng1.6 libpng-dev)
build libpng "$p" -DPNG_SHARED=OFF -DPNG_STATIC=ON -DPNG_TESTS=OFF -DPNG_EXECUTABLES=OFF \
    -DZLIB_INCLUDE_DIR="$PREFIX/include" -DZLIB_LIBRARY="$PREFIX/lib/libz.a"

j=$(fetch libjpeg-turbo libjpeg62-turbo-dev)
# CMake's check_type_size misreads wasm objects (size_t came out as 9): the sizes are given. Only
# the static library is built (its command-line tools are of no use here), installed by hand.
if [ ! -f "$PREFIX/.built-libjpeg-turbo" ]; then
    say "building libjpeg-turbo"
    bdir="$CACHE/build/libjpeg-turbo"
    rm -rf "$bdir"
    quietly emcmake cmake -S "$j" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-pthread -O2" \
        -DENABLE_SHARED=OFF -DENABLE_STATIC=ON -DWITH_SIMD=OFF -DWITH_TURBOJPEG=OFF \
        -DSIZE_T=4 -DUNSIGNED_LONG=4
    quietly cmake --build "$bdir" -j"$JOBS" --target jpeg-static
    cp "$bdir/libjpeg.a" "$PREFIX/lib/"
    cp "$bdir/jconfig.h" "$j/jpeglib.h" "$j/jmorecfg.h" "$j/jerror.h" "$PREFIX/include/"
    touch "$PREFIX/.built-libjpeg-turbo"
fi

c=$(fetch cjson libcjson-dev)
build cjson "$c" -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF -DBUILD_SHARED_AND_STATIC_LIBS=OFF \
    -DENABLE_CUSTOM_COMPILER_FLAGS=OFF -DCMAKE_INSTALL_LIBDIR=lib

echo "$PREFIX"
