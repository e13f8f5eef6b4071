#!/usr/bin/env bash
# Functional test of pfsemu, the parallel-file-system emulator of perf/: builds it, mounts it
# over a scratch directory with a small latency, writes through it with dd and with a small
# MPI-IO program through ufs and edonio, and checks that the data reaches the backing directory
# unchanged (cmp), that reads through it return it unchanged, and that the counters count.
# No timing assertion. Skips (with the reason) when FUSE is not usable.
#
#   perf/pfsemu/run-test.sh --builddir DIR [--workdir DIR]
#
# Prints PASS/FAIL/SKIP lines and "N passed, N failed"; exits 1 if anything failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../test/lib.sh
. "$here/../../test/lib.sh"
mpi_test_setup "$@"

back="$work/pfsemu-backing"
mnt="$work/pfsemu-mnt"
emu_log="$work/pfsemu.log"
emu_pid=""

unmount() {
    if mountpoint -q "$mnt" 2>/dev/null; then
        fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null || true
    fi
    if [ -n "$emu_pid" ]; then
        wait "$emu_pid" 2>/dev/null || true
        emu_pid=""
    fi
}
trap unmount EXIT

# The value of counter KEY in the stats text $1.
counter() { sed -n "s/^$2=//p" <<<"$1"; }

why_no_fuse() {
    if [ ! -c /dev/fuse ]; then
        echo "no /dev/fuse"
    elif ! command -v fusermount3 >/dev/null; then
        echo "no fusermount3 (Debian package fuse3)"
    elif ! pkg-config --exists fuse3 2>/dev/null; then
        echo "no fuse3 development files (Debian package libfuse3-dev)"
    fi
}

reason=$(why_no_fuse)
if [ -n "$reason" ]; then
    skip "perf/pfsemu" "$reason"
    summary
    exit $?
fi

# shellcheck disable=SC2046 # pkg-config output is meant to split
if ! cc -std=c11 -O2 -Wall -Wextra -Werror -o "$bin/pfsemu" "$here/pfsemu.c" \
    $(pkg-config --cflags --libs fuse3) >"$work/pfsemu-build.log" 2>&1; then
    fail "perf/pfsemu build" "$(failure_lines "$work/pfsemu-build.log")"
    summary
    exit $?
fi
pass "perf/pfsemu build"

rm -rf "$back" "$mnt"
mkdir -p "$back" "$mnt"
"$bin/pfsemu" "$back" "$mnt" -f -o "latency_us=100,meta_us=100,stats=$work/pfsemu-final.txt" \
    >"$emu_log" 2>&1 &
emu_pid=$!
for _ in $(seq 50); do
    [ -e "$mnt/.pfsemu_stats" ] && break
    sleep 0.1
done
if [ ! -e "$mnt/.pfsemu_stats" ]; then
    if grep -qiE 'permission|not permitted|fuse: device not found' "$emu_log"; then
        skip "perf/pfsemu" "FUSE not usable here: $(failure_lines "$emu_log")"
    else
        fail "perf/pfsemu mount" "$(failure_lines "$emu_log"); log $emu_log"
    fi
    summary
    exit $?
fi
pass "perf/pfsemu mount"

# 1. dd: 3 MiB of random data in 64 KiB writes, and a short unaligned tail.
head -c $((3 * 1048576 + 1234)) /dev/urandom >"$work/ref.bin"
echo reset >"$mnt/.pfsemu_stats"
if dd if="$work/ref.bin" of="$mnt/dd.bin" bs=64k status=none 2>"$work/dd.log" &&
    cmp -s "$work/ref.bin" "$back/dd.bin" && cmp -s "$work/ref.bin" "$mnt/dd.bin"; then
    pass "perf/pfsemu dd data unchanged"
else
    fail "perf/pfsemu dd data unchanged" "$(cat "$work/dd.log") $(cmp "$work/ref.bin" "$back/dd.bin" 2>&1 | head -n1)"
fi
stats=$(cat "$mnt/.pfsemu_stats")
w=$(counter "$stats" write) wb=$(counter "$stats" write_bytes) r=$(counter "$stats" read)
cls=$(counter "$stats" write_64k_1m) un=$(counter "$stats" write_unaligned)
# 49 writes of 64 KiB (the last 1234 bytes are one unaligned write), and the cmp reads.
if [ "${w:-0}" -eq 49 ] && [ "${wb:-0}" -eq $((3 * 1048576 + 1234)) ] && [ "${cls:-0}" -eq 48 ] &&
    [ "${un:-0}" -eq 1 ] && [ "${r:-0}" -ge 1 ]; then
    pass "perf/pfsemu counters count (dd)"
else
    fail "perf/pfsemu counters count (dd)" "write=$w write_bytes=$wb write_64k_1m=$cls write_unaligned=$un read=$r; want 49, $((3 * 1048576 + 1234)), 48, 1, >=1"
fi
echo reset >"$mnt/.pfsemu_stats"
if [ "$(counter "$(cat "$mnt/.pfsemu_stats")" write)" = 0 ]; then
    pass "perf/pfsemu counters reset"
else
    fail "perf/pfsemu counters reset" "write not 0 after reset"
fi

# 2. MPI-IO through ufs and edonio: the IOR-like and strided cases of perf/cases/iobench.c
# verify what they read back; the files of both drivers must reach the backing store equal.
if "$MPICC" -std=c11 -O2 -Wall -Wextra -o "$bin/iobench" "$here/../cases/iobench.c" \
    >"$work/iobench-build.log" 2>&1; then
    # bytes each case writes on 2 ranks: 256 KiB each; strided in whole 1000-byte records
    declare -A want_bytes=([contig]=$((2 * 262144)) [strided]=$((2 * (262144 / 1000) * 1000)))
    for c in contig strided; do
        for d in ufs edonio; do
            name="perf/pfsemu mpi-io $c $d"
            echo reset >"$mnt/.pfsemu_stats"
            rc=0
            env LD_PRELOAD="$(edonio_preload "$lib")" timeout "$EDONIO_TEST_TIMEOUT" \
                "$MPIEXEC" -n 2 "$bin/iobench" -c "$c" -f "$d" -d "$mnt" -s 256k -t 64k -r 1000 \
                >"$work/$c-$d.log" 2>&1 || rc=$?
            stats=$(cat "$mnt/.pfsemu_stats")
            w=$(counter "$stats" write) wb=$(counter "$stats" write_bytes)
            if [ "$rc" -ne 0 ] || ! grep -q 'errors=0' "$work/$c-$d.log"; then
                fail "$name" "exit $rc: $(failure_lines "$work/$c-$d.log")"
            elif [ "${w:-0}" -lt 1 ] || [ "${wb:-0}" -lt "${want_bytes[$c]}" ]; then
                fail "$name" "emulator counted write=$w write_bytes=$wb, want >= 1 and >= ${want_bytes[$c]}"
            else
                pass "$name"
            fi
        done
        if cmp -s "$back/iobench.$c.ufs.dat" "$back/iobench.$c.edonio.dat"; then
            pass "perf/pfsemu mpi-io $c ufs and edonio files equal"
        else
            fail "perf/pfsemu mpi-io $c ufs and edonio files equal" \
                "$(cmp "$back/iobench.$c.ufs.dat" "$back/iobench.$c.edonio.dat" 2>&1 | head -n1)"
        fi
    done
else
    fail "perf/pfsemu iobench build" "$(failure_lines "$work/iobench-build.log")"
fi

unmount
if [ -s "$work/pfsemu-final.txt" ] && grep -q '^write=' "$work/pfsemu-final.txt"; then
    pass "perf/pfsemu unmount writes the stats file"
else
    fail "perf/pfsemu unmount writes the stats file" "no $work/pfsemu-final.txt after unmount"
fi
summary
