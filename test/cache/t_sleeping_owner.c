/*
 * edonio cache test: independent I/O while the owners of the blocks compute outside MPI.
 *
 *   t_sleeping_owner FILE [KEY=VALUE...]
 *
 * Right after a barrier every rank but 0 sleeps for SLEEP_S seconds (outside MPI: no progress,
 * no polling). Meanwhile rank 0 writes (MPI_File_write_at) whole blocks, a partial block and a
 * record across a block boundary, all in blocks owned by the sleeping ranks, reads them back, and
 * reads a never-written block of theirs (zeros). Its I/O must finish in well under the sleep
 * (LIMIT_S) with the right data. Then everybody syncs and checks every byte.
 *
 * On one node rank 0 works in the owners' memory; across nodes its writes stay on its node until
 * the sync. Either way no MPI progress is needed from the sleepers: no progress thread, no polling.
 * Needs at least 2 processes (with 1 there is no other owner).
 */
#include "cache_test.h"

#include <unistd.h>

enum { SLEEP_S = 3 };
#define LIMIT_S 1.5

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Info info;
    long long bs, nblocks, size;
    unsigned char *want, *buf;
    double elapsed = 0, waited = 0;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    const char *filename = argv[1];
    if (ct_nprocs < 2) {
        if (ct_rank == 0)
            printf("needs at least 2 processes: nothing to test with 1\n");
        return ct_finish();
    }
    ct_fresh(filename);
    info = ct_info(NULL);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    bs = ct_get_ll(fh, "romio_edonio_block_size");
    if (bs <= 0)
        bs = 65536;

    /*
     * Rank 0 works on the blocks of the other ranks, three rows of P blocks: row 0 written whole,
     * row 1 never written (reads as zeros), row 2 written in part, [bs/4, 3bs/4); and a record
     * across the end of the last row into the next block (rank 0's own), which leaves a hole
     * inside the last block of row 2.
     */
    nblocks = 3 * ct_nprocs + 1;
    size = nblocks * bs;
    want = calloc((size_t)size, 1);
    buf = malloc((size_t)size);
    long long rec_off = 3 * ct_nprocs * bs - 1000, rec_len = 3000;
    long long end = rec_off + rec_len; /* the file's size after rank 0's writes */
    for (long long b = 0; b < 3 * ct_nprocs; b++) {
        if (b % ct_nprocs == 0)
            continue;
        if (b / ct_nprocs == 0)
            for (long long i = b * bs; i < (b + 1) * bs; i++)
                want[i] = ct_pattern(i, 1);
        if (b / ct_nprocs == 2)
            for (long long i = b * bs + bs / 4; i < b * bs + 3 * bs / 4; i++)
                want[i] = ct_pattern(i, 1);
    }
    for (long long i = rec_off; i < end; i++)
        want[i] = ct_pattern(i, 1);

    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank != 0) {
        /* Compute outside MPI. */
        unsigned left = SLEEP_S;
        while ((left = sleep(left)) > 0)
            ;
    } else {
        double t0 = MPI_Wtime();
        for (long long b = 0; b < 3 * ct_nprocs; b++) {
            if (b % ct_nprocs == 0)
                continue;
            if (b / ct_nprocs == 0)
                ct_write_at(fh, b * bs, want + b * bs, bs, "whole block");
            if (b / ct_nprocs == 2)
                ct_write_at(fh, b * bs + bs / 4, want + b * bs + bs / 4, bs / 2, "half block");
        }
        ct_write_at(fh, rec_off, want + rec_off, rec_len, "record across blocks");
        for (long long b = 0; b < 3 * ct_nprocs; b++) {
            if (b % ct_nprocs == 0)
                continue;
            memset(buf + b * bs, 0xee, (size_t)bs);
            ct_read_at(fh, b * bs, buf + b * bs, bs, bs, "rank 0 while the owners sleep");
            ct_compare("rank 0 while the owners sleep", buf + b * bs, want + b * bs, b * bs, bs);
        }
        elapsed = MPI_Wtime() - t0;
        /* The owners were really away: the barrier waits for the rest of their sleep. */
        MPI_Barrier(MPI_COMM_WORLD);
        waited = MPI_Wtime() - t0;
        printf("rank 0: I/O on the sleeping owners' blocks took %.3f s (limit %.1f s); the owners "
               "came back after %.3f s\n",
               elapsed, LIMIT_S, waited);
        if (elapsed >= LIMIT_S)
            ct_error("rank 0's independent I/O took %.3f s, not under %.1f s", elapsed, LIMIT_S);
        if (waited < SLEEP_S - 0.5)
            ct_error("the owners came back after %.3f s: they did not sleep", waited);
        fflush(stdout);
    }
    if (ct_rank != 0)
        MPI_Barrier(MPI_COMM_WORLD);

    if (ct_one_node()) /* across nodes, the others see rank 0's writes after the sync below */
        ct_expect_size(fh, end, "after rank 0's writes");
    ct_sync(fh);
    ct_expect_size(fh, end, "after rank 0's writes and a sync");
    memset(buf, 0xee, (size_t)size);
    ct_read_at(fh, 0, buf, size, end, "everyone after sync");
    ct_compare("everyone after sync", buf, want, 0, end);
    CT_MPI(MPI_File_close(&fh));

    /* And the file system has it. */
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    memset(buf, 0xee, (size_t)size);
    ct_read_at(fh, 0, buf, size, end, "after reopen");
    ct_compare("after reopen", buf, want, 0, end);
    CT_MPI(MPI_File_close(&fh));
    free(want);
    free(buf);
    return ct_finish();
}
