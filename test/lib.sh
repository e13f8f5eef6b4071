# edonio test harness: shared by the test scripts (source it, do not run it).
#
# Each test prints one line: "PASS name", "FAIL name (reason)", "XFAIL name (reason)" or
# "SKIP name (reason)"; summary prints the closing "N passed, N failed" line that CI reads.

passed=0
failed=0
skipped=0
xfailed=0
# MPICC, MPIFORT, MPIEXEC: MPICH's wrappers and launcher by name (Open MPI's with
# EDONIO_MPI=openmpi), unless the caller set them.
# shellcheck source=SCRIPTDIR/../scripts/mpi-names.sh disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/mpi-names.sh"
# The tests speak MPICH's launcher (-env, MPIR_CVAR_NOLOCAL for simulated nodes); under Open MPI
# test/mpiexec-openmpi translates for its mpirun.
if [ "$EDONIO_MPI" = openmpi ] && [ "$(basename "$MPIEXEC")" != mpiexec-openmpi ]; then
    export OPENMPI_MPIRUN=$MPIEXEC
    MPIEXEC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/mpiexec-openmpi"
fi
# What the tests preload: the library, after the sanitizer runtime in the sanitizer run
# (EDONIO_SANITIZER_RUNTIME), which must come first.
edonio_preload() {
    echo "${EDONIO_SANITIZER_RUNTIME:+$EDONIO_SANITIZER_RUNTIME }$1"
}
: "${EDONIO_TEST_TIMEOUT:=300}"

pass() {
    passed=$((passed + 1))
    echo "PASS $1"
}

fail() {
    failed=$((failed + 1))
    echo "FAIL $1 ($2)"
}

skip() {
    skipped=$((skipped + 1))
    echo "SKIP $1 ($2)"
}

xfail() {
    xfailed=$((xfailed + 1))
    echo "XFAIL $1 ($2)"
}

# valgrind's memcheck as the suite runs it on edonio's code: any error, or a definite leak that is
# not the host MPI's own (test/valgrind.supp), fails the run.
# shellcheck disable=SC2034 # used by the scripts that source this file
# (Deep stacks: Open MPI's leaks pass through components it unloads, libmpi lies far down.)
memcheck=(valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite
    --num-callers=40
    --suppressions="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/valgrind.supp")

# memcheck_ready NAME: succeeds when memcheck can run here; else skips NAME, saying why.
memcheck_ready() {
    if ! command -v valgrind >/dev/null 2>&1; then
        skip "$1" "valgrind is not installed"
        return 1
    fi
    if [ -n "${EDONIO_SANITIZER_RUNTIME:-}" ]; then
        skip "$1" "not under the sanitizers"
        return 1
    fi
}

# The lines of a log that say what went wrong (else its first lines), on one line.
failure_lines() {
    { grep -E -m 3 'rror|Invalid|definitely|Found [0-9]|expected|Abort' "$1" ||
        grep -v '^\s*$' "$1" | head -n 3; } | tr '\n' ' ' | cut -c1-240
}

# run_mpi NAME LOG NP [ENV=VALUE ...] -- PROGRAM ARGS...
# Runs an MPI program under a time limit (RUN_TIMEOUT, else EDONIO_TEST_TIMEOUT), as the user
# of the as_user command prefix if that array is set; passes when it exits 0 and prints
# " No Errors". $mpi_rc is the run's exit status (124: killed by the time limit).
mpi_rc=0
run_mpi() {
    local name=$1 log=$2 np=$3 limit=${RUN_TIMEOUT:-$EDONIO_TEST_TIMEOUT}
    shift 3
    local envs=()
    while [ "$1" != "--" ]; do
        envs+=("$1")
        shift
    done
    shift
    mpi_rc=0
    env "${envs[@]}" timeout "$limit" ${as_user[@]+"${as_user[@]}"} "$MPIEXEC" -n "$np" "$@" \
        >"$log" 2>&1 || mpi_rc=$?
    if [ "$mpi_rc" -eq 0 ] && grep -q "No Errors" "$log"; then
        pass "$name"
    elif [ "$mpi_rc" -eq 124 ]; then
        fail "$name" "timed out after ${limit}s: $(failure_lines "$log"); log $log"
    else
        fail "$name" "$(failure_lines "$log"); log $log"
    fi
}

# run_mpi_abort NAME LOG NP PATTERN [ENV=VALUE ...] -- PROGRAM ARGS...
# Passes when the job fails (a plain form aborts it) and its standard error holds PATTERN (grep
# -E). Each rank's standard error goes straight to a file of its own: what the launcher forwards
# can be lost when the job is killed by MPI_Abort (seen once in ten runs).
run_mpi_abort() {
    local name=$1 log=$2 np=$3 pattern=$4 envs=()
    shift 4
    while [ "$1" != "--" ]; do
        envs+=("$1")
        shift
    done
    shift
    rm -f "$log".rank*
    # shellcheck disable=SC2016 # $PMI_RANK and $0 are the inner shell's
    if env "${envs[@]}" timeout 60 "$MPIEXEC" -n "$np" \
        sh -c 'exec "$0" "$@" 2>"'"$log"'.rank${PMI_RANK:-$OMPI_COMM_WORLD_RANK}"' "$@" \
        >"$log" 2>&1; then
        fail "$name" "exited 0; log $log"
    elif cat "$log".rank* >>"$log" 2>/dev/null; grep -q -E "$pattern" "$log" &&
        ! grep -q 'not aborted' "$log"; then
        pass "$name"
    else
        fail "$name" "no '$pattern': $(failure_lines "$log"); log $log"
    fi
}

# deep_dir DIR: makes and prints a directory under DIR whose absolute path has at least
# EDONIO_DEEP_PATH (default 600) characters, in parts of 92. The tests that take file names from
# Fortran keep their files there, beyond any fixed-length CHARACTER that could hold their names
# (80, 128, 256 and 512 were seen), whatever the checkout's own path.
deep_dir() {
    local dir i=0
    dir=$(realpath -m "$1")
    while [ ${#dir} -lt "${EDONIO_DEEP_PATH:-600}" ]; do
        i=$((i + 1))
        dir="$dir/deep-path-$i-$(printf '%080d' 0)"
    done
    mkdir -p "$dir"
    echo "$dir"
}

# mpi_test_setup --builddir DIR [--workdir DIR]: the arguments of the MPI test scripts.
# Sets lib (libedonio.so, absolute) and libdir (its directory), inc (edonio's include directory),
# work (default EDONIO_TEST_WORKDIR, else a new one), bin and data below it.
mpi_test_setup() {
    local builddir=""
    work=""
    while [ $# -gt 0 ]; do
        case $1 in
            --builddir) builddir=$2; shift 2 ;;
            --workdir) work=$2; shift 2 ;;
            *) echo "usage: $0 --builddir DIR [--workdir DIR]" >&2; exit 2 ;;
        esac
    done
    lib="$builddir/.libs/libedonio.so"
    [ -f "$lib" ] || { echo "no $lib: build edonio first" >&2; exit 2; }
    lib=$(realpath "$lib")
    libdir=$(dirname "$lib")
    inc=$(cd "$(dirname "${BASH_SOURCE[0]}")/../include" && pwd)
    work=${work:-${EDONIO_TEST_WORKDIR:-$(mktemp -d)}}
    mkdir -p "$work"
    work=$(realpath "$work")
    bin="$work/bin"
    data="$work/data"
    mkdir -p "$bin" "$data"
}

# Closing line; exit status 1 when anything failed.
summary() {
    if [ "$skipped" -gt 0 ] || [ "$xfailed" -gt 0 ]; then
        echo "$passed passed, $failed failed, $((skipped + xfailed)) skipped"
    else
        echo "$passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ]
}
