/*
 * edonio cache test: one file's cache leaves nothing behind for the next file the same processes
 * open (the memory of a closed cache is never seen again).
 *
 *   t_reuse FILE [KEY=VALUE...]
 *
 * Files A and B (FILE.a, FILE.b) are opened one after the other by the same processes, so B's open
 * comes right after A's close. Every rank writes its own pattern into A (blocks of 4 KiB, a
 * few per process, none synced), closes it, opens B: B must be empty and read as nothing, and
 * none of A's blocks may be found in B's cache (no hits before B is written). Then B gets another
 * pattern, and both files are read back after reopening. A third open with another cache size
 * (another shape) must still see B's data.
 */
#include "cache_test.h"

enum { BS = 4096, PER_RANK = 6 };

static char name_a[4096], name_b[4096];

static unsigned char byte_of(int file, long long off)
{
    return (unsigned char)(file * 101 + off * 7 + off / BS);
}

static MPI_File open_file(const char *name, int amode, const char *cache_size)
{
    MPI_Info info = ct_info("romio_edonio_block_size", "4096", "romio_edonio_cache_size",
                            cache_size, NULL);
    MPI_File fh = MPI_FILE_NULL;

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, name, amode, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

/* Every rank writes PER_RANK blocks, rank-interleaved: block b by rank b mod P (owner b+1). */
static void write_pattern(MPI_File fh, int file)
{
    unsigned char buf[BS];

    for (int i = 0; i < PER_RANK; i++) {
        long long b = (long long)i * ct_nprocs + ct_rank, off = b * BS;
        for (int k = 0; k < BS; k++)
            buf[k] = byte_of(file, off + k);
        CT_MPI(MPI_File_write_at(fh, off + (ct_nprocs > 1 ? BS : 0), buf, BS, MPI_BYTE,
                                 MPI_STATUS_IGNORE));
    }
}

static void check_pattern(MPI_File fh, int file)
{
    long long len = (long long)PER_RANK * ct_nprocs * BS, bad = 0, first = -1;
    long long shift = ct_nprocs > 1 ? BS : 0;
    unsigned char *buf = malloc((size_t)len);

    CT_MPI(MPI_File_read_at_all(fh, shift, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
    for (long long off = 0; off < len; off++)
        if (buf[off] != byte_of(file, off) && bad++ == 0)
            first = off;
    CT_CHECK(bad == 0, "file %c: %lld wrong bytes, the first at %lld", 'A' + file, bad, first);
    free(buf);
}

int main(int argc, char **argv)
{
    unsigned char probe[BS];
    MPI_Offset size = -1;
    MPI_Status st;
    int got = -1;
    MPI_File fh;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    snprintf(name_a, sizeof(name_a), "%s.a", argv[1]);
    snprintf(name_b, sizeof(name_b), "%s.b", argv[1]);
    if (ct_rank == 0) {
        MPI_File_delete(name_a, MPI_INFO_NULL);
        MPI_File_delete(name_b, MPI_INFO_NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    fh = open_file(name_a, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    write_pattern(fh, 0);
    CT_MPI(MPI_File_close(&fh));

    /* B: empty, and nothing of A in its cache. */
    fh = open_file(name_b, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    CT_MPI(MPI_File_get_size(fh, &size));
    CT_CHECK(size == 0, "new file B has size %lld", (long long)size);
    CT_MPI(MPI_File_read_at(fh, (MPI_Offset)ct_rank * BS, probe, BS, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &got);
    CT_CHECK(got == 0, "reading empty file B gave %d bytes", got);
    MPI_Barrier(MPI_COMM_WORLD); /* nobody writes B before everyone has seen it empty */
    write_pattern(fh, 1);
    CT_CHECK(ct_get_ll(fh, "romio_edonio_stats_hits") == 0,
             "B's cache found blocks before any was written to B (A's?)");
    CT_MPI(MPI_File_close(&fh));

    fh = open_file(name_a, MPI_MODE_RDWR, "1048576");
    check_pattern(fh, 0);
    CT_MPI(MPI_File_close(&fh));
    fh = open_file(name_b, MPI_MODE_RDWR, "2097152"); /* another shape: a new window */
    check_pattern(fh, 1);
    CT_MPI(MPI_File_close(&fh));
    return ct_finish();
}
