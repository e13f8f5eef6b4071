/*
 * edonio test: how many collective calls an open and a close make, through edonio and through
 * ufs, in one run (files named "ufs:..." and "edonio:...": the prefix picks the driver).
 *
 *   t_collectives DIR [apart]
 *
 * The program counts, on every process, the collective calls that MPI-IO makes into the MPI
 * library while it opens and closes: it defines the PMPI_ and MPI_ names of every collective
 * ROMIO and edonio use and passes each call on to the next definition (dlsym RTLD_NEXT), the
 * host MPI's. An edonio open stands in four (creating) or three (not creating) of ROMIO's
 * collectives with its one exchange (doc/romio-integration.md: ROMIO patches 0010 and 0012, and
 * ADIOI_EDONIO_OpenColl), so it must make that many fewer than ufs's; a close as many as ufs's,
 * except when the processes span nodes ("apart"), where a close that wrote delivers the writes to
 * their owners' nodes (doc/design.md, "What an open and a close cost").
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

/* A PMPI_ and an MPI_ definition of one collective, each counting and passing the call on. */
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
        static name##_fn f;                                                                        \
        if (f == NULL)                                                                             \
            f = (name##_fn)next_fn("MPI_" #name);                                                  \
        calls += counting;                                                                         \
        return f args;                                                                             \
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
COUNTED(Comm_dup, (MPI_Comm c, MPI_Comm *d), (c, d))
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
    count(path, MPI_MODE_CREATE | MPI_MODE_RDWR, &n.create, &n.create_close);
    count(path, MPI_MODE_CREATE | MPI_MODE_RDWR, &n.again, &n.again_close);
    count(path, MPI_MODE_RDONLY, &n.read, &n.read_close);
    if (rank == 0)
        printf("%-6s open+create %ld (again %ld), close %ld; open read-only %ld, close %ld\n", fs,
               n.create, n.again, n.again_close, n.read, n.read_close);
    return n;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    int apart = argc > 2 && strcmp(argv[2], "apart") == 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* ufs first: its first open on the communicator pays ROMIO's first-open work for both */
    struct counts u = count_all("ufs", dir), e = count_all("edonio", dir);

    CHECK(e.again <= u.again - 4, "an edonio open that creates makes %ld collectives, ufs's %ld:"
          " expected at least 4 fewer", e.again, u.again);
    CHECK(e.read <= u.read - 3, "an edonio read-only open makes %ld collectives, ufs's %ld:"
          " expected at least 3 fewer", e.read, u.read);
    CHECK(e.create <= u.again - 4, "edonio's first open makes %ld collectives, ufs's second %ld",
          e.create, u.again);
    CHECK((apart || e.again_close <= u.again_close) && e.read_close <= u.read_close,
          "an edonio close makes %ld (read-only %ld) collectives, ufs's %ld (%ld)", e.again_close,
          e.read_close, u.again_close, u.read_close);
    int failed = check_verdict();
    MPI_Finalize();
    return failed;
}
