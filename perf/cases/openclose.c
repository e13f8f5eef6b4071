/*
 * What an open and a close cost, ufs and edonio in turn on the same file (issue 13: the open of a
 * file opened again, where edonio's kept memory serves). Each cycle: open for writing (create),
 * each process writes 1 MiB of its own, close; open read-only, each reads its MiB back, close.
 * The drivers alternate cycle by cycle, through ROMIO's prefixes ("ufs:", "edonio:"), so a slow
 * stretch of the machine falls on both. Prints the medians over the cycles after the first, in
 * microseconds, slowest process, and ufs / edonio.
 *
 *   mpicc -std=c11 -O2 -o openclose perf/cases/openclose.c
 *   LD_PRELOAD=_build/.libs/libedonio.so mpiexec -n 2 ./openclose DIR [CYCLES]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MIB = 1 << 20, PHASES = 3 };
static const char *const phase_names[PHASES] = {"write open", "read open", "read close"};

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now_synced(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime();
}

/* One cycle on path; t: the phases' times, slowest process. */
static void cycle(const char *path, char *buf, int rank, double t[PHASES])
{
    MPI_File fh;
    MPI_Offset at = (MPI_Offset)rank * MIB;
    double t0 = now_synced(), t1, t2;

    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    t[0] = MPI_Wtime() - t0;
    MPI_File_write_at(fh, at, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    t0 = now_synced();
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    t1 = MPI_Wtime();
    MPI_File_read_at(fh, at, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE);
    t2 = MPI_Wtime();
    MPI_File_close(&fh);
    t[1] = t1 - t0;
    t[2] = MPI_Wtime() - t2;
    MPI_Allreduce(MPI_IN_PLACE, t, PHASES, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* The median of phase p of driver d over the cycles after the first. */
static double median(double *t, int d, int p, int cycles)
{
    double *v = t + ((size_t)d * PHASES + (size_t)p) * (size_t)cycles + 1;

    qsort(v, (size_t)cycles - 1, sizeof(*v), by_value);
    return v[(cycles - 1) / 2];
}

int main(int argc, char **argv)
{
    static const char *const drivers[2] = {"ufs", "edonio"};
    char path[2][4200];
    char *buf = malloc(MIB);
    int rank, cycles;
    double *t, ph[PHASES];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: openclose DIR [CYCLES]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    cycles = argc > 2 ? atoi(argv[2]) : 101;
    if (cycles < 2)
        cycles = 2;
    t = calloc((size_t)2 * PHASES * (size_t)cycles, sizeof(*t));
    memset(buf, rank + 1, MIB);
    for (int d = 0; d < 2; d++)
        snprintf(path[d], sizeof(path[d]), "%s:%s/openclose.%s.dat", drivers[d], argv[1],
                 drivers[d]);
    for (int i = 0; i < cycles; i++)
        for (int d = 0; d < 2; d++) {
            cycle(path[d], buf, rank, ph);
            for (int p = 0; p < PHASES; p++)
                t[((size_t)d * PHASES + (size_t)p) * (size_t)cycles + (size_t)i] = ph[p];
        }
    for (int p = 0; rank == 0 && p < PHASES; p++) {
        double u = median(t, 0, p, cycles), e = median(t, 1, p, cycles);
        printf("%-10s  ufs %7.1f us  edonio %7.1f us  ufs/edonio %.2f\n", phase_names[p], u * 1e6,
               e * 1e6, u / e);
    }
    free(t);
    free(buf);
    MPI_Finalize();
    return 0;
}
