/*
 * edonio test: the shared file pointer of a file opened by all processes, named alike and named
 * differently (a hard link: MPI lets processes name one file by different names).
 *
 *   t_shfp DIR
 *
 * Every process appends REC bytes of its rank NREC times with MPI_File_write_shared, then the file
 * must hold nprocs * NREC records, each of one rank's bytes, NREC of each rank: one pointer for
 * all. edonio names the pointer's hidden file on every process alone from rank 0's tag in the
 * open's exchange (ROMIO patch 0012) when every process names the file by the same last
 * component; with a link, ROMIO broadcasts rank 0's name. Processes with different pointers
 * would write over each other's records (a file of NREC records).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edonio_check.h"

enum { REC = 100, NREC = 3 };

static int nprocs;

static void append_and_check(const char *dir, const char *what, int linked)
{
    char a[4096], b[4096], buf[REC];
    int counts[64] = {0};
    MPI_File fh;
    MPI_Offset size = 0;

    snprintf(a, sizeof(a), "%s/shfp-%s", dir, what);
    snprintf(b, sizeof(b), "%s/shfp-%s-link", dir, what);
    if (rank == 0) {
        unlink(a);
        unlink(b);
        FILE *f = fopen(a, "w");
        if (f != NULL)
            fclose(f);
        if (linked && link(a, b) != 0)
            perror("link");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_open(MPI_COMM_WORLD, linked && rank % 2 ? b : a, MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "%s: open failed", what);
    memset(buf, 'A' + rank, sizeof(buf));
    for (int i = 0; i < NREC; i++)
        CHECK(MPI_File_write_shared(fh, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
              "%s: write_shared failed", what);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_get_size(fh, &size);
    CHECK(size == (MPI_Offset)nprocs * NREC * REC, "%s: the file has %lld bytes, expected %d", what,
          (long long)size, nprocs * NREC * REC);
    if (rank == 0) {
        for (MPI_Offset off = 0; off + REC <= size; off += REC) {
            MPI_File_read_at(fh, off, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE);
            int r = buf[0] - 'A', whole = 1;
            for (int k = 1; k < REC; k++)
                whole &= buf[k] == buf[0];
            CHECK(whole && r >= 0 && r < nprocs, "%s: record at %lld is mixed", what,
                  (long long)off);
            if (whole && r >= 0 && r < nprocs && r < 64)
                counts[r]++;
        }
        for (int r = 0; r < nprocs && r < 64; r++)
            CHECK(counts[r] == NREC, "%s: rank %d has %d records, expected %d", what, r, counts[r],
                  NREC);
    }
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    append_and_check(dir, "same", 0);
    append_and_check(dir, "linked", 1);
    int failed = check_verdict();
    MPI_Finalize();
    return failed;
}
