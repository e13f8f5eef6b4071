/*
 * Schedules: created from an indirection array (edonio_ir_schedule_create), or from the previous
 * loop's schedule (edonio_ir_schedule_update, seed 002's software caching); the public write,
 * read and switch calls; info, statistics, free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h> /* strcasecmp */
#include <zstd.h>
#include "ir.h"

#define IR_CHUNK_DEFAULT  1048576
#define IR_CHUNK_MAX      268435456
#define IR_ALIGN_DEFAULT  4096
#define IR_ALIGN_MAX      1073741824
#define IR_ZLEVEL_DEFAULT 3

/* key's value in info, into val (MPI_MAX_INFO_VAL + 1 bytes): 0 when absent. */
static int info_value(MPI_Info info, const char *key, char *val)
{
    int flag = 0;
    if (info != MPI_INFO_NULL)
        MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
    return flag;
}

/* An integer info value in [lo, hi], else the default. */
static long long info_int(MPI_Info info, const char *key, long long dflt, long long lo,
                          long long hi)
{
    char val[MPI_MAX_INFO_VAL + 1], *end;
    if (!info_value(info, key, val))
        return dflt;
    errno = 0;
    long long v = strtoll(val, &end, 10);
    while (*end == ' ')
        end++;
    if (errno || end == val || *end != '\0' || v < lo || v > hi)
        return dflt;
    return v;
}

/* A boolean info value as edonio's hints take them (true, enable or 1; false, disable or 0; any
 * case), else the default. */
static int info_bool(MPI_Info info, const char *key, int dflt)
{
    char val[MPI_MAX_INFO_VAL + 1];
    if (!info_value(info, key, val))
        return dflt;
    if (!strcasecmp(val, "true") || !strcasecmp(val, "enable") || !strcmp(val, "1"))
        return 1;
    if (!strcasecmp(val, "false") || !strcasecmp(val, "disable") || !strcmp(val, "0"))
        return 0;
    return dflt;
}

static int check_indices(const char *call, MPI_Offset N, MPI_Offset n, const MPI_Offset *idx,
                         ir_status *st)
{
    if (n < 0)
        return ir_fail(st, MPI_ERR_ARG, "%s: the count %lld is negative", call, (long long)n);
    if (n > 0 && idx == NULL)
        return ir_fail(st, MPI_ERR_ARG, "%s: indices is NULL with a count of %lld", call,
                       (long long)n);
    for (MPI_Offset k = 0; k < n; k++)
        if (idx[k] < 0 || idx[k] >= N)
            return ir_fail(st, MPI_ERR_ARG,
                           "%s: index %lld (at position %lld) is out of range [0, %lld)", call,
                           (long long)idx[k], (long long)k, (long long)N);
    return MPI_SUCCESS;
}

static void sched_free(edonio_ir_schedule s)
{
    if (s == NULL)
        return;
    ir_route_free(&s->full);
    ir_route_free(&s->release);
    ir_route_free(&s->fetch);
    free(s->indices);
    free(s->keep);
    free(s->reqs);
    if (s->elem != MPI_DATATYPE_NULL)
        MPI_Type_free(&s->elem);
    if (s->comm != MPI_COMM_NULL)
        MPI_Comm_free(&s->comm);
    s->magic = 0;
    free(s);
}

/* A schedule's frame (no route yet) over a duplicate of comm. Collective. */
static edonio_ir_schedule sched_new(MPI_Comm comm, ir_status *st)
{
    edonio_ir_schedule s = calloc(1, sizeof *s);
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(comm, &dup);
    if (s == NULL) {
        ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for a schedule", st->call);
        if (dup != MPI_COMM_NULL)
            MPI_Comm_free(&dup);
        return NULL;
    }
    s->comm = dup;
    MPI_Comm_size(dup, &s->nprocs);
    MPI_Comm_rank(dup, &s->rank);
    s->reqs = malloc((size_t)4 * s->nprocs * sizeof *s->reqs);
    s->elem = MPI_DATATYPE_NULL;
    /* Failures of MPI calls on the schedule's communicator come back as codes (the library
     * calls no error handler). */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (s->reqs == NULL)
        ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for a schedule", st->call);
    s->magic = IR_MAGIC;
    return s;
}

/* Whether every process made its schedule's frame (agreed over comm, which every process has
 * even where the frame failed); if not, every process frees its own. */
static int sched_made(MPI_Comm comm, edonio_ir_schedule *s, ir_status *st)
{
    if (ir_agree(comm, st) == MPI_SUCCESS)
        return MPI_SUCCESS;
    sched_free(*s);
    *s = NULL;
    return st->errclass;
}

static void sched_shape(edonio_ir_schedule s)
{
    if (s->elem == MPI_DATATYPE_NULL) {
        MPI_Type_contiguous((int)s->elem_size, MPI_BYTE, &s->elem);
        MPI_Type_commit(&s->elem);
    }
    s->chunks = (s->global_count + s->chunk_elems - 1) / s->chunk_elems;
    s->rounds = (s->chunks + s->nprocs - 1) / s->nprocs;
}

int edonio_ir_schedule_create(MPI_Comm comm, MPI_Offset global_count, MPI_Offset element_size,
                              MPI_Offset count, const MPI_Offset indices[], MPI_Info info,
                              edonio_ir_schedule *sched)
{
    static const char call[] = "edonio_ir_schedule_create";
    ir_status st = IR_STATUS(call);
    int err;
    if (comm == MPI_COMM_NULL)
        return ir_error_code(MPI_ERR_COMM, "edonio_ir_schedule_create: comm is MPI_COMM_NULL");
    edonio_ir_schedule s = sched_new(comm, &st);
    if (sched_made(comm, &s, &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg);
    if (sched == NULL)
        ir_fail(&st, MPI_ERR_ARG, "%s: sched is NULL", call);
    else
        *sched = EDONIO_IR_SCHEDULE_NULL;
    if (global_count < 0)
        ir_fail(&st, MPI_ERR_ARG, "%s: the global count %lld is negative", call,
                (long long)global_count);
    if (element_size <= 0)
        ir_fail(&st, MPI_ERR_ARG, "%s: the element size %lld is not positive", call,
                (long long)element_size);
    else if (element_size > IR_CHUNK_MAX)
        ir_fail(&st, MPI_ERR_ARG, "%s: the element size %lld is larger than %d bytes", call,
                (long long)element_size, IR_CHUNK_MAX);
    if (st.errclass == MPI_SUCCESS)
        check_indices(call, global_count, count, indices, &st);
    s->global_count = global_count;
    s->elem_size = element_size > 0 ? element_size : 1;
    MPI_Offset chunk = info_int(info, "edonio_ir_chunk_size", IR_CHUNK_DEFAULT, 1, IR_CHUNK_MAX);
    s->chunk_elems = chunk / s->elem_size > 0 ? chunk / s->elem_size : 1;
    s->align = info_int(info, "edonio_ir_align", IR_ALIGN_DEFAULT, 1, IR_ALIGN_MAX);
    s->zlevel = (int)info_int(info, "edonio_ir_zstd_level", IR_ZLEVEL_DEFAULT, ZSTD_minCLevel(),
                              ZSTD_maxCLevel());
    s->shuffle = info_bool(info, "edonio_ir_shuffle", 1);
    /* The array and the info values must be the same on every process. */
    MPI_Offset mine[8] = {global_count,   -global_count,   s->elem_size, -s->elem_size,
                          s->chunk_elems, -s->chunk_elems, s->align,     -s->align};
    MPI_Offset all[8];
    ir_allreduce(mine, all, 8, IR_OFFSET_REDUCE, MPI_MAX, s->comm);
    if (all[0] != -all[1] || all[2] != -all[3])
        ir_fail(&st, MPI_ERR_ARG,
                "%s: the global count or the element size differs between "
                "processes",
                call);
    else if (all[4] != -all[5] || all[6] != -all[7])
        ir_fail(&st, MPI_ERR_ARG,
                "%s: edonio_ir_chunk_size or edonio_ir_align differs between "
                "processes",
                call);
    if ((err = ir_agree(s->comm, &st)) != MPI_SUCCESS)
        goto failed;
    sched_shape(s);
    s->n = count;
    s->indices = malloc((size_t)(count ? count : 1) * sizeof *s->indices);
    if (s->indices == NULL)
        ir_fail(&st, MPI_ERR_NO_MEM, "%s: no memory for %lld indices", call, (long long)count);
    else if (count > 0)
        memcpy(s->indices, indices, (size_t)count * sizeof *s->indices);
    if ((err = ir_agree(s->comm, &st)) != MPI_SUCCESS)
        goto failed;
    if ((err = ir_route_build(s, count, indices, NULL, &s->full, &st)) != MPI_SUCCESS)
        goto failed;
    *sched = s;
    return MPI_SUCCESS;
failed:
    sched_free(s);
    return err;
}

/* The end of a call that wrote: the outcome agreed, and a barrier, so that every process of
 * the schedule sees what the call wrote when it returns, as on a POSIX file system (MPI-IO
 * alone asks sync-barrier-sync; edonio takes a barrier over the file's processes as the
 * hand-over of what they wrote, doc/user-guide.md). The two wait together (ir_agree_barrier). */
int ir_written(edonio_ir_schedule s, ir_status *st)
{
    return ir_agree_barrier(s->comm, st);
}

int ir_ensure_full(edonio_ir_schedule s, ir_status *st)
{
    if (s->full != NULL)
        return MPI_SUCCESS;
    return ir_route_build(s, s->n, s->indices, NULL, &s->full, st);
}

typedef ir_ref ref;

static ref *sorted_refs(MPI_Offset n, const MPI_Offset *idx, MPI_Offset keys)
{
    ref *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    if (r == NULL)
        return NULL;
    for (MPI_Offset k = 0; k < n; k++)
        r[k] = (ref){idx[k], k};
    if (ir_sort_refs(r, n, keys) != 0) {
        free(r);
        return NULL;
    }
    return r;
}

/* The references in sorted order without sorting: a route's send order is it. */
static ref *refs_of_route(const ir_route *r, const MPI_Offset *idx)
{
    ref *a = malloc((size_t)(r->n ? r->n : 1) * sizeof *a);
    if (a == NULL)
        return NULL;
    for (MPI_Offset k = 0; k < r->n; k++)
        a[k] = (ref){idx[r->spos[k]], r->spos[k]};
    return a;
}

/* What changes from the previous loop's references (a) to this loop's (b): kept pairs, the
 * released elements (one copy each: a process's last, as a write keeps it) and the new ones. */
typedef struct {
    MPI_Offset nkeep, nrel, nnew;
    MPI_Offset *keep, *rel_g, *rel_pos, *new_g, *new_pos;
} diff;

static int diff_refs(const ref *a, MPI_Offset na, const ref *b, MPI_Offset nb, diff *d)
{
    size_t na1 = (size_t)(na ? na : 1), nb1 = (size_t)(nb ? nb : 1);
    d->keep = malloc(nb1 * 2 * sizeof *d->keep);
    d->rel_g = malloc(na1 * sizeof *d->rel_g);
    d->rel_pos = malloc(na1 * sizeof *d->rel_pos);
    d->new_g = malloc(nb1 * sizeof *d->new_g);
    d->new_pos = malloc(nb1 * sizeof *d->new_pos);
    if (!d->keep || !d->rel_g || !d->rel_pos || !d->new_g || !d->new_pos)
        return -1;
    MPI_Offset i = 0, j = 0;
    while (i < na || j < nb) {
        MPI_Offset g = i < na && (j >= nb || a[i].g <= b[j].g) ? a[i].g : b[j].g;
        MPI_Offset last = -1;
        for (; i < na && a[i].g == g; i++)
            last = a[i].pos; /* sorted by position within an index: the last one stays */
        for (; j < nb && b[j].g == g; j++) {
            if (last >= 0) {
                d->keep[2 * d->nkeep] = last;
                d->keep[2 * d->nkeep++ + 1] = b[j].pos;
            } else {
                d->new_g[d->nnew] = g;
                d->new_pos[d->nnew++] = b[j].pos;
            }
        }
        if (last >= 0 && (j == 0 || b[j - 1].g != g)) {
            d->rel_g[d->nrel] = g;
            d->rel_pos[d->nrel++] = last;
        }
    }
    return 0;
}

/*
 * The kept pairs as runs in this loop's order: (previous position, position, length), each a
 * stretch where both positions go up by one. The pairs come by global index, in no order of
 * position, and a copy in that order misses the cache on both sides at every element (it took
 * most of a switch: 6 ms of 8 for 460,000 elements); when the new loop keeps its elements in the
 * previous one's order, as a repartition does, the runs copy as two streams. The runs, 3 words
 * each, for the schedule's keep (d->keep is left for diff_free); NULL on no memory.
 */
static MPI_Offset *keep_runs(diff *d, MPI_Offset nb, MPI_Offset *nruns)
{
    MPI_Offset *from = malloc((size_t)(nb ? nb : 1) * sizeof *from), n = 0, *runs;
    if (from == NULL)
        return NULL;
    for (MPI_Offset j = 0; j < nb; j++)
        from[j] = -1;
    for (MPI_Offset k = 0; k < d->nkeep; k++)
        from[d->keep[2 * k + 1]] = d->keep[2 * k];
#define CONTINUES(j) ((j) > 0 && from[(j)-1] >= 0 && from[(j)-1] + 1 == from[j])
    for (MPI_Offset j = 0; j < nb; j++) /* counted first: 3 words a run, not a kept element */
        n += from[j] >= 0 && !CONTINUES(j);
    runs = malloc((size_t)(n ? n : 1) * 3 * sizeof *runs);
    if (runs == NULL) {
        free(from);
        return NULL;
    }
    n = 0;
    for (MPI_Offset j = 0; j < nb; j++) {
        if (from[j] >= 0 && CONTINUES(j)) {
            runs[3 * (n - 1) + 2]++;
        } else if (from[j] >= 0) {
            runs[3 * n] = from[j];
            runs[3 * n + 1] = j;
            runs[3 * n++ + 2] = 1;
        }
    }
#undef CONTINUES
    free(from);
    *nruns = n;
    return runs;
}

static void diff_free(diff *d)
{
    free(d->rel_g);
    free(d->rel_pos);
    free(d->new_g);
    free(d->new_pos);
    free(d->keep);
}

int edonio_ir_schedule_update(edonio_ir_schedule old, MPI_Offset count, const MPI_Offset indices[],
                              edonio_ir_schedule *sched)
{
    static const char call[] = "edonio_ir_schedule_update";
    ir_status st = IR_STATUS(call);
    int err;
    if (ir_check_sched(old, call, &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg); /* no communicator to agree over */
    edonio_ir_schedule s = sched_new(old->comm, &st);
    if (sched_made(old->comm, &s, &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg);
    if (sched == NULL)
        ir_fail(&st, MPI_ERR_ARG, "%s: sched is NULL", call);
    else
        *sched = EDONIO_IR_SCHEDULE_NULL;
    s->global_count = old->global_count;
    s->elem_size = old->elem_size;
    s->chunk_elems = old->chunk_elems;
    s->align = old->align;
    s->zlevel = old->zlevel;
    s->shuffle = old->shuffle;
    sched_shape(s);
    check_indices(call, s->global_count, count, indices, &st);
    diff d = {0};
    ref *a = NULL, *b = NULL;
    if (st.errclass == MPI_SUCCESS) {
        s->n = count;
        s->indices = malloc((size_t)(count ? count : 1) * sizeof *s->indices);
        a = old->full ? refs_of_route(old->full, old->indices)
                      : sorted_refs(old->n, old->indices, s->global_count);
        b = sorted_refs(count, indices, s->global_count);
        if (s->indices == NULL || a == NULL || b == NULL ||
            diff_refs(a, old->n, b, count, &d) != 0 ||
            (s->keep = keep_runs(&d, count, &s->nruns)) == NULL)
            ir_fail(&st, MPI_ERR_NO_MEM, "%s: no memory for %lld references", call,
                    (long long)count);
        else if (count > 0)
            memcpy(s->indices, indices, (size_t)count * sizeof *s->indices);
    }
    free(a);
    free(b);
    if ((err = ir_agree(s->comm, &st)) != MPI_SUCCESS)
        goto failed;
    /* Only the changes are routed now; the full route waits for a full write or read. */
    if ((err = ir_route_build(s, d.nrel, d.rel_g, d.rel_pos, &s->release, &st)) != MPI_SUCCESS ||
        (err = ir_route_build(s, d.nnew, d.new_g, d.new_pos, &s->fetch, &st)) != MPI_SUCCESS)
        goto failed;
    s->has_switch = 1;
    s->nkeep = d.nkeep;
    diff_free(&d);
    *sched = s;
    return MPI_SUCCESS;
failed:
    diff_free(&d);
    sched_free(s);
    return err;
}

/* The checks every data call makes (edonio_ir_write, read, switch, zwrite, zread), local; the
 * call's first agreement reports them. A schedule that is not one has no communicator to agree
 * over, so that error is returned at once (every process passes the same handle in a correct
 * program): -1. */
int ir_start(MPI_File fh, MPI_Offset disp, edonio_ir_schedule s, const void *buf, ir_status *st)
{
    if (ir_check_sched(s, st->call, st) != MPI_SUCCESS)
        return -1;
    ir_check_file(fh, s, st->call, st);
    int amode = 0;
    s->can_read = st->errclass == MPI_SUCCESS && MPI_File_get_amode(fh, &amode) == MPI_SUCCESS &&
                  !(amode & MPI_MODE_WRONLY);
    if (buf == NULL && s->n > 0)
        ir_fail(st, MPI_ERR_BUFFER, "%s: the buffer is NULL", st->call);
    if (disp < 0)
        ir_fail(st, MPI_ERR_ARG, "%s: the displacement %lld is negative", st->call,
                (long long)disp);
    s->stats.calls++;
    return 0;
}

int edonio_ir_write(MPI_File fh, MPI_Offset disp, edonio_ir_schedule s, const void *buf)
{
    ir_status st = IR_STATUS("edonio_ir_write"), rst = IR_STATUS("edonio_ir_write");
    if (ir_start(fh, disp, s, buf, &st) != 0)
        return ir_error_code(st.errclass, st.msg);
    if (ir_ensure_full(s, &rst) != MPI_SUCCESS)
        return ir_error_code(rst.errclass, rst.msg);
    if (ir_route_write(s, s->full, fh, disp, buf, &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg);
    return ir_written(s, &st);
}

int edonio_ir_read(MPI_File fh, MPI_Offset disp, edonio_ir_schedule s, void *buf)
{
    ir_status st = IR_STATUS("edonio_ir_read"), rst = IR_STATUS("edonio_ir_read");
    if (ir_start(fh, disp, s, buf, &st) != 0)
        return ir_error_code(st.errclass, st.msg);
    if (ir_ensure_full(s, &rst) != MPI_SUCCESS)
        return ir_error_code(rst.errclass, rst.msg);
    if (ir_route_read(s, s->full, fh, disp, buf, &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg);
    return ir_agree(s->comm, &st);
}

int edonio_ir_switch(MPI_File fh, MPI_Offset disp, edonio_ir_schedule s, const void *old_buf,
                     void *new_buf)
{
    static const char call[] = "edonio_ir_switch";
    ir_status st = IR_STATUS(call);
    if (ir_start(fh, disp, s, new_buf, &st) != 0)
        return ir_error_code(st.errclass, st.msg);
    /* How a schedule was made is the same on every process: no agreement needed. */
    if (!s->has_switch)
        return ir_error_code(MPI_ERR_ARG, "edonio_ir_switch: the schedule was not made by "
                                          "edonio_ir_schedule_update");
    if (old_buf == NULL && (s->release->n > 0 || s->nkeep > 0))
        ir_fail(&st, MPI_ERR_BUFFER, "%s: the previous loop's buffer is NULL", call);
    /* Kept elements are copied in memory (after an error the new buffer is undefined anyway);
     * released ones written and new ones read round by round, the outcome agreed before any
     * data moves (ir_route_switch). */
    const char *from = old_buf;
    char *to = new_buf;
    MPI_Offset E = s->elem_size;
    if (st.errclass == MPI_SUCCESS)
        for (MPI_Offset k = 0; k < s->nruns; k++)
            memcpy(to + s->keep[3 * k + 1] * E, from + s->keep[3 * k] * E,
                   (size_t)(s->keep[3 * k + 2] * E));
    if (ir_route_switch(s, s->release, s->fetch, fh, disp, old_buf, new_buf, &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg);
    return ir_written(s, &st);
}

int edonio_ir_schedule_get_info(edonio_ir_schedule s, MPI_Info *info)
{
    ir_status st = IR_STATUS("edonio_ir_schedule_get_info");
    char v[32];
    if (ir_check_sched(s, "edonio_ir_schedule_get_info", &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg);
    if (info == NULL)
        return ir_error_code(MPI_ERR_ARG, "edonio_ir_schedule_get_info: info is NULL");
    MPI_Info_create(info);
    snprintf(v, sizeof v, "%lld", (long long)(s->chunk_elems * s->elem_size));
    MPI_Info_set(*info, "edonio_ir_chunk_size", v);
    snprintf(v, sizeof v, "%lld", (long long)s->align);
    MPI_Info_set(*info, "edonio_ir_align", v);
    snprintf(v, sizeof v, "%d", s->zlevel);
    MPI_Info_set(*info, "edonio_ir_zstd_level", v);
    MPI_Info_set(*info, "edonio_ir_shuffle", s->shuffle ? "true" : "false");
    return MPI_SUCCESS;
}

int edonio_ir_schedule_stats(edonio_ir_schedule s, edonio_ir_stats *stats)
{
    ir_status st = IR_STATUS("edonio_ir_schedule_stats");
    if (ir_check_sched(s, "edonio_ir_schedule_stats", &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg);
    if (stats == NULL)
        return ir_error_code(MPI_ERR_ARG, "edonio_ir_schedule_stats: stats is NULL");
    *stats = s->stats;
    return MPI_SUCCESS;
}

int edonio_ir_schedule_free(edonio_ir_schedule *sched)
{
    ir_status st = IR_STATUS("edonio_ir_schedule_free");
    if (sched == NULL)
        return ir_error_code(MPI_ERR_ARG, "edonio_ir_schedule_free: sched is NULL");
    if (ir_check_sched(*sched, "edonio_ir_schedule_free", &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg);
    sched_free(*sched);
    *sched = EDONIO_IR_SCHEDULE_NULL;
    return MPI_SUCCESS;
}
