#!/usr/bin/env bash
# edonio's cache tests: the aggregate-memory block cache seen from unmodified MPI programs (built
# with the stock mpicc, edonio preloaded, every file forced to edonio). Each program runs at 1 to 4
# processes on one node (where that makes sense), at 4 on two simulated nodes (no shared memory
# between processes, no progress thread), where other nodes' blocks are reached the network way:
# kept on the writer's node and delivered at the next collective point; and at 4 on two simulated
# nodes of two processes each ("2x2"), which share their node's memory, its remote segments and
# their delivery (a node peer still writing into a remote segment another delivers).
#   t_sleeping_owner  independent I/O on the blocks of owners that compute outside MPI
#   t_gaps            bytes never written read as zeros (before and after sync, after reopen)
#   t_size            get_size before sync; set_size shrinking and growing; preallocate
#   t_sparse          data past 5 GiB
#   t_evict           a file 4 times the aggregate cache: evictions and write-backs
#   t_remote          this node's copies of other nodes' blocks (statistics); one owner's blocks
#                     spread over the node's remote segments (2x2)
#   t_fragments       many small pieces of a block from several writers: few file-system writes
#                     (write_back=span), or no byte-range lock (exact)
#   t_preload         romio_edonio_preload (statistics: no misses)
#   t_memlimit        the node's memory limit (EDONIO_TEST_MEMORY_LIMIT standing for a cgroup's)
#                     bounds a cache of 256 MiB per process, above or below the 4 MiB a segment
#                     may hold before the limit is read (statistics: evictions, memory)
#   t_hints           invalid and valid hint values, MPI_File_set_info
#   t_wronly_noread   write-only open without read permission (as an unprivileged user)
#   t_direct          large requests: uncached whole blocks go direct, dirty cached ones never
#   t_whole           with write-through on, a block that writes make whole goes to the file at
#                     once (on one node and across nodes), then leaves the cache (read_fill=none)
#                     or stays (block); not with write_through=0
#   t_pass            with write-through on, a request that finds none of its blocks cached is one
#                     file operation (reads with read_fill=none too); one half in a cached block
#                     goes by pieces; a byte-range lock per passing write only with write_back=span;
#                     across nodes, a collective write's pieces that owners on other nodes would
#                     write back at once go to the file from the messages (no write-back)
#   t_reuse           one file's cache leaves nothing behind for the next file, though its memory
#                     serves the next cache of the same processes (romio_edonio_keep_memory)
#   t_random          random writes, reads, syncs, set_info rebuilds and read-only opens through a
#                     world handle and an MPI_COMM_SELF handle sharing its cache, against a model;
#                     and with a read-only world handle opened first (each handle its own cache)
#   t_coll_direct     collective writes across nodes that each process makes itself (every piece
#                     to the file anyway, no segment holding a block: no exchange round), and
#                     those that must go through the owners (an owner's cached copy, an earlier
#                     write waiting in a remote segment, a process late with a block in its
#                     peer's segments, a small piece beside a large one, memory with gaps);
#                     everyone's bytes read at once, no sync
#   t_coll_fine       fine-grained collective writes (a *-cyclic 2-D array, a shuffled indexed view
#                     of 8-byte elements), and the *-cyclic view written and read back with
#                     independent calls: at most one file-system write (read) per block touched,
#                     every byte checked (issue 41)
#   t_deliver         large deliveries of remote segments (sync, close) and a large collective
#                     write through the owners: many whole blocks per owner, sent from where they
#                     lie where the machine is not crowded (else copied), beside pieces of a few
#                     bytes; every byte read back; also on 2 nodes under valgrind's memcheck
#   t_syncs           the collectives a collective read or write makes (counted by the program's
#                     own MPI_Allreduce and others): 1 on one node, 2R + 1 for a write of R rounds
#                     through the owners across nodes
#   t_consistency     MPI's consistency rules, on which the deferrals rest: own writes without sync,
#                     sync-barrier-sync, close and reopen, exact write-back against a direct write,
#                     a collective write read back at once, independent-then-collective order,
#                     set_size over writes not yet delivered, a write into an owner's segment that
#                     is in the file when the writer's sync returns though the owner synced first,
#                     the same with close (the owner closed first), and a span write-back over a
#                     cached block reading afresh what another writer put between its pieces
#   t_barrier         a write visible to every process after an MPI_Barrier, or MPI_Ibarrier and its
#                     wait, on any communicator holding the file's processes, with no sync (issue
#                     39): independent, collective and strided-view writes, copies cached by reads
#                     first (read_fill=block), overwrites; the whole file after reopen; and a
#                     duplicate communicator freed after its only barrier (seen to fail:
#                     MPICH's assertion "ref_count >= 0" in MPI_Finalize, before barrier.c's
#                     made() took the request off its record before waiting)
# Every program also takes KEY=VALUE hints after its file name, e.g. one that switches the tested
# behaviour off, which makes it fail (romio_edonio_preload=false).
#
#   test/cache/run.sh --builddir DIR [--workdir DIR]
#
# The work dir (default: $EDONIO_TEST_WORKDIR, else a new temporary dir) gets the programs (bin/),
# their files (data/) and one log per run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

mpi_test_setup "$@"

programs="t_sleeping_owner t_gaps t_size t_sparse t_evict t_remote t_preload t_hints
    t_wronly_noread t_reuse t_direct t_consistency t_random t_fragments t_whole t_pass
    t_coll_direct t_coll_fine t_deliver t_syncs t_memlimit t_barrier"

build() {
    local cflags=(-std=c11 -O1 -g -Wall -Wextra -Werror) t
    for t in $programs; do
        # t_syncs counts the library's calls of the MPI collectives it defines: export them
        if [ "$t" = t_syncs ]; then
            "$MPICC" "${cflags[@]}" -rdynamic -o "$bin/$t" "$here/$t.c"
        else
            "$MPICC" "${cflags[@]}" -o "$bin/$t" "$here/$t.c"
        fi
    done
}

edonio=(LD_PRELOAD="$(edonio_preload "$lib")" ROMIO_FSTYPE_FORCE=edonio:)
# Two simulated nodes: MPICH splits the ranks into two cliques and uses its network path.
nodes=(MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_NOLOCAL=1)
# A command that runs mpiexec as another user (the permission test), else nothing.
as_user=()

# Two simulated nodes of two processes each: EDONIO_TEST_NODE splits the machine for edonio
# (ranks 0-1 and 2-3 share memory, the pairs none), MPICH's cliques take its network path between.
# run_2x2 NAME LOG PROGRAM ARGS...
run_2x2() {
    local name=$1 log=$2 prog=$3
    shift 3
    run_mpi "$name" "$log" 2 "${edonio[@]}" MPIR_CVAR_NUM_CLIQUES=2 -- \
        -env EDONIO_TEST_NODE a "$prog" "$@" : -n 2 -env EDONIO_TEST_NODE b "$prog" "$@"
}

# A program at 1 to 4 processes on one node ($1: the lowest count), then at 4 on two nodes, of one
# process each and of two; arguments after the program name go to every run, NODE_ARGS only to
# the runs across nodes.
run_all_np() {
    local t=$1 from=$2 np
    shift 2
    for np in 1 2 3 4; do
        [ "$np" -ge "$from" ] || continue
        run_mpi "cache/${t#t_} np=$np" "$work/${t#t_}-$np.log" "$np" "${edonio[@]}" -- \
            "$bin/$t" "$data/${t#t_}-$np" "$@"
    done
    # shellcheck disable=SC2086 # NODE_ARGS is a list of KEY=VALUE words
    run_mpi "cache/${t#t_} 2-nodes np=4" "$work/${t#t_}-nodes.log" 4 "${edonio[@]}" \
        "${nodes[@]}" -- "$bin/$t" "$data/${t#t_}-nodes" "$@" ${NODE_ARGS:-}
    # shellcheck disable=SC2086
    run_2x2 "cache/${t#t_} 2x2-nodes np=4" "$work/${t#t_}-2x2.log" "$bin/$t" \
        "$data/${t#t_}-2x2" "$@" ${NODE_ARGS:-}
}

# 1. Independent I/O while the owners sleep outside MPI, with no progress thread: on one node the
# owners' segments are in shared memory; across nodes rank 0's writes stay on its node until the
# sync. Either way rank 0 must never wait for the sleepers (MPI_THREAD_SINGLE, no polling). Also
# with every process a node of its own on one node (romio_edonio_shared_memory=false), and 3 ranks
# on 2 nodes (owners not a power of two).
# Seen to fail: on the code before the network way (passive-target RMA per piece), rank 0's I/O
# took 4.0 s, the length of the sleep, on 2 simulated nodes. (Blocks of other nodes sent to the
# wrong segment are caught by t_remote's statistics, not here: they still reach the file.)
test_sleeping_owner() {
    local np nodes_n
    for np in 2 3 4; do
        run_mpi "cache/sleeping_owner np=$np" "$work/sleeping_owner-$np.log" "$np" \
            "${edonio[@]}" -- "$bin/t_sleeping_owner" "$data/sleeping_owner-$np"
    done
    run_mpi "cache/sleeping_owner shared_memory=false np=4" "$work/sleeping_owner-noshm.log" 4 \
        "${edonio[@]}" -- "$bin/t_sleeping_owner" "$data/sleeping_owner-noshm" \
        romio_edonio_shared_memory=false
    for nodes_n in 2 4; do
        run_mpi "cache/sleeping_owner $nodes_n-nodes np=4" \
            "$work/sleeping_owner-nodes$nodes_n.log" 4 "${edonio[@]}" \
            MPIR_CVAR_NUM_CLIQUES=$nodes_n MPIR_CVAR_NOLOCAL=1 -- \
            "$bin/t_sleeping_owner" "$data/sleeping_owner-nodes$nodes_n"
    done
    run_mpi "cache/sleeping_owner 2-nodes np=3" "$work/sleeping_owner-nodes-3.log" 3 \
        "${edonio[@]}" "${nodes[@]}" -- "$bin/t_sleeping_owner" "$data/sleeping_owner-nodes-3"
    run_2x2 "cache/sleeping_owner 2x2-nodes np=4" "$work/sleeping_owner-2x2.log" \
        "$bin/t_sleeping_owner" "$data/sleeping_owner-2x2"
}

# 5. Evictions; on two nodes also the remote segments' bound reached mid-phase (a remote cache of
# 2 blocks): their least recently used blocks go to the file directly, exactly the bytes written,
# and the owners' own write-backs must not overwrite them.
test_evict() {
    NODE_ARGS="romio_edonio_block_size=4096 romio_edonio_cache_size=8192 \
romio_edonio_remote_cache_size=8192" run_all_np t_evict 1
    run_mpi "cache/evict read_fill=none np=3" "$work/evict-none.log" 3 "${edonio[@]}" -- \
        "$bin/t_evict" "$data/evict-none" romio_edonio_read_fill=none
}

# 8. Hints; and MPI_File_set_info with a new cache size on rank 0 only (rank 0's values decide
# the cache's shape): a hang there is a failure, found quickly.
test_hints() {
    run_all_np t_hints 1
    RUN_TIMEOUT=15 run_mpi "cache/hints set_info on rank 0 only np=2" \
        "$work/hints-uneven-2.log" 2 "${edonio[@]}" -- "$bin/t_hints" "$data/hints-uneven" uneven
}

# 9. Needs an unprivileged user: root may read a file of mode 0200. Run as nobody (65534), in a
# directory of its own, with its own copies of the program and the library.
test_wronly_noread() {
    local dir np name="cache/wronly_noread"
    if [ "$(id -u)" -ne 0 ]; then
        as_user=()
        dir="$data/perm"
        mkdir -p "$dir"
    elif command -v setpriv >/dev/null 2>&1 &&
        setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
        dir=$(mktemp -d /tmp/edonio-cache-perm.XXXXXX)
        cp "$bin/t_wronly_noread" "$lib" "$dir/"
        chmod 755 "$dir"
        chown 65534:65534 "$dir"
        as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    else
        skip "$name" "running as root and cannot switch to an unprivileged user (setpriv)"
        return
    fi
    local prog="$bin/t_wronly_noread" perm_edonio=("${edonio[@]}")
    if [ ${#as_user[@]} -gt 0 ]; then # the copies, which the other user can reach
        prog="$dir/t_wronly_noread"
        perm_edonio=(LD_PRELOAD="$(edonio_preload "$dir/$(basename "$lib")")"
            ROMIO_FSTYPE_FORCE=edonio:)
    fi
    for np in 1 2 3 4; do
        run_mpi "$name np=$np" "$work/wronly_noread-$np.log" "$np" "${perm_edonio[@]}" -- \
            "$prog" "$dir"
    done
    run_mpi "$name 2-nodes np=4" "$work/wronly_noread-nodes.log" 4 "${perm_edonio[@]}" \
        "${nodes[@]}" -- "$prog" "$dir"
    as_user=()
    [ "$(id -u)" -ne 0 ] || rm -rf "$dir"
}

# 12. The consistency rules on one node, on 2 and 4 simulated nodes, 3 ranks on 2 nodes, and with
# every process a node of its own. Seen to fail, each on 2 nodes: with a fetched block written
# back whole (500 wrong bytes: case "exact"); with owners keeping, after a collective write, the
# blocks written from other nodes instead of writing them back (case 6: 152 errors); with remote
# segments not trimmed by set_size (case 7: 197 errors); with a span write-back taking the bytes
# between its pieces from a block cached whole instead of the file (case 10: 500 wrong bytes, on
# one node and on 2).
test_consistency() {
    local n
    for n in 2 3 4; do
        run_mpi "cache/consistency np=$n" "$work/consistency-$n.log" "$n" "${edonio[@]}" -- \
            "$bin/t_consistency" "$data/consistency-$n"
    done
    for n in 2 4; do
        run_mpi "cache/consistency $n-nodes np=4" "$work/consistency-nodes$n.log" 4 \
            "${edonio[@]}" MPIR_CVAR_NUM_CLIQUES=$n MPIR_CVAR_NOLOCAL=1 -- \
            "$bin/t_consistency" "$data/consistency-nodes$n"
    done
    run_mpi "cache/consistency 2-nodes np=3" "$work/consistency-nodes-3.log" 3 "${edonio[@]}" \
        "${nodes[@]}" -- "$bin/t_consistency" "$data/consistency-nodes-3"
    run_2x2 "cache/consistency 2x2-nodes np=4" "$work/consistency-2x2.log" \
        "$bin/t_consistency" "$data/consistency-2x2"
    run_mpi "cache/consistency shared_memory=false np=3" "$work/consistency-noshm.log" 3 \
        "${edonio[@]}" -- "$bin/t_consistency" "$data/consistency-noshm" \
        romio_edonio_shared_memory=false
}

# 13. Random steps through two handles of one file (each run a few seconds). Seen to fail with a
# second handle given a cache of its own instead of sharing the first's (the disk's final bytes
# wrong: a handle's close wrote back older bytes over the other's).
test_random() {
    local seed
    for seed in 1 2; do
        run_mpi "cache/random seed=$seed np=3" "$work/random-$seed.log" 3 "${edonio[@]}" -- \
            "$bin/t_random" "$data/random-$seed" test_seed=$seed
    done
    run_mpi "cache/random seed=3 np=4" "$work/random-3.log" 4 "${edonio[@]}" -- \
        "$bin/t_random" "$data/random-3" test_seed=3
    run_mpi "cache/random seed=4 2-nodes np=4" "$work/random-nodes.log" 4 "${edonio[@]}" \
        "${nodes[@]}" -- "$bin/t_random" "$data/random-nodes" test_seed=4
    # Seen to fail (time out) without the barrier before a delivery on a node of several
    # processes: a node peer waits for the remote segment its neighbour holds in the exchange.
    run_2x2 "cache/random seed=6 2x2-nodes np=4" "$work/random-2x2.log" "$bin/t_random" \
        "$data/random-2x2" test_seed=6
    run_mpi "cache/random seed=5 shared_memory=false np=3" "$work/random-noshm.log" 3 \
        "${edonio[@]}" -- "$bin/t_random" "$data/random-noshm" test_seed=5 \
        romio_edonio_shared_memory=false
    test_random_ro_first
}

# 13b. The same with a read-only world handle opened first, then the self handle, then the world
# handle (issue 12's pattern; each gets a cache of its own; test_ro_first in t_random.c). Seen to
# fail (at 1 rank, on 2 nodes, with shared_memory=false) while a handle opened later shared the
# read-only cache: after the writers' close, the reopened file read bytes from before it. Seen to
# fail too (seed 6 every time, seed 10 now and then) while a write-back wrote a block's span with
# bytes fetched earlier, over what other ranks had written to the block through caches of their
# own: a span is now written under a byte-range lock with those bytes read afresh (write_span).
# Spans are written only with romio_edonio_write_back=span (auto is exact on a local disk), which
# the runs of seeds 6 and 10 ask for (the default, exact, run of seed 6 stays).
test_random_ro_first() {
    local ro=test_ro_first=1
    run_mpi "cache/random ro-first seed=9 np=1" "$work/random-ro-1.log" 1 "${edonio[@]}" -- \
        "$bin/t_random" "$data/random-ro-1" test_seed=9 "$ro"
    run_mpi "cache/random ro-first seed=6 np=3" "$work/random-ro-3.log" 3 \
        "${edonio[@]}" -- "$bin/t_random" "$data/random-ro-3" test_seed=6 "$ro"
    run_mpi "cache/random ro-first seed=6 read_fill=block write_back=span np=3" \
        "$work/random-ro-3b.log" 3 "${edonio[@]}" -- "$bin/t_random" "$data/random-ro-3b" \
        test_seed=6 "$ro" romio_edonio_read_fill=block romio_edonio_write_back=span
    run_mpi "cache/random ro-first seed=8 2-nodes np=4" "$work/random-ro-nodes.log" \
        4 "${edonio[@]}" "${nodes[@]}" -- "$bin/t_random" "$data/random-ro-nodes" test_seed=8 "$ro"
    run_mpi "cache/random ro-first seed=10 shared_memory=false write_back=span np=3" \
        "$work/random-ro-noshm.log" 3 "${edonio[@]}" -- "$bin/t_random" "$data/random-ro-noshm" \
        test_seed=10 "$ro" romio_edonio_shared_memory=false romio_edonio_write_back=span
}

# Collective writes across nodes, each process its own pieces or through the owners. Also with
# write_through=0: whole blocks of large requests (direct_threshold=8192) go direct, on 2 nodes of
# one process and of two (cb_buffer_size=4096: memory with gaps goes by 4 KiB pieces, too small to
# go direct); smaller requests stay in the cache, so through the owners (test_direct=0). How each
# part was seen to fail: t_coll_direct.c's header.
test_coll_direct() {
    local whole=(romio_edonio_write_through=0 romio_edonio_direct_threshold=8192
        cb_buffer_size=4096)
    run_all_np t_coll_direct 1
    run_mpi "cache/coll_direct whole-blocks 2-nodes np=4" "$work/coll_direct-whole.log" 4 \
        "${edonio[@]}" "${nodes[@]}" -- "$bin/t_coll_direct" "$data/coll_direct-whole" \
        "${whole[@]}"
    run_2x2 "cache/coll_direct whole-blocks 2x2-nodes np=4" "$work/coll_direct-whole-2x2.log" \
        "$bin/t_coll_direct" "$data/coll_direct-whole-2x2" "${whole[@]}"
    run_mpi "cache/coll_direct write_through=0 2-nodes np=4" "$work/coll_direct-wt0.log" 4 \
        "${edonio[@]}" "${nodes[@]}" -- "$bin/t_coll_direct" "$data/coll_direct-wt0" \
        romio_edonio_write_through=0 test_direct=0
    # Three nodes of 1, 1 and 2 processes: case 4, a process late to the call with a block in its
    # node peer's remote segment.
    local prog=("$bin/t_coll_direct" "$data/coll_direct-112")
    run_mpi "cache/coll_direct 1+1+2-nodes np=4" "$work/coll_direct-112.log" 1 "${edonio[@]}" \
        MPIR_CVAR_NUM_CLIQUES=3 -- -env EDONIO_TEST_NODE a "${prog[@]}" : \
        -n 1 -env EDONIO_TEST_NODE b "${prog[@]}" : -n 2 -env EDONIO_TEST_NODE c "${prog[@]}"
}

# 14. The network way under valgrind's memcheck (test/edonio's runs are on one node): a delivery's
# typed messages from the remote segments (the machine taken for one of 64 processors, so that they
# are not copied: EDONIO_TEST_CPUS), the owners' apply, a collective write through the owners.
# Seen to fail with the runs' start array not freed ("definitely lost").
test_valgrind_nodes() {
    memcheck_ready "cache/valgrind deliver 2-nodes" || return 0
    run_mpi "cache/valgrind deliver 2-nodes np=4" "$work/vg-deliver.log" 4 "${edonio[@]}" \
        "${nodes[@]}" EDONIO_TEST_CPUS=64 -- "${memcheck[@]}" "$bin/t_deliver" "$data/vg-deliver"
}

# 15. The node's memory limit, read when a segment first fills (4 MiB), not at open: 48 blocks of
# 1 MiB per process where the limit gives each own segment 48 MiB (one node of 2, 2 nodes of one,
# 2 nodes of 2), 2 where it gives 2 MiB (below the first limit: the segment shrinks), all 64 where
# it gives more, and the next open reports the bound. Seen to fail in each direction, and with the
# kept memory's report not lowered (t_memlimit.c).
test_memlimit() {
    run_mpi "cache/memlimit 64GiB np=2" "$work/memlimit-big.log" 2 "${edonio[@]}" \
        EDONIO_TEST_MEMORY_LIMIT=68719476736 -- "$bin/t_memlimit" "$data/memlimit-big"
    run_mpi "cache/memlimit 192MiB np=2" "$work/memlimit-2.log" 2 "${edonio[@]}" \
        EDONIO_TEST_MEMORY_LIMIT=201326592 -- "$bin/t_memlimit" "$data/memlimit-2"
    run_mpi "cache/memlimit 8MiB np=2" "$work/memlimit-low.log" 2 "${edonio[@]}" \
        EDONIO_TEST_MEMORY_LIMIT=8388608 -- "$bin/t_memlimit" "$data/memlimit-low"
    run_mpi "cache/memlimit 96MiB 2-nodes np=2" "$work/memlimit-nodes.log" 2 "${edonio[@]}" \
        "${nodes[@]}" EDONIO_TEST_MEMORY_LIMIT=100663296 EDONIO_TEST_NLOCAL=1 -- \
        "$bin/t_memlimit" "$data/memlimit-nodes"
    run_mpi "cache/memlimit 192MiB 2x2-nodes np=4" "$work/memlimit-2x2.log" 2 "${edonio[@]}" \
        MPIR_CVAR_NUM_CLIQUES=2 EDONIO_TEST_MEMORY_LIMIT=201326592 EDONIO_TEST_NLOCAL=2 -- \
        -env EDONIO_TEST_NODE a "$bin/t_memlimit" "$data/memlimit-2x2" : \
        -n 2 -env EDONIO_TEST_NODE b "$bin/t_memlimit" "$data/memlimit-2x2"
}

# 16. A write, then a barrier on a communicator that holds all the file's processes (or a
# nonblocking barrier and its wait), then reads by every process: no sync (issue 39). On one node,
# on 2 and 4 simulated nodes, 2x2, and with every process a node of its own. Seen to fail across
# nodes on the code before issue 39's change, where a write to a block of another node stays on the
# writer's node until the next collective file call, and owners keep their own dirty blocks: every
# case, "case barrier: 388 errors" (and "collective: 144", "read-fill: 788") on 2 and 4 nodes.
test_barrier() {
    local n
    RUN_TIMEOUT=120 run_mpi "cache/barrier np=4" "$work/barrier-4.log" 4 "${edonio[@]}" -- \
        "$bin/t_barrier" "$data/barrier-4"
    for n in 2 4; do
        RUN_TIMEOUT=120 run_mpi "cache/barrier $n-nodes np=4" "$work/barrier-nodes$n.log" 4 \
            "${edonio[@]}" MPIR_CVAR_NUM_CLIQUES=$n MPIR_CVAR_NOLOCAL=1 -- \
            "$bin/t_barrier" "$data/barrier-nodes$n"
    done
    RUN_TIMEOUT=120 run_2x2 "cache/barrier 2x2-nodes np=4" "$work/barrier-2x2.log" \
        "$bin/t_barrier" "$data/barrier-2x2"
    RUN_TIMEOUT=120 run_mpi "cache/barrier shared_memory=false np=4" "$work/barrier-noshm.log" \
        4 "${edonio[@]}" -- "$bin/t_barrier" "$data/barrier-noshm" \
        romio_edonio_shared_memory=false
    # Every case with copies of the blocks on every node: an MPI_Ibarrier's completion must drop
    # them (with the drop taken out, every ibarrier case fails here and passes above).
    RUN_TIMEOUT=120 run_mpi "cache/barrier read_fill=block 2-nodes np=4" \
        "$work/barrier-block.log" 4 "${edonio[@]}" "${nodes[@]}" -- "$bin/t_barrier" \
        "$data/barrier-block" romio_edonio_read_fill=block
    RUN_TIMEOUT=120 run_2x2 "cache/barrier read_fill=block 2x2-nodes np=4" \
        "$work/barrier-block-2x2.log" "$bin/t_barrier" "$data/barrier-block-2x2" \
        romio_edonio_read_fill=block
}

build
test_sleeping_owner
run_all_np t_gaps 1
run_all_np t_size 1
run_all_np t_sparse 1
test_evict
run_all_np t_fragments 1 romio_edonio_write_back=span
# auto: exact on a local file system with a page cache (span elsewhere; the test checks either)
run_mpi "cache/fragments write_back=auto np=4" "$work/fragments-auto.log" 4 "${edonio[@]}" -- \
    "$bin/t_fragments" "$data/fragments-auto"
run_all_np t_remote 1 romio_edonio_read_fill=block
run_mpi "cache/remote read_fill=none np=3" "$work/remote-none.log" 3 "${edonio[@]}" -- \
    "$bin/t_remote" "$data/remote-none" romio_edonio_read_fill=none
run_mpi "cache/remote read_fill=none 2-nodes np=4" "$work/remote-none-nodes.log" 4 \
    "${edonio[@]}" "${nodes[@]}" -- "$bin/t_remote" "$data/remote-none-nodes" \
    romio_edonio_read_fill=none
run_all_np t_preload 1
test_memlimit
test_hints
test_wronly_noread
run_all_np t_reuse 1
run_mpi "cache/reuse keep_memory=false np=4" "$work/reuse-nokeep.log" 4 "${edonio[@]}" -- \
    "$bin/t_reuse" "$data/reuse-nokeep" romio_edonio_keep_memory=false
run_all_np t_direct 1
# Seen to fail: with the write at once taken out, "fs_writes before any sync: 0, want 32" at 4;
# with it kept to one node (the rule before), "... 0, want 32" on 2 nodes, "... 0, want 24" with
# shared_memory=false.
NODE_ARGS=test_shared=0 run_all_np t_whole 1
run_mpi "cache/whole write_through=0 np=4" "$work/whole-wt0.log" 4 "${edonio[@]}" -- \
    "$bin/t_whole" "$data/whole-wt0" romio_edonio_write_through=0 test_eager=0
# The node's other processes reached through /proc/<pid>/fd/<fd>, as where pidfd_getfd is refused
# (Yama, seccomp): the blocks that every rank fills must still be written whole from shared
# segments. Seen to fail with that way broken: "fs_writes of the blocks filled by every rank: 0,
# want 8".
run_mpi "cache/whole /proc only np=4" "$work/whole-proc.log" 4 "${edonio[@]}" \
    EDONIO_TEST_NO_PIDFD=1 -- "$bin/t_whole" "$data/whole-proc"
run_mpi "cache/whole shared_memory=false np=3" "$work/whole-noshm.log" 3 "${edonio[@]}" -- \
    "$bin/t_whole" "$data/whole-noshm" romio_edonio_shared_memory=false test_shared=0
# read_fill=block keeps the blocks written back whole (read_fill=none, auto here, frees their slots)
run_mpi "cache/whole read_fill=block np=2" "$work/whole-block.log" 2 "${edonio[@]}" -- \
    "$bin/t_whole" "$data/whole-block" romio_edonio_read_fill=block
# Seen to fail on the code that judged each piece alone: "fs_writes of 24 requests per rank: 14,
# want 24" at 1 rank. The second run turns passing off and expects everything cached.
run_all_np t_pass 1
run_mpi "cache/pass write_through=0 np=2" "$work/pass-wt0.log" 2 "${edonio[@]}" -- \
    "$bin/t_pass" "$data/pass-wt0" romio_edonio_write_through=0 romio_edonio_read_fill=block \
    test_pass=0
# span: every write that passes takes the byte-range lock (fs_locks), exact (auto here) none
run_mpi "cache/pass write_back=span np=2" "$work/pass-span.log" 2 "${edonio[@]}" -- \
    "$bin/t_pass" "$data/pass-span" romio_edonio_write_back=span
# Across nodes, the owners cache other nodes' pieces and write their blocks back where
# write_back=span or write_through=0 (in run_all_np's runs they go to the file from the messages)
run_mpi "cache/pass write_back=span 2-nodes np=4" "$work/pass-span-nodes.log" 4 "${edonio[@]}" \
    "${nodes[@]}" -- "$bin/t_pass" "$data/pass-span-nodes" romio_edonio_write_back=span
run_mpi "cache/pass write_through=0 2-nodes np=4" "$work/pass-wt0-nodes.log" 4 "${edonio[@]}" \
    "${nodes[@]}" -- "$bin/t_pass" "$data/pass-wt0-nodes" romio_edonio_write_through=0 \
    romio_edonio_read_fill=block test_pass=0
test_coll_direct
# Fine-grained collective writes, one file-system write per block (issue 41): every layout, and
# write_back=span with write_through=0 (a parallel file system's auto). How they were seen to
# fail: t_coll_fine.c's header.
run_all_np t_coll_fine 1
run_mpi "cache/coll_fine span 2-nodes np=4" "$work/coll_fine-span-nodes.log" 4 "${edonio[@]}" \
    "${nodes[@]}" -- "$bin/t_coll_fine" "$data/coll_fine-span-nodes" \
    romio_edonio_write_back=span romio_edonio_write_through=0
run_mpi "cache/coll_fine span np=4" "$work/coll_fine-span.log" 4 "${edonio[@]}" -- \
    "$bin/t_coll_fine" "$data/coll_fine-span" romio_edonio_write_back=span \
    romio_edonio_write_through=0
# Every collective call through the owners: case 9's owners must look the file's size up again
# themselves (seen to fail without it: zeros past the size they knew).
run_mpi "cache/coll_fine coll_path=exchange 2-nodes np=4" "$work/coll_fine-exchange.log" 4 \
    "${edonio[@]}" "${nodes[@]}" -- "$bin/t_coll_fine" "$data/coll_fine-exchange" \
    romio_edonio_coll_path=exchange
run_all_np t_deliver 1
# Messages sent from where their pieces lie (ad_edonio_coll.c, send_prepare) go only where the
# machine is not crowded: at 4 ranks on 2 processors the pieces are copied, so the typed messages
# run with the machine taken for one of 64 processors (EDONIO_TEST_CPUS), on 2 nodes and 2x2.
# Seen to fail with each typed message's runs shifted by 8 bytes, where the runs above passed.
run_mpi "cache/deliver uncrowded 2-nodes np=4" "$work/deliver-uncrowded.log" 4 "${edonio[@]}" \
    "${nodes[@]}" EDONIO_TEST_CPUS=64 -- "$bin/t_deliver" "$data/deliver-uncrowded"
run_mpi "cache/deliver uncrowded 2x2-nodes np=4" "$work/deliver-uncrowded-2x2.log" 2 \
    "${edonio[@]}" MPIR_CVAR_NUM_CLIQUES=2 EDONIO_TEST_CPUS=64 -- \
    -env EDONIO_TEST_NODE a "$bin/t_deliver" "$data/deliver-uncrowded-2x2" : \
    -n 2 -env EDONIO_TEST_NODE b "$bin/t_deliver" "$data/deliver-uncrowded-2x2"
# The processors this shell may run on, one a line ("0-3,6": 0 1 2 3 6).
allowed_cpus() {
    local list range
    list=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
    for range in ${list//,/ }; do
        seq "${range%-*}" "${range#*-}"
    done
}

# The processors a process may run on are its affinity mask's: both processes confined to one
# processor crowd it; each bound to a processor of its own does not (their masks differ).
# Seen to fail with the processors online counted instead ("1 blocking collectives among 2
# processes on 1 processors"), and with the processes counted together whatever their masks ("no
# blocking collective among 2 processes on 1 processors").
test_syncs_bound() {
    local cpus=()
    mapfile -t cpus < <(allowed_cpus)
    if ! command -v taskset >/dev/null || [ "${#cpus[@]}" -lt 2 ]; then
        local why="needs taskset and 2 processors this job may run on" name
        for name in "confined np=2" "bound np=2" "confined 2-nodes np=2"; do
            skip "cache/syncs $name" "$why"
        done
        return
    fi
    # shellcheck disable=SC2016 # $EDONIO_TEST_BIND, $PMI_RANK and $0 are the inner shell's
    local bind='cpu=$(echo "$EDONIO_TEST_BIND" | cut -d" " -f$((${PMI_RANK:-${OMPI_COMM_WORLD_RANK:?}} + 1)))
exec taskset -c "$cpu" "$0" "$@"'
    run_mpi "cache/syncs confined np=2" "$work/syncs-confined.log" 2 "${edonio[@]}" \
        EDONIO_TEST_EXPECT_CROWDED=1 -- taskset -c "${cpus[0]}" "$bin/t_syncs" \
        "$data/syncs-confined"
    run_mpi "cache/syncs bound np=2" "$work/syncs-bound.log" 2 "${edonio[@]}" \
        EDONIO_TEST_EXPECT_CROWDED=0 EDONIO_TEST_BIND="${cpus[0]} ${cpus[1]}" -- \
        sh -c "$bind" "$bin/t_syncs" "$data/syncs-bound"
    # Nodes apart share no memory, but the one processor still: crowded.
    run_mpi "cache/syncs confined 2-nodes np=2" "$work/syncs-confined-nodes.log" 2 \
        "${edonio[@]}" "${nodes[@]}" EDONIO_TEST_EXPECT_CROWDED=1 -- taskset -c "${cpus[0]}" \
        "$bin/t_syncs" "$data/syncs-confined-nodes"
}
# Seen to fail on the code before (a reduction for the first window, one after the last round):
# "one round: 5 collective operations, expected 3" across nodes and at 2x2.
run_all_np t_syncs 1
# Both ways of waiting on any machine: crowded (more processes than EDONIO_TEST_CPUS) and not.
run_mpi "cache/syncs crowded np=2" "$work/syncs-crowded.log" 2 "${edonio[@]}" \
    EDONIO_TEST_CPUS=1 -- "$bin/t_syncs" "$data/syncs-crowded"
run_mpi "cache/syncs crowded 2-nodes np=2" "$work/syncs-crowded-nodes.log" 2 "${edonio[@]}" \
    "${nodes[@]}" EDONIO_TEST_CPUS=1 -- "$bin/t_syncs" "$data/syncs-crowded-nodes"
run_mpi "cache/syncs uncrowded 2-nodes np=4" "$work/syncs-uncrowded.log" 4 "${edonio[@]}" \
    "${nodes[@]}" EDONIO_TEST_CPUS=64 -- "$bin/t_syncs" "$data/syncs-uncrowded"
test_syncs_bound
test_valgrind_nodes
test_consistency
test_barrier
test_random
summary
