/*
 * edonio test: how many collective calls an open and a close make, through edonio and through
 * ufs, in one run (files named "ufs:..." and "edonio:...": the prefix picks the driver).
 *
 *   t_collectives DIR [apart]
 *
 * The program counts, on every process, the collective calls that MPI-IO makes into the MPI
 * library while it opens and closes: it defines the PMPI_ and MPI_ names of every collective
 * ROMIO and edonio use and passes each call on to the next definition (dlsym RTLD_NEXT), the
 * host MPI's. An edonio open's exchange stands in for ADIO_Open's agreement (ROMIO patch 0010)
 * and for MPI_File_open's two broadcasts of the shared-file-pointer file's name (patch 0012), so
 * it must make two fewer than ufs's; a close as many as ufs's, except when the processes span
 * nodes ("apart"), where a close that wrote delivers the writes to their owners' nodes
 * (doc/design.md, "What an open and a close cost"). Every process must make as many as every
 * other (else some collective would not match).
 * Counted on a second open of each file, and on edonio's first (it creates its file), compared
 * with ufs's second: ufs opens first, so ROMIO's first open on the communicator (a gather of the
 * aggregators' names) is ufs's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edonio_check.h"

static int counting;
static long calls;

static void *next_fn(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);

    if (f == NULL) {
        fprintf(stderr, "t_collectives: no %s after this program\n", name);
        abort();
    }
    return f;
}

/* A PMPI_ definition of one collective that counts and passes the call on, and an MPI_ one that
 * goes through it (the host's MPI_ name would call its own PMPI_ code, not this one). */
#define COUNTED(name, params, args)                                                                \
    typedef int(*name##_fn) params;                                                                \
    int PMPI_##name params;                                                                        \
    int PMPI_##name params                                                                         \
    {                                                                                              \
        static name##_fn f;                                                                        \
        if (f == NULL)                                                                             \
            f = (name##_fn)next_fn("PMPI_" #name);                                                 \
        calls += counting;                                                                         \
        return f args;                                                                             \
    }                                                                                              \
    int MPI_##name params                                                                          \
    {                                                                                              \
        return PMPI_##name args;                                                                   \
    }

COUNTED(Barrier, (MPI_Comm c), (c))
COUNTED(Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c))
COUNTED(Allreduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
        (s, r, n, t, o, c))
COUNTED(Reduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c),
        (s, r, n, t, o, root, c))
COUNTED(Allgather,
        (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),
        (s, sn, st, r, rn, rt, c))
COUNTED(Gather,
        (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
         MPI_Comm c),
        (s, sn, st, r, rn, rt, root, c))
COUNTED(Alltoall,
        (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),
        (s, sn, st, r, rn, rt, c))
COUNTED(Allgatherv,
        (const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd,
         MPI_Datatype rt, MPI_Comm c),
        (s, sn, st, r, rn, rd, rt, c))
COUNTED(Alltoallv,
        (const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, const int *rn,
         const int *rd, MPI_Datatype rt, MPI_Comm c),
        (s, sn, sd, st, r, rn, rd, rt, c))
COUNTED(Gatherv,
        (const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd,
         MPI_Datatype rt, int root, MPI_Comm c),
        (s, sn, st, r, rn, rd, rt, root, c))
COUNTED(Scatter,
        (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
         MPI_Comm c),
        (s, sn, st, r, rn, rt, root, c))
COUNTED(Reduce_scatter_block,
        (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
        (s, r, n, t, o, c))
COUNTED(Scan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
        (s, r, n, t, o, c))
COUNTED(Exscan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
        (s, r, n, t, o, c))
COUNTED(Ibarrier, (MPI_Comm c, MPI_Request *q), (c, q))
COUNTED(Ibcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *q),
        (b, n, t, root, c, q))
COUNTED(Iallreduce,
        (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q),
        (s, r, n, t, o, c, q))
COUNTED(Iallgather,
        (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c,
         MPI_Request *q),
        (s, sn, st, r, rn, rt, c, q))
COUNTED(Comm_dup, (MPI_Comm c, MPI_Comm *d), (c, d))
COUNTED(Comm_free, (MPI_Comm *c), (c))
COUNTED(Comm_create, (MPI_Comm c, MPI_Group g, MPI_Comm *d), (c, g, d))
COUNTED(Comm_split, (MPI_Comm c, int colour, int key, MPI_Comm *d), (c, colour, key, d))
COUNTED(Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm *d),
        (c, type, key, i, d))

/* The collectives of one open and one close of PATH. */
static void count(const char *path, int amode, long *open_calls, long *close_calls)
{
    MPI_File fh;
    int err;

    calls = 0;
    counting = 1;
    err = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
    *open_calls = calls;
    calls = 0;
    if (err == MPI_SUCCESS) {
        char byte = (char)rank;
        if (!(amode & MPI_MODE_RDONLY))
            MPI_File_write_at(fh, rank, &byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
        calls = 0;
        err = MPI_File_close(&fh);
    }
    *close_calls = calls;
    counting = 0;
    CHECK(err == MPI_SUCCESS, "%s: open or close failed", path);
}

struct counts {
    long create, create_close, again, again_close, read, read_close;
};

/* The first open creates the file; the second opens it again; the third read-only. */
static struct counts count_all(const char *fs, const char *dir)
{
    char path[4096];
    struct counts n;

    snprintf(path, sizeof(path), "%s:%s/coll-%s", fs, dir, fs);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL); /* absent is fine: the first open creates it */
    MPI_Barrier(MPI_COMM_WORLD);
    count(path, MPI_MODE_CREATE | MPI_MODE_RDWR, &n.create, &n.create_close);
    count(path, MPI_MODE_CREATE | MPI_MODE_RDWR, &n.again, &n.again_close);
    count(path, MPI_MODE_RDONLY, &n.read, &n.read_close);
    if (rank == 0)
        printf("%-6s open+create %ld (again %ld), close %ld; open read-only %ld, close %ld\n", fs,
               n.create, n.again, n.again_close, n.read, n.read_close);
    return n;
}

/* Collective, not counted: every process made as many collective calls as every other. */
static void same_everywhere(const char *fs, const struct counts *n)
{
    long mine[6] = {n->create, n->create_close, n->again, n->again_close, n->read, n->read_close};
    long low[6], high[6];

    MPI_Allreduce(mine, low, 6, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, high, 6, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 6; i++)
        CHECK(low[i] == high[i], "%s: count %d differs between processes (%ld to %ld)", fs, i,
              low[i], high[i]);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    int apart = argc > 2 && strcmp(argv[2], "apart") == 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* ufs first: its first open on the communicator pays ROMIO's first-open work for both */
    struct counts u = count_all("ufs", dir), e = count_all("edonio", dir);

    CHECK(e.again <= u.again - 2, "an edonio open that creates makes %ld collectives, ufs's %ld:"
          " expected at least 2 fewer", e.again, u.again);
    CHECK(e.read <= u.read - 2, "an edonio read-only open makes %ld collectives, ufs's %ld:"
          " expected at least 2 fewer", e.read, u.read);
    CHECK(e.create <= u.again - 2, "edonio's first open makes %ld collectives, ufs's second %ld",
          e.create, u.again);
    same_everywhere("ufs", &u);
    same_everywhere("edonio", &e);
    CHECK((apart || e.again_close <= u.again_close) && e.read_close <= u.read_close,
          "an edonio close makes %ld (read-only %ld) collectives, ufs's %ld (%ld)", e.again_close,
          e.read_close, u.again_close, u.read_close);
    int failed = check_verdict();
    MPI_Finalize();
    return failed;
}
