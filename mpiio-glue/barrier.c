/*
 * edonio: MPI_Barrier and MPI_Ibarrier, so that a barrier hands over what was written before it,
 * across nodes too, as it does on a POSIX file system (ad_edonio/ad_edonio_visible.c says how).
 *
 * MPI_Barrier on an intracommunicator of two processes or more is a barrier that carries one word
 * ("has this process written, since the last collective flush, to a file whose processes span
 * nodes?"), a dissemination barrier on a private duplicate of the communicator that costs what
 * MPICH's barrier costs, followed by the flushes it calls for, if any. Every process of the
 * communicator must make the same calls whatever it has open, so the word goes round even where
 * no edonio file is open. MPI_Ibarrier is an MPI_Iallreduce of the
 * same word, and the completion of its request, seen in MPI_Wait, MPI_Test and their kin, tells
 * the driver to forget the node's stale copies. Everything else is the host MPI's.
 *
 * ROMIO and the driver call PMPI_ names (ROMIO's mpipr.h), so only the program's calls come here.
 * This file does not include ROMIO's headers: they would rename the MPI_ names defined here.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ad_edonio_visible.h"

/*
 * MPI_THREAD_MULTIPLE: another thread may be in MPI-IO while this one is in MPI_Barrier or
 * MPI_Wait, and edonio's MPI-IO, as ROMIO's outside MPICH, serialises nothing: the barrier is
 * then the host's alone (doc/user-guide.md, Limits).
 */
static int thread_multiple(void)
{
    static int level = -1;

    if (level < 0 && PMPI_Query_thread(&level) != MPI_SUCCESS)
        level = MPI_THREAD_SINGLE;
    return level == MPI_THREAD_MULTIPLE;
}

/* Communicators for which MPI_Barrier is the host's alone: no edonio file can hold them all. */
static int plain(MPI_Comm comm)
{
    int inter = 1, size = 1;

    return comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
           PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 2 || thread_multiple();
}

/*
 * The barrier's word goes round a dissemination barrier of its own, on a duplicate of comm kept as
 * an attribute of it (freed with comm): in round k each process sends what it has to rank + 2^k
 * and takes what rank - 2^k has, so after ceil(log2 P) rounds every process has every word (OR
 * does not mind getting one twice), and none has left before all entered. Measured across 2
 * simulated nodes at 2 ranks, per call: MPICH's barrier 0.24 us, its MPI_Allreduce of an int
 * 0.45 us, this 0.20 us (0.46, 0.46 and 0.20 on one node). The duplicate is made without a
 * collective of its own: comm's first barrier starts an MPI_Comm_idup and passes the word in an
 * MPI_Allreduce; the second waits for the duplicate (every process started it before the first
 * allreduce could end) and every later one uses it. A blocking MPI_Comm_dup at the first
 * barrier cost the quickstart demo, which makes one barrier, 15 ms at 4 ranks on 2 cores (0.095
 * to 0.110 s).
 */
struct private_comm {
    MPI_Comm dup;
    MPI_Request made;          /* the MPI_Comm_idup, MPI_REQUEST_NULL once done */
    struct private_comm *next; /* in 'started' while made is not done */
};

static int private_keyval = MPI_KEYVAL_INVALID;
static struct private_comm *started; /* duplicates not yet waited for */

/* Wait for p's duplicate, and take it off 'started'. p is off the list and its request taken
 * before the wait: when comm was freed while its MPI_Comm_idup was pending, MPICH deletes comm's
 * attributes as the idup completes, inside this wait (free_private, which frees p, and waited
 * on the same request again: an assertion in MPI_Finalize). p is not touched after the wait. */
static int made(struct private_comm *p)
{
    MPI_Request req = p->made;

    for (struct private_comm **q = &started; *q != NULL; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            break;
        }
    p->made = MPI_REQUEST_NULL;
    return req == MPI_REQUEST_NULL ? MPI_SUCCESS : PMPI_Wait(&req, MPI_STATUS_IGNORE);
}

static int free_private(MPI_Comm comm, int keyval, void *value, void *extra)
{
    struct private_comm *p = value;

    (void)comm, (void)keyval, (void)extra;
    made(p);
    int rc = PMPI_Comm_free(&p->dup);
    free(p);
    return rc;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: no MPI_Comm_idup may be left pending,
 * as a communicator whose only barrier was its first would leave it (all of them wait for it). */
static int finish_started(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    while (started != NULL)
        made(started);
    return MPI_SUCCESS;
}

/* comm's duplicate, or MPI_COMM_NULL at its first barrier (the word then goes by allreduce). */
static int private_of(MPI_Comm comm, MPI_Comm *dup)
{
    struct private_comm *p = NULL;
    int found = 0, rc;

    *dup = MPI_COMM_NULL;
    if (private_keyval == MPI_KEYVAL_INVALID) {
        int at_finalize;
        if ((rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private, &private_keyval,
                                          NULL)) != MPI_SUCCESS)
            return rc;
        if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finish_started, &at_finalize, NULL) ==
            MPI_SUCCESS)
            PMPI_Comm_set_attr(MPI_COMM_SELF, at_finalize, NULL);
    }
    PMPI_Comm_get_attr(comm, private_keyval, &p, &found);
    if (found) {
        if (p->made != MPI_REQUEST_NULL && (rc = made(p)) != MPI_SUCCESS)
            return rc;
        *dup = p->dup;
        return MPI_SUCCESS;
    }
    if ((p = malloc(sizeof(*p))) == NULL) /* every process must take the same way from here */
        PMPI_Abort(comm, 1);
    if ((rc = PMPI_Comm_idup(comm, &p->dup, &p->made)) != MPI_SUCCESS) {
        free(p);
        return rc;
    }
    p->next = started;
    started = p;
    return PMPI_Comm_set_attr(comm, private_keyval, p);
}

enum { WORD_TAG = 1 };

/*
 * A round's two messages: the word sent (one int, which MPI sends at once, eagerly; nothing
 * depends on it, since each round posts its receive before its send, as PMPI_Sendrecv would) and
 * the peer's, waited for with the processor given away after 8 polls that did not bring it
 * (ADIOI_EDONIO_Idle, as the driver's own waits).
 * Where a machine runs more processes than it has processors, a process that waits in a blocking
 * call busy-polls on the processor its peer needs until the scheduler takes it away: a time
 * slice, 4-8 ms of a barrier at 4 ranks on 2 cores, where the rounds take microseconds
 * (doc/design.md, "Waiting on a crowded machine"). How a process waits for point-to-point
 * messages is its own affair, so no process needs to know whether the machine is crowded; where
 * it is not, a peer late by 8 polls costs a system call that returns at once. A failed send or
 * test cancels the receive and waits for it, so that MPI writes no more into 'in'.
 */
static int exchange_word(MPI_Comm dup, int to, int from, int *out, int *in)
{
    MPI_Request req;
    int rc, done = 0, polls = 0;

    if ((rc = PMPI_Irecv(in, 1, MPI_INT, from, WORD_TAG, dup, &req)) != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Send(out, 1, MPI_INT, to, WORD_TAG, dup)) == MPI_SUCCESS)
        while ((rc = PMPI_Test(&req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
            ADIOI_EDONIO_Idle(1, &polls);
    if (rc != MPI_SUCCESS && req != MPI_REQUEST_NULL) {
        PMPI_Cancel(&req);
        PMPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    return rc;
}

static int disseminate(MPI_Comm dup, int mine, int *any)
{
    int rank, size, in, rc = MPI_SUCCESS;

    PMPI_Comm_rank(dup, &rank);
    PMPI_Comm_size(dup, &size);
    *any = mine;
    for (int d = 1; d < size && rc == MPI_SUCCESS; d <<= 1) {
        int out = *any;
        rc = exchange_word(dup, (rank + d) % size, (rank - d + size) % size, &out, &in);
        *any |= in;
    }
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    int any = 0, rc;
    MPI_Comm dup;

    if (plain(comm))
        return PMPI_Barrier(comm);
    rc = private_of(comm, &dup);
    if (rc == MPI_SUCCESS && dup == MPI_COMM_NULL) {
        int mine = ADIOI_EDONIO_Visible_pending();
        rc = PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_BOR, comm);
#ifdef OPEN_MPI
        /* Open MPI 4.1's MPI_Comm_dup spins in its context-id agreement while an MPI_Comm_idup
         * of the same communicator is pending in another process (4 ranks hung in
         * MPI_File_open's dup): every process started its duplicates before this allreduce
         * could end, so they are waited for now. */
        while (rc == MPI_SUCCESS && started != NULL)
            rc = made(started);
#endif
    } else if (rc == MPI_SUCCESS) {
        rc = disseminate(dup, ADIOI_EDONIO_Visible_pending(), &any);
    }
    if (rc == MPI_SUCCESS && any)
        ADIOI_EDONIO_Visible_barrier(comm);
    return rc;
}

/* ------------------------------------------------------------------ MPI_Ibarrier */

/* Records of MPI_Ibarrier requests the program has not yet seen complete. */
static struct edonio_ibarrier *open_ibarriers;

static void completed(MPI_Request req);

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    struct edonio_ibarrier *b;
    int rc;

    if (plain(comm))
        return PMPI_Ibarrier(comm, request);
    b = ADIOI_EDONIO_Visible_ibarrier(comm);
    if (b == NULL) /* every process must make the same collective: none can be made here */
        PMPI_Abort(comm, 1);
    rc = PMPI_Iallreduce(&b->mine, &b->any, 1, MPI_INT, MPI_MAX, comm, &b->req);
    if (rc != MPI_SUCCESS) {
        b->any = 0;
        ADIOI_EDONIO_Visible_done(b);
        return rc;
    }
    *request = b->req;
    completed(b->req); /* a record of the same handle: MPI freed that request, so it was done */
    b->next = open_ibarriers;
    open_ibarriers = b;
    return MPI_SUCCESS;
}

/*
 * The program's request req (its value before the call that completed it) is complete: if it is an
 * MPI_Ibarrier's, the driver acts on it. A request handle MPI reuses was freed, so its collective
 * was complete too (MPI_Request_free of an active request frees it when it completes).
 */
static void completed(MPI_Request req)
{
    for (struct edonio_ibarrier **p = &open_ibarriers; *p != NULL; p = &(*p)->next)
        if ((*p)->req == req) {
            struct edonio_ibarrier *b = *p;
            *p = b->next;
            ADIOI_EDONIO_Visible_done(b);
            return;
        }
}

/* Is req one of ours? */
static int watched(MPI_Request req)
{
    for (struct edonio_ibarrier *b = open_ibarriers; b != NULL; b = b->next)
        if (req != MPI_REQUEST_NULL && b->req == req)
            return 1;
    return 0;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Request req = *request;
    int rc = PMPI_Wait(request, status);

    if (open_ibarriers != NULL && rc == MPI_SUCCESS)
        completed(req);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Request req = *request;
    int rc = PMPI_Test(request, flag, status);

    if (open_ibarriers != NULL && rc == MPI_SUCCESS && *flag)
        completed(req);
    return rc;
}

/*
 * The array forms: the requests of ours among them are noted before the call (at most a few, and
 * only while an MPI_Ibarrier is open), and those the call completed acted on after it.
 */
enum { WATCH_MAX = 16 };

struct watch {
    int n;
    int index[WATCH_MAX];
    MPI_Request req[WATCH_MAX];
};

static void watch_of(int count, const MPI_Request requests[], struct watch *w)
{
    w->n = 0;
    for (int i = 0; open_ibarriers != NULL && i < count && w->n < WATCH_MAX; i++)
        if (watched(requests[i])) {
            w->index[w->n] = i;
            w->req[w->n++] = requests[i];
        }
}

/* After the call: those of ours that it completed (index done, or every one with all). */
static void watch_done(const struct watch *w, int all, int ndone, const int done[])
{
    for (int k = 0; k < w->n; k++) {
        int hit = all;
        for (int j = 0; !hit && j < ndone; j++)
            hit = done[j] == w->index[k];
        if (hit)
            completed(w->req[k]);
    }
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    struct watch w;
    int rc;

    watch_of(count, requests, &w);
    rc = PMPI_Waitall(count, requests, statuses);
    if (w.n > 0 && rc == MPI_SUCCESS)
        watch_done(&w, 1, 0, NULL);
    return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    struct watch w;
    int rc;

    watch_of(count, requests, &w);
    rc = PMPI_Testall(count, requests, flag, statuses);
    if (w.n > 0 && rc == MPI_SUCCESS && *flag)
        watch_done(&w, 1, 0, NULL);
    return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    struct watch w;
    int rc;

    watch_of(count, requests, &w);
    rc = PMPI_Waitany(count, requests, index, status);
    if (w.n > 0 && rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        watch_done(&w, 0, 1, index);
    return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    struct watch w;
    int rc;

    watch_of(count, requests, &w);
    rc = PMPI_Testany(count, requests, index, flag, status);
    if (w.n > 0 && rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        watch_done(&w, 0, 1, index);
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    struct watch w;
    int rc;

    watch_of(incount, requests, &w);
    rc = PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    if (w.n > 0 && rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        watch_done(&w, 0, *outcount, indices);
    return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    struct watch w;
    int rc;

    watch_of(incount, requests, &w);
    rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    if (w.n > 0 && rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        watch_done(&w, 0, *outcount, indices);
    return rc;
}
