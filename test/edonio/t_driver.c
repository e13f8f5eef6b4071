/*
 * edonio test: which ROMIO driver served a file, and does plain I/O through it work?
 *
 *   t_driver FILE edonio|ufs
 *
 * Writes a pattern (each rank its own block, independently), reads the whole file back on every
 * rank, checks the byte counts in the statuses, and checks MPI_File_get_info: romio_edonio_version
 * must be there exactly when the expected driver is edonio, and romio_edonio_romio_version must
 * name the ROMIO built in.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK = 100000 };

static int check_info(MPI_File fh, int want_edonio)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0, errors = 0;

    MPI_File_get_info(fh, &info);
    MPI_Info_get(info, "romio_edonio_version", MPI_MAX_INFO_VAL, value, &flag);
    if (flag != want_edonio) {
        fprintf(stderr, "romio_edonio_version is %s, expected the %s driver\n",
                flag ? value : "absent", want_edonio ? "edonio" : "ufs");
        errors++;
    }
    if (want_edonio) {
        MPI_Info_get(info, "romio_edonio_romio_version", MPI_MAX_INFO_VAL, value, &flag);
        if (!flag || strlen(value) == 0) {
            fprintf(stderr, "romio_edonio_romio_version is missing\n");
            errors++;
        }
    }
    MPI_Info_free(&info);
    return errors;
}

static unsigned char pattern(long long i)
{
    return (unsigned char)(i * 7 + (i >> 8));
}

static int write_read(MPI_File fh, int rank, int nprocs)
{
    unsigned char *buf = malloc((size_t)BLOCK * nprocs);
    int errors = 0;

    for (long long i = 0; i < BLOCK; i++)
        buf[i] = pattern((long long)rank * BLOCK + i);
    MPI_Status status;
    int count = -1;

    MPI_File_write_at(fh, (MPI_Offset)rank * BLOCK, buf, BLOCK, MPI_BYTE, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (count != BLOCK && errors++ < 5)
        fprintf(stderr, "rank %d: write status counts %d bytes, expected %d\n", rank, count, BLOCK);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    memset(buf, 0, (size_t)BLOCK * nprocs);
    MPI_File_read_at(fh, 0, buf, BLOCK * nprocs, MPI_BYTE, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (count != BLOCK * nprocs && errors++ < 5)
        fprintf(stderr, "rank %d: read status counts %d bytes, expected %d\n", rank, count,
                BLOCK * nprocs);
    for (long long i = 0; i < (long long)BLOCK * nprocs; i++)
        if (buf[i] != pattern(i) && errors++ < 5)
            fprintf(stderr, "rank %d: byte %lld is %d, expected %d\n", rank, i, buf[i], pattern(i));
    free(buf);
    return errors;
}

int main(int argc, char **argv)
{
    int rank, nprocs, errors = 0, total;
    MPI_File fh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 3) {
        fprintf(stderr, "usage: t_driver FILE edonio|ufs\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) != MPI_SUCCESS) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    errors += check_info(fh, strcmp(argv[2], "edonio") == 0);
    errors += write_read(fh, rank, nprocs);
    MPI_File_close(&fh);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return total != 0;
}
