/*
 * edonio test: a write-back that fails keeps the data, and a later sync succeeds.
 *
 *   t_nospace FILE BALLAST
 *
 * FILE is on a small file system that BALLAST nearly fills. Every rank writes its 256 KiB (the
 * writes succeed: they land in the cache, romio_edonio_write_through=0); MPI_File_sync must then fail on every rank with
 * MPI_ERR_NO_SPACE and a message naming the file. Rank 0 deletes BALLAST, the next sync succeeds,
 * and every byte reads back right, after a close and reopen too.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PART = 256 * 1024 };

static int errors;

static unsigned char pattern(long long i)
{
    return (unsigned char)(i * 5 + (i >> 10));
}

static int check_file(MPI_File fh, int rank)
{
    unsigned char *buf = malloc(PART);
    int bad = 0;

    MPI_File_read_at(fh, (MPI_Offset)rank * PART, buf, PART, MPI_BYTE, MPI_STATUS_IGNORE);
    for (long long i = 0; i < PART; i++)
        bad += buf[i] != pattern((long long)rank * PART + i);
    free(buf);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, cls, err, total, len;
    char msg[MPI_MAX_ERROR_STRING];
    unsigned char *buf = malloc(PART);
    MPI_File fh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        fprintf(stderr, "usage: t_nospace FILE BALLAST\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long long i = 0; i < PART; i++)
        buf[i] = pattern((long long)rank * PART + i);
    /* The cache keeps the writes (on this local file system auto would pass 64 KiB pieces
     * straight through, and the write itself would get the error, as with ufs). */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_edonio_write_through", "0");
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    err = MPI_File_write_at(fh, (MPI_Offset)rank * PART, buf, PART, MPI_BYTE, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: the write into the cache failed\n", rank);
        errors++;
    }
    err = MPI_File_sync(fh);
    MPI_Error_class(err, &cls);
    MPI_Error_string(err, msg, &len);
    if (cls != MPI_ERR_NO_SPACE) {
        fprintf(stderr, "rank %d: sync on a full file system: class %d (%s)\n", rank, cls, msg);
        errors++;
    } else if (strstr(msg, argv[1]) == NULL) {
        fprintf(stderr, "rank %d: message does not name the file: %s\n", rank, msg);
        errors++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(argv[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    err = MPI_File_sync(fh);
    if (err != MPI_SUCCESS) {
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "rank %d: the second sync failed: %s\n", rank, msg);
        errors++;
    }
    errors += check_file(fh, rank);
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    errors += check_file(fh, rank);
    MPI_File_close(&fh);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    free(buf);
    MPI_Finalize();
    return total != 0;
}
