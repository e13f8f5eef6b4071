/*
 * edonio test: a process's two handles of one file see each other's writes without a sync, as
 * PnetCDF expects (it opens each file on its communicator and again on MPI_COMM_SELF); other
 * processes' writes are seen after sync-barrier-sync, as MPI promises (MPI-3.1 13.6.1), on one
 * node and across nodes.
 *
 *   t_handles FILE
 *
 * Every rank writes its record through the shared handle and reads it back through its own
 * MPI_COMM_SELF handle, then rewrites its first half through that handle and reads it through the
 * shared one (no sync: the same process). After sync-barrier-sync it reads its neighbour's record
 * through each handle. Then the MPI_COMM_SELF handle is closed first (as PnetCDF does) and the
 * shared one last, and the file on disk holds every write.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { REC = 100000 };

static int errors;

static void expect(const char *what, const unsigned char *buf, unsigned char value, int n)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != value) {
            fprintf(stderr, "%s: byte %d is %d, expected %d\n", what, i, buf[i], value);
            errors++;
            return;
        }
}

int main(int argc, char **argv)
{
    static unsigned char buf[REC];
    int rank, nprocs, peer, total;
    MPI_File all, self;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    peer = (rank + 1) % nprocs;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &all);
    memset(buf, 'a' + rank, REC);
    MPI_File_write_at(all, (MPI_Offset)rank * REC, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_RDWR, MPI_INFO_NULL, &self);
    MPI_File_read_at(self, (MPI_Offset)rank * REC, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    expect("own record through the second handle", buf, 'a' + rank, REC);
    /* Each rank rewrites the first half of its own record through its second handle. */
    memset(buf, 'A' + rank, REC / 2);
    MPI_File_write_at(self, (MPI_Offset)rank * REC, buf, REC / 2, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_read_at(all, (MPI_Offset)rank * REC, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    expect("own rewrite through the first handle", buf, 'A' + rank, REC / 2);
    expect("own rest through the first handle", buf + REC / 2, 'a' + rank, REC / 2);
    /* Other processes' writes: sync-barrier-sync. */
    MPI_File_sync(self);
    MPI_File_sync(all);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(all);
    MPI_File_sync(self);
    MPI_File_read_at(all, (MPI_Offset)peer * REC, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    expect("neighbour's rewrite through the first handle", buf, 'A' + peer, REC / 2);
    expect("neighbour's rest through the first handle", buf + REC / 2, 'a' + peer, REC / 2);
    MPI_File_read_at(self, (MPI_Offset)peer * REC, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    expect("neighbour's rewrite through the second handle", buf, 'A' + peer, REC / 2);
    expect("neighbour's rest through the second handle", buf + REC / 2, 'a' + peer, REC / 2);
    MPI_File_close(&self);
    MPI_File_close(&all);

    MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, &self);
    MPI_File_read_at(self, (MPI_Offset)peer * REC, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    expect("after close, first half", buf, 'A' + peer, REC / 2);
    expect("after close, second half", buf + REC / 2, 'a' + peer, REC / 2);
    MPI_File_close(&self);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return total != 0;
}
