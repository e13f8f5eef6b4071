#!/usr/bin/env bash
# libedonio_irregular (include/edonio_irregular.h, doc/irregular.md: seed 002's irregular I/O
# through indirection arrays): its calls from MPI programs, under edonio (LD_PRELOAD and
# ROMIO_FSTYPE_FORCE=edonio:, as test/coll) and under ufs, at 1 to 4 ranks and on 2 simulated
# nodes. Every program checks its files against a model of its own (rank 0 reads them with
# POSIX after the close) and every element it reads.
#   t_ir_roundtrip  edonio_ir_write and edonio_ir_read of random indirection arrays (seeded:
#                   test_seed) of elements of 1, 8, 24 and 13 bytes at a displacement:
#                   duplicates across ranks and within a rank (the lowest rank's copy wins,
#                   within it the last), holes that keep the file's old bytes, ranks with no
#                   element (NULL indices and buffer); read back through another distribution;
#                   the statistics follow the chunk dealing (chunk c by rank c % P: at least its
#                   elements, at most its chunks' bytes, at most one operation per run);
#                   edonio_ir_chunk_size 64 and 1000 (many rounds) and the default (one chunk);
#                   P processes write (test_phase=write) and Q others read (test_phase=read)
#   t_ir_update     software caching over 3 loops: edonio_ir_schedule_update with 7/8 of each
#                   rank's elements kept, edonio_ir_switch: kept elements from memory, moved ones
#                   as their old rank changed them, fresh ones from the file; the file after each
#                   switch (released elements written, kept ones not) and after the last write;
#                   the switch's statistics: at least the released bytes written and the new
#                   bytes read, at most half of a full write and read all in all, each handler
#                   within its chunks; test_pattern=scattered (the elements let go spread over the
#                   whole array) and clustered (in one window, as a mesh repartition)
#   t_ir_zarray     edonio_ir_zwrite, edonio_ir_zread, edonio_ir_zinquire of zeros, a smooth
#                   double field (about 10:1), random bytes, an int32 ramp and 1-byte text: the
#                   file format (version 2) byte for byte (header, index, checksummed frames at
#                   multiples of the alignment, the level given, chunks shuffled and flagged
#                   where their elements have several bytes, unless edonio_ir_shuffle=false),
#                   holes as zeros, the duplicate rule, compression ratios, only the chunks asked
#                   for read; corrupt copies (a chunk's byte and its checksum, the index, cut in
#                   the index, in a chunk, in the header and to nothing, version 3, version 1
#                   (read where not shuffled), the magic, the chunk count, the element size) and
#                   schedules of another array: the documented class on every rank, the message
#                   naming the call and the cause; P writers and Q readers
#   t_ir_badinput   bad input to every call: the class on every rank alike, the message naming
#                   the call and the cause (MPI_Error_string and edonio_ir_error_string agree),
#                   nothing written; invalid info values fall back to the defaults
#   ir_mesh         examples/ir_mesh.c, the API page's example, at 4 ranks (1 node, 2 nodes)
#                   and 3 under ufs: it checks its files and arrays against a serial run (seen
#                   to fail with the switch left out: "FAILED, 179973 wrong")
# Over Open MPI (the openmpi group) three of them run on Open MPI's own MPI-IO too (OMPIO, no
# edonio library): the library calls the public MPI-IO API only.
# Each program takes KEY=VALUE arguments (hints for every open and info for every schedule, where
# the library takes its edonio_ir_* keys), test_OPTION=VALUE options of its own, and
# test_fs=edonio|ufs (every open checks which driver serves the file).
#
# What failed against the library of 681fe6a, fixed in cf49a86 (the checks stay):
#   irregular/update scattered ...: the switch read each chunk twice (a sieved write's read of
#                   the released elements' extent, then again for the new ones): "this rank read
#                   57544 bytes, expected 3632 to 32000"
#   irregular/badinput ...: edonio_ir_switch's read past the end of the file said
#                   "edonio_ir_read: ..."; edonio_ir_write on a read-only handle said "edonio_ir:
#                   a write of ... failed" (no call named); edonio_ir_zwrite there returned
#                   MPI_ERR_IO, not the MPI-IO call's MPI_ERR_READ_ONLY, and named no cause
#   irregular/zarray: the element size changed in the header was believed by zinquire (no
#                   check of the header itself; now a CRC-32 of it; with the CRC check taken
#                   out again: "edonio_ir_zinquire returned MPI_SUCCESS (0), expected
#                   MPI_ERR_IO")

# How each was seen to fail (a test must be able to fail), each against a scratch copy of
# irregular/ with one change, built by hand and put first by LD_LIBRARY_PATH (the programs'
# rpath is a RUNPATH), never the tree's:
#   t_ir_roundtrip  handlers that apply the received copies from the lowest rank up (the highest
#                   rank's copy wins): at 2 to 4 ranks "the file: byte 100 is 104, expected 136"
#                   and "edonio_ir_read: element 12 (global 3029) byte 0 is 34, expected 233" (at
#                   1 rank it passes: no duplicates across ranks); a handler that writes its
#                   runs' whole extent without reading it first (holes zeroed): "the file: 2024
#                   wrong bytes", "byte 130 is 0, expected 2", at 1 and 4 ranks; one file write
#                   per element: "992 file operations on this rank, expected 2 to 48"
#   t_ir_update     a switch that reads the new elements before it writes the released ones: at
#                   2 to 4 ranks "edonio_ir_switch's new buffer: element 883 (global 2755) byte 0
#                   is 230, expected 20" (moved elements; at 1 rank none move); one kept element
#                   in 100 not copied: "element 199 (global 5493) byte 0 is 238, expected 27";
#                   an update that releases the kept elements too: "this rank wrote 20960 bytes,
#                   expected 2184 to 3000", "expected at most half of a full write and read", "6254
#                   elements of the file wrong after the switch"
#   t_ir_zarray     chunk frames without checksums (ZSTD_c_checksumFlag 0): "chunk 0 at 4096
#                   (38495 bytes) is not one checksummed zstd frame of 65536 bytes"; a zread that
#                   ignores the checksums (ZSTD_d_forceIgnoreChecksum): "a byte flipped inside
#                   chunk 0: ... returned MPI_SUCCESS (0), expected MPI_ERR_IO", the checksum
#                   case too; level 3 always in the header: "level 3, expected 19"; the duplicate
#                   rule broken as above: "zeros, 3 writers: chunk 0: element 0 ... is 80,
#                   expected 0"; a zread that does not unshuffle a shuffled chunk: "zeros, 2
#                   readers: edonio_ir_zread: element 0 (global 21528) byte 0 is 94, expected 0"
#   t_ir_badinput   a negative count given MPI_ERR_COUNT: "returned MPI_ERR_COUNT (2), expected
#                   MPI_ERR_ARG"; the NULL schedule's message without the call: "the message does
#                   not name edonio_ir_write"; an agreement (ir_agree) that returns each rank's
#                   own outcome: the ranks part ways in the collectives, timed out
#   valgrind        the zarray program's own leak of the layout when a file failed its check
#                   ("136 bytes in 4 blocks are definitely lost ... check_format"), since fixed
#   every program   test_fs=edonio on a ufs run: "edonio does not serve"
#
#   test/irregular/run.sh --builddir DIR [--workdir DIR]
#
# Environment: IRREGULAR_TEST_FILTER (bash regex on test names: only those run), RUN_TIMEOUT
# (seconds per run, default 120 here) / EDONIO_TEST_TIMEOUT (lib.sh). The work dir (default:
# $EDONIO_TEST_WORKDIR, else a new temporary dir) gets the programs (bin/), their files (data/)
# and one log per run. About 70 s on 2 cores (MPICH; 45 s over Open MPI).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

mpi_test_setup "$@"
: "${RUN_TIMEOUT:=120}"
export RUN_TIMEOUT

programs="t_ir_roundtrip t_ir_update t_ir_zarray t_ir_badinput"

# The library beside libedonio.so in the build; the programs find it by their rpath.
build() {
    local cflags=(-std=c11 -O1 -g -Wall -Wextra -Werror -I"$inc") t
    local link=("-L$libdir" -ledonio_irregular "-Wl,-rpath,$libdir")
    if [ ! -f "$libdir/libedonio_irregular.so" ]; then
        fail "irregular/build" "no $libdir/libedonio_irregular.so: build libedonio_irregular first"
        summary
        exit 1
    fi
    for t in $programs; do
        if ! "$MPICC" "${cflags[@]}" -o "$bin/$t" "$here/$t.c" "${link[@]}" -lzstd -lz -lm \
            >"$work/build-$t.log" 2>&1; then
            fail "irregular/build $t" "$(failure_lines "$work/build-$t.log"); log $work/build-$t.log"
            summary
            exit 1
        fi
    done
}

edonio=(LD_PRELOAD="$(edonio_preload "$lib")" ROMIO_FSTYPE_FORCE=edonio:)
ufs=(LD_PRELOAD="$(edonio_preload "$lib")" ROMIO_FSTYPE_FORCE=ufs:)
# Two simulated nodes: MPICH splits the ranks into two cliques and uses its network path.
nodes=(MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_NOLOCAL=1)

# run NAME NP FS [ENV=VALUE ...] -- PROGRAM ARGS... (FS: edonio or ufs; the log is named after the
# test). Honours IRREGULAR_TEST_FILTER.
run() {
    local name=$1 np=$2 fs=$3 envs
    shift 3
    [[ -z ${IRREGULAR_TEST_FILTER:-} || $name =~ $IRREGULAR_TEST_FILTER ]] || return 0
    case $fs in
        edonio) envs=("${edonio[@]}") ;;
        ufs) envs=("${ufs[@]}") ;;
        *) envs=(EDONIO_TEST_FS="$fs") ;; # ompio: Open MPI's own MPI-IO, no edonio library
    esac
    while [ "$1" != "--" ]; do
        envs+=("$1")
        shift
    done
    shift
    local log
    log="$work/$(echo "${name#irregular/}" | tr -c 'A-Za-z0-9_=.-' '_').log"
    local t0=$SECONDS
    run_mpi "$name" "$log" "$np" "${envs[@]}" -- "$@" "test_fs=$fs"
    printf '%s\t%s\n' "$((SECONDS - t0))" "$name" >>"$work/times.tsv"
}

# pair NAME P FS_W Q FS_R PROGRAM FILE ARGS...: P processes write FILE's arrays under FS_W, then Q
# others read them under FS_R (test_phase=write, then test_phase=read test_writers=P).
pair() {
    local name=$1 p=$2 fsw=$3 q=$4 fsr=$5 prog=$6 file=$7
    shift 7
    run "$name: $p write" "$p" "$fsw" -- "$bin/$prog" "$file" test_phase=write "$@"
    run "$name: $q read" "$q" "$fsr" -- "$bin/$prog" "$file" test_phase=read test_writers="$p" "$@"
}

# 1. Round trips: element sizes 1, 8, 24, 13 at a displacement of 100 bytes.
test_roundtrip() {
    local np
    for np in 1 2 3 4; do
        run "irregular/roundtrip chunk=1000 np=$np" "$np" edonio -- "$bin/t_ir_roundtrip" \
            "$data/rt" edonio_ir_chunk_size=1000 test_seed=$((np + 10))
    done
    # many rounds: 2 to 16 elements a chunk
    run "irregular/roundtrip chunk=64 np=3" 3 edonio -- "$bin/t_ir_roundtrip" "$data/rt" \
        edonio_ir_chunk_size=64 test_n=1500 test_seed=3
    run "irregular/roundtrip chunk=64 ufs np=2" 2 ufs -- "$bin/t_ir_roundtrip" "$data/rt-ufs" \
        edonio_ir_chunk_size=64 test_n=1500 test_seed=4
    # the default chunk: the whole array one chunk, one handler
    run "irregular/roundtrip default-chunk disp=0 np=2" 2 edonio -- "$bin/t_ir_roundtrip" \
        "$data/rt" test_disp=0 test_n=20000 test_seed=5
    run "irregular/roundtrip chunk=1000 ufs np=4" 4 ufs -- "$bin/t_ir_roundtrip" "$data/rt-ufs" \
        edonio_ir_chunk_size=1000 test_seed=6
    run "irregular/roundtrip chunk=1000 2-nodes np=4" 4 edonio "${nodes[@]}" -- \
        "$bin/t_ir_roundtrip" "$data/rt-nodes" edonio_ir_chunk_size=1000 test_seed=7
    # P write, Q read, with other chunk sizes; 3 -> 1 written under edonio, read under ufs
    pair "irregular/roundtrip 4->3" 4 edonio 3 edonio t_ir_roundtrip "$data/rt-43" \
        edonio_ir_chunk_size=1000 test_seed=8
    pair "irregular/roundtrip 2->4 chunk=64" 2 edonio 4 edonio t_ir_roundtrip "$data/rt-24" \
        edonio_ir_chunk_size=64 test_n=1200 test_seed=9
    pair "irregular/roundtrip 3->1 edonio->ufs" 3 edonio 1 ufs t_ir_roundtrip "$data/rt-31" \
        test_seed=10
    pair "irregular/roundtrip 4->3 ufs" 4 ufs 3 ufs t_ir_roundtrip "$data/rt-43u" \
        edonio_ir_chunk_size=1000 test_seed=11
}

# 2. Software caching: 3 loops, 7/8 kept.
test_update() {
    local np
    for np in 1 2 3 4; do
        run "irregular/update clustered np=$np" "$np" edonio -- "$bin/t_ir_update" "$data/up" \
            edonio_ir_chunk_size=1000 test_pattern=clustered test_seed=$((np + 20))
    done
    for np in 2 4; do
        run "irregular/update scattered np=$np" "$np" edonio -- "$bin/t_ir_update" "$data/up" \
            edonio_ir_chunk_size=1000 test_pattern=scattered test_seed=$((np + 24))
    done
    run "irregular/update clustered esize=13 chunk=64 disp=5 np=3" 3 edonio -- \
        "$bin/t_ir_update" "$data/up" edonio_ir_chunk_size=64 test_esize=13 test_disp=5 \
        test_n=3000 test_pattern=clustered test_loops=4 test_seed=27
    run "irregular/update clustered ufs np=3" 3 ufs -- "$bin/t_ir_update" "$data/up-ufs" \
        edonio_ir_chunk_size=1000 test_pattern=clustered test_seed=28
    run "irregular/update clustered 2-nodes np=4" 4 edonio "${nodes[@]}" -- "$bin/t_ir_update" \
        "$data/up-nodes" edonio_ir_chunk_size=1000 test_pattern=clustered test_seed=29
}

# 3. Compressed arrays: 64 KiB chunks (8 of the 512 KiB arrays), the corrupt copies.
test_zarray() {
    local np
    for np in 1 2 3 4; do
        run "irregular/zarray np=$np" "$np" edonio -- "$bin/t_ir_zarray" "$data/za" \
            edonio_ir_chunk_size=65536 test_seed=$((np + 30))
    done
    run "irregular/zarray ufs np=2" 2 ufs -- "$bin/t_ir_zarray" "$data/za-ufs" \
        edonio_ir_chunk_size=65536 test_seed=35
    run "irregular/zarray 2-nodes np=4" 4 edonio "${nodes[@]}" -- "$bin/t_ir_zarray" \
        "$data/za-nodes" edonio_ir_chunk_size=65536 test_seed=36
    # other levels, alignment and displacement; small chunks (many rounds)
    run "irregular/zarray level=19 align=512 disp=4096 np=2" 2 edonio -- "$bin/t_ir_zarray" \
        "$data/za" edonio_ir_chunk_size=65536 edonio_ir_zstd_level=19 edonio_ir_align=512 \
        test_disp=4096 test_kinds=smooth,ramp test_seed=37
    run "irregular/zarray level=1 chunk=4000 disp=100 np=3" 3 edonio -- "$bin/t_ir_zarray" \
        "$data/za" edonio_ir_chunk_size=4000 edonio_ir_zstd_level=1 test_disp=100 \
        test_n=16384 test_seed=38
    # chunks not shuffled (the format's flag 0); a version 1 file of them reads
    run "irregular/zarray shuffle=false np=2" 2 edonio -- "$bin/t_ir_zarray" "$data/za" \
        edonio_ir_chunk_size=65536 edonio_ir_shuffle=false test_seed=42
    pair "irregular/zarray 4->3" 4 edonio 3 edonio t_ir_zarray "$data/za-43" \
        edonio_ir_chunk_size=65536 test_seed=39
    pair "irregular/zarray 2->4" 2 edonio 4 edonio t_ir_zarray "$data/za-24" \
        edonio_ir_chunk_size=65536 test_seed=40
    pair "irregular/zarray 3->1 edonio->ufs" 3 edonio 1 ufs t_ir_zarray "$data/za-31" \
        edonio_ir_chunk_size=32768 test_seed=41
}

# 4. Bad input.
test_badinput() {
    local np
    for np in 1 2 3 4; do
        run "irregular/badinput np=$np" "$np" edonio -- "$bin/t_ir_badinput" "$data/bi"
    done
    run "irregular/badinput ufs np=3" 3 ufs -- "$bin/t_ir_badinput" "$data/bi-ufs"
    run "irregular/badinput 2-nodes np=4" 4 edonio "${nodes[@]}" -- "$bin/t_ir_badinput" \
        "$data/bi-nodes"
}

# 5. valgrind's memcheck on the library's code: every program once, small, at 2 ranks (the
# compressed arrays' corrupt copies and the bad input take the error paths).
test_valgrind() {
    memcheck_ready "irregular/valgrind" || return 0
    run "irregular/valgrind roundtrip np=2" 2 edonio -- "${memcheck[@]}" "$bin/t_ir_roundtrip" \
        "$data/vg-rt" edonio_ir_chunk_size=64 test_n=800
    run "irregular/valgrind update np=2" 2 edonio -- "${memcheck[@]}" "$bin/t_ir_update" \
        "$data/vg-up" edonio_ir_chunk_size=1000 test_n=2000 test_pattern=clustered
    run "irregular/valgrind zarray np=2" 2 edonio -- "${memcheck[@]}" "$bin/t_ir_zarray" \
        "$data/vg-za" edonio_ir_chunk_size=16384 test_n=8192
    run "irregular/valgrind badinput np=2" 2 edonio -- "${memcheck[@]}" "$bin/t_ir_badinput" \
        "$data/vg-bi"
}

# 6. The API page's example (examples/ir_mesh.c): it checks itself against a serial run.
test_example() {
    local cflags=(-std=c11 -O1 -g -Wall -Wextra -Werror -I"$inc")
    if ! "$MPICC" "${cflags[@]}" -o "$bin/ir_mesh" "$here/../../examples/ir_mesh.c" \
        "-L$libdir" -ledonio_irregular "-Wl,-rpath,$libdir" >"$work/build-ir_mesh.log" 2>&1; then
        fail "irregular/example build" "$(failure_lines "$work/build-ir_mesh.log")"
        return
    fi
    local name np fs envs log
    for spec in "4 edonio" "3 ufs" "4 edonio 2-nodes"; do
        set -- $spec
        np=$1 fs=$2 name="irregular/example ir_mesh $fs${3:+ $3} np=$np"
        [[ -z ${IRREGULAR_TEST_FILTER:-} || $name =~ $IRREGULAR_TEST_FILTER ]] || continue
        if [ "$fs" = edonio ]; then envs=("${edonio[@]}"); else envs=("${ufs[@]}"); fi
        [ -n "${3:-}" ] && envs+=("${nodes[@]}")
        log="$work/example-$fs-$np${3:+-$3}.log"
        rm -f "$data/mesh-$np" "$data/mesh-$np.z"
        if env "${envs[@]}" timeout "${RUN_TIMEOUT:-$EDONIO_TEST_TIMEOUT}" "$MPIEXEC" -n "$np" \
            "$bin/ir_mesh" "$data/mesh-$np" >"$log" 2>&1 && grep -q "OK (0 wrong)" "$log"; then
            pass "$name"
        else
            fail "$name" "$(failure_lines "$log"); log $log"
        fi
    done
}

# 7. Over Open MPI, the library on Open MPI's own MPI-IO (OMPIO), without libedonio: it calls
# only the public MPI-IO API, so any driver serves it.
test_ompio() {
    [ "$EDONIO_MPI" = openmpi ] || return 0
    run "irregular/roundtrip ompio np=3" 3 ompio -- "$bin/t_ir_roundtrip" "$data/rt-ompio" \
        edonio_ir_chunk_size=1000 test_seed=61
    run "irregular/update clustered ompio np=4" 4 ompio -- "$bin/t_ir_update" \
        "$data/up-ompio" edonio_ir_chunk_size=1000 test_pattern=clustered test_seed=62
    run "irregular/zarray ompio np=2" 2 ompio -- "$bin/t_ir_zarray" "$data/za-ompio" \
        edonio_ir_chunk_size=16384 test_n=8192
}

build
test_roundtrip
test_update
test_zarray
test_badinput
test_valgrind
test_example
test_ompio
summary
