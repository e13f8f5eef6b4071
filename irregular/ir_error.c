/*
 * Errors of libedonio_irregular: one MPI error code per class, its string replaced by the latest
 * message (MPI_Add_error_string replaces a code's string), and the agreement that makes every
 * process of a collective call return the same error.
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ir.h"

int ir_fail(ir_status *st, int errclass, const char *fmt, ...)
{
    if (st->errclass != MPI_SUCCESS)
        return st->errclass; /* the first cause is the one reported */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
    st->errclass = errclass;
    return errclass;
}

/*
 * A code of the class whose MPI_Error_string is the message. MPICH 4.0.2 misreads
 * MPI_Add_error_string on a code of a predefined class (it prints unrelated text), so where
 * libedonio is loaded its edonio_error_code makes the code (libedonio answers MPI_Error_string
 * for it); elsewhere the library adds one code per class, replaces its string each time (MPI
 * allows that), and keeps the message for edonio_ir_error_string.
 */
typedef int edonio_code_fn(int, const char *);

static struct {
    int errclass, code;
    char msg[sizeof(((ir_status *)0)->msg)];
} codes[16];
static int ncodes;

static edonio_code_fn *edonio_hook(void)
{
    static int looked;
    static edonio_code_fn *fn;
    if (!looked) {
        looked = 1;
        *(void **)&fn = dlsym(RTLD_DEFAULT, "edonio_error_code");
    }
    return fn;
}

int ir_error_code(int errclass, const char *msg)
{
    edonio_code_fn *fn = edonio_hook();
    if (fn != NULL)
        return fn(errclass, msg);
    int i, code = MPI_ERR_UNKNOWN;
    for (i = 0; i < ncodes; i++)
        if (codes[i].errclass == errclass)
            break;
    if (i == ncodes) {
        if (ncodes == (int)(sizeof codes / sizeof codes[0]) ||
            MPI_Add_error_code(errclass, &code) != MPI_SUCCESS)
            return errclass; /* the class itself, without the message */
        codes[ncodes].errclass = errclass;
        codes[ncodes++].code = code;
    }
    snprintf(codes[i].msg, sizeof codes[i].msg, "%s", msg);
    /* Open MPI refuses a string of MPI_MAX_ERROR_STRING bytes or more, through the fatal handler
     * of MPI_COMM_WORLD: the message cut to fit (edonio_ir_error_string keeps it whole). */
    char fit[MPI_MAX_ERROR_STRING];
    snprintf(fit, sizeof fit, "%s", msg);
    MPI_Add_error_string(codes[i].code, fit);
    return codes[i].code;
}

int edonio_ir_error_string(int code, char *string, int *resultlen)
{
    for (int i = 0; i < ncodes; i++)
        if (codes[i].code == code) {
            snprintf(string, MPI_MAX_ERROR_STRING, "%s", codes[i].msg);
            *resultlen = (int)strlen(string);
            return MPI_SUCCESS;
        }
    return MPI_Error_string(code, string, resultlen);
}

/* ir_agree, and the displacement the same on every process (else MPI_ERR_ARG on all). */
int ir_agree_at(MPI_Comm comm, ir_status *st, MPI_Offset disp)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Offset mine[3] = {st->errclass != MPI_SUCCESS ? rank : size, disp, -disp}, all[3];
    if (ir_allreduce(mine, all, 3, IR_OFFSET_REDUCE, MPI_MIN, comm) != MPI_SUCCESS) {
        ir_fail(st, MPI_ERR_OTHER, "%s: the agreement on the outcome failed", st->call);
    } else if (all[1] != -all[2]) {
        /* Known alike everywhere, and first: it explains whatever else failed. */
        ir_status d = {MPI_SUCCESS, st->call, ""};
        ir_fail(&d, MPI_ERR_ARG, "%s: the displacement differs between processes (%lld to %lld)",
                st->call, (long long)all[1], (long long)-all[2]);
        *st = d;
        return ir_error_code(st->errclass, st->msg);
    } else if (all[0] == size)
        return MPI_SUCCESS;
    return ir_agree(comm, st);
}

/* The agreement's end: rc the reduction's outcome, first the lowest failing rank (size: none). */
static int agreed(MPI_Comm comm, ir_status *st, int rc, int first)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rc != MPI_SUCCESS) {
        ir_fail(st, MPI_ERR_OTHER, "%s: the agreement on the outcome failed", st->call);
        return ir_error_code(st->errclass, st->msg);
    }
    if (first == size)
        return MPI_SUCCESS;
    ir_status got;
    if (rank == first)
        got = *st;
    MPI_Bcast(&got, (int)sizeof got, MPI_BYTE, first, comm);
    got.msg[sizeof got.msg - 1] = '\0';
    if (rank != first) {
        size_t len = strlen(got.msg);
        snprintf(got.msg + len, sizeof got.msg - len, " (on rank %d)", first);
    }
    got.call = st->call; /* a pointer of the first failing process's */
    *st = got;
    return ir_error_code(st->errclass, st->msg);
}

/* This process's contribution to an agreement: its rank if it failed, else the size. */
static int failing(MPI_Comm comm, const ir_status *st)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    return st->errclass != MPI_SUCCESS ? rank : size;
}

int ir_agree(MPI_Comm comm, ir_status *st)
{
    int mine = failing(comm, st), first = mine;
    int rc = ir_allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    return agreed(comm, st, rc, first);
}

/* ir_agree and an MPI_Barrier at once: the reduction runs while the barrier waits, so that
 * processes that crowd their processors wait for both once. Every process makes the two
 * collectives in the same order; the barrier is edonio's hand-over of the writes where its
 * library is loaded. */
int ir_agree_barrier(MPI_Comm comm, ir_status *st)
{
    int mine = failing(comm, st), first = mine;
    MPI_Request req;
    int rc = MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &req);
    MPI_Barrier(comm);
    if (rc == MPI_SUCCESS)
        rc = ir_waitall(1, &req);
    return agreed(comm, st, rc, first);
}

int ir_check_sched(edonio_ir_schedule s, const char *call, ir_status *st)
{
    if (s == NULL)
        return ir_fail(st, MPI_ERR_ARG, "%s: the schedule is EDONIO_IR_SCHEDULE_NULL", call);
    if (s->magic != IR_MAGIC)
        return ir_fail(st, MPI_ERR_ARG, "%s: not a schedule (freed, or never created)", call);
    return MPI_SUCCESS;
}

/* The file must be open on the schedule's group. Local: the groups are compared here. */
int ir_check_file(MPI_File fh, edonio_ir_schedule s, const char *call, ir_status *st)
{
    MPI_Group fg, sg;
    int same = MPI_UNEQUAL;
    if (fh == MPI_FILE_NULL)
        return ir_fail(st, MPI_ERR_FILE, "%s: the file handle is MPI_FILE_NULL", call);
    if (MPI_File_get_group(fh, &fg) != MPI_SUCCESS)
        return ir_fail(st, MPI_ERR_FILE, "%s: not an open file handle", call);
    MPI_Comm_group(s->comm, &sg);
    MPI_Group_compare(fg, sg, &same);
    MPI_Group_free(&fg);
    MPI_Group_free(&sg);
    if (same != MPI_IDENT)
        return ir_fail(st, MPI_ERR_ARG,
                       "%s: the file is open on another group of processes than the schedule's "
                       "communicator",
                       call);
    return MPI_SUCCESS;
}

/*
 * MPI_Waitall without statuses, giving the processor away after 8 polls that did not complete the
 * requests. Where a machine runs more of the processes than it has processors (a workstation, the
 * 2-core VM at 4 ranks), a process that waits in MPI_Waitall busy-polls on the processor that the
 * process it waits for needs, until the scheduler takes it away: a time slice, 4 ms here, for
 * each of a call's few waits (a switch of 2 MiB at 4 ranks took 36 ms, its I/O a tenth of that).
 * libedonio's own waits do the same where it finds the machine crowded (doc/design.md, "Waiting
 * on a crowded machine"); here it costs a system call per 8 polls where it is not, against calls
 * that move megabytes. MPICH's mpi.h gives MPI_Testall an access attribute that GCC 12 holds
 * against MPI_STATUSES_IGNORE (a null pointer of size 0): the one place it is said.
 */
int ir_waitall(int n, MPI_Request *reqs)
{
    int done = 0, polls = 0, rc;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    while ((rc = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE)) == MPI_SUCCESS && !done)
        if (++polls % 8 == 0)
            sched_yield();
    if (rc != MPI_SUCCESS) /* every request completed or failed before the caller reuses them */
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
    return rc;
}

/* MPI_Allreduce as a nonblocking one waited for so: every process of the library's calls makes
 * its reductions this way, since a blocking and a nonblocking collective never match. */
int ir_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    MPI_Request req;
    int rc = MPI_Iallreduce(in, out, count, type, op, comm, &req);
    return rc == MPI_SUCCESS ? ir_waitall(1, &req) : rc;
}
