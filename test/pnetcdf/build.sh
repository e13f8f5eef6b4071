#!/usr/bin/env bash
# Build PnetCDF (and its test programs) against Debian's MPICH, in a cache outside the repo.
#
# Debian's binary libpnetcdf is linked against Open MPI, so it can't exercise our ROMIO driver:
# we build our own from Debian's source package. Nothing of PnetCDF is ever copied into the
# repository; the source lives in $EDONIO_CACHE/src and the build in
# $EDONIO_CACHE/build/pnetcdf-<version>-mpich-<mpichversion>/.
#
# Idempotent: a stamp file records a finished build with its configuration, so a second run
# with a warm cache returns at once. Prints the build directory as the last line of output.
#
# Environment:
#   EDONIO_CACHE      cache root (default: $HOME/.cache/edonio)
#   PNETCDF_VERSION   Debian source version to build (default: 1.12.3-1)
#   PNETCDF_FORTRAN   1 (default) builds the Fortran bindings and their tests; 0 skips them
#   MAKE_JOBS         parallel make jobs (default: number of cores)
set -euo pipefail

PNETCDF_VERSION=${PNETCDF_VERSION:-1.12.3-1}
PNETCDF_UPSTREAM=${PNETCDF_VERSION%-*}
PNETCDF_FORTRAN=${PNETCDF_FORTRAN:-1}
EDONIO_CACHE=${EDONIO_CACHE:-$HOME/.cache/edonio}
MAKE_JOBS=${MAKE_JOBS:-$(nproc)}

# Use MPICH's wrappers by their explicit names: on a machine that also has Open MPI, the plain
# mpicc/mpiexec alternatives may point at Open MPI.
MPICC=mpicc.mpich
MPICXX=mpicxx.mpich
MPIF77=mpif77.mpich
MPIF90=mpif90.mpich
MPIEXEC=mpiexec.mpich

log() { printf 'pnetcdf-build: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=../deps.sh
. "$(dirname "${BASH_SOURCE[0]}")/../deps.sh"



required_packages() {
    # dpkg-dev: apt-get source unpacks with dpkg-source. The autotools: Debian's source has
    # no generated configure script. mpich/libmpich-dev: the MPI we build against.
    local pkgs=(dpkg-dev make autoconf automake libtool m4 gcc g++ mpich libmpich-dev)
    [[ $PNETCDF_FORTRAN == 1 ]] && pkgs+=(gfortran)
    printf '%s\n' "${pkgs[@]}"
}

mpich_version() {
    local v
    v=$(mpichversion 2>/dev/null | awk '/MPICH Version:/ { print $3 }')
    [[ -n $v ]] || die "cannot determine the MPICH version (is the mpich package installed?)"
    printf '%s\n' "$v"
}

# Fetch and unpack Debian's source package (upstream tarball plus Debian's patches) once.
fetch_source() {
    local srcroot=$1 dir=$2 tmp
    [[ -f $dir/.edonio-fetched ]] && return 0
    mkdir -p "$srcroot"
    tmp=$(mktemp -d "$srcroot/.fetch.XXXXXX")
    log "fetching pnetcdf=$PNETCDF_VERSION with apt-get source"
    if ! (cd "$tmp" && apt-get source "pnetcdf=$PNETCDF_VERSION" >&2); then
        rm -rf "$tmp"
        die "apt-get source pnetcdf=$PNETCDF_VERSION failed. It needs a deb-src entry for" \
            "bookworm (e.g. /etc/apt/sources.list.d/debian-src.sources with 'Types: deb-src'," \
            "or a 'deb-src http://deb.debian.org/debian bookworm main' line), then" \
            "'apt-get update'."
    fi
    [[ -d $tmp/pnetcdf-$PNETCDF_UPSTREAM ]] || { rm -rf "$tmp"; die "unexpected source layout"; }
    rm -rf "$dir"
    mv "$tmp/pnetcdf-$PNETCDF_UPSTREAM" "$dir"
    rm -rf "$tmp"
    touch "$dir/.edonio-fetched"
}

configure_args() {
    # Static library (PnetCDF's default): the test programs are then plain executables linked
    # to the shared libmpich, which is what LD_PRELOAD=libedonio.so needs.
    # -O0 -g: builds in less than half the time of the default -O2 (what we test is the I/O
    # PnetCDF asks of MPI-IO, which doesn't depend on it) and gives full backtraces when a
    # test crashes inside our driver.
    local flags="-O0 -g"
    local args=(MPICC="$MPICC" MPICXX="$MPICXX" TESTMPIRUN="$MPIEXEC -n NP"
                CFLAGS="$flags" CXXFLAGS="$flags" --disable-shared --enable-cxx)
    if [[ $PNETCDF_FORTRAN == 1 ]]; then
        args+=(MPIF77="$MPIF77" MPIF90="$MPIF90" FFLAGS="$flags" FCFLAGS="$flags"
               --enable-fortran)
    else
        args+=(--disable-fortran)
    fi
    printf '%s\n' "${args[@]}"
}

# The stamp holds everything that decides what was built; any change forces a rebuild.
stamp_text() {
    printf 'pnetcdf %s\nmpich %s\n' "$PNETCDF_VERSION" "$1"
    configure_args
}

build() {
    local src=$1 bdir=$2 mpichv=$3 t0 args
    mapfile -t args < <(configure_args)
    rm -rf "$bdir"
    mkdir -p "$bdir"
    # A copy of the source, because autoreconf writes into the tree it runs in.
    cp -a "$src" "$bdir/pnetcdf"
    cd "$bdir/pnetcdf"
    t0=$SECONDS
    log "autoreconf"
    autoreconf -fi >"$bdir/autoreconf.log" 2>&1 || die "autoreconf failed, see $bdir/autoreconf.log"
    log "configure ${args[*]}"
    ./configure "${args[@]}" >"$bdir/configure.log" 2>&1 \
        || die "configure failed, see $bdir/configure.log and $bdir/pnetcdf/config.log"
    log "make -j$MAKE_JOBS (library and utilities)"
    make -j"$MAKE_JOBS" >"$bdir/make.log" 2>&1 || die "make failed, see $bdir/make.log"
    # 'tests' builds every test program without running it, so run.sh only runs them.
    log "make -j$MAKE_JOBS tests"
    make -j"$MAKE_JOBS" tests >"$bdir/make-tests.log" 2>&1 \
        || die "make tests failed, see $bdir/make-tests.log"
    log "built in $((SECONDS - t0)) s"
    stamp_text "$mpichv" >"$bdir/.edonio-stamp"
}

main() {
    local pkgs mpichv src bdir
    mapfile -t pkgs < <(required_packages)
    ensure_packages "${pkgs[@]}"
    mpichv=$(mpich_version)
    src=$EDONIO_CACHE/src/pnetcdf-$PNETCDF_VERSION
    bdir=$EDONIO_CACHE/build/pnetcdf-$PNETCDF_UPSTREAM-mpich-$mpichv
    mkdir -p "$EDONIO_CACHE/build"
    # Serialize concurrent runs (two CI jobs, or build.sh called from run.sh and by hand).
    exec 9>"$EDONIO_CACHE/build/.pnetcdf.lock"
    flock 9
    if [[ -f $bdir/.edonio-stamp ]] && cmp -s "$bdir/.edonio-stamp" <(stamp_text "$mpichv"); then
        log "up to date: $bdir"
    else
        fetch_source "$EDONIO_CACHE/src" "$src"
        build "$src" "$bdir" "$mpichv"
    fi
    printf '%s\n' "$bdir/pnetcdf"
}

main "$@"
