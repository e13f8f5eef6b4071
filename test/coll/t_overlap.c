/*
 * edonio collective test: concurrent overlapping collective writes in MPI atomic mode, the
 * column-wise partitioning of seed 003 (Liao et al., ICPP 2003, figure 4) and its row-wise variant.
 *
 *   t_overlap FILE [KEY=VALUE...] [test_OPTION=VALUE...]
 *
 * A 2-D array of M rows x N bytes, stored row-major. Rank i's part is the i-th of P column blocks
 * (test_layout=col) or row blocks (test_layout=row), widened by R/2 columns (rows) towards each
 * neighbour, so consecutive ranks overlap in R columns (rows). Each rank sets its part as the file
 * view (MPI_Type_create_subarray), MPI_File_set_atomicity(fh, test_atomic), and writes it with
 * MPI_File_write_all, every byte its own rank-specific value. After close and a barrier, rank 0
 * reads the file with POSIX read (not through MPI-IO) and checks:
 *   - every byte written by one rank only holds that rank's byte;
 *   - every overlapped region (all M rows x R columns, or R rows x N) holds the bytes of exactly
 *     one of the two ranks that wrote it, never a mix (MPI atomicity: the region is one
 *     noncontiguous piece of each rank's single write call);
 *   - test_expect=highest: that rank is the higher one (romio_edonio_atomicity=rank_order).
 * Options (defaults): test_rows=256 test_cols=1024 test_overlap=8 (R; 0: disjoint views)
 * test_layout=col test_mem=contig|strided (strided: the memory buffer has a gap after every
 * row piece, a vector memory type) test_atomic=1 test_expect=any|highest test_iters=2 (files
 * written one after the other, each checked, with other byte values) test_api=all|nb|at
 * (MPI_File_write_all, MPI_File_iwrite_all, MPI_File_write_at_all).
 */
#include "coll_test.h"

static long long M, N, R;
static int layout_row;

/* Rank i's columns (rows for test_layout=row): [*lo, *hi). */
static void part(int i, int p, long long *lo, long long *hi)
{
    long long n = layout_row ? M : N, w = n / p;

    *lo = i * w - (i > 0 ? R / 2 : 0);
    *hi = i == p - 1 ? n : (i + 1) * w + (R - R / 2);
}

static unsigned char byte_of(int rank, int iter)
{
    return (unsigned char)(1 + (iter * 17 + rank * 29) % 255);
}

/* One write of the whole array by every rank; returns the bytes this rank wrote. */
static void write_file(const char *name, int iter, int atomic, int strided)
{
    long long lo, hi;
    int sizes[2] = {(int)M, (int)N}, sub[2], starts[2];
    MPI_Datatype filetype, memtype;
    MPI_Info info = ct_info(NULL);
    MPI_File fh;
    MPI_Status status;
    unsigned char *buf;
    long long nrows, width, stride, nbytes;
    int flag = -1, count = -1;

    part(ct_rank, ct_nprocs, &lo, &hi);
    if (layout_row) {
        sub[0] = (int)(hi - lo), sub[1] = (int)N, starts[0] = (int)lo, starts[1] = 0;
    } else {
        sub[0] = (int)M, sub[1] = (int)(hi - lo), starts[0] = 0, starts[1] = (int)lo;
    }
    nrows = sub[0];
    width = sub[1];
    nbytes = nrows * width;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_BYTE, &filetype);
    MPI_Type_commit(&filetype);

    /* Memory: contiguous, or one row piece every width + 7 bytes (the gaps hold 0xff, a value
     * no rank writes, so a gap byte that reaches the file is found). */
    stride = strided ? width + 7 : width;
    buf = co_malloc((size_t)(nrows * stride));
    memset(buf, 0xff, (size_t)(nrows * stride));
    for (long long r = 0; r < nrows; r++)
        memset(buf + r * stride, byte_of(ct_rank, iter), (size_t)width);
    MPI_Type_vector((int)nrows, (int)width, (int)stride, MPI_BYTE, &memtype);
    MPI_Type_commit(&memtype);

    fh = co_open(name, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, "open for writing");
    if (fh != MPI_FILE_NULL) {
        CT_MPI(MPI_File_set_atomicity(fh, atomic));
        MPI_File_get_atomicity(fh, &flag);
        CT_CHECK(flag == atomic, "MPI_File_get_atomicity is %d after set_atomicity(%d)", flag,
                 atomic);
        CT_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, filetype, "native", info));
        const char *api = ct_opt("api", "all");
        void *b = buf;
        int n = strided ? 1 : (int)nbytes;
        MPI_Datatype t = strided ? memtype : MPI_BYTE;
        if (strcmp(api, "nb") == 0) {
            MPI_Request req;
            CT_MPI(MPI_File_iwrite_all(fh, b, n, t, &req));
            CT_MPI(MPI_Wait(&req, &status));
        } else if (strcmp(api, "at") == 0) {
            CT_MPI(MPI_File_write_at_all(fh, 0, b, n, t, &status));
        } else {
            CT_MPI(MPI_File_write_all(fh, b, n, t, &status));
        }
        MPI_Get_count(&status, MPI_BYTE, &count);
        CT_CHECK(count == nbytes, "write_all wrote %d bytes, expected %lld", count, nbytes);
        CT_MPI(MPI_File_close(&fh));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&memtype);
    MPI_Type_free(&filetype);
    MPI_Info_free(&info);
    free(buf);
}

/* Rank 0: the checker, on the file as POSIX read sees it. */
static void check_file(const char *name, int iter, int expect_highest)
{
    long long size = M * N, wrong = 0, torn = 0;
    unsigned char *f = co_malloc((size_t)size);
    int p = ct_nprocs;

    CT_CHECK(co_file_size(name) == size, "iteration %d: file size %lld, expected %lld", iter,
             co_file_size(name), size);
    if (co_pread(name, 0, f, size) < 0) {
        ct_error("iteration %d: cannot read %s back", iter, name);
        free(f);
        return;
    }
    /* Byte (row, col) is at row * N + col; "pos" is the column (row for layout=row). */
    for (long long row = 0; row < M; row++) {
        for (long long col = 0; col < N; col++) {
            long long pos = layout_row ? row : col, lo, hi;
            int writers = 0, w = -1;
            for (int i = 0; i < p; i++) {
                part(i, p, &lo, &hi);
                if (pos >= lo && pos < hi)
                    writers++, w = i;
            }
            if (writers == 1 && f[row * N + col] != byte_of(w, iter) && wrong++ < 3)
                fprintf(stderr, "iteration %d: byte (%lld, %lld), written by rank %d only, "
                        "is %d, expected %d\n", iter, row, col, w, f[row * N + col],
                        byte_of(w, iter));
            if (writers != 1 && writers != 2)
                ct_error("test bug: byte (%lld, %lld) has %d writers", row, col, writers);
        }
    }
    if (wrong)
        ct_error("iteration %d: %lld bytes written by one rank only are wrong", iter, wrong);

    /* The overlapped region of ranks i and i+1: all from one of them. */
    for (int i = 0; i + 1 < p && R > 0; i++) {
        long long lo, hi, olo, ohi, n[2] = {0, 0}, other = 0, cells;
        part(i + 1, p, &olo, &hi);
        part(i, p, &lo, &ohi);
        cells = (ohi - olo) * (layout_row ? N : M);
        for (long long a = 0; a < (layout_row ? ohi - olo : M); a++) {
            for (long long b = 0; b < (layout_row ? N : ohi - olo); b++) {
                long long off = layout_row ? (olo + a) * N + b : a * N + olo + b;
                if (f[off] == byte_of(i, iter))
                    n[0]++;
                else if (f[off] == byte_of(i + 1, iter))
                    n[1]++;
                else
                    other++;
            }
        }
        if (other || (n[0] && n[1])) {
            torn++;
            ct_error("iteration %d: overlap of ranks %d and %d (%s %lld to %lld, %lld bytes) is "
                     "torn: %lld bytes of rank %d, %lld of rank %d, %lld of neither", iter, i,
                     i + 1, layout_row ? "rows" : "columns", olo, ohi - 1, cells, n[0], i, n[1],
                     i + 1, other);
        } else if (expect_highest && n[0]) {
            ct_error("iteration %d: overlap of ranks %d and %d holds rank %d's bytes, expected "
                     "the higher rank's (rank_order)", iter, i, i + 1, i);
        }
    }
    if (torn)
        fprintf(stderr, "iteration %d: %lld of %d overlapped regions torn\n", iter, torn, p - 1);
    free(f);
}

int main(int argc, char **argv)
{
    const char *name, *mem, *expect;
    int atomic, iters;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_OPTION=VALUE...]");
    name = argv[1];
    M = ct_opt_ll("rows", 256);
    N = ct_opt_ll("cols", 1024);
    R = ct_opt_ll("overlap", 8);
    layout_row = strcmp(ct_opt("layout", "col"), "row") == 0;
    mem = ct_opt("mem", "contig");
    atomic = (int)ct_opt_ll("atomic", 1);
    expect = ct_opt("expect", "any");
    iters = (int)ct_opt_ll("iters", 2);
    if (R >= (layout_row ? M : N) / ct_nprocs && ct_nprocs > 1) {
        if (ct_rank == 0)
            fprintf(stderr, "overlap %lld too large for %d ranks\n", R, ct_nprocs);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int it = 0; it < iters; it++) {
        ct_fresh(name);
        write_file(name, it, atomic, strcmp(mem, "strided") == 0);
        if (ct_rank == 0)
            check_file(name, it, strcmp(expect, "highest") == 0);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    ct_fresh(name);
    return ct_finish();
}
