#!/usr/bin/env bash
# edonio unit test: adio/fetch-romio.sh finds ROMIO in an MPICH tree, in its src/mpi/romio, and in
# an MPICH tarball, and refuses a directory that is neither, saying why.
#
#   test/unit/fetch.sh ROMIO_SRCDIR      (any ROMIO source, e.g. configure's)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
fetch="$here/../../adio/fetch-romio.sh"
romio=${1:?usage: fetch.sh ROMIO_SRCDIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# An MPICH-shaped tree and tarball around the given ROMIO (links and a small tarball of the
# files fetch-romio.sh looks at).
mkdir -p "$work/mpich-9.9.9/src/mpi/romio"
cp "$romio/configure.ac" "$romio/version.m4" "$work/mpich-9.9.9/src/mpi/romio/"
mkdir -p "$work/mpich-9.9.9/src/mpi/romio/adio/common" "$work/mpich-9.9.9/src/mpi/romio/mpi-io"
tar czf "$work/mpich-9.9.9.tar.gz" -C "$work" mpich-9.9.9

check() {
    local name=$1 want=$2
    shift 2
    local got
    if got=$("$fetch" --cache "$work/cache" "$@" 2>"$work/err" | tail -n 1) &&
        [ -f "$got/version.m4" ] && [[ $got == *"$want" ]]; then
        pass "fetch/$name"
    else
        fail "fetch/$name" "got '$got': $(head -c 200 "$work/err")"
    fi
}

check mpich-tree /mpich-9.9.9/src/mpi/romio --romio-source "$work/mpich-9.9.9"
check romio-dir /mpich-9.9.9/src/mpi/romio --romio-source "$work/mpich-9.9.9/src/mpi/romio"
check tarball /src/mpich-9.9.9/romio --mpich-tarball "$work/mpich-9.9.9.tar.gz"
check tarball-again /src/mpich-9.9.9/romio --mpich-tarball "$work/mpich-9.9.9.tar.gz"
if "$fetch" --cache "$work/cache" --romio-source "$work" >/dev/null 2>"$work/err" ||
    ! grep -q "neither an MPICH source tree" "$work/err"; then
    fail "fetch/not-romio" "a directory without ROMIO was accepted, or without saying why"
else
    pass "fetch/not-romio"
fi
summary
