/*
 * edonio: statistics of each open file.
 *
 * Each process counts what it did through each handle: cache hits and misses of the pieces it
 * asked for (and how many were served by this node's copies of other nodes' blocks), evictions and
 * write-backs it caused, the read and write operations it issued to the file system with their
 * bytes, what it delivered to other nodes' owners, and the memory its cache laid out and touched.
 * MPI_File_get_info reports this process's counters
 * (romio_edonio_stats_<name>); at close, EDONIO_STATS=1 prints one line per file with the sums over
 * the processes on standard error, and EDONIO_STATS=/absolute/path appends it to that file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ad_edonio_cache.h"
#include "adioi.h"

#define NSTATS ((int)(sizeof(struct edonio_stats) / sizeof(long long)))

/* The counters in struct order, as they are named in info keys and in the summary line. */
static const char *const names[NSTATS] = {
    "hits",       "misses",        "evictions",        "writebacks",  "remote_hits", "fs_reads",
    "fs_writes",  "fs_read_bytes", "fs_write_bytes",   "coll_rounds", "coll_phases", "direct",
    "delivered",  "mem_mapped",    "mem_touched",      "mem_reused",  "fs_locks",    "barriers",
    "plans_made", "plans_reused",  "exchanges_reused",
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

/* The memory this process's cache uses now, into the counters. */
static void memory(ADIO_File fd)
{
    struct edonio_handle *h = edonio_handle(fd);
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);

    h->stats.mem_mapped = h->stats.mem_touched = h->stats.mem_reused = 0;
    if (c != NULL) {
        ADIOI_EDONIO_Node_memory(c, &h->stats.mem_mapped, &h->stats.mem_touched);
        h->stats.mem_reused = c->reused;
    }
}

/* Does this process's EDONIO_STATS ask for the report at close (set, neither empty nor "0")? */
int ADIOI_EDONIO_Stats_wanted(void)
{
    const char *where = getenv("EDONIO_STATS");

    return where != NULL && where[0] != '\0' && !(where[0] == '0' && where[1] == '\0');
}

/*
 * Collective over the handle's processes when some process's EDONIO_STATS asks for the report:
 * the sums, printed by the lowest such rank where its EDONIO_STATS says. The open's exchange of
 * records told every process which rank that is (h->tag.stats_root), so a launcher that sets it
 * for some processes only makes a report, not a close that waits for the others forever.
 */
void ADIOI_EDONIO_Stats_report(ADIO_File fd)
{
    int root = edonio_handle(fd)->tag.stats_root, rank, nprocs;
    long long total[NSTATS];

    if (root < 0)
        return;
    memory(fd);
    MPI_Comm_rank(fd->comm, &rank);
    MPI_Comm_size(fd->comm, &nprocs);
    MPI_Reduce(&edonio_handle(fd)->stats, total, NSTATS, MPI_LONG_LONG, MPI_SUM, root, fd->comm);
    if (rank == root)
        emit(getenv("EDONIO_STATS"), fd->filename, nprocs, total);
}

/* This process's counters into the file's info, for MPI_File_get_info. */
void ADIOI_EDONIO_Stats_info(ADIO_File fd)
{
    const long long *v = (const long long *)&edonio_handle(fd)->stats;
    char key[64], value[32];

    memory(fd);
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
        edonio_handle(fd) != NULL && edonio_handle(fd)->opened)
        ADIOI_EDONIO_Stats_info(fd);
}
