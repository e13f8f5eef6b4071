#!/usr/bin/env bash
# Locate or fetch the ROMIO source that edonio builds against, and print its directory.
#
# ROMIO is a dependency, never part of this repository: it comes from an MPICH source tree the user
# names, from an MPICH release tarball, or, on Debian, from the source package of the installed MPICH
# (apt-get source), unpacked into a cache outside the work tree and keyed by version.
#
# Usage: fetch-romio.sh --cache DIR [--romio-source DIR | --mpich-tarball FILE]
# Prints the ROMIO directory (the one holding ROMIO's configure.ac) on the last line of stdout.
set -euo pipefail

cache=""
romio_source=""
tarball=""

die() {
    printf 'fetch-romio: %s\n' "$*" >&2
    exit 1
}

note() {
    printf 'fetch-romio: %s\n' "$*" >&2
}

is_romio_dir() {
    [ -f "$1/configure.ac" ] && [ -d "$1/adio/common" ] && [ -d "$1/mpi-io" ]
}

# An MPICH tree or its src/mpi/romio, as given by the user.
from_source_dir() {
    local dir=$1
    if is_romio_dir "$dir/src/mpi/romio"; then
        (cd "$dir/src/mpi/romio" && pwd)
    elif is_romio_dir "$dir"; then
        (cd "$dir" && pwd)
    else
        die "$dir is neither an MPICH source tree nor its src/mpi/romio"
    fi
}

# An MPICH release tarball: only src/mpi/romio is unpacked, once per tarball name.
from_tarball() {
    local file=$1 name dest tmp top
    [ -f "$file" ] || die "no such tarball: $file"
    name=$(basename "$file")
    name=${name%.tar.*}
    dest="$cache/src/$name/romio"
    if [ -f "$dest/.edonio-unpacked" ]; then
        echo "$dest"
        return
    fi
    tmp=$(mktemp -d "$cache/src/.unpack.XXXXXX")
    note "unpacking ROMIO from $file"
    # head stops reading early, so tar may die of SIGPIPE: not an error here.
    top=$(tar tf "$file" 2>/dev/null | head -n 1 | cut -d/ -f1 || true)
    [ -n "$top" ] || die "$file is not a tar archive"
    tar xf "$file" -C "$tmp" "$top/src/mpi/romio" || die "$file has no $top/src/mpi/romio"
    rm -rf "$cache/src/$name"
    mkdir -p "$cache/src/$name"
    mv "$tmp/$top/src/mpi/romio" "$dest"
    rm -rf "$tmp"
    touch "$dest/.edonio-unpacked"
    echo "$dest"
}

# Debian: the source package of the installed libmpich-dev, the same version the library runs over.
from_debian() {
    local srcver dest tmp top
    command -v dpkg-query >/dev/null 2>&1 || return 1
    srcver=$(dpkg-query -W -f='${source:Version}' libmpich-dev 2>/dev/null) || return 1
    [ -n "$srcver" ] || return 1
    dest="$cache/src/mpich_$srcver/romio"
    if [ -f "$dest/.edonio-unpacked" ]; then
        echo "$dest"
        return 0
    fi
    command -v dpkg-source >/dev/null 2>&1 || {
        note "dpkg-source is missing: apt-get install dpkg-dev"
        return 1
    }
    tmp=$(mktemp -d "$cache/src/.apt.XXXXXX")
    note "fetching the source of mpich $srcver with apt-get source"
    if ! (cd "$tmp" && apt-get source -qq "mpich=$srcver" >&2); then
        rm -rf "$tmp"
        note "apt-get source mpich=$srcver failed: is there a deb-src entry (scripts/setup-deps.sh adds one)?"
        return 1
    fi
    top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'mpich-*' | head -n 1)
    is_romio_dir "$top/src/mpi/romio" || {
        rm -rf "$tmp"
        return 1
    }
    rm -rf "$cache/src/mpich_$srcver"
    mkdir -p "$cache/src/mpich_$srcver"
    mv "$top/src/mpi/romio" "$dest"
    rm -rf "$tmp"
    touch "$dest/.edonio-unpacked"
    echo "$dest"
}

main() {
    while [ $# -gt 0 ]; do
        case $1 in
            --cache) cache=$2; shift 2 ;;
            --romio-source) romio_source=$2; shift 2 ;;
            --mpich-tarball) tarball=$2; shift 2 ;;
            *) die "unknown argument $1" ;;
        esac
    done
    [ -n "$cache" ] || die "--cache DIR is required"
    mkdir -p "$cache/src"
    if [ -n "$romio_source" ]; then
        from_source_dir "$romio_source"
    elif [ -n "$tarball" ]; then
        from_tarball "$tarball"
    elif ! from_debian; then
        die "no ROMIO source. Give --with-romio-source=DIR (an MPICH source tree) or
  --with-mpich-tarball=FILE (an MPICH release tarball of the MPICH you run), or on Debian run
  scripts/setup-deps.sh (it adds a deb-src entry and installs dpkg-dev) so that
  'apt-get source mpich' works."
    fi
}

main "$@"
