/*
 * edonio cache test: large requests and the cache (romio_edonio_direct_threshold).
 *
 *   t_direct FILE [KEY=VALUE...]
 *
 * Blocks of 16 KiB, threshold 64 KiB. Rank r first writes small records (cached, dirty, never
 * synced) into a few blocks of its region, then one large unaligned write over the whole region,
 * then small records again; a large read of its own region (before any sync) and by another rank
 * (once shared: ct_share) must see exactly the last bytes written, whether a block went direct or
 * through the cache (a dirty cached block must never be bypassed, nor written back over newer
 * bytes).
 * Whole blocks went direct: the "direct" statistic is non-zero (so with
 * romio_edonio_direct_threshold=0 this test fails on purpose).
 */
#include "cache_test.h"

enum { BS = 16384, REGION = 40 * BS + 1000 };

static unsigned char expect(long long off, int phase)
{
    return (unsigned char)(off * 13 + off / 777 + phase * 31);
}

static void fill(unsigned char *buf, long long off, long long len, int phase)
{
    for (long long k = 0; k < len; k++)
        buf[k] = expect(off + k, phase);
}

int main(int argc, char **argv)
{
    MPI_Info info;
    MPI_File fh;
    long long base, small_at[3] = {5 * BS + 10, 17 * BS, 30 * BS + 100}, bad = 0, first = -1;
    unsigned char *buf = malloc(REGION), rec[500];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    info = ct_info("romio_edonio_block_size", "16384", "romio_edonio_direct_threshold", "65536",
                   NULL);
    if (ct_rank == 0)
        MPI_File_delete(argv[1], MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    base = 333 + (long long)ct_rank * REGION; /* unaligned: partial blocks at both ends */
    for (int i = 0; i < 3; i++) { /* phase 0: small records, cached and dirty */
        fill(rec, base + small_at[i], sizeof(rec), 0);
        CT_MPI(MPI_File_write_at(fh, base + small_at[i], rec, sizeof(rec), MPI_BYTE,
                                 MPI_STATUS_IGNORE));
    }
    fill(buf, base, REGION, 1); /* phase 1: the whole region, large */
    CT_MPI(MPI_File_write_at(fh, base, buf, REGION, MPI_BYTE, MPI_STATUS_IGNORE));
    fill(rec, base + small_at[1] + 100, sizeof(rec), 2); /* phase 2: one small record again */
    CT_MPI(MPI_File_write_at(fh, base + small_at[1] + 100, rec, sizeof(rec), MPI_BYTE,
                             MPI_STATUS_IGNORE));

    /* A large read of its own region, then (once shared) of the next rank's. */
    for (int pass = 0; pass < 2; pass++) {
        int who = pass == 0 ? ct_rank : (ct_rank + 1) % ct_nprocs;
        long long rbase = 333 + (long long)who * REGION;
        if (pass == 1)
            ct_share(fh);
        CT_MPI(MPI_File_read_at(fh, rbase, buf, REGION, MPI_BYTE, MPI_STATUS_IGNORE));
        bad = 0;
        for (long long k = 0; k < REGION; k++) {
            int phase =
                k >= small_at[1] + 100 && k < small_at[1] + 100 + (long long)sizeof(rec) ? 2 : 1;
            if (buf[k] != expect(rbase + k, phase) && bad++ == 0)
                first = k;
        }
        CT_CHECK(bad == 0, "rank %d's region: %lld wrong bytes, the first at +%lld", who, bad,
                 first);
    }
    int peer = (ct_rank + 1) % ct_nprocs;
    long long pbase = 333 + (long long)peer * REGION;
    CT_CHECK(ct_get_ll(fh, "romio_edonio_stats_direct") > 0, "no block went direct");
    CT_MPI(MPI_File_close(&fh));

    /* And on disk, after close: the same. */
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, info, &fh));
    CT_MPI(MPI_File_read_at(fh, pbase, buf, REGION, MPI_BYTE, MPI_STATUS_IGNORE));
    bad = 0;
    for (long long k = 0; k < REGION; k++) {
        int phase = k >= small_at[1] + 100 && k < small_at[1] + 100 + (long long)sizeof(rec) ? 2 : 1;
        bad += buf[k] != expect(pbase + k, phase);
    }
    CT_CHECK(bad == 0, "after reopening: %lld wrong bytes in rank %d's region", bad, peer);
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
    free(buf);
    return ct_finish();
}
