/*
 * edonio cache test: a sparse file with data past 5 GiB (64-bit offsets).
 *
 *   t_sparse FILE [KEY=VALUE...]
 *
 * Every rank writes small records at 5 GiB + k (some across a block boundary) and one across the
 * 4 GiB boundary is written by rank 0; everyone reads every record back and the holes around them
 * (zeros), and checks MPI_File_get_size; then again after close and reopen (read-only). The file
 * is deleted at the end (it is sparse on disk, so all this is cheap).
 */
#include "cache_test.h"

#include <sys/stat.h>

#define GIB (1024LL * 1024 * 1024)
enum { NREC = 4, RECLEN = 100, STRIDE = 70001 };

/* Record k of rank r, at 5 GiB + (k P + r) * STRIDE: neighbours in the file come from different
 * ranks, and with 64 KiB blocks some records cross a block boundary. */
static long long rec_off(int k, int r)
{
    return 5 * GIB + ((long long)k * ct_nprocs + r) * STRIDE;
}

static void fill(unsigned char *buf, long long off, long long len)
{
    for (long long i = 0; i < len; i++)
        buf[i] = ct_pattern(off + i, 6);
}

static void check(MPI_File fh, long long end, const char *what)
{
    unsigned char buf[STRIDE], want[STRIDE];
    char where[160];

    ct_expect_size(fh, end, what);
    /* Every record with the holes after it, up to the next record. */
    for (int k = 0; k < NREC; k++) {
        for (int r = 0; r < ct_nprocs; r++) {
            long long off = rec_off(k, r);
            long long len = off + STRIDE <= end ? STRIDE : end - off;
            memset(want, 0, sizeof(want));
            fill(want, off, RECLEN);
            memset(buf, 0xee, sizeof(buf));
            snprintf(where, sizeof(where), "%s, record %d of rank %d at %lld", what, k, r, off);
            ct_read_at(fh, off, buf, STRIDE, len, where);
            ct_compare(where, buf, want, off, len);
        }
    }
    /* The hole just before 5 GiB, and the record across 4 GiB with its surroundings. */
    memset(want, 0, sizeof(want));
    memset(buf, 0xee, 4096);
    snprintf(where, sizeof(where), "%s, the hole before 5 GiB", what);
    ct_read_at(fh, 5 * GIB - 4096, buf, 4096, 4096, where);
    ct_compare(where, buf, want, 5 * GIB - 4096, 4096);
    fill(want + 1000, 4 * GIB - 50, RECLEN);
    memset(buf, 0xee, 3000);
    snprintf(where, sizeof(where), "%s, the record across 4 GiB", what);
    ct_read_at(fh, 4 * GIB - 1050, buf, 3000, 3000, where);
    ct_compare(where, buf, want, 4 * GIB - 1050, 3000);
}

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Info info;
    unsigned char rec[RECLEN];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    const char *filename = argv[1];
    long long end = rec_off(NREC - 1, ct_nprocs - 1) + RECLEN;

    ct_fresh(filename);
    info = ct_info(NULL);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    for (int k = 0; k < NREC; k++) {
        fill(rec, rec_off(k, ct_rank), RECLEN);
        ct_write_at(fh, rec_off(k, ct_rank), rec, RECLEN, "record past 5 GiB");
    }
    if (ct_rank == 0) {
        fill(rec, 4 * GIB - 50, RECLEN);
        ct_write_at(fh, 4 * GIB - 50, rec, RECLEN, "record across 4 GiB");
    }
    ct_share(fh);
    check(fh, end, "written");
    MPI_Barrier(MPI_COMM_WORLD);
    ct_sync(fh);
    check(fh, end, "after sync");
    CT_MPI(MPI_File_close(&fh));

    if (ct_rank == 0) {
        struct stat st;
        CT_CHECK(stat(filename, &st) == 0 && st.st_size == end,
                 "the file on disk has %lld bytes, expected %lld", (long long)st.st_size, end);
        printf("file of %lld bytes uses %lld bytes on disk\n", (long long)st.st_size,
               (long long)st.st_blocks * 512);
    }
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, info, &fh));
    check(fh, end, "reopened read-only");
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);

    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank == 0) {
        struct stat st;
        CT_MPI(MPI_File_delete(filename, MPI_INFO_NULL));
        CT_CHECK(stat(filename, &st) != 0, "%s is still there after MPI_File_delete", filename);
    }
    return ct_finish();
}
