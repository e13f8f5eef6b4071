/*
 * Routes: built once from the references' global indices, then reused by every write and read.
 * The only exchange is here: each process sends the handler of every chunk it references the
 * sorted global indices it references there; the handler keeps, for each round and source, the
 * elements it will receive and send, and the covered runs of its chunks.
 */
#include <stdlib.h>
#include <string.h>
#include "ir.h"

/*
 * Sort references by global index, ties kept in their order (the callers give them by
 * position): a least-significant-digit radix sort, 11 bits a pass, as many passes as indices
 * below `keys` need (2 for 4 million, 3 for 8 billion). qsort with a comparison took 25 ms for
 * a rank's 524,288 references here, and a schedule sorts once, an update twice.
 */
int ir_sort_refs(ir_ref *a, MPI_Offset n, MPI_Offset keys)
{
    enum { BITS = 11, BUCKETS = 1 << BITS };
    if (n < 2)
        return 0;
    ir_ref *tmp = malloc((size_t)n * sizeof *tmp), *from = a, *to = tmp;
    MPI_Offset *count = malloc(BUCKETS * sizeof *count);
    if (tmp == NULL || count == NULL) {
        free(tmp);
        free(count);
        return -1;
    }
    for (int shift = 0; shift < 63 && (keys - 1) >> shift > 0; shift += BITS) {
        memset(count, 0, BUCKETS * sizeof *count);
        for (MPI_Offset k = 0; k < n; k++)
            count[(from[k].g >> shift) & (BUCKETS - 1)]++;
        for (MPI_Offset b = 0, sum = 0; b < BUCKETS; b++) {
            MPI_Offset c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (MPI_Offset k = 0; k < n; k++)
            to[count[(from[k].g >> shift) & (BUCKETS - 1)]++] = from[k];
        ir_ref *t = from;
        from = to;
        to = t;
    }
    if (from != a)
        memcpy(a, from, (size_t)n * sizeof *a);
    free(tmp);
    free(count);
    return 0;
}

void ir_route_free(ir_route **route)
{
    ir_route *r = *route;
    if (r == NULL)
        return;
    free(r->spos);
    free(r->soff);
    free(r->relem);
    free(r->roff);
    free(r->runoff);
    free(r->runs);
    free(r);
    *route = NULL;
}

/* The send side: references sorted, counted per chunk; *sorted gets their global indices in
 * send order. */
static int sort_refs(edonio_ir_schedule s, ir_route *r, const MPI_Offset *idx,
                     const MPI_Offset *pos, MPI_Offset **sorted, ir_status *st)
{
    size_t n = (size_t)(r->n ? r->n : 1);
    ir_ref *refs = malloc(n * sizeof *refs);
    r->spos = malloc(n * sizeof *r->spos);
    r->soff = calloc((size_t)s->chunks + 1, sizeof *r->soff);
    *sorted = malloc(n * sizeof **sorted);
    if (refs == NULL || r->spos == NULL || r->soff == NULL || *sorted == NULL) {
        free(refs);
        return ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for %lld references", st->call,
                       (long long)r->n);
    }
    for (MPI_Offset k = 0; k < r->n; k++) {
        refs[k].g = idx[k];
        refs[k].pos = pos ? pos[k] : k;
    }
    if (ir_sort_refs(refs, r->n, s->global_count) != 0) {
        free(refs);
        return ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for %lld references", st->call,
                       (long long)r->n);
    }
    for (MPI_Offset k = 0; k < r->n; k++) {
        r->spos[k] = refs[k].pos;
        (*sorted)[k] = refs[k].g;
        r->soff[refs[k].g / s->chunk_elems + 1]++;
    }
    for (MPI_Offset c = 0; c < s->chunks; c++)
        r->soff[c + 1] += r->soff[c];
    free(refs);
    return MPI_SUCCESS;
}

/* The receive side: what each source sends, by round. gidx holds, per source, its sorted global
 * indices (all in this process's chunks). */
static int index_received(edonio_ir_schedule s, ir_route *r, const MPI_Offset *gidx,
                          const MPI_Offset *from, ir_status *st)
{
    int P = s->nprocs;
    MPI_Offset R = s->rounds;
    r->roff = calloc((size_t)(R * P + 1), sizeof *r->roff);
    r->relem = malloc((size_t)(r->nrecv ? r->nrecv : 1) * sizeof *r->relem);
    r->runoff = calloc((size_t)R + 1, sizeof *r->runoff);
    if (r->roff == NULL || r->relem == NULL || r->runoff == NULL)
        return ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for %lld received references", st->call,
                       (long long)r->nrecv);
    for (int src = 0; src < P; src++)
        for (MPI_Offset k = from[src]; k < from[src + 1]; k++) {
            MPI_Offset c = gidx[k] / s->chunk_elems;
            r->roff[(c / P) * P + src + 1]++;
        }
    for (MPI_Offset i = 0; i < R * P; i++)
        r->roff[i + 1] += r->roff[i];
    MPI_Offset *fill = malloc((size_t)(R * P + 1) * sizeof *fill);
    if (fill == NULL)
        return ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for the route", st->call);
    memcpy(fill, r->roff, (size_t)(R * P + 1) * sizeof *fill);
    for (int src = 0; src < P; src++)
        for (MPI_Offset k = from[src]; k < from[src + 1]; k++) {
            MPI_Offset c = gidx[k] / s->chunk_elems;
            r->relem[fill[(c / P) * P + src]++] = (uint32_t)(gidx[k] - c * s->chunk_elems);
        }
    free(fill);
    for (MPI_Offset rd = 0; rd < R; rd++) {
        MPI_Offset got = r->roff[(rd + 1) * P] - r->roff[rd * P];
        if (got > r->rmax)
            r->rmax = got;
    }
    return MPI_SUCCESS;
}

/* The covered runs of each chunk this process handles (from a bit map of one chunk). */
static int find_runs(edonio_ir_schedule s, ir_route *r, ir_status *st)
{
    int P = s->nprocs;
    size_t words = (size_t)(s->chunk_elems + 63) / 64;
    uint64_t *map = malloc(words * sizeof *map);
    MPI_Offset cap = 16, nruns = 0;
    r->runs = malloc((size_t)cap * 2 * sizeof *r->runs);
    if (map == NULL || r->runs == NULL) {
        free(map);
        return ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for the chunk map", st->call);
    }
    for (MPI_Offset rd = 0; rd < s->rounds; rd++) {
        MPI_Offset c = rd * P + s->rank;
        r->runoff[rd] = nruns;
        if (c >= s->chunks || r->roff[rd * P] == r->roff[(rd + 1) * P])
            continue;
        memset(map, 0, words * sizeof *map);
        for (MPI_Offset k = r->roff[rd * P]; k < r->roff[(rd + 1) * P]; k++)
            map[r->relem[k] / 64] |= (uint64_t)1 << (r->relem[k] % 64);
        MPI_Offset len = ir_chunk_len(s, c), e = 0;
        while (e < len) {
            if (!(map[e / 64] >> (e % 64) & 1)) {
                e++;
                continue;
            }
            MPI_Offset first = e;
            while (e < len && (map[e / 64] >> (e % 64) & 1))
                e++;
            if (nruns == cap) {
                MPI_Offset *more = realloc(r->runs, (size_t)cap * 4 * sizeof *more);
                if (more == NULL) {
                    free(map);
                    return ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for the runs", st->call);
                }
                r->runs = more;
                cap *= 2;
            }
            r->runs[2 * nruns] = first;
            r->runs[2 * nruns + 1] = e - first;
            nruns++;
        }
    }
    r->runoff[s->rounds] = nruns;
    free(map);
    return MPI_SUCCESS;
}

/* Collective over s->comm. idx holds n global indices, already checked to be in range on every
 * process; pos their buffer positions (NULL: 0..n-1). */
int ir_route_build(edonio_ir_schedule s, MPI_Offset n, const MPI_Offset *idx, const MPI_Offset *pos,
                   ir_route **route, ir_status *st)
{
    int P = s->nprocs, err;
    ir_route *r = calloc(1, sizeof *r);
    MPI_Offset *sendc = calloc((size_t)P, sizeof *sendc), *recvc = calloc((size_t)P, sizeof *recvc);
    MPI_Offset *sendidx = NULL, *from = calloc((size_t)P + 1, sizeof *from), *gidx = NULL;
    MPI_Offset *sfrom = calloc((size_t)P + 1, sizeof *sfrom);
    MPI_Request *reqs = malloc((size_t)2 * P * sizeof *reqs);
    MPI_Offset *sorted = NULL;
    ir_status local = IR_STATUS(st->call);
    int nreq = 0;

    if (r == NULL || sendc == NULL || recvc == NULL || from == NULL || sfrom == NULL ||
        reqs == NULL)
        ir_fail(&local, MPI_ERR_NO_MEM, "%s: no memory for a route over %d processes", local.call,
                P);
    else {
        r->n = n;
        sort_refs(s, r, idx, pos, &sorted, &local);
    }
    /* Failing to allocate the send side is agreed before anything is sent. */
    if ((err = ir_agree(s->comm, &local)) != MPI_SUCCESS)
        goto out;
    /* Per destination, its chunks' indices, in chunk order. */
    for (MPI_Offset c = 0; c < s->chunks; c++)
        sendc[c % P] += r->soff[c + 1] - r->soff[c];
    for (int p = 0; p < P; p++)
        sfrom[p + 1] = sfrom[p] + sendc[p];
    sendidx = malloc((size_t)(n ? n : 1) * sizeof *sendidx);
    if (sendidx == NULL) {
        ir_fail(&local, MPI_ERR_NO_MEM, "%s: no memory for %lld indices", local.call, (long long)n);
    } else {
        MPI_Offset *at = malloc((size_t)P * sizeof *at);
        if (at == NULL) {
            ir_fail(&local, MPI_ERR_NO_MEM, "%s: no memory for a route over %d processes",
                    local.call, P);
            goto agree;
        }
        memcpy(at, sfrom, (size_t)P * sizeof *at);
        for (MPI_Offset c = 0; c < s->chunks; c++) {
            MPI_Offset k0 = r->soff[c], k1 = r->soff[c + 1];
            memcpy(sendidx + at[c % P], sorted + k0, (size_t)(k1 - k0) * sizeof *sendidx);
            at[c % P] += k1 - k0;
        }
        free(at);
        for (MPI_Offset rd = 0; rd < s->rounds; rd++) {
            MPI_Offset c0 = rd * P, c1 = c0 + P < s->chunks ? c0 + P : s->chunks;
            if (r->soff[c1] - r->soff[c0] > r->smax)
                r->smax = r->soff[c1] - r->soff[c0];
        }
    }
agree:
    if ((err = ir_agree(s->comm, &local)) != MPI_SUCCESS)
        goto out;
    MPI_Request req = MPI_REQUEST_NULL;
    if (MPI_Ialltoall(sendc, 1, MPI_OFFSET, recvc, 1, MPI_OFFSET, s->comm, &req) != MPI_SUCCESS ||
        ir_waitall(1, &req) != MPI_SUCCESS) {
        ir_fail(&local, MPI_ERR_OTHER, "%s: the exchange of counts failed", local.call);
        for (int p = 0; p < P; p++)
            recvc[p] = 0;
    }
    for (int p = 0; p < P; p++)
        from[p + 1] = from[p] + recvc[p];
    r->nrecv = from[P];
    gidx = malloc((size_t)(r->nrecv ? r->nrecv : 1) * sizeof *gidx);
    if (gidx == NULL)
        ir_fail(&local, MPI_ERR_NO_MEM, "%s: no memory for %lld received indices", local.call,
                (long long)r->nrecv);
    for (int p = 0; p < P && gidx; p++) {
        if (recvc[p] > INT32_MAX || sendc[p] > INT32_MAX) {
            ir_fail(&local, MPI_ERR_ARG, "%s: more than 2^31 references to one process",
                    local.call);
            break;
        }
    }
    if ((err = ir_agree(s->comm, &local)) != MPI_SUCCESS)
        goto out;
    for (int p = 0; p < P; p++) {
        if (recvc[p] > 0)
            MPI_Irecv(gidx + from[p], (int)recvc[p], MPI_OFFSET, p, IR_TAG, s->comm, &reqs[nreq++]);
        if (sendc[p] > 0)
            MPI_Isend(sendidx + sfrom[p], (int)sendc[p], MPI_OFFSET, p, IR_TAG, s->comm,
                      &reqs[nreq++]);
    }
    ir_waitall(nreq, reqs);
    if (index_received(s, r, gidx, from, &local) == MPI_SUCCESS)
        find_runs(s, r, &local);
    err = ir_agree(s->comm, &local);
out:
    if (err == MPI_SUCCESS) {
        *route = r;
        r = NULL;
    } else {
        *st = local;
    }
    ir_route_free(&r);
    free(sendc);
    free(recvc);
    free(sendidx);
    free(from);
    free(sfrom);
    free(gidx);
    free(sorted);
    free(reqs);
    return err;
}
