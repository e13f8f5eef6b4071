#!/usr/bin/env bash
# Build PnetCDF's test programs, in a cache outside the repo, for one of two hosts:
#
#   PNETCDF_HOST=mpich (default): PnetCDF itself and its tests, built from Debian's source package
#     against Debian's MPICH (Debian's binary libpnetcdf is built for Open MPI only). The build is
#     $EDONIO_CACHE/build/pnetcdf-<version>-mpich-<mpichversion>/.
#   PNETCDF_HOST=openmpi: the tests of the same source, built with Open MPI's wrappers and linked
#     to Debian's installed libpnetcdf.so (libpnetcdf-dev, Open MPI), not to the tree's library:
#     the tree is built only for what the tests need besides (test/common, the utilities the
#     scripts call, the generated headers, which must equal the installed ones byte for byte).
#     The build is $EDONIO_CACHE/build/pnetcdf-<version>-openmpi-<ompiversion>-debian-<pkgversion>/.
#
# Nothing of PnetCDF is ever copied into the repository; the source lives in $EDONIO_CACHE/src.
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

PNETCDF_HOST=${PNETCDF_HOST:-mpich}

# The wrappers by their explicit names: on a machine that has both MPIs, the plain mpicc/mpiexec
# alternatives may point at either.
case $PNETCDF_HOST in
    mpich)
        MPICC=mpicc.mpich MPICXX=mpicxx.mpich MPIF77=mpif77.mpich MPIF90=mpif90.mpich
        MPIEXEC=mpiexec.mpich
        ;;
    openmpi)
        MPICC=mpicc.openmpi MPICXX=mpicxx.openmpi MPIF77=mpif77.openmpi MPIF90=mpif90.openmpi
        MPIEXEC=mpirun.openmpi
        ;;
    *) printf 'pnetcdf-build: PNETCDF_HOST must be mpich or openmpi\n' >&2; exit 2 ;;
esac

log() { printf 'pnetcdf-build: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=../deps.sh
. "$(dirname "${BASH_SOURCE[0]}")/../deps.sh"



required_packages() {
    # dpkg-dev: apt-get source unpacks with dpkg-source. The autotools: Debian's source has
    # no generated configure script. mpich/libmpich-dev: the MPI we build against (or Open MPI
    # and Debian's PnetCDF for it).
    local pkgs=(dpkg-dev make autoconf automake libtool m4 gcc g++ mpich libmpich-dev)
    [[ $PNETCDF_HOST == openmpi ]] && pkgs=(dpkg-dev make autoconf automake libtool m4 gcc g++
                                           openmpi-bin libopenmpi-dev libpnetcdf-dev)
    [[ $PNETCDF_FORTRAN == 1 ]] && pkgs+=(gfortran)
    printf '%s\n' "${pkgs[@]}"
}

# What the build is for: "mpich-<version>", or "openmpi-<version>-debian-<libpnetcdf-dev's>".
host_version() {
    local v p
    if [[ $PNETCDF_HOST == mpich ]]; then
        v=$(mpichversion 2>/dev/null | awk '/MPICH Version:/ { print $3 }')
        [[ -n $v ]] || die "cannot determine the MPICH version (is the mpich package installed?)"
        printf 'mpich-%s\n' "$v"
        return
    fi
    v=$("$MPIEXEC" --version 2>/dev/null | awk 'NR == 1 { print $NF }')
    p=$(dpkg-query -W -f='${Version}' libpnetcdf-dev 2>/dev/null)
    [[ -n $v && -n $p ]] || die "cannot determine the Open MPI or libpnetcdf-dev version"
    [[ ${p%-*} == "$PNETCDF_UPSTREAM" ]] ||
        die "libpnetcdf-dev is $p: its tests need PNETCDF_VERSION=$p"
    printf 'openmpi-%s-debian-%s\n' "$v" "$p"
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
    if [[ $PNETCDF_HOST == mpich ]]; then
        printf 'pnetcdf %s\nmpich %s\n' "$PNETCDF_VERSION" "${1#mpich-}"
    else
        printf 'pnetcdf %s\nhost %s\nlinked to %s\n' "$PNETCDF_VERSION" "$1" \
            "$(readlink -f "$DEBIAN_LIB")"
    fi
    configure_args
}

DEBIAN_LIB=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/libpnetcdf.so

# PNETCDF_HOST=openmpi: the test programs link Debian's library instead of the tree's, and the
# headers they compile with must be the installed ones (the same version, configured the same).
link_to_debian() {
    local bdir=$1 f
    cmp -s src/include/pnetcdf.h /usr/include/pnetcdf.h ||
        die "the tree's pnetcdf.h differs from Debian's /usr/include/pnetcdf.h"
    if [[ $PNETCDF_FORTRAN == 1 ]]; then
        f=/usr/include/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/pnetcdf.inc
        cmp -s src/binding/f77/pnetcdf.inc "$f" ||
            die "the tree's pnetcdf.inc differs from Debian's $f"
    fi
    log "test programs link $DEBIAN_LIB"
    find test -name Makefile -print0 | xargs -0 sed -i \
        -e 's|[$][{(]top_builddir[})]/src/libs/libpnetcdf\.la|-lpnetcdf|g'
    grep -rl 'src/libs/libpnetcdf\.la' --include=Makefile test >"$bdir/still-linked.txt" &&
        die "test Makefiles still link the tree's library: $(tr '\n' ' ' <"$bdir/still-linked.txt")"
    return 0
}

build() {
    local src=$1 bdir=$2 hostv=$3 t0 args
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
    [[ $PNETCDF_HOST == mpich ]] || link_to_debian "$bdir"
    # 'tests' builds every test program without running it, so run.sh only runs them.
    log "make -j$MAKE_JOBS tests"
    make -j"$MAKE_JOBS" tests >"$bdir/make-tests.log" 2>&1 \
        || die "make tests failed, see $bdir/make-tests.log"
    log "built in $((SECONDS - t0)) s"
    [[ $PNETCDF_HOST == mpich ]] || check_linked "$bdir"
    stamp_text "$hostv" >"$bdir/.edonio-stamp"
}

# Every test program of an Open MPI build loads Debian's library and holds none of PnetCDF's code.
check_linked() {
    local bdir=$1 prog deps syms bad=0 n=0
    while IFS= read -r -d '' prog; do
        [[ $(head -c 4 "$prog" | tail -c 3) == ELF ]] || continue
        n=$((n + 1))
        # Whole outputs first: under pipefail, 'cmd | grep -q' fails when grep's early exit
        # leaves cmd a broken pipe (ldd of a Fortran program, 2026-11-29: a cold cache's build
        # called a well-linked program "not linked")
        deps=$(ldd "$prog" 2>&1) || deps=""
        syms=$(nm "$prog" 2>&1) || syms=""
        if [[ $deps != *libpnetcdf.so* ]] || grep -q ' T ncmpi_create$' <<<"$syms"; then
            log "not linked to Debian's library: $prog"
            bad=1
        fi
    done < <(find test -type f -perm -u+x ! -name '*.sh' ! -name '*.o' -print0)
    [[ $bad == 0 && $n -gt 0 ]] || die "test programs not linked to $DEBIAN_LIB ($n checked)"
    log "$n test programs load $(readlink -f "$DEBIAN_LIB")"
}

main() {
    local pkgs hostv src bdir
    mapfile -t pkgs < <(required_packages)
    ensure_packages "${pkgs[@]}"
    hostv=$(host_version)
    src=$EDONIO_CACHE/src/pnetcdf-$PNETCDF_VERSION
    bdir=$EDONIO_CACHE/build/pnetcdf-$PNETCDF_UPSTREAM-$hostv
    mkdir -p "$EDONIO_CACHE/build"
    # Serialize concurrent runs (two CI jobs, or build.sh called from run.sh and by hand).
    exec 9>"$EDONIO_CACHE/build/.pnetcdf.lock"
    flock 9
    if [[ -f $bdir/.edonio-stamp ]] && cmp -s "$bdir/.edonio-stamp" <(stamp_text "$hostv"); then
        log "up to date: $bdir"
    else
        fetch_source "$EDONIO_CACHE/src" "$src"
        build "$src" "$bdir" "$hostv"
    fi
    printf '%s\n' "$bdir/pnetcdf"
}

main "$@"
