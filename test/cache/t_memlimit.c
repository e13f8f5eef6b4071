/*
 * edonio cache test: the node's memory limit bounds the caches, learnt when a segment first fills
 * (4 MiB), not at open.
 *
 *   t_memlimit FILE [KEY=VALUE...]
 *
 * Blocks of 1 MiB, romio_edonio_cache_size 256 MiB, every write cached (write_through 0,
 * direct_threshold 0, read_fill block). Each rank writes NB whole blocks of its own (block b is
 * rank b mod P's), and its statistics must say its cache held what the node's memory allows, no
 * more and no less: with EDONIO_TEST_MEMORY_LIMIT=L (standing for a cgroup's limit), L / (2 x the
 * node's processes) for each own segment, the node's processes being P, or EDONIO_TEST_NLOCAL
 * where the run makes each process a node of its own (run.sh gives limits that hold all NB, 48,
 * and 2, below the first limit of 4; without a limit, this machine's memory, which must hold all
 * NB). So held = min(NB, that), evictions and write-backs NB - held, and the memory the process
 * touched at most max(held, 4) blocks and a little. Every byte is read back after close and open,
 * where MPI_File_get_info reports that bound as romio_edonio_cache_size.
 * Seen to fail: with the limit never raised past its first 4 blocks ("evictions 60, expected 0"),
 * with the node's memory limit never applied ("evictions 0, expected 16"), with a limit below the
 * first one never lowering it ("evictions 60, expected 62"), and with an open that adopts the
 * memory kept at close reporting the bound it had before the limit was read ("reopened:
 * romio_edonio_cache_size 268435456, expected 50331648").
 */
#include "cache_test.h"

enum { BS = 1 << 20, NB = 64 };

static long long env_ll(const char *name, long long otherwise)
{
    const char *v = getenv(name);

    return v != NULL && *v != '\0' ? atoll(v) : otherwise;
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    const char *filename = argv[1];
    MPI_File fh;

    ct_fresh(filename);
    MPI_Info info =
        ct_info("romio_edonio_block_size", "1048576", /* BS */
                "romio_edonio_cache_size", "268435456", "romio_edonio_write_through", "0",
                "romio_edonio_read_fill", "block", "romio_edonio_direct_threshold", "0", NULL);
    long long limit = env_ll("EDONIO_TEST_MEMORY_LIMIT", 0);
    long long nlocal = env_ll("EDONIO_TEST_NLOCAL", ct_nprocs);
    long long held = limit > 0 ? limit / (2 * nlocal) / BS : NB;
    held = held < NB ? held : NB;

    long long size = (long long)NB * ct_nprocs * BS;
    unsigned char *want = malloc((size_t)size), *buf = malloc(BS);
    for (long long i = 0; i < size; i++)
        want[i] = ct_pattern(i, 11);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    for (long long k = 0; k < NB; k++) {
        long long off = (k * ct_nprocs + ct_rank) * (long long)BS; /* a block of this rank's */
        ct_write_at(fh, off, want + off, BS, "block");
    }
    long long evictions = ct_stat(fh, "evictions"), writebacks = ct_stat(fh, "writebacks");
    long long touched = ct_stat(fh, "mem_touched");
    printf("rank %d: %d blocks written, %lld held expected: evictions %lld, write-backs %lld, "
           "%lld MiB touched\n",
           ct_rank, NB, held, evictions, writebacks, touched >> 20);
    CT_CHECK(evictions == NB - held, "evictions %lld, expected %lld", evictions, NB - held);
    CT_CHECK(writebacks == NB - held, "write-backs %lld, expected %lld", writebacks, NB - held);
    /* the slots' memory (the first limit's 4 blocks at least), and the slot table and index */
    long long slots = held > 4 ? held : 4;
    CT_CHECK(touched <= (slots + 1) * BS, "%lld bytes of memory touched for %lld blocks", touched,
             held);
    CT_MPI(MPI_File_close(&fh));

    /* The next open reports what the limit allows (from memory kept since, or new memory). */
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    long long reported = ct_get_ll(fh, "romio_edonio_cache_size");
    long long ceiling = limit > 0 ? limit / (2 * nlocal) : 268435456;
    ceiling = ceiling < 268435456 ? ceiling : 268435456;
    CT_CHECK(reported == ceiling, "reopened: romio_edonio_cache_size %lld, expected %lld", reported,
             ceiling);
    for (long long b = ct_rank; b < NB * ct_nprocs; b += ct_nprocs) {
        long long off = b * BS;
        ct_read_at(fh, off, buf, BS, BS, "read back");
        ct_compare("read back", buf, want + off, off, BS);
    }
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
    free(buf);
    free(want);
    return ct_finish();
}
