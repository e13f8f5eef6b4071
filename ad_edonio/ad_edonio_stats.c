/*
 * edonio: statistics of each open file.
 *
 * Each process counts what it did: cache hits and misses of the pieces it asked for, evictions and
 * write-backs it caused, read-only cache hits, and the read and write operations it issued to the
 * file system with their bytes. MPI_File_get_info reports this process's counters
 * (romio_edonio_stats_<name>); at close, EDONIO_STATS=1 prints one line per file with the sums over
 * the processes on standard error, and EDONIO_STATS=/absolute/path appends it to that file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ad_edonio.h"
#include "adioi.h"

#define NSTATS ((int)(sizeof(struct edonio_stats) / sizeof(long long)))

/* The counters in struct order, as they are named in info keys and in the summary line. */
static const char *const names[NSTATS] = {
    "hits",     "misses",    "evictions",     "writebacks",     "ro_hits",
    "fs_reads", "fs_writes", "fs_read_bytes", "fs_write_bytes", "coll_rounds",
    "coll_phases", "direct",
};

static void print_line(FILE *out, const char *filename, int nprocs, const long long *v)
{
    fprintf(out, "edonio: file=%s nprocs=%d", filename, nprocs);
    for (int i = 0; i < NSTATS; i++)
        fprintf(out, " %s=%lld", names[i], v[i]);
    fprintf(out, "\n");
}

static void emit(const char *where, const char *filename, int nprocs, const long long *v)
{
    FILE *out = stderr;

    if (where[0] == '/') {
        out = fopen(where, "a");
        if (out == NULL) {
            fprintf(stderr, "edonio: cannot append statistics to %s\n", where);
            return;
        }
    }
    print_line(out, filename, nprocs, v);
    if (out != stderr)
        fclose(out);
}

/* Collective over the file's processes. Rank 0 decides whether to print. */
void ADIOI_EDONIO_Stats_report(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);
    const char *where = getenv("EDONIO_STATS");
    long long total[NSTATS];
    int on = where != NULL && where[0] != '\0' && !(where[0] == '0' && where[1] == '\0');

    MPI_Bcast(&on, 1, MPI_INT, 0, ef->comm);
    if (!on)
        return;
    int rank, nprocs;

    MPI_Comm_rank(ef->comm, &rank); /* in this handle's communicator (an alias has the primary's) */
    MPI_Comm_size(ef->comm, &nprocs);
    MPI_Reduce(&ef->stats, total, NSTATS, MPI_LONG_LONG, MPI_SUM, 0, ef->comm);
    if (rank == 0)
        emit(where, fd->filename, nprocs, total);
}

/* This process's counters into the file's info, for MPI_File_get_info. */
void ADIOI_EDONIO_Stats_info(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);
    const long long *v = (const long long *)&ef->stats;
    char key[64], value[32];

    for (int i = 0; i < NSTATS; i++) {
        snprintf(key, sizeof(key), "romio_edonio_stats_%s", names[i]);
        snprintf(value, sizeof(value), "%lld", v[i]);
        ADIOI_Info_set(fd->info, key, value);
    }
}

/* Called by MPI_File_get_info (mpiio-glue) before ROMIO copies the info: refresh the counters. */
void ADIOI_EDONIO_Refresh_info(MPI_File fh)
{
    ADIO_File fd = MPIO_File_resolve(fh);

    if (fd != NULL && fd->cookie == ADIOI_FILE_COOKIE && fd->fns == &ADIO_EDONIO_operations &&
        edonio_state(fd) != NULL && edonio_state(fd)->opened)
        ADIOI_EDONIO_Stats_info(fd);
}
