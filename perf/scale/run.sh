#!/usr/bin/env bash
# perf/scale: the cost of edonio's collective passes and atomic-mode handshakes for P = 16 ... 65,536
# simulated processes (perf/scale/scale.c runs the driver's planning code, ad_edonio_plan.c, for
# every process and counts the messages). Writes scale.csv, scale_detail.csv, scale.png and
# scale.txt (the table and issue 14's targets) into OUT. Takes seconds; no MPI run.
#
#   perf/scale/run.sh [--out DIR] [--max-p P]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=.
max_p=65536
while [ $# -gt 0 ]; do
    case $1 in
        --out) out=$2; shift 2 ;;
        --max-p) max_p=$2; shift 2 ;;
        *) echo "usage: $0 [--out DIR] [--max-p P]" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
"${CC:-cc}" -std=c11 -O2 -Wall -Wextra -I"$top/ad_edonio" -o "$bin/scale" "$here/scale.c" \
    "$top/ad_edonio/ad_edonio_plan.c"
"$bin/scale" --max-p "$max_p" --csv "$out/scale.csv" --detail "$out/scale_detail.csv"
/usr/bin/python3 "$here/report.py" "$out" | tee "$out/scale.txt"
exit "${PIPESTATUS[0]}"
