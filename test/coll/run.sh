#!/usr/bin/env bash
# edonio's collective I/O and atomic-mode tests (issue 4): unmodified MPI programs (built with the
# stock mpicc, edonio preloaded, every file forced to edonio; ufs beside it as the reference),
# written against the MPI semantics: they ran against ROMIO's generic two-phase and fcntl-lock
# atomic mode (the driver before issue 4) and test edonio's collective I/O through the block
# owners and its atomicity methods now.
#   t_overlap       seed 003's column-wise overlapping collective write in atomic mode (figure 4:
#                   subarray view, set_atomicity(1), write_all) and the row-wise variant; the
#                   checker (rank 0, POSIX reads after close): every overlapped region is entirely
#                   one writer's, for rank_order the higher rank's; 2, 3, 4, 8 ranks, every
#                   romio_edonio_atomicity method and ufs; a strided memory buffer; iwrite_all
#                   and write_at_all; non-atomic mode with disjoint views
#   t_indep_atomic  independent write_at / read_at in atomic mode over 5 blocks of 4 KiB that
#                   overlap partially: no read and no final region is a mix of two writes
#   atomicity       ROMIO's own test/atomicity.c (built from ROMIO_BUILDDIR/test, not copied)
#   t_plans         repeated collective calls reuse their plans (issue 43 A): counters, what
#                   drops the plans, the file byte for byte ufs's
#   t_views         collective writes and reads through subarray (2-D, 3-D), darray (block,
#                   cyclic), indexed/hindexed, vector views, count 0 and empty views, overlapping
#                   read views, etype MPI_INT with a displacement, iwrite_all/iread_all,
#                   write_at_all/read_at_all, a read past the end of the file; checked byte for
#                   byte against contents the program computes, through MPI (collective and
#                   independent, cached and after reopen) and through POSIX, with the status
#                   counts and the individual file pointer; split collectives, count 0 on every
#                   rank; in atomic mode with every method; also many rounds (cb_buffer_size=
#                   65536, 2 MiB per rank), a sparse file (0 and 3 GiB), romio_edonio_flush_groups
#                   and the get_info values of romio_edonio_flush_groups and
#                   romio_edonio_atomicity
# Each program takes KEY=VALUE hints after its file name, test_OPTION=VALUE options of its own
# and expect:KEY=VALUE (get_info must report it); test_fs=edonio|ufs makes every open check which
# driver serves the file.
#
# With the driver before issue 4 (ROMIO's generic two-phase, fcntl-lock atomicity) these failed,
# as they must: coll/hints ... (romio_edonio_flush_groups and romio_edonio_atomicity missing from
# MPI_File_get_info) and coll/views sparse no-presize (ROMIO's two-phase read-modify-write, on ufs
# too, writes garbage into a hole past the end of the file; writing only the given bytes into the
# owners' caches does not). With the owner-aware collective these pass; what fails is
#   coll/views eof ... (edonio): a collective read that ends past the end of the file reports
#                   the whole request in its status (1000 bytes where the file holds 500), as
#                   ROMIO's two-phase does (its comment calls that temporary); ROMIO's independent
#                   path and edonio's independent reads report what was read, as MPI says.
#
# How each was seen to fail (a test must be able to fail):
#   t_overlap       a driver whose odd-ranked owners apply the received pieces in reverse order
#                   (a scratch copy of ad_edonio_coll.c's round_do): "overlap of ranks 2 and 3
#                   ... is torn: 1024 bytes of rank 2, 1024 of rank 3" at 2, 4, 8 ranks, both
#                   layouts; romio_edonio_atomicity=graph_coloring (or locking) with
#                   test_expect=highest: "holds rank 1's bytes, expected the higher rank's"; on
#                   ufs test_atomic=0 romio_cb_write=disable romio_ds_write=disable: torn at 4 and
#                   8 ranks (the old driver too)
#   t_indep_atomic  test_atomic=0 test_iters=1000 on ufs at 2 ranks (and on the old driver at 2
#                   and 4): torn reads (edonio's independent writes now never tear, even then)
#   t_views         a driver that misplaces the second copy of a noncontiguous memory type (the
#                   same scratch copy, ADIOI_EDONIO_Mem_copy): vector_mem "2366 of 4800 data bytes
#                   wrong"; test_presize=0 on ufs: "file byte 3221225472 (never written) is 59";
#                   test_min_rounds=32 without cb_buffer_size=65536: "took 1 rounds"; the get_info
#                   checks on the old driver (above)
#   atomicity       ATOMICITY_ENV=ROMIO_FSTYPE_FORCE=ufs: "edonio not used" (EDONIO_STATS);
#                   RUN_TIMEOUT=1: timed out
#   every program   test_fs=edonio on a ufs run: "edonio does not serve"
#
#   test/coll/run.sh --builddir DIR [--workdir DIR]
#
# Environment: ROMIO_BUILDDIR (configured ROMIO tree, for test/atomicity.c, else ROMIO_SRCDIR's;
# unset: that test is skipped), COLL_TEST_FILTER (bash regex on test names: only those run),
# RUN_TIMEOUT / EDONIO_TEST_TIMEOUT (seconds per run, lib.sh).
# The work dir (default: $EDONIO_TEST_WORKDIR, else a new temporary dir) gets the programs (bin/),
# their files (data/) and one log per run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

mpi_test_setup "$@"

programs="t_overlap t_indep_atomic t_views t_plans"

build() {
    local cflags=(-std=c11 -O1 -g -Wall -Wextra -Werror) t
    for t in $programs; do
        "$MPICC" "${cflags[@]}" -o "$bin/$t" "$here/$t.c"
    done
}

edonio=(LD_PRELOAD="$(edonio_preload "$lib")" ROMIO_FSTYPE_FORCE=edonio:)
ufs=(LD_PRELOAD="$(edonio_preload "$lib")" ROMIO_FSTYPE_FORCE=ufs:)
# Two simulated nodes: MPICH splits the ranks into two cliques and uses its network path.
nodes=(MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_NOLOCAL=1)
methods="rank_order graph_coloring locking"

# run NAME NP FS [ENV=VALUE ...] -- PROGRAM ARGS... (FS: edonio or ufs; the log is named after the
# test). Honours COLL_TEST_FILTER.
run() {
    local name=$1 np=$2 fs=$3 envs
    shift 3
    [[ -z ${COLL_TEST_FILTER:-} || $name =~ $COLL_TEST_FILTER ]] || return 0
    if [ "$fs" = edonio ]; then envs=("${edonio[@]}"); else envs=("${ufs[@]}"); fi
    while [ "$1" != "--" ]; do
        envs+=("$1")
        shift
    done
    shift
    local log
    log="$work/$(echo "${name#coll/}" | tr -c 'A-Za-z0-9_=.-' '_').log"
    local t0=$SECONDS
    run_mpi "$name" "$log" "$np" "${envs[@]}" -- "$@" "test_fs=$fs"
    printf '%s\t%s\n' "$((SECONDS - t0))" "$name" >>"$work/times.tsv"
}

# 1. Seed 003: the overlapping column-wise (row-wise) write in atomic mode. 256 x 1024 bytes,
# 8 columns (rows) of overlap, two files one after the other per run. rank_order must leave the
# higher rank's bytes; the other methods and ROMIO's atomic mode one rank's (on ufs ROMIO's
# two-phase happens to keep the higher rank's too: not required).
test_overlap() {
    local layout np m
    for layout in col row; do
        for np in 2 3 4 8; do
            # 8 ranks on 2 cores: one file per run instead of two.
            local iters=2
            [ "$np" -eq 8 ] && iters=1
            for m in $methods; do
                local expect=any
                [ "$m" = rank_order ] && expect=highest
                run "coll/overlap $layout $m np=$np" "$np" edonio -- "$bin/t_overlap" \
                    "$data/overlap" romio_edonio_atomicity="$m" test_layout=$layout \
                    test_expect=$expect test_iters=$iters
            done
            run "coll/overlap $layout ufs-atomic np=$np" "$np" ufs -- "$bin/t_overlap" \
                "$data/overlap" test_layout=$layout test_iters=$iters
        done
    done
    # A memory buffer with a gap after every row piece (memory-side flattening).
    for m in $methods; do
        local expect=any
        [ "$m" = rank_order ] && expect=highest
        run "coll/overlap col strided-memory $m np=4" 4 edonio -- "$bin/t_overlap" \
            "$data/overlap" romio_edonio_atomicity="$m" test_mem=strided test_expect=$expect
    done
    run "coll/overlap row strided-memory rank_order np=3" 3 edonio -- "$bin/t_overlap" \
        "$data/overlap" test_layout=row test_mem=strided test_expect=highest
    run "coll/overlap col strided-memory ufs-atomic np=4" 4 ufs -- "$bin/t_overlap" \
        "$data/overlap" test_mem=strided
    # The other collective write calls in atomic mode: MPI_File_iwrite_all (at 8 ranks too) and
    # MPI_File_write_at_all. Not on ufs: ROMIO's nonblocking collective write (stock MPICH's as
    # well) tears overlaps in atomic mode, about one run in two at 8 ranks.
    for m in $methods; do
        local expect=any
        [ "$m" = rank_order ] && expect=highest
        run "coll/overlap col iwrite_all $m np=8" 8 edonio -- "$bin/t_overlap" \
            "$data/overlap" romio_edonio_atomicity="$m" test_api=nb test_expect=$expect \
            test_iters=1
    done
    run "coll/overlap row iwrite_all rank_order np=3" 3 edonio -- "$bin/t_overlap" \
        "$data/overlap" test_api=nb test_layout=row test_expect=highest
    run "coll/overlap col write_at_all graph_coloring np=4" 4 edonio -- "$bin/t_overlap" \
        "$data/overlap" test_api=at romio_edonio_atomicity=graph_coloring
    run "coll/overlap col write_at_all ufs-atomic np=4" 4 ufs -- "$bin/t_overlap" \
        "$data/overlap" test_api=at
    # 4. Non-atomic mode, disjoint views: every byte its writer's.
    for layout in col row; do
        run "coll/disjoint $layout non-atomic np=4" 4 edonio -- "$bin/t_overlap" \
            "$data/disjoint" test_atomic=0 test_overlap=0 test_layout=$layout
        run "coll/disjoint $layout non-atomic ufs np=4" 4 ufs -- "$bin/t_overlap" \
            "$data/disjoint" test_atomic=0 test_overlap=0 test_layout=$layout
    done
    run "coll/disjoint col non-atomic strided-memory np=3" 3 edonio -- "$bin/t_overlap" \
        "$data/disjoint" test_atomic=0 test_overlap=0 test_mem=strided
    # 6. Two simulated nodes.
    run "coll/overlap col rank_order 2-nodes np=4" 4 edonio "${nodes[@]}" -- \
        "$bin/t_overlap" "$data/overlap-nodes" test_expect=highest
    run "coll/overlap row graph_coloring 2-nodes np=4" 4 edonio "${nodes[@]}" -- \
        "$bin/t_overlap" "$data/overlap-nodes" romio_edonio_atomicity=graph_coloring \
        test_layout=row
    # Across nodes the owners write through: the colours' pieces merge before one write-back.
    run "coll/overlap col graph_coloring 2-nodes np=8" 8 edonio "${nodes[@]}" -- \
        "$bin/t_overlap" "$data/overlap-nodes" romio_edonio_atomicity=graph_coloring
    run "coll/overlap col locking 2-nodes np=4" 4 edonio "${nodes[@]}" -- \
        "$bin/t_overlap" "$data/overlap-nodes" romio_edonio_atomicity=locking
}

# 2. Independent writes and reads in atomic mode (across nodes atomic mode caches nothing: the
# file, under ROMIO's byte-range locks). Also with collective reads racing the independent atomic
# writes (test_coll_read=1): seen to fail (1 torn read in 50 in one run of 3, none in 6 runs of
# 200 with the fix) when a collective read's processes read their pieces without first waiting
# for every process to be in the call.
test_indep_atomic() {
    local np
    for np in 1 2 4 8; do
        run "coll/indep_atomic np=$np" "$np" edonio -- "$bin/t_indep_atomic" "$data/indep"
    done
    run "coll/indep_atomic ufs np=4" 4 ufs -- "$bin/t_indep_atomic" "$data/indep"
    run "coll/indep_atomic 2-nodes np=4" 4 edonio "${nodes[@]}" -- "$bin/t_indep_atomic" \
        "$data/indep-nodes"
    run "coll/indep_atomic coll_read np=4" 4 edonio -- "$bin/t_indep_atomic" "$data/indep" \
        test_coll_read=1 test_iters=200
    run "coll/indep_atomic coll_read 2-nodes np=4" 4 edonio "${nodes[@]}" -- \
        "$bin/t_indep_atomic" "$data/indep-nodes" test_coll_read=1
}

# 3. ROMIO's atomicity test, compiled from the configured ROMIO tree (never copied here). The
# library's statistics line (EDONIO_STATS) shows that edonio served the file.
test_romio_atomicity() {
    local np name stats src=${ROMIO_BUILDDIR:-}/test/atomicity.c
    if [ -z "${ROMIO_BUILDDIR:-}" ]; then
        skip "coll/romio-atomicity" "ROMIO_BUILDDIR is not set (test/run-all.sh sets it)"
        return
    fi
    [ -f "$src" ] || [ -z "${ROMIO_SRCDIR:-}" ] || src=$ROMIO_SRCDIR/test/atomicity.c
    if [ ! -f "$src" ]; then
        skip "coll/romio-atomicity" "no test/atomicity.c in ROMIO_BUILDDIR (or ROMIO_SRCDIR)"
        return
    fi
    if ! "$MPICC" -g -O2 -o "$bin/atomicity" "$src" >"$work/atomicity-build.log" 2>&1; then
        fail "coll/romio-atomicity" "build: $(failure_lines "$work/atomicity-build.log")"
        return
    fi
    for np in 4 8; do
        name="coll/romio-atomicity np=$np"
        [[ -z ${COLL_TEST_FILTER:-} || $name =~ $COLL_TEST_FILTER ]] || continue
        stats="$work/atomicity-$np.stats"
        rm -f "$stats" "$data/atomicity-$np"
        local log="$work/atomicity-$np.log" limit=${RUN_TIMEOUT:-$EDONIO_TEST_TIMEOUT}
        mpi_rc=0
        # shellcheck disable=SC2086 # ATOMICITY_ENV: KEY=VALUE words (to see the test fail)
        env "${edonio[@]}" EDONIO_STATS="$stats" ${ATOMICITY_ENV:-} timeout "$limit" \
            "$MPIEXEC" -n "$np" "$bin/atomicity" -fname "$data/atomicity-$np" >"$log" 2>&1 ||
            mpi_rc=$?
        if [ "$mpi_rc" -eq 124 ]; then
            fail "$name" "timed out after ${limit}s: $(failure_lines "$log"); log $log"
        elif [ "$mpi_rc" -ne 0 ] || ! grep -q "No Errors" "$log"; then
            fail "$name" "$(failure_lines "$log"); log $log"
        elif [ ! -s "$stats" ]; then
            fail "$name" "edonio not used: no line in EDONIO_STATS $stats; log $log"
        else
            pass "$name"
        fi
        rm -f "$data/atomicity-$np"
    done
}

# 5. The view constructors at 1 to 4 ranks, ufs beside them, and on two nodes.
test_views() {
    local np
    for np in 1 2 3 4; do
        run "coll/views np=$np" "$np" edonio -- "$bin/t_views" "$data/views"
    done
    # Atomic mode on disjoint views, every method: the data of every view type still right.
    local m
    for m in $methods; do
        run "coll/views atomic $m np=4" 4 edonio -- "$bin/t_views" "$data/views" test_atomic=1 \
            romio_edonio_atomicity="$m"
    done
    run "coll/views atomic graph_coloring 2-nodes np=4" 4 edonio "${nodes[@]}" -- \
        "$bin/t_views" "$data/views-nodes" test_atomic=1 romio_edonio_atomicity=graph_coloring \
        test_cases=subarray3d,darray_cyclic,hindexed,vector_mem,zero
    # On one node collective calls put their pieces in the owners' segments directly
    # (romio_edonio_coll_path=auto); the all-to-all exchange of two nodes, on one.
    run "coll/views coll_path=exchange np=3" 3 edonio -- "$bin/t_views" "$data/views" \
        romio_edonio_coll_path=exchange
    run "coll/views ufs np=4" 4 ufs -- "$bin/t_views" "$data/views"
    # On two nodes every open and every block piece is slower: half the cases. Their pieces of
    # other nodes' blocks are parts of blocks: they go to the owners (at least one round), which
    # write back at once what other nodes wrote, so that readers elsewhere find it in the file.
    run "coll/views 2-nodes np=4" 4 edonio "${nodes[@]}" -- "$bin/t_views" "$data/views-nodes" \
        test_cases=subarray3d,darray_cyclic,hindexed,vector_mem,zero test_min_rounds=1
    # With read_fill=block (a parallel file system's auto) collective reads cut finer than their
    # blocks go through the owners too, each block read once (t_coll_fine counts it).
    run "coll/views read_fill=block 2-nodes np=4" 4 edonio "${nodes[@]}" -- "$bin/t_views" \
        "$data/views-nodes" test_cases=darray_cyclic,hindexed,vector_mem,zero,overlap_read,eof \
        romio_edonio_read_fill=block
    # Many rounds: 2 MiB per rank through 64 KiB of collective buffer; every rank must have taken
    # part in at least 32 rounds (romio_edonio_stats_coll_rounds). Rounds are the exchange's: on
    # one node the default path (romio_edonio_coll_path=auto) places the pieces directly, in no
    # round (the hints runs below write 1 MiB per rank that way).
    run "coll/views big cb_buffer_size=65536 coll_path=exchange np=4" 4 edonio -- \
        "$bin/t_views" "$data/views" test_cases=big test_mib=2 cb_buffer_size=65536 \
        romio_edonio_coll_path=exchange test_min_rounds=32
    run "coll/views big cb_buffer_size=65536 ufs np=2" 2 ufs -- "$bin/t_views" "$data/views" \
        test_cases=big test_mib=2 cb_buffer_size=65536
    # A collective read past the end of the file: the status counts the bytes the file holds.
    run "coll/views eof np=2" 2 edonio -- "$bin/t_views" "$data/views" test_cases=eof
    run "coll/views eof coll_path=exchange np=4" 4 edonio -- "$bin/t_views" "$data/views" \
        test_cases=eof romio_edonio_coll_path=exchange
    run "coll/views eof ufs np=4" 4 ufs -- "$bin/t_views" "$data/views" test_cases=eof
    # Sparse: data at 0 and past 3 GiB.
    run "coll/views sparse np=2" 2 edonio -- "$bin/t_views" "$data/views" test_cases=sparse
    run "coll/views sparse np=4" 4 edonio -- "$bin/t_views" "$data/views" test_cases=sparse
    run "coll/views sparse ufs np=2" 2 ufs -- "$bin/t_views" "$data/views" test_cases=sparse
    run "coll/views sparse no-presize np=4" 4 edonio -- "$bin/t_views" "$data/views" \
        test_cases=sparse,darray_block test_presize=0
}

# 5. romio_edonio_flush_groups and romio_edonio_atomicity: the value in effect in get_info after
# every open (invalid values fall back to the defaults, 1 and rank_order), and the data correct
# after close and reopen.
test_hints() {
    local cases=test_cases=subarray2d,big
    run "coll/hints defaults np=4" 4 edonio -- "$bin/t_views" "$data/hints" $cases test_mib=1 \
        expect:romio_edonio_flush_groups=1 expect:romio_edonio_atomicity=rank_order
    run "coll/hints flush_groups=2 graph_coloring np=4" 4 edonio -- "$bin/t_views" \
        "$data/hints" $cases test_mib=1 romio_edonio_flush_groups=2 \
        romio_edonio_atomicity=graph_coloring expect:romio_edonio_flush_groups=2 \
        expect:romio_edonio_atomicity=graph_coloring
    run "coll/hints flush_groups=4 locking np=4" 4 edonio -- "$bin/t_views" \
        "$data/hints" $cases test_mib=1 romio_edonio_flush_groups=4 \
        romio_edonio_atomicity=locking expect:romio_edonio_flush_groups=4 \
        expect:romio_edonio_atomicity=locking
    run "coll/hints flush_groups=-3 atomicity=bogus np=4" 4 edonio -- "$bin/t_views" \
        "$data/hints" $cases test_mib=1 romio_edonio_flush_groups=-3 \
        romio_edonio_atomicity=bogus expect:romio_edonio_flush_groups=1 \
        expect:romio_edonio_atomicity=rank_order
}

# 6. Plans of collective calls reused (issue 43 A, t_plans): the counters say what was planned
# and reused on every process, at 1, 2 and 4 ranks, on 2 simulated nodes and on 2 nodes of 2
# processes, and every file is byte for byte the one ufs writes.
test_plans() {
    local cfg np nn nodes_env name
    [[ -z ${COLL_TEST_FILTER:-} || "coll/plans" =~ $COLL_TEST_FILTER ]] || return 0
    run "coll/plans ufs np=4" 4 ufs -- "$bin/t_plans" "$data/plans-ufs"
    for cfg in 1:1 2:1 4:1 4:2 3:2; do
        IFS=: read -r np nn <<<"$cfg"
        nodes_env=()
        name="coll/plans np=$np"
        if [ "$nn" -gt 1 ]; then
            nodes_env=("${nodes[@]}")
            name="$name 2-nodes"
        fi
        run "$name" "$np" edonio ${nodes_env[@]+"${nodes_env[@]}"} -- "$bin/t_plans" \
            "$data/plans-$np-$nn" test_across=$((nn > 1))
        # the ufs reference was written by 4 ranks: the file does not depend on how many
        if [ "$np" -eq 4 ]; then
            if cmp -s "$data/plans-ufs" "$data/plans-$np-$nn"; then
                pass "$name: the file is ufs's"
            else
                fail "$name: the file is ufs's" "$(cmp "$data/plans-ufs" "$data/plans-$np-$nn" 2>&1 | head -1)"
            fi
        fi
    done
    # passes of several rounds (a round's budget is cb_buffer_size, at least a block: 32 KiB a
    # rank in 8 KiB, 4 rounds at least; the sparse reads, every 4th element, 8 KiB in 2) keep
    # their exchanges round by round; the file is ufs's
    name="coll/plans np=4 2-nodes rounds"
    run "$name" 4 edonio "${nodes[@]}" -- "$bin/t_plans" "$data/plans-rounds" \
        romio_edonio_block_size=4096 cb_buffer_size=8192 test_across=1 test_min_rounds=4 \
        test_sparse=4 test_min_read_rounds=2
    if cmp -s "$data/plans-ufs" "$data/plans-rounds"; then
        pass "$name: the file is ufs's"
    else
        fail "$name: the file is ufs's" "$(cmp "$data/plans-ufs" "$data/plans-rounds" 2>&1 | head -1)"
    fi
    # the kept exchanges take at most the cache's memory (romio_edonio_cache_size shared by the
    # romio_edonio_schedules plans): with one block of 4 KiB, 1 KiB a pass, less than a write of
    # 4,096 8-byte pieces or a read of 64 keeps, none is kept (the plans still are); the file is
    # still ufs's
    name="coll/plans np=4 2-nodes small cache"
    run "$name" 4 edonio "${nodes[@]}" -- "$bin/t_plans" "$data/plans-small" \
        romio_edonio_block_size=4096 romio_edonio_cache_size=4096 test_across=1 test_kept=0
    if cmp -s "$data/plans-ufs" "$data/plans-small"; then
        pass "$name: the file is ufs's"
    else
        fail "$name: the file is ufs's" "$(cmp "$data/plans-ufs" "$data/plans-small" 2>&1 | head -1)"
    fi
    # 2 nodes of 2 processes (EDONIO_TEST_NODE): a read-only handle's repeated reads fill each
    # node's cache and stay on the node; the file is ufs's
    name="coll/plans np=4 2x2-nodes"
    if [[ -z ${COLL_TEST_FILTER:-} || $name =~ $COLL_TEST_FILTER ]]; then
        local args=("$data/plans-2x2" test_across=1 test_node_procs=2 test_fs=edonio)
        run_mpi "$name" "$work/plans_np=4_2x2-nodes.log" 2 "${edonio[@]}" \
            MPIR_CVAR_NUM_CLIQUES=2 -- -env EDONIO_TEST_NODE a "$bin/t_plans" "${args[@]}" : \
            -n 2 -env EDONIO_TEST_NODE b "$bin/t_plans" "${args[@]}"
        if cmp -s "$data/plans-ufs" "$data/plans-2x2"; then
            pass "$name: the file is ufs's"
        else
            fail "$name: the file is ufs's" \
                "$(cmp "$data/plans-ufs" "$data/plans-2x2" 2>&1 | head -1)"
        fi
    fi
    # the kept plans and exchanges under valgrind's memcheck, on 2 nodes (where exchanges are
    # kept): none leaked at close, none read after it went; and passes of several rounds
    if memcheck_ready "coll/valgrind plans 2-nodes np=2"; then
        run "coll/valgrind plans 2-nodes np=2" 2 edonio "${nodes[@]}" -- "${memcheck[@]}" \
            "$bin/t_plans" "$data/plans-vg" test_elems=512 test_steps=3 test_across=1
        run "coll/valgrind plans 2-nodes rounds np=2" 2 edonio "${nodes[@]}" -- \
            "${memcheck[@]}" "$bin/t_plans" "$data/plans-vg" test_elems=16384 test_steps=3 \
            test_across=1 romio_edonio_block_size=4096 cb_buffer_size=4096 test_min_rounds=4 \
            test_sparse=16 test_min_read_rounds=2
    fi
}

build
test_overlap
test_indep_atomic
test_romio_atomicity
test_views
test_hints
test_plans
summary
