/*
 * t_killed: a job that dies keeps what ufs keeps (doc/design.md, "What survives a process").
 *
 *   t_killed FILE PATTERN DEATH [KEY=VALUE ...]   the job, on every rank
 *   t_killed FILE PATTERN check NPROCS            after it: one process, no MPI, reads FILE with
 *                                                 POSIX and says how many records are intact
 *
 * Each rank writes its records with independent writes (nothing synced), then all ranks meet in
 * the host's barrier (PMPI_Barrier: edonio's MPI_Barrier would hand the writes over across nodes,
 * and what is tested here is the cache's own keeping), rank 0 creates FILE.ready and every rank
 * records its pid in FILE.pid.RANK; then the job dies:
 *   wait        every rank sleeps; the test kills them (SIGKILL to each, or SIGTERM to the launcher)
 *   segv        rank 1 raises SIGSEGV; the launcher ends the others
 *   abort       rank 0 calls MPI_Abort
 *   abort-coll  rank 0 calls MPI_Abort while the others are in a collective write
 *   sleep       every rank sleeps 3 s outside MPI, then closes the file and finalizes: with
 *               romio_edonio_dirty_expire=1 the test sees the records in the file during the sleep
 *   cycles      the file opened, written and closed 100 times, then MPI_Finalize (nothing may be
 *               left behind)
 * PATTERN:
 *   sparse  record i (1,000 B) at i * 8192: no 64 KiB block is ever full
 *   dense   record i at i * 1000
 *   small   10,000 records of 100 B, record i at i * 100, by rank i mod P: interleaved (across
 *           nodes a process's copy of a block holds more than 128 of its pieces: its map, which
 *           the keeper must walk; 169 of 10,000 records kept when it skipped mapped blocks)
 *   remote  sparse, but each rank writes only records whose block another rank owns
 *   twice   sparse records written with one value, then a collective write, then the same bytes
 *           with another: the file must hold the second
 * Records are written by rank i mod P; record i holds i in its first 4 bytes, then a letter of i
 * and the value.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BLOCK = 65536 };

struct pattern {
    const char *name;
    int n, size;
    long long stride;
};

static const struct pattern patterns[] = {
    {"sparse", 2000, 1000, 8192}, {"dense", 2000, 1000, 1000}, {"small", 10000, 100, 100},
    {"remote", 2000, 1000, 8192}, {"twice", 2000, 1000, 8192},
};

static const struct pattern *pattern_of(const char *name)
{
    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
        if (strcmp(patterns[i].name, name) == 0)
            return &patterns[i];
    fprintf(stderr, "t_killed: unknown pattern %s\n", name);
    exit(2);
}

static void record(char *buf, const struct pattern *p, int i, int value)
{
    memset(buf, 'A' + (i + 7 * value) % 26, (size_t)p->size);
    memcpy(buf, &i, sizeof(i));
}

/* Which rank writes record i (remote: one whose block another rank owns). */
static int writer(const struct pattern *p, int i, int nprocs)
{
    if (strcmp(p->name, "remote") == 0) {
        int owner = (int)((long long)i * p->stride / BLOCK % nprocs);
        return (owner + 1) % nprocs;
    }
    return i % nprocs;
}

static int check(const char *file, const struct pattern *p, int nprocs)
{
    char *got = malloc((size_t)p->size), *want = malloc((size_t)p->size);
    int fd = open(file, O_RDONLY), ok = 0;
    int value = strcmp(p->name, "twice") == 0 ? 2 : 1;

    for (int i = 0; fd >= 0 && i < p->n; i++) {
        record(want, p, i, value);
        if (pread(fd, got, (size_t)p->size, (off_t)(i * p->stride)) == p->size &&
            memcmp(got, want, (size_t)p->size) == 0)
            ok++;
    }
    printf("%d of %d records intact (%d processes)\n", ok, p->n, nprocs);
    printf(ok == p->n ? " No Errors\n" : " Found %d errors\n", p->n - ok);
    free(got);
    free(want);
    return ok == p->n ? 0 : 1;
}

static void write_records(MPI_File fh, const struct pattern *p, int rank, int nprocs, int value)
{
    char *buf = malloc((size_t)p->size);

    for (int i = 0; i < p->n; i++) {
        if (writer(p, i, nprocs) != rank)
            continue;
        record(buf, p, i, value);
        MPI_File_write_at(fh, (MPI_Offset)i * p->stride, buf, p->size, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    free(buf);
}

static void mark(const char *file, const char *what, int rank)
{
    char name[4096];
    FILE *f;

    snprintf(name, sizeof(name), "%s.%s.%d", file, what, rank);
    if ((f = fopen(name, "w")) != NULL) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Info info;
    int rank, nprocs;

    if (argc < 4) {
        fprintf(stderr, "usage: t_killed FILE PATTERN DEATH [KEY=VALUE ...]\n");
        return 2;
    }
    const struct pattern *p = pattern_of(argv[2]);
    const char *death = argv[3];
    if (strcmp(death, "check") == 0)
        return check(argv[1], p, argc > 4 ? atoi(argv[4]) : 0);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Info_create(&info);
    for (int a = 4; a < argc; a++) {
        char *eq = strchr(argv[a], '=');
        if (eq != NULL) {
            *eq = '\0';
            MPI_Info_set(info, argv[a], eq + 1);
        }
    }
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL);
    int cycles = strcmp(death, "cycles") == 0 ? 100 : 1;
    for (int c = 0; c < cycles; c++) {
        MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
        write_records(fh, p, rank, nprocs, 1);
        if (strcmp(p->name, "twice") == 0) {
            /* a collective point: the first values go to their owners (and to the file) */
            char byte = (char)rank;
            MPI_File_write_at_all(fh, (MPI_Offset)p->n * p->stride + rank, &byte, 1, MPI_BYTE,
                                  MPI_STATUS_IGNORE);
            write_records(fh, p, rank, nprocs, 2);
        }
        if (c + 1 < cycles)
            MPI_File_close(&fh);
    }
    PMPI_Barrier(MPI_COMM_WORLD); /* every write returned; not edonio's barrier (above) */
    mark(argv[1], "pid", rank);
    if (rank == 0)
        mark(argv[1], "ready", 0);
    PMPI_Barrier(MPI_COMM_WORLD); /* the markers made before anyone dies */
    if (strcmp(death, "segv") == 0 && rank == 1 % nprocs)
        raise(SIGSEGV);
    if (strcmp(death, "abort") == 0 && rank == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (strcmp(death, "abort-coll") == 0) {
        if (rank == 0) {
            struct timespec t = {0, 300000000}; /* the others are in the collective write now */
            nanosleep(&t, NULL);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        char byte = 1;
        MPI_File_write_at_all(fh, 0, &byte, 0, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    if (strcmp(death, "sleep") == 0)
        sleep(3); /* outside MPI: only the keeper can put the records in the file now */
    else if (strcmp(death, "cycles") != 0)
        sleep(120); /* the test kills the job (or the launcher does) */
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    if (rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
