/*
 * edonio: what ROMIO and the driver need from the host MPI that Open MPI 4.1 lacks (openmpi.h
 * says what each is). Built into the Open MPI library only.
 *
 * MPICH's polled generalized requests: ROMIO's nonblocking ufs requests (POSIX aio, and the state
 * machines of its nonblocking collective calls) are generalized requests that MPICH's progress
 * engine completes by calling the class's poll function. Open MPI has plain generalized requests
 * only, which nothing completes. So this file keeps the requests of such classes that are not yet
 * complete, and polls them from the calls that wait for or test requests, under their PMPI_ names:
 * a program's MPI_Wait (mpiio-glue/barrier.c) calls PMPI_Wait, and Open MPI's Fortran bindings
 * call the PMPI_ names themselves. The real calls are the next library's (dlsym RTLD_NEXT).
 * Waiting for such a request polls it until it completes (its poll function makes the progress,
 * MPI's included, that it needs); waiting for any or some of an array that holds one polls and
 * tests in turn. No thread: as under MPICH, a request progresses while its process is in MPI.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

/* ------------------------------------------------------------------ MPI-4 large-count calls */

static int fits(MPI_Count n)
{
    return n >= 0 && n <= INT_MAX;
}

int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return fits(count) ? PMPI_Isend(buf, (int)count, type, dest, tag, comm, request)
                       : MPI_ERR_COUNT;
}

int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return fits(count) ? PMPI_Issend(buf, (int)count, type, dest, tag, comm, request)
                       : MPI_ERR_COUNT;
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return fits(count) ? PMPI_Irecv(buf, (int)count, type, source, tag, comm, request)
                       : MPI_ERR_COUNT;
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                MPI_Status *status)
{
    return fits(count) ? PMPI_Mrecv(buf, (int)count, type, message, status) : MPI_ERR_COUNT;
}

int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype type, MPI_Count *count)
{
    int n, rc = PMPI_Get_count(status, type, &n);

    *count = n;
    return rc;
}

int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count blocklengths[],
                               const MPI_Count displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    int *lens, rc = MPI_ERR_COUNT;
    MPI_Aint *disps;

    if (!fits(count))
        return MPI_ERR_COUNT;
    lens = malloc((count + 1) * sizeof(*lens));
    disps = malloc((count + 1) * sizeof(*disps));
    if (lens == NULL || disps == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (MPI_Count i = 0; i < count; i++) {
        if (!fits(blocklengths[i]))
            goto out;
        lens[i] = (int)blocklengths[i];
        disps[i] = (MPI_Aint)displacements[i];
    }
    rc = PMPI_Type_create_hindexed((int)count, lens, disps, oldtype, newtype);
out:
    free(lens);
    free(disps);
    return rc;
}

/* ------------------------------------------------------------------ polled generalized requests */

/* The next library's definition of name (Open MPI's), looked up once. */
static void *next(void **slot, const char *name)
{
    if (*slot == NULL && (*slot = dlsym(RTLD_NEXT, name)) == NULL) {
        fprintf(stderr, "edonio: no %s in the MPI library\n", name);
        abort();
    }
    return *slot;
}

#define NEXT(name) ((name##_fn)next(&name##_ptr, #name))
#define DECLARE_NEXT(name, ...)                                                                    \
    typedef int (*name##_fn)(__VA_ARGS__);                                                         \
    static void *name##_ptr

DECLARE_NEXT(PMPI_Wait, MPI_Request *, MPI_Status *);
DECLARE_NEXT(PMPI_Test, MPI_Request *, int *, MPI_Status *);
DECLARE_NEXT(PMPI_Waitall, int, MPI_Request[], MPI_Status[]);
DECLARE_NEXT(PMPI_Testall, int, MPI_Request[], int *, MPI_Status[]);
DECLARE_NEXT(PMPI_Waitany, int, MPI_Request[], int *, MPI_Status *);
DECLARE_NEXT(PMPI_Testany, int, MPI_Request[], int *, int *, MPI_Status *);
DECLARE_NEXT(PMPI_Waitsome, int, MPI_Request[], int *, int[], MPI_Status[]);
DECLARE_NEXT(PMPI_Testsome, int, MPI_Request[], int *, int[], MPI_Status[]);
DECLARE_NEXT(PMPI_Request_get_status, MPI_Request, int *, MPI_Status *);
DECLARE_NEXT(PMPI_Request_free, MPI_Request *);

enum { CLASSES_MAX = 16 };

static struct greq_class {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    MPIX_Grequest_poll_function *poll;
} classes[CLASSES_MAX];
static int nclasses;

/* A request of such a class, not yet complete. */
struct greq {
    MPI_Request req;
    MPIX_Grequest_poll_function *poll;
    void *extra_state;
    struct greq *next;
};

static struct greq *pending;
int edonio_ompi_greq_pending;

int MPIX_Grequest_class_create(MPI_Grequest_query_function *query_fn,
                               MPI_Grequest_free_function *free_fn,
                               MPI_Grequest_cancel_function *cancel_fn,
                               MPIX_Grequest_poll_function *poll_fn,
                               MPIX_Grequest_wait_function *wait_fn,
                               MPIX_Grequest_class *greq_class)
{
    (void)wait_fn; /* waiting polls */
    if (nclasses == CLASSES_MAX)
        return MPI_ERR_INTERN;
    classes[nclasses] = (struct greq_class){query_fn, free_fn, cancel_fn, poll_fn};
    *greq_class = nclasses++;
    return MPI_SUCCESS;
}

int MPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void *extra_state,
                                 MPI_Request *request)
{
    struct greq_class *c;
    struct greq *g;
    int rc;

    if (greq_class < 0 || greq_class >= nclasses)
        return MPI_ERR_ARG;
    c = &classes[greq_class];
    if ((g = malloc(sizeof(*g))) == NULL)
        return MPI_ERR_NO_MEM;
    rc = PMPI_Grequest_start(c->query, c->free, c->cancel, extra_state, request);
    if (rc != MPI_SUCCESS) {
        free(g);
        return rc;
    }
    *g = (struct greq){*request, c->poll, extra_state, pending};
    pending = g;
    edonio_ompi_greq_pending++;
    return MPI_SUCCESS;
}

static int among(MPI_Request req, int count, const MPI_Request requests[])
{
    if (count < 0)
        return 1;
    for (int i = 0; i < count; i++)
        if (requests[i] == req)
            return 1;
    return 0;
}

/* Poll each pending request among these once; the complete ones leave the list. Only a poll
 * completes them (MPI_Grequest_complete in ROMIO's poll functions), so each is seen complete here
 * before any wait or test can free it. */
int edonio_ompi_greq_poll(int count, const MPI_Request requests[])
{
    int left = 0;

    for (struct greq **p = &pending; *p != NULL;) {
        struct greq *g = *p;
        int done = 0;
        MPI_Status status;

        if (!among(g->req, count, requests)) {
            p = &g->next;
            continue;
        }
        g->poll(g->extra_state, &status);
        if (NEXT(PMPI_Request_get_status)(g->req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
            !done) {
            left = 1;
            p = &g->next;
            continue;
        }
        *p = g->next;
        free(g);
        edonio_ompi_greq_pending--;
    }
    return left;
}

/* ------------------------------------------------------------------ the calls that poll them */

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    while (edonio_ompi_greq_pending && edonio_ompi_greq_poll(1, request))
        ;
    return NEXT(PMPI_Wait)(request, status);
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (edonio_ompi_greq_pending)
        edonio_ompi_greq_poll(1, request);
    return NEXT(PMPI_Test)(request, flag, status);
}

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    while (edonio_ompi_greq_pending && edonio_ompi_greq_poll(count, requests))
        ;
    return NEXT(PMPI_Waitall)(count, requests, statuses);
}

int PMPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (edonio_ompi_greq_pending)
        edonio_ompi_greq_poll(count, requests);
    return NEXT(PMPI_Testall)(count, requests, flag, statuses);
}

/* Waiting for any: while one of ours among them is pending, poll and test in turn. */
int PMPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    while (edonio_ompi_greq_pending && edonio_ompi_greq_poll(count, requests)) {
        int flag = 0, rc = NEXT(PMPI_Testany)(count, requests, index, &flag, status);
        if (rc != MPI_SUCCESS || flag)
            return rc;
    }
    return NEXT(PMPI_Waitany)(count, requests, index, status);
}

int PMPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    if (edonio_ompi_greq_pending)
        edonio_ompi_greq_poll(count, requests);
    return NEXT(PMPI_Testany)(count, requests, index, flag, status);
}

int PMPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    while (edonio_ompi_greq_pending && edonio_ompi_greq_poll(incount, requests)) {
        int rc = NEXT(PMPI_Testsome)(incount, requests, outcount, indices, statuses);
        if (rc != MPI_SUCCESS || *outcount != 0)
            return rc;
    }
    return NEXT(PMPI_Waitsome)(incount, requests, outcount, indices, statuses);
}

int PMPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    if (edonio_ompi_greq_pending)
        edonio_ompi_greq_poll(incount, requests);
    return NEXT(PMPI_Testsome)(incount, requests, outcount, indices, statuses);
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (edonio_ompi_greq_pending)
        edonio_ompi_greq_poll(1, &request);
    return NEXT(PMPI_Request_get_status)(request, flag, status);
}

/* Freeing one of ours before it completes: it is polled to completion first (MPI would free it at
 * completion, and the list would hold a request MPI freed). */
int PMPI_Request_free(MPI_Request *request)
{
    while (edonio_ompi_greq_pending && edonio_ompi_greq_poll(1, request))
        ;
    return NEXT(PMPI_Request_free)(request);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    return PMPI_Request_get_status(request, flag, status);
}

int MPI_Request_free(MPI_Request *request)
{
    return PMPI_Request_free(request);
}
