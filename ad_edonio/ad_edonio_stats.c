/*
 * edonio: per-file statistics, summed over the file's processes at close.
 *
 * EDONIO_STATS=1 prints one line per file on standard error; EDONIO_STATS=/absolute/path appends
 * the line to that file instead (test suites whose output is compared use that).
 */
#include <stdio.h>
#include <stdlib.h>

#include "ad_edonio.h"
#include "adioi.h"

enum { NSTATS = sizeof(struct edonio_stats) / sizeof(long long) };

static void print_line(FILE *out, const char *filename, int nprocs, const struct edonio_stats *s)
{
    fprintf(out,
            "edonio: file=%s nprocs=%d fs_reads=%lld fs_read_bytes=%lld fs_writes=%lld "
            "fs_write_bytes=%lld\n",
            filename, nprocs, s->fs_reads, s->fs_read_bytes, s->fs_writes, s->fs_write_bytes);
}

static void emit(const char *where, const char *filename, int nprocs, const struct edonio_stats *s)
{
    FILE *out = stderr;

    if (where[0] == '/') {
        out = fopen(where, "a");
        if (out == NULL) {
            fprintf(stderr, "edonio: cannot append statistics to %s\n", where);
            return;
        }
    }
    print_line(out, filename, nprocs, s);
    if (out != stderr)
        fclose(out);
}

/* Collective over fd->comm. */
void ADIOI_EDONIO_Stats_report(ADIO_File fd)
{
    struct edonio_file *ef = edonio_state(fd);
    const char *where = getenv("EDONIO_STATS");
    struct edonio_stats total;

    if (where == NULL || where[0] == '\0' || (where[0] == '0' && where[1] == '\0'))
        return;
    MPI_Reduce(&ef->stats, &total, NSTATS, MPI_LONG_LONG, MPI_SUM, 0, fd->comm);
    if (ef->rank == 0)
        emit(where, fd->filename, ef->nprocs, &total);
}
