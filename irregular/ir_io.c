/*
 * Moving a route's data: round by round, the references of one chunk per handler are exchanged
 * with point-to-point messages whose sizes the route already knows (no counts, no probing), and
 * each handler reads or writes its chunk's covered runs, or, where that takes fewer file
 * operations by the cost model below, the whole extent of the runs (data sieving: read it,
 * overlay, write it; only the chunk's handler touches those bytes within a call).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"

/* The cost model of the sieving choice: one file operation costs as much as moving this many
 * bytes (about 200 us at 300 MB/s on a parallel file system; on a page-cached local disk a
 * system call costs less, and sieving's copies cost little there either). */
#define IR_OP_BYTES 65536

static inline void copy_elem(char *to, const char *from, MPI_Offset e)
{
    switch (e) {
        case 4:
            memcpy(to, from, 4);
            break;
        case 8:
            memcpy(to, from, 8);
            break;
        default:
            memcpy(to, from, (size_t)e);
    }
}

/*
 * The exchanges, each in halves so that a switch can run its two at once. Gather: every process
 * sends the handler of each of the round's chunks its references' elements there (tag IR_TAG);
 * scatter: each handler sends every process the elements it asked for (IR_TAG + 1; a process
 * may get both kinds from one peer in one round of a switch).
 */
static void gather_post(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const void *buf,
                        char *sbuf, char *rbuf, MPI_Request *reqs, int *nreq)
{
    int P = s->nprocs, me = s->rank;
    MPI_Offset E = s->elem_size, c0 = round * P, *roff = r->roff + round * P;
    const char *b = buf;

    for (int src = 0; src < P; src++) {
        MPI_Offset cnt = roff[src + 1] - roff[src];
        if (cnt > 0 && src != me)
            MPI_Irecv(rbuf + (roff[src] - roff[0]) * E, (int)cnt, s->elem, src, IR_TAG, s->comm,
                      &reqs[(*nreq)++]);
    }
    for (int p = 0; p < P && c0 + p < s->chunks; p++) {
        MPI_Offset c = c0 + p, k0 = r->soff[c], k1 = r->soff[c + 1];
        if (k1 == k0)
            continue;
        char *out = p == me ? rbuf + (roff[me] - roff[0]) * E : sbuf + (k0 - r->soff[c0]) * E;
        for (MPI_Offset k = k0; k < k1; k++)
            copy_elem(out + (k - k0) * E, b + r->spos[k] * E, E);
        if (p != me) {
            MPI_Isend(out, (int)(k1 - k0), s->elem, p, IR_TAG, s->comm, &reqs[(*nreq)++]);
            s->stats.bytes_sent += (k1 - k0) * E;
        }
    }
}

/* The lowest rank's copy wins: sources are applied from the highest down, each in its order (by
 * global index, then position: a process's last copy comes last). */
static void gather_apply(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const char *rbuf,
                         char *cbuf)
{
    int P = s->nprocs;
    MPI_Offset E = s->elem_size, *roff = r->roff + round * P;
    if (round * P + s->rank >= s->chunks)
        return;
    for (int src = P - 1; src >= 0; src--)
        for (MPI_Offset k = roff[src]; k < roff[src + 1]; k++)
            copy_elem(cbuf + (MPI_Offset)r->relem[k] * E, rbuf + (k - roff[0]) * E, E);
}

static void scatter_post_recv(edonio_ir_schedule s, ir_route *r, MPI_Offset round, char *sbuf,
                              MPI_Request *reqs, int *nreq)
{
    int P = s->nprocs, me = s->rank;
    MPI_Offset E = s->elem_size, c0 = round * P;
    for (int p = 0; p < P && c0 + p < s->chunks; p++) {
        MPI_Offset c = c0 + p, k0 = r->soff[c], k1 = r->soff[c + 1];
        if (k1 > k0 && p != me)
            MPI_Irecv(sbuf + (k0 - r->soff[c0]) * E, (int)(k1 - k0), s->elem, p, IR_TAG + 1,
                      s->comm, &reqs[(*nreq)++]);
    }
}

static void scatter_send(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const char *cbuf,
                         char *sbuf, char *rbuf, MPI_Request *reqs, int *nreq)
{
    int P = s->nprocs, me = s->rank;
    MPI_Offset E = s->elem_size, c0 = round * P, *roff = r->roff + round * P;
    for (int src = 0; src < P; src++) {
        MPI_Offset cnt = roff[src + 1] - roff[src];
        if (cnt == 0)
            continue;
        char *out = src == me ? sbuf + (r->soff[c0 + me] - r->soff[c0]) * E
                              : rbuf + (roff[src] - roff[0]) * E;
        for (MPI_Offset k = roff[src]; k < roff[src + 1]; k++)
            copy_elem(out + (k - roff[src]) * E, cbuf + (MPI_Offset)r->relem[k] * E, E);
        if (src != me) {
            MPI_Isend(out, (int)cnt, s->elem, src, IR_TAG + 1, s->comm, &reqs[(*nreq)++]);
            s->stats.bytes_sent += cnt * E;
        }
    }
}

static void scatter_apply(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const char *sbuf,
                          void *buf)
{
    int P = s->nprocs;
    MPI_Offset E = s->elem_size, c0 = round * P;
    MPI_Offset k0 = r->soff[c0], k1 = r->soff[c0 + P < s->chunks ? c0 + P : s->chunks];
    char *b = buf;
    for (MPI_Offset k = k0; k < k1; k++)
        copy_elem(b + r->spos[k] * E, sbuf + (k - k0) * E, E);
}

static void wait_all(int n, MPI_Request *reqs, MPI_Offset round, ir_status *st)
{
    if (ir_waitall(n, reqs) != MPI_SUCCESS)
        ir_fail(st, MPI_ERR_OTHER, "%s: an exchange of round %lld failed", st->call,
                (long long)round);
}

int ir_gather_round(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const void *buf,
                    char *sbuf, char *rbuf, char *cbuf, ir_status *st)
{
    int nreq = 0;
    gather_post(s, r, round, buf, sbuf, rbuf, s->reqs, &nreq);
    wait_all(nreq, s->reqs, round, st);
    gather_apply(s, r, round, rbuf, cbuf);
    return MPI_SUCCESS;
}

int ir_scatter_round(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const char *cbuf,
                     char *sbuf, char *rbuf, void *buf, ir_status *st)
{
    int nreq = 0;
    scatter_post_recv(s, r, round, sbuf, s->reqs, &nreq);
    scatter_send(s, r, round, cbuf, sbuf, rbuf, s->reqs, &nreq);
    wait_all(nreq, s->reqs, round, st);
    scatter_apply(s, r, round, sbuf, buf);
    return MPI_SUCCESS;
}

/* An MPI-IO call's failure: its class, and its message after the call's name. */
static void io_failed(ir_status *st, int err, const char *what, MPI_Offset off, MPI_Offset len)
{
    char text[MPI_MAX_ERROR_STRING];
    int tlen = 0, cls = MPI_ERR_IO;
    MPI_Error_string(err, text, &tlen);
    MPI_Error_class(err, &cls);
    ir_fail(st, cls, "%s: %s of %lld bytes at offset %lld failed: %s", st->call, what,
            (long long)len, (long long)off, text);
}

/* Read len bytes at off into p; returns the bytes read (fewer at the end of the file), or -1
 * when the read failed (recorded in st). s (whose statistics count it) may be NULL. */
MPI_Offset ir_read_at(edonio_ir_schedule s, MPI_File fh, MPI_Offset off, void *p, MPI_Offset len,
                      ir_status *st)
{
    MPI_Status status;
    int got = 0, err = MPI_File_read_at(fh, off, p, (int)len, MPI_BYTE, &status);
    if (s != NULL)
        s->stats.file_reads++;
    if (err != MPI_SUCCESS) {
        io_failed(st, err, "a read", off, len);
        return -1;
    }
    MPI_Get_count(&status, MPI_BYTE, &got);
    if (s != NULL)
        s->stats.bytes_read += got;
    return got;
}

void ir_write_at(edonio_ir_schedule s, MPI_File fh, MPI_Offset off, const void *p, MPI_Offset len,
                 ir_status *st)
{
    MPI_Status status;
    int put = 0, err = MPI_File_write_at(fh, off, p, (int)len, MPI_BYTE, &status);
    s->stats.file_writes++;
    if (err != MPI_SUCCESS)
        return io_failed(st, err, "a write", off, len);
    MPI_Get_count(&status, MPI_BYTE, &put);
    s->stats.bytes_written += put;
    if (put != len)
        ir_fail(st, MPI_ERR_IO, "%s: a write of %lld bytes at offset %lld wrote %d", st->call,
                (long long)len, (long long)off, put);
}

/* One round's runs of a route on this process's chunk (none when it handles no chunk then). */
typedef struct {
    const MPI_Offset *runs; /* pairs (first element, elements) */
    MPI_Offset n, first, end, covered;
} ir_runs;

static ir_runs runs_of(const ir_route *r, MPI_Offset round)
{
    ir_runs x = {r->runs + 2 * r->runoff[round], r->runoff[round + 1] - r->runoff[round], 0, 0, 0};
    if (x.n > 0) {
        x.first = x.runs[0];
        x.end = x.runs[2 * (x.n - 1)] + x.runs[2 * x.n - 1];
    }
    for (MPI_Offset i = 0; i < x.n; i++)
        x.covered += x.runs[2 * i + 1];
    return x;
}

/* The cost of moving runs, by the model above: one operation per run, or `ops` over the extent
 * (2 to write it, which reads it first; 1 to read it). */
static MPI_Offset by_runs(const ir_runs *x, MPI_Offset E)
{
    return x->n * IR_OP_BYTES + x->covered * E;
}

static MPI_Offset by_extent(const ir_runs *x, MPI_Offset E, int ops)
{
    return x->n ? ops * (IR_OP_BYTES + (x->end - x->first) * E) : 0;
}

/* A read came back short (got bytes of the extent starting at element `first` of chunk c): the
 * first element asked for that it lacks is past the end of the file. */
static void check_got(edonio_ir_schedule s, const ir_runs *x, MPI_Offset c, MPI_Offset first,
                      MPI_Offset got, ir_status *st)
{
    MPI_Offset E = s->elem_size, have = first + got / E; /* elements [first, have) are in */
    for (MPI_Offset i = 0; i < x->n; i++) {
        MPI_Offset a = x->runs[2 * i], b = a + x->runs[2 * i + 1];
        if (b > have) {
            MPI_Offset missing = a > have ? a : have;
            ir_fail(st, MPI_ERR_IO, "%s: element %lld is past the end of the file", st->call,
                    (long long)(c * s->chunk_elems + missing));
            return;
        }
    }
}

typedef struct {
    char *sbuf, *rbuf, *cbuf; /* a route's send and receive buffers, the chunk */
    char *fsbuf, *frbuf;      /* a switch's second route's */
} ir_bufs;

static int bufs_get(edonio_ir_schedule s, const ir_route *r, const ir_route *r2, ir_bufs *b,
                    ir_status *st)
{
    MPI_Offset E = s->elem_size;
    b->sbuf = malloc((size_t)(r->smax * E + 1));
    b->rbuf = malloc((size_t)(r->rmax * E + 1));
    b->cbuf = malloc((size_t)(s->chunk_elems * E));
    b->fsbuf = r2 ? malloc((size_t)(r2->smax * E + 1)) : NULL;
    b->frbuf = r2 ? malloc((size_t)(r2->rmax * E + 1)) : NULL;
    if (b->sbuf == NULL || b->rbuf == NULL || b->cbuf == NULL ||
        (r2 && (b->fsbuf == NULL || b->frbuf == NULL)))
        return ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for a chunk of %lld bytes", st->call,
                       (long long)(s->chunk_elems * E));
    return MPI_SUCCESS;
}

static void bufs_free(ir_bufs *b)
{
    free(b->sbuf);
    free(b->rbuf);
    free(b->cbuf);
    free(b->fsbuf);
    free(b->frbuf);
}

/* The buffers, and the call's first agreement: the checks of ir_start, the allocations, the
 * displacement alike everywhere. Freed again when the call cannot go on. */
static int bufs_agreed(edonio_ir_schedule s, const ir_route *r, const ir_route *r2, ir_bufs *b,
                       MPI_Offset disp, ir_status *st)
{
    bufs_get(s, r, r2, b, st);
    if (ir_agree_at(s->comm, st, disp) == MPI_SUCCESS)
        return MPI_SUCCESS;
    bufs_free(b);
    return st->errclass;
}

/* Read [first, end) of chunk c into cbuf; zeros for what lies past the end of the file. Returns
 * the bytes read, -1 when the read failed. */
static MPI_Offset read_extent(edonio_ir_schedule s, MPI_File fh, MPI_Offset base, char *cbuf,
                              MPI_Offset first, MPI_Offset end, ir_status *st)
{
    MPI_Offset E = s->elem_size;
    MPI_Offset got = ir_read_at(s, fh, base + first * E, cbuf + first * E, (end - first) * E, st);
    if (got >= 0)
        memset(cbuf + first * E + got, 0, (size_t)((end - first) * E - got));
    return got;
}

/* Before a chunk's elements are applied: whether its runs go out as one extent, and if so (and
 * cbuf does not hold the file's bytes over it yet: !have) the extent read in. */
static int write_prepare(edonio_ir_schedule s, const ir_runs *x, MPI_File fh, MPI_Offset base,
                         char *cbuf, int have, ir_status *st)
{
    MPI_Offset E = s->elem_size;
    int whole = x->n > 0 && (have || s->can_read) && by_extent(x, E, have ? 1 : 2) < by_runs(x, E);
    /* A read that failed leaves no file bytes between the runs: then only the runs go out. */
    if (whole && !have && read_extent(s, fh, base, cbuf, x->first, x->end, st) < 0)
        return 0;
    return whole;
}

static void write_finish(edonio_ir_schedule s, const ir_runs *x, MPI_File fh, MPI_Offset base,
                         const char *cbuf, int whole, ir_status *st)
{
    MPI_Offset E = s->elem_size;
    if (whole)
        ir_write_at(s, fh, base + x->first * E, cbuf + x->first * E, (x->end - x->first) * E, st);
    else
        for (MPI_Offset i = 0; i < x->n; i++)
            ir_write_at(s, fh, base + x->runs[2 * i] * E, cbuf + x->runs[2 * i] * E,
                        x->runs[2 * i + 1] * E, st);
}

/* A chunk's runs read into cbuf (one by one, or their extent); an element past the end of the
 * file is an error. */
static void read_fill(edonio_ir_schedule s, const ir_runs *x, MPI_Offset c, MPI_File fh,
                      MPI_Offset base, char *cbuf, ir_status *st)
{
    MPI_Offset E = s->elem_size;
    if (x->n == 0)
        return;
    if (by_extent(x, E, 1) < by_runs(x, E)) {
        MPI_Offset got = ir_read_at(s, fh, base + x->first * E, cbuf + x->first * E,
                                    (x->end - x->first) * E, st);
        if (got >= 0 && got < (x->end - x->first) * E)
            check_got(s, x, c, x->first, got, st);
        return;
    }
    for (MPI_Offset i = 0; i < x->n; i++) {
        MPI_Offset at = x->runs[2 * i], len = x->runs[2 * i + 1] * E;
        MPI_Offset got = ir_read_at(s, fh, base + at * E, cbuf + at * E, len, st);
        if (got >= 0 && got < len) {
            ir_runs one = {x->runs + 2 * i, 1, at, at + x->runs[2 * i + 1], 0};
            check_got(s, &one, c, at, got, st);
        }
    }
}

int ir_route_write(edonio_ir_schedule s, ir_route *r, MPI_File fh, MPI_Offset disp, const void *buf,
                   ir_status *st)
{
    ir_bufs b;
    MPI_Offset E = s->elem_size;
    if (bufs_agreed(s, r, NULL, &b, disp, st) != MPI_SUCCESS)
        return st->errclass;
    for (MPI_Offset rd = 0; rd < s->rounds; rd++) {
        MPI_Offset base = disp + (rd * s->nprocs + s->rank) * s->chunk_elems * E;
        ir_runs x = runs_of(r, rd);
        int whole = write_prepare(s, &x, fh, base, b.cbuf, 0, st);
        ir_gather_round(s, r, rd, buf, b.sbuf, b.rbuf, b.cbuf, st);
        write_finish(s, &x, fh, base, b.cbuf, whole, st);
    }
    bufs_free(&b);
    return MPI_SUCCESS;
}

int ir_route_read(edonio_ir_schedule s, ir_route *r, MPI_File fh, MPI_Offset disp, void *buf,
                  ir_status *st)
{
    ir_bufs b;
    MPI_Offset E = s->elem_size;
    if (bufs_agreed(s, r, NULL, &b, disp, st) != MPI_SUCCESS)
        return st->errclass;
    for (MPI_Offset rd = 0; rd < s->rounds; rd++) {
        MPI_Offset c = rd * s->nprocs + s->rank, base = disp + c * s->chunk_elems * E;
        ir_runs x = runs_of(r, rd);
        read_fill(s, &x, c, fh, base, b.cbuf, st);
        ir_scatter_round(s, r, rd, b.cbuf, b.sbuf, b.rbuf, buf, st);
    }
    bufs_free(&b);
    return MPI_SUCCESS;
}

/* Whether one read of the released (w) and new (r) elements' joint extent costs less than
 * moving each as it would alone; then *first, *end is that extent. */
static int joint_read(const ir_runs *w, const ir_runs *r, MPI_Offset E, int can_read,
                      MPI_Offset *first, MPI_Offset *end)
{
    if (w->n == 0 || r->n == 0 || !can_read)
        return 0;
    MPI_Offset sep_w = by_runs(w, E) < by_extent(w, E, 2) ? by_runs(w, E) : by_extent(w, E, 2);
    MPI_Offset sep_r = by_runs(r, E) < by_extent(r, E, 1) ? by_runs(r, E) : by_extent(r, E, 1);
    *first = w->first < r->first ? w->first : r->first;
    *end = w->end > r->end ? w->end : r->end;
    MPI_Offset joint = IR_OP_BYTES + (*end - *first) * E;
    joint += by_runs(w, E) < by_extent(w, E, 1) ? by_runs(w, E) : by_extent(w, E, 1);
    return joint < sep_w + sep_r;
}

/*
 * A switch, round by round, its two exchanges at once: every process posts its receives of the
 * new elements and sends its released ones; each handler, once its released elements are in,
 * writes them, reads the new ones (or takes them from one read of the released and new
 * elements' joint extent, where that costs less: the released ones overlaid on the file's
 * bytes) and sends them. Writing first: a handler writes what one process releases before it
 * reads it for another.
 */
int ir_route_switch(edonio_ir_schedule s, ir_route *rel, ir_route *fresh, MPI_File fh,
                    MPI_Offset disp, const void *old_buf, void *new_buf, ir_status *st)
{
    ir_bufs b;
    MPI_Offset E = s->elem_size;
    MPI_Request *greq = s->reqs, *freq = s->reqs + 2 * s->nprocs;
    if (bufs_agreed(s, rel, fresh, &b, disp, st) != MPI_SUCCESS)
        return st->errclass;
    for (MPI_Offset rd = 0; rd < s->rounds; rd++) {
        MPI_Offset c = rd * s->nprocs + s->rank, base = disp + c * s->chunk_elems * E;
        MPI_Offset first = 0, end = 0;
        ir_runs w = runs_of(rel, rd), r = runs_of(fresh, rd);
        int ng = 0, nf = 0, joint = joint_read(&w, &r, E, s->can_read, &first, &end);
        scatter_post_recv(s, fresh, rd, b.fsbuf, freq, &nf);
        gather_post(s, rel, rd, old_buf, b.sbuf, b.rbuf, greq, &ng);
        /* A joint read that comes back short (new elements past the end of the file that a
         * release of this round may write) or fails: the released ones written first, then
         * the new ones read, as without it. */
        if (joint && read_extent(s, fh, base, b.cbuf, first, end, st) < (end - first) * E)
            joint = 0;
        int whole = write_prepare(s, &w, fh, base, b.cbuf, joint, st);
        wait_all(ng, greq, rd, st);
        gather_apply(s, rel, rd, b.rbuf, b.cbuf);
        write_finish(s, &w, fh, base, b.cbuf, whole, st);
        if (!joint)
            read_fill(s, &r, c, fh, base, b.cbuf, st);
        scatter_send(s, fresh, rd, b.cbuf, b.fsbuf, b.frbuf, freq, &nf);
        wait_all(nf, freq, rd, st);
        scatter_apply(s, fresh, rd, b.fsbuf, new_buf);
    }
    bufs_free(&b);
    return MPI_SUCCESS;
}
