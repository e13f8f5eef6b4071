#!/usr/bin/env bash
# Install what building and testing edonio needs on Debian (and Debian-based) machines, and make
# `apt-get source` work (a fresh machine has no deb-src entries). Does nothing when all is there.
#
#   scripts/setup-deps.sh [--openmpi]     (as root, or with sudo available)
#
# --openmpi also installs Open MPI (to build and test edonio over it). Debian then points the
# plain mpicc, mpifort and mpiexec at Open MPI (its alternatives priority is higher); edonio's
# scripts name each MPI's own tools (scripts/mpi-names.sh), so nothing of theirs changes.
set -euo pipefail

packages=(
    build-essential autoconf automake libtool m4 pkg-config patch file   # the build
    dpkg-dev                                   # apt-get source: ROMIO and PnetCDF sources
    mpich libmpich-dev gfortran                # the host MPI, and Fortran for its tests
    libhdf5-mpich-dev                          # the HDF5 test
    valgrind                                   # memcheck of edonio's code
    fuse3 libfuse3-dev                         # perf/'s emulated parallel file system (pfsemu)
    python3-matplotlib                         # perf/'s plots (the perf test group draws them)
    libzstd-dev zlib1g-dev                     # libedonio_irregular's compressed arrays
)
openmpi_packages=(
    openmpi-bin libopenmpi-dev                 # Open MPI, the second host MPI (issue 42)
    libhdf5-openmpi-dev libpnetcdf-dev         # Debian's HDF5 and PnetCDF for it (its tests)
)

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "setup-deps: run as root: $*" >&2
        exit 1
    fi
}

missing_packages() {
    local p
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
    done
}

has_deb_src() {
    grep -qsE '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources ||
        grep -qsE '^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
}

# One deb-src entry for each of Debian's own deb entries, same mirrors and suites.
add_deb_src() {
    local f out=/etc/apt/sources.list.d/edonio-deb-src.sources
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && [ "$f" != "$out" ] && grep -qE '^URIs:.*debian\.org' "$f" || continue
        sed -e 's/^Types:.*$/Types: deb-src/' "$f"
        echo
    done | as_root tee "$out" >/dev/null
    if [ -f /etc/apt/sources.list ]; then
        sed -n 's/^deb \(.*debian\.org.*\)$/deb-src \1/p' /etc/apt/sources.list |
            as_root tee /etc/apt/sources.list.d/edonio-deb-src.list >/dev/null
    fi
}

main() {
    local missing need_update=no
    case "${1:-}" in
        --openmpi) packages+=("${openmpi_packages[@]}") ;;
        "") ;;
        *) echo "usage: $0 [--openmpi]" >&2; exit 2 ;;
    esac
    command -v apt-get >/dev/null 2>&1 || {
        echo "setup-deps: not a Debian system; install MPICH (mpicc), autotools, libtool and" \
            "gfortran yourself, and give configure --with-romio-source=DIR" >&2
        exit 1
    }
    if ! has_deb_src; then
        echo "setup-deps: adding deb-src entries so that 'apt-get source' works"
        add_deb_src
        need_update=yes
    fi
    missing=$(missing_packages | tr '\n' ' ')
    [ -n "$missing" ] && need_update=yes
    if [ $need_update = yes ]; then
        as_root apt-get update -qq
    fi
    if [ -n "$missing" ]; then
        echo "setup-deps: installing $missing"
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    fi
    echo "setup-deps: all build and test dependencies are installed"
}

main "$@"
