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

int ir_gather_round(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const void *buf,
                    char *sbuf, char *rbuf, char *cbuf, ir_status *st)
{
    int P = s->nprocs, me = s->rank, nreq = 0;
    MPI_Offset E = s->elem_size, c0 = round * P, *roff = r->roff + round * P;
    MPI_Request *reqs = s->reqs;
    const char *b = buf;

    for (int src = 0; src < P; src++) {
        MPI_Offset cnt = roff[src + 1] - roff[src];
        if (cnt > 0 && src != me)
            MPI_Irecv(rbuf + (roff[src] - roff[0]) * E, (int)(cnt * E), MPI_BYTE, src, IR_TAG,
                      s->comm, &reqs[nreq++]);
    }
    for (int p = 0; p < P && c0 + p < s->chunks; p++) {
        MPI_Offset c = c0 + p, k0 = r->soff[c], k1 = r->soff[c + 1];
        if (k1 == k0)
            continue;
        char *out = p == me ? rbuf + (roff[me] - roff[0]) * E : sbuf + (k0 - r->soff[c0]) * E;
        for (MPI_Offset k = k0; k < k1; k++)
            copy_elem(out + (k - k0) * E, b + r->spos[k] * E, E);
        if (p != me) {
            MPI_Isend(out, (int)((k1 - k0) * E), MPI_BYTE, p, IR_TAG, s->comm, &reqs[nreq++]);
            s->stats.bytes_sent += (k1 - k0) * E;
        }
    }
    if (ir_waitall(nreq, reqs) != MPI_SUCCESS)
        ir_fail(st, MPI_ERR_OTHER, "edonio_ir: an exchange of round %lld failed", (long long)round);
    /* The lowest rank's copy wins: sources are applied from the highest down, each in its order
     * (by global index, then position: a process's last copy comes last). */
    if (c0 + me < s->chunks)
        for (int src = P - 1; src >= 0; src--)
            for (MPI_Offset k = roff[src]; k < roff[src + 1]; k++)
                copy_elem(cbuf + (MPI_Offset)r->relem[k] * E, rbuf + (k - roff[0]) * E, E);
    return MPI_SUCCESS;
}

int ir_scatter_round(edonio_ir_schedule s, ir_route *r, MPI_Offset round, const char *cbuf,
                     char *sbuf, char *rbuf, void *buf, ir_status *st)
{
    int P = s->nprocs, me = s->rank, nreq = 0;
    MPI_Offset E = s->elem_size, c0 = round * P, *roff = r->roff + round * P;
    MPI_Request *reqs = s->reqs;
    char *b = buf;

    for (int p = 0; p < P && c0 + p < s->chunks; p++) {
        MPI_Offset c = c0 + p, k0 = r->soff[c], k1 = r->soff[c + 1];
        if (k1 > k0 && p != me)
            MPI_Irecv(sbuf + (k0 - r->soff[c0]) * E, (int)((k1 - k0) * E), MPI_BYTE, p, IR_TAG,
                      s->comm, &reqs[nreq++]);
    }
    for (int src = 0; src < P; src++) {
        MPI_Offset cnt = roff[src + 1] - roff[src];
        if (cnt == 0)
            continue;
        char *out = src == me ? sbuf + (r->soff[c0 + me] - r->soff[c0]) * E
                              : rbuf + (roff[src] - roff[0]) * E;
        for (MPI_Offset k = roff[src]; k < roff[src + 1]; k++)
            copy_elem(out + (k - roff[src]) * E, cbuf + (MPI_Offset)r->relem[k] * E, E);
        if (src != me) {
            MPI_Isend(out, (int)(cnt * E), MPI_BYTE, src, IR_TAG, s->comm, &reqs[nreq++]);
            s->stats.bytes_sent += cnt * E;
        }
    }
    if (ir_waitall(nreq, reqs) != MPI_SUCCESS)
        ir_fail(st, MPI_ERR_OTHER, "edonio_ir: an exchange of round %lld failed", (long long)round);
    MPI_Offset k0 = r->soff[c0], k1 = r->soff[c0 + P < s->chunks ? c0 + P : s->chunks];
    for (MPI_Offset k = k0; k < k1; k++)
        copy_elem(b + r->spos[k] * E, sbuf + (k - k0) * E, E);
    return MPI_SUCCESS;
}

/* An MPI-IO call's failure, in the library's words. */
static void io_failed(ir_status *st, int err, const char *what, MPI_Offset off, MPI_Offset len)
{
    char text[MPI_MAX_ERROR_STRING];
    int tlen = 0, cls = MPI_ERR_IO;
    MPI_Error_string(err, text, &tlen);
    MPI_Error_class(err, &cls);
    ir_fail(st, cls, "edonio_ir: %s of %lld bytes at offset %lld failed: %s", what, (long long)len,
            (long long)off, text);
}

/* Read len bytes at off into p; returns the bytes read (fewer at the end of the file). */
static MPI_Offset read_at(edonio_ir_schedule s, MPI_File fh, MPI_Offset off, char *p,
                          MPI_Offset len, ir_status *st)
{
    MPI_Status status;
    int got = 0, err = MPI_File_read_at(fh, off, p, (int)len, MPI_BYTE, &status);
    s->stats.file_reads++;
    if (err != MPI_SUCCESS) {
        io_failed(st, err, "a read", off, len);
        return 0;
    }
    MPI_Get_count(&status, MPI_BYTE, &got);
    s->stats.bytes_read += got;
    return got;
}

static void write_at(edonio_ir_schedule s, MPI_File fh, MPI_Offset off, const char *p,
                     MPI_Offset len, ir_status *st)
{
    MPI_Status status;
    int put = 0, err = MPI_File_write_at(fh, off, p, (int)len, MPI_BYTE, &status);
    s->stats.file_writes++;
    if (err != MPI_SUCCESS)
        return io_failed(st, err, "a write", off, len);
    MPI_Get_count(&status, MPI_BYTE, &put);
    s->stats.bytes_written += put;
    if (put != len)
        ir_fail(st, MPI_ERR_IO, "edonio_ir: a write of %lld bytes at offset %lld wrote %d",
                (long long)len, (long long)off, put);
}

/* Whether one operation over the runs' extent costs less than one per run (ops: 2 for a
 * read-modify-write, 1 for a read). */
static int sieve(const MPI_Offset *runs, MPI_Offset nruns, MPI_Offset E, int ops)
{
    if (nruns <= ops)
        return 0;
    MPI_Offset covered = 0, extent = runs[2 * (nruns - 1)] + runs[2 * nruns - 1] - runs[0];
    for (MPI_Offset i = 0; i < nruns; i++)
        covered += runs[2 * i + 1];
    return ops * (IR_OP_BYTES + extent * E) < nruns * IR_OP_BYTES + covered * E;
}

typedef struct {
    char *sbuf, *rbuf, *cbuf;
} ir_bufs;

static int bufs_get(edonio_ir_schedule s, ir_route *r, ir_bufs *b, ir_status *st)
{
    MPI_Offset E = s->elem_size;
    b->sbuf = malloc((size_t)(r->smax * E + 1));
    b->rbuf = malloc((size_t)(r->rmax * E + 1));
    b->cbuf = malloc((size_t)(s->chunk_elems * E));
    if (b->sbuf == NULL || b->rbuf == NULL || b->cbuf == NULL)
        return ir_fail(st, MPI_ERR_NO_MEM, "edonio_ir: no memory for a chunk of %lld bytes",
                       (long long)(s->chunk_elems * E));
    return MPI_SUCCESS;
}

static void bufs_free(ir_bufs *b)
{
    free(b->sbuf);
    free(b->rbuf);
    free(b->cbuf);
}

int ir_route_write(edonio_ir_schedule s, ir_route *r, MPI_File fh, MPI_Offset disp, const void *buf,
                   ir_status *st)
{
    ir_bufs b;
    MPI_Offset E = s->elem_size;
    bufs_get(s, r, &b, st);
    if (ir_agree(s->comm, st) != MPI_SUCCESS) {
        bufs_free(&b);
        return st->errclass;
    }
    for (MPI_Offset rd = 0; rd < s->rounds; rd++) {
        MPI_Offset c = rd * s->nprocs + s->rank, *runs = r->runs + 2 * r->runoff[rd];
        MPI_Offset nruns = r->runoff[rd + 1] - r->runoff[rd];
        MPI_Offset base = disp + c * s->chunk_elems * E;
        int whole = nruns > 0 && sieve(runs, nruns, E, 2);
        MPI_Offset first = nruns ? runs[0] : 0;
        MPI_Offset extent = nruns ? runs[2 * (nruns - 1)] + runs[2 * nruns - 1] - first : 0;
        if (whole) {
            MPI_Offset got = read_at(s, fh, base + first * E, b.cbuf + first * E, extent * E, st);
            memset(b.cbuf + first * E + got, 0, (size_t)(extent * E - got));
        }
        ir_gather_round(s, r, rd, buf, b.sbuf, b.rbuf, b.cbuf, st);
        if (whole)
            write_at(s, fh, base + first * E, b.cbuf + first * E, extent * E, st);
        else
            for (MPI_Offset i = 0; i < nruns; i++)
                write_at(s, fh, base + runs[2 * i] * E, b.cbuf + runs[2 * i] * E,
                         runs[2 * i + 1] * E, st);
    }
    bufs_free(&b);
    return MPI_SUCCESS;
}

/* A read came back short: the file ends before an element asked for. */
static void past_end(edonio_ir_schedule s, ir_status *st, MPI_Offset byte, MPI_Offset elem)
{
    (void)s;
    ir_fail(st, MPI_ERR_IO,
            "edonio_ir_read: element %lld is past the end of the file (a read at byte %lld "
            "found nothing more)",
            (long long)elem, (long long)byte);
}

int ir_route_read(edonio_ir_schedule s, ir_route *r, MPI_File fh, MPI_Offset disp, void *buf,
                  ir_status *st)
{
    ir_bufs b;
    MPI_Offset E = s->elem_size;
    bufs_get(s, r, &b, st);
    if (ir_agree(s->comm, st) != MPI_SUCCESS) {
        bufs_free(&b);
        return st->errclass;
    }
    for (MPI_Offset rd = 0; rd < s->rounds; rd++) {
        MPI_Offset c = rd * s->nprocs + s->rank, *runs = r->runs + 2 * r->runoff[rd];
        MPI_Offset nruns = r->runoff[rd + 1] - r->runoff[rd];
        MPI_Offset base = disp + c * s->chunk_elems * E;
        if (nruns > 0 && sieve(runs, nruns, E, 1)) {
            MPI_Offset first = runs[0];
            MPI_Offset extent = runs[2 * (nruns - 1)] + runs[2 * nruns - 1] - first;
            MPI_Offset got = read_at(s, fh, base + first * E, b.cbuf + first * E, extent * E, st);
            if (got < extent * E)
                past_end(s, st, base + first * E + got, c * s->chunk_elems + first + got / E);
        } else
            for (MPI_Offset i = 0; i < nruns; i++) {
                MPI_Offset at = runs[2 * i] * E, len = runs[2 * i + 1] * E;
                MPI_Offset got = read_at(s, fh, base + at, b.cbuf + at, len, st);
                if (got < len)
                    past_end(s, st, base + at + got, c * s->chunk_elems + runs[2 * i] + got / E);
            }
        ir_scatter_round(s, r, rd, b.cbuf, b.sbuf, b.rbuf, buf, st);
    }
    bufs_free(&b);
    return MPI_SUCCESS;
}
