#!/usr/bin/env bash
# Correctness test of the fem benchmark (perf/fem/fem.c): builds it with the stock mpicc, runs it
# through edonio and ufs at 1, 2, 3 and 4 ranks on a small, unevenly divisible grid, and checks
# that every value read back verified, and that both drivers wrote the same bytes.
#
#   EDONIO_LIB=/path/to/libedonio.so perf/fem/run-test.sh
#
# Scratch goes to $EDONIO_TEST_WORKDIR (default: a new mktemp -d). Prints "PASS perf/fem np=N" or
# "FAIL perf/fem np=N (reason)" per run, then "N passed, N failed"; exits 1 if anything failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../test/lib.sh
. "$here/../../test/lib.sh"

: "${EDONIO_LIB:?set EDONIO_LIB to the libedonio.so to test}"
[ -f "$EDONIO_LIB" ] || { echo "EDONIO_LIB=$EDONIO_LIB: no such file" >&2; exit 2; }
work=${EDONIO_TEST_WORKDIR:-$(mktemp -d)}
mkdir -p "$work"

# 143 columns of 17 elements: no rank count divides them evenly, and 544-byte writes straddle any
# power-of-two block boundary.
nex=13 ney=11 nez=17
file_bytes=$((nex * ney * nez * 8 * 4))

# Extra options per rank count: the edonio hints with a cache far smaller than the file, and both
# ways of asking for a preload.
declare -A extra=(
    [1]=""
    [2]="-c 16k -b 4k"
    [3]="-p"
    [4]="-P -r 2"
)

# The reason a finished run failed, or nothing if it passed.
check_run() {
    local rc=$1 log=$2 data=$3 d
    if [ "$rc" -ne 0 ]; then
        echo "exit status $rc: $(failure_lines "$log")"
    elif ! grep -qx 'verify: OK' "$log"; then
        echo "no 'verify: OK': $(grep -m1 '^verify' "$log" || failure_lines "$log")"
    else
        for d in edonio ufs; do
            if [ "$(stat -c %s "$data/fem.$d.dat" 2>/dev/null)" != "$file_bytes" ]; then
                echo "fem.$d.dat is not $file_bytes bytes"
                return
            fi
        done
        cmp -s "$data/fem.edonio.dat" "$data/fem.ufs.dat" ||
            echo "edonio and ufs files differ: $(cmp "$data"/fem.{edonio,ufs}.dat 2>&1 | head -n 1)"
    fi
}

run_np() {
    local np=$1 name="perf/fem np=$1" log="$work/fem-$1.log" data="$work/data-$1" rc=0 reason
    mkdir -p "$data"
    rm -f "$data"/fem.*.dat
    # shellcheck disable=SC2086 # the extra options are meant to split
    env LD_PRELOAD="$(edonio_preload "$EDONIO_LIB")" timeout "$EDONIO_TEST_TIMEOUT" \
        "$MPIEXEC" -n "$np" "$work/fem" -x $nex -y $ney -z $nez -d "$data" -f edonio,ufs \
        ${extra[$np]} >"$log" 2>&1 || rc=$?
    reason=$(check_run "$rc" "$log" "$data")
    if [ -z "$reason" ]; then
        pass "$name"
    else
        fail "$name" "$reason; log $log"
    fi
}

if "$MPICC" -std=c11 -O2 -Wall -Wextra -Werror -o "$work/fem" "$here/fem.c" >"$work/build.log" 2>&1
then
    for np in 1 2 3 4; do
        run_np "$np"
    done
else
    fail "perf/fem build" "$(failure_lines "$work/build.log"); log $work/build.log"
fi
summary
