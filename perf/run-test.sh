#!/usr/bin/env bash
# The benchmark suite keeps working: perf/run --quick (tiny sizes, every default case, ufs and
# edonio, the local disk and pfsemu, one node and 2 simulated nodes) must finish with no failed
# run, each case must have rows of both drivers with no data error in results.csv (or its own
# file: legacy.csv, scale.csv, micro.txt), and the plots must be drawn. No timing is judged: the
# figures of a --quick run on a shared machine mean nothing. This keeps the tools of perf/cases
# compiling and running, so that they work when a measurement needs them.
#
#   perf/run-test.sh --builddir DIR [--workdir DIR]
#
# Prints PASS/FAIL lines and "N passed, N failed"; exits 1 if anything failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../test/lib.sh
. "$here/../test/lib.sh"
mpi_test_setup "$@"

out="$work/out"
log="$work/perf-run.log"
rm -rf "$out" "$work/scratch"
mkdir -p "$work/scratch"
if "$here/run" --quick --builddir "$(dirname "$libdir")" --out "$out" --scratch "$work/scratch" \
    >"$log" 2>&1 && grep -q "; 0 failed runs$" "$log"; then
    pass "perf/quick run"
else
    fail "perf/quick run" "$(grep -E -m 3 'FAIL|failed|rror' "$log" | tr '\n' ' ' | cut -c1-240)"
fi

# Rows of case prefix $1 of both drivers, every one without errors (column 'errors').
has_rows() {
    python3 - "$out/results.csv" "$1" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["case"].startswith(sys.argv[2])]
drivers = {r["driver"] for r in rows}
bad = [r["case"] for r in rows if r["errors"] not in ("", "0")]
sys.exit(0 if {"ufs", "edonio"} <= drivers and not bad else 1)
PY
}

micro_done() {
    grep -q peers= "$out/micro.txt" && grep -q 'write open' "$out/micro.txt" &&
        has_rows percall- && has_rows first-open
}

fine_done() { has_rows shuffled && has_rows part-; }

# pnetcdf: rows of both drivers on one node and on 2 simulated nodes, none with errors, and
# edonio's reads counted on each edonio row (pnc_part reads edonio's counters at PnetCDF's close
# through MPI_File_close: a PnetCDF that closed another way would leave them at 0).
pnetcdf_done() {
    python3 - "$out/results.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["case"] == "pnetcdf"]
bad = [r for r in rows if r["errors"] not in ("", "0")]
for nodes in (False, True):
    rs = [r for r in rows if ("+" in r["fs"]) == nodes]
    if {r["driver"] for r in rs} != {"ufs", "edonio"}:
        sys.exit(1)
counted = all(int(r["edonio_fs_reads"] or 0) > 0 for r in rows if r["driver"] == "edonio")
sys.exit(0 if counted and not bad else 1)
PY
}

# Each default case of perf/run, by what it leaves: rows of results.csv, or a file of its own.
default=$(sed -n 's/^default_cases="\(.*\)"$/\1/p' "$here/run" | sed -n 1p)
[ -n "$default" ] || fail "perf/quick default cases" "no default_cases= line in $here/run"
for c in $default; do
    case $c in
        tables) check=(has_rows t5.) ;;
        ior) check=(has_rows ior-) ;;
        irregular) check=(has_rows ir-) ;;
        fine) check=(fine_done) ;;
        pnetcdf) check=(pnetcdf_done) ;;
        legacy) check=(test -s "$out/legacy.csv") ;;
        scale) check=(test -s "$out/scale.csv") ;;
        micro) check=(micro_done) ;;
        *) check=(has_rows "$c") ;;
    esac
    if [ -f "$out/results.csv" ] && "${check[@]}"; then
        pass "perf/quick case $c"
    else
        fail "perf/quick case $c" "no rows of both drivers without errors (see $log)$(
            grep -m1 -o "case $c SKIPPED: .*" "$log" | cut -c1-200 | sed 's/^/: /')"
    fi
done
for p in ratios.png fem_phases.png history.png; do
    if [ -s "$out/$p" ]; then pass "perf/quick plot $p"; else fail "perf/quick plot $p" "not drawn"; fi
done
summary
