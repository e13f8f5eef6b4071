#!/usr/bin/env bash
# Build ROMIO, patched to know the edonio file system, as a static PIC archive that libedonio.so
# takes in whole. The build lives in a cache outside the work tree, keyed by everything that shapes
# it (ROMIO version, our patches, this script, the MPI compiler), so a second build is free.
#
# Usage: build-romio.sh --src ROMIO_SRC --cache DIR --patches DIR --cc MPICC
#                       [--host-mpi mpich|openmpi] [--print-dir]
#   --host-mpi       the MPI that MPICC builds for (default mpich). Over Open MPI every file of ROMIO
#                    is compiled with mpiio-glue/openmpi.h forced in (what that MPI lacks).
#   --print-dir      only print the build directory for these inputs, build nothing.
#   --print-version  only print the version of the ROMIO in --src.
# Prints the build directory on the last line of stdout.
set -euo pipefail

src=""
cache=""
patches=""
# configure passes its MPICC; by hand, MPICH's wrapper by name (plain mpicc may be Open MPI's).
cc=mpicc.mpich
host_mpi=mpich
host_cppflags=""
print_only=no
# The file systems ROMIO is built with: ufs is the baseline edonio is compared with, nfs and testfs
# come for free, edonio is ours (its sources are compiled by edonio's own build, see Makefile.am).
filesystems=ufs+nfs+testfs+edonio
configure_args=(FROM_MPICH=no --with-mpio-glue=external --with-file-system="$filesystems"
    --disable-shared --enable-static --with-pic)

die() {
    printf 'build-romio: %s\n' "$*" >&2
    exit 1
}

romio_version() {
    sed -n 's/^m4_define(\[MPICH_VERSION_m4\],\[\(.*\)\])dnl$/\1/p' "$src/version.m4"
}

# Everything that changes the result goes into the key.
build_key() {
    {
        romio_version
        cat "$0"
        cat "$patches"/*.patch
        "$cc" -show 2>/dev/null || true
        "$cc" --version 2>/dev/null | head -n 1
        echo "${configure_args[*]}" "${CFLAGS:-}"
        if [ "$host_mpi" = openmpi ]; then
            echo "$host_mpi"
            cat "$host_header"
        fi
    } | sha256sum | cut -c1-12
}

apply_patches() {
    local p
    for p in "$patches"/*.patch; do
        patch -s -p1 -d "$1" <"$p" || die "patch $p does not apply to $src"
    done
}

build() {
    local dest=$1 log="$1.log"
    rm -rf "$dest"
    mkdir -p "$(dirname "$dest")"
    cp -a "$src" "$dest"
    rm -f "$dest/.edonio-unpacked"
    apply_patches "$dest"
    printf 'build-romio: building ROMIO %s in %s (log: %s)\n' "$(romio_version)" "$dest" "$log" >&2
    (
        cd "$dest"
        ./autogen.sh
        ./configure CC="$cc" CFLAGS="${CFLAGS:--O2 -g}" "${configure_args[@]}"
        # The host's header goes into the compilation only: in configure's own checks it would
        # declare the functions they declare their way (AC_CHECK_FUNCS), and they would fail.
        make -j"$(nproc)" ${host_cppflags:+CPPFLAGS="$(sed -n 's/^CPPFLAGS = //p' Makefile) $host_cppflags"}
    ) >"$log" 2>&1 || {
        tail -n 30 "$log" >&2
        die "ROMIO build failed; see $log"
    }
    [ -f "$dest/.libs/libromio.a" ] || die "no libromio.a in $dest"
    touch "$dest/.edonio-built"
}

main() {
    local key dest
    while [ $# -gt 0 ]; do
        case $1 in
            --src) src=$2; shift 2 ;;
            --cache) cache=$2; shift 2 ;;
            --patches) patches=$2; shift 2 ;;
            --cc) cc=$2; shift 2 ;;
            --host-mpi) host_mpi=$2; shift 2 ;;
            --print-dir) print_only=yes; shift ;;
            --print-version) [ -f "$src/version.m4" ] || die "no ROMIO in $src"; romio_version; exit 0 ;;
            *) die "unknown argument $1" ;;
        esac
    done
    [ -f "$src/version.m4" ] || die "--src $src is not a ROMIO source directory"
    [ -d "$patches" ] || die "--patches $patches is not a directory"
    case $host_mpi in
        mpich) ;;
        openmpi)
            host_header="$(cd "$(dirname "$0")/.." && pwd)/mpiio-glue/openmpi.h"
            [ -f "$host_header" ] || die "no $host_header"
            host_cppflags="-include $host_header"
            ;;
        *) die "--host-mpi $host_mpi: say mpich or openmpi" ;;
    esac
    key=$(build_key)
    dest="$cache/build/romio-$(romio_version)-$key"
    if [ $print_only = no ] && [ ! -f "$dest/.edonio-built" ]; then
        build "$dest"
    fi
    echo "$dest"
}

main "$@"
