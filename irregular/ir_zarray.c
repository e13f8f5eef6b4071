/*
 * Chunked, compressed arrays (seed 002, section 4), file format version 2 (doc/irregular.md):
 * a header at disp, the chunks as zstd frames with content checksums at multiples of the
 * alignment, in chunk order, and the chunk index, one zstd frame, after them. A chunk of
 * elements of several bytes is byte-shuffled before it is compressed (edonio_ir_shuffle; the
 * entry's flag SHUFFLED says so): byte j of every element, then byte j + 1, as HDF5's shuffle
 * filter, so that the bytes that vary little (a number's sign, exponent and high bytes) are next
 * to each other. Version 1 files (no flags) are read too. Each round every
 * handler compresses its chunk; one MPI_Iallgather of the compressed sizes places the chunks (a
 * prefix sum); the index is gathered to rank 0 and written once, the header last. The header
 * carries a CRC-32 of itself (zlib's), the chunks and the index zstd's checksums.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "ir.h"

#define HDR_SIZE   128
#define ENTRY_SIZE 48
#define ALG_ZSTD   1
#define SHUFFLED   1u /* an entry's flag: the chunk's bytes were shuffled (format 2 on) */
#define VERSION_1  1  /* the oldest version read: no flags */
static const char magic[8] = {'E', 'D', 'O', 'N', 'I', 'O', 'Z', 'A'};

typedef struct {
    uint32_t version, header_size, algorithm;
    int32_t level;
    uint64_t global_count, element_size, chunk_elems, chunk_count;
    uint64_t index_offset, index_length, data_offset, align, file_end;
} zheader;

typedef struct {
    uint64_t id, offset, clen, rawlen, first;
    uint32_t algorithm, flags;
} zentry;

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void header_put(unsigned char *p, const zheader *h)
{
    memset(p, 0, HDR_SIZE);
    memcpy(p, magic, 8);
    put32(p + 8, h->version);
    put32(p + 12, h->header_size);
    put64(p + 16, h->global_count);
    put64(p + 24, h->element_size);
    put64(p + 32, h->chunk_elems);
    put64(p + 40, h->chunk_count);
    put64(p + 48, h->index_offset);
    put64(p + 56, h->index_length);
    put64(p + 64, h->data_offset);
    put64(p + 72, h->align);
    put32(p + 80, h->algorithm);
    put32(p + 84, (uint32_t)h->level);
    put64(p + 88, h->file_end);
    put32(p + 96, (uint32_t)crc32(0L, p, 96)); /* the header's own check */
}

static void entry_put(unsigned char *p, const zentry *e)
{
    put64(p, e->id);
    put64(p + 8, e->offset);
    put64(p + 16, e->clen);
    put64(p + 24, e->rawlen);
    put64(p + 32, e->first);
    put32(p + 40, e->algorithm);
    put32(p + 44, e->flags);
}

static void entry_get(const unsigned char *p, zentry *e)
{
    e->id = get64(p);
    e->offset = get64(p + 8);
    e->clen = get64(p + 16);
    e->rawlen = get64(p + 24);
    e->first = get64(p + 32);
    e->algorithm = get32(p + 40);
    e->flags = get32(p + 44);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Parse and check a header read from the file (got bytes of it). */
static int header_get(const unsigned char *p, int got, MPI_Offset disp, zheader *h,
                      const char *call, ir_status *st)
{
    if (got < HDR_SIZE)
        return ir_fail(st, MPI_ERR_IO,
                       "%s: not a compressed array: the file holds %d bytes at offset %lld, a "
                       "header takes %d (truncated?)",
                       call, got, (long long)disp, HDR_SIZE);
    if (memcmp(p, magic, 8) != 0)
        return ir_fail(st, MPI_ERR_IO,
                       "%s: not an edonio compressed array: no \"EDONIOZA\" at offset %lld", call,
                       (long long)disp);
    h->version = get32(p + 8);
    if (h->version < VERSION_1 || h->version > EDONIO_IR_FORMAT_VERSION)
        return ir_fail(st, MPI_ERR_UNSUPPORTED_DATAREP,
                       "%s: the compressed array at offset %lld has format version %u; this "
                       "library reads versions %d to %d",
                       call, (long long)disp, h->version, VERSION_1, EDONIO_IR_FORMAT_VERSION);
    h->header_size = get32(p + 12);
    h->global_count = get64(p + 16);
    h->element_size = get64(p + 24);
    h->chunk_elems = get64(p + 32);
    h->chunk_count = get64(p + 40);
    h->index_offset = get64(p + 48);
    h->index_length = get64(p + 56);
    h->data_offset = get64(p + 64);
    h->align = get64(p + 72);
    h->algorithm = get32(p + 80);
    h->level = (int32_t)get32(p + 84);
    h->file_end = get64(p + 88);
    const char *bad = NULL;
    if (get32(p + 96) != (uint32_t)crc32(0L, p, 96))
        bad = "its CRC-32 does not match";
    for (int i = 100; i < HDR_SIZE && !bad; i++)
        if (p[i])
            bad = "reserved bytes not zero";
    if (bad)
        ;
    else if (h->header_size != HDR_SIZE)
        bad = "header size";
    else if (h->algorithm != ALG_ZSTD)
        bad = "algorithm";
    else if (h->element_size == 0 || h->element_size > INT32_MAX || h->chunk_elems == 0 ||
             h->chunk_elems > UINT32_MAX || h->global_count > (uint64_t)INT64_MAX / h->element_size)
        bad = "element size, chunk or count";
    else if (h->chunk_count != (h->global_count + h->chunk_elems - 1) / h->chunk_elems)
        bad = "chunk count";
    else if (h->align == 0 || h->data_offset != align_up(HDR_SIZE, h->align))
        bad = "data offset or alignment";
    else if (h->index_length == 0 || h->index_offset < h->data_offset ||
             h->index_offset > (uint64_t)INT64_MAX - (uint64_t)disp ||
             h->index_length > (uint64_t)INT64_MAX - (uint64_t)disp - h->index_offset ||
             h->file_end != h->index_offset + h->index_length)
        bad = "index offset or length";
    if (bad)
        return ir_fail(st, MPI_ERR_IO,
                       "%s: corrupt header of the compressed array at offset "
                       "%lld (%s)",
                       call, (long long)disp, bad);
    return MPI_SUCCESS;
}

static int read_header(edonio_ir_schedule s, MPI_File fh, MPI_Offset disp, zheader *h,
                       const char *call, ir_status *st)
{
    unsigned char p[HDR_SIZE];
    MPI_Offset got = ir_read_at(s, fh, disp, p, HDR_SIZE, st);
    if (st->errclass != MPI_SUCCESS)
        return st->errclass;
    return header_get(p, (int)got, disp, h, call, st);
}

/* What is wrong with entry k of the index, or NULL. */
static const char *check_entry(const zheader *h, const zentry *e, uint64_t k)
{
    uint64_t elems = h->global_count - k * h->chunk_elems;
    if (elems > h->chunk_elems)
        elems = h->chunk_elems;
    if (e->id != k || e->first != k * h->chunk_elems || e->rawlen != elems * h->element_size)
        return "its chunk id, first element or raw length";
    if (e->algorithm != ALG_ZSTD)
        return "its algorithm";
    if (e->flags != 0 && e->flags != SHUFFLED)
        return "unknown flags";
    if (e->flags == SHUFFLED && h->version == VERSION_1)
        return "a shuffled chunk in a version 1 file";
    if (e->flags == SHUFFLED && h->element_size == 1)
        return "a shuffled chunk of 1-byte elements";
    if (e->offset < h->data_offset || e->offset % h->align != 0 || e->clen == 0 ||
        e->clen > ZSTD_compressBound(e->rawlen) || e->offset > h->index_offset ||
        e->clen > h->index_offset - e->offset)
        return "its offset or compressed length";
    return NULL;
}

/* Rank 0: the header and the index, read and checked. */
static int read_index(edonio_ir_schedule s, MPI_File fh, MPI_Offset disp, zheader *h,
                      unsigned char **index, ir_status *st)
{
    static const char call[] = "edonio_ir_zread";
    if (read_header(s, fh, disp, h, call, st) != MPI_SUCCESS)
        return st->errclass;
    if ((MPI_Offset)h->global_count != s->global_count ||
        (MPI_Offset)h->element_size != s->elem_size || (MPI_Offset)h->chunk_elems != s->chunk_elems)
        return ir_fail(st, MPI_ERR_ARG,
                       "%s: the file holds %llu elements of %llu bytes in chunks of %llu "
                       "elements; the schedule addresses %lld elements of %lld bytes in chunks of "
                       "%lld (edonio_ir_zinquire tells a file's)",
                       call, (unsigned long long)h->global_count,
                       (unsigned long long)h->element_size, (unsigned long long)h->chunk_elems,
                       (long long)s->global_count, (long long)s->elem_size,
                       (long long)s->chunk_elems);
    size_t raw = (size_t)h->chunk_count * ENTRY_SIZE;
    if (h->index_length > INT32_MAX || raw > INT32_MAX)
        return ir_fail(st, MPI_ERR_IO, "%s: corrupt header (index length)", call);
    unsigned char *z = malloc((size_t)h->index_length);
    *index = malloc(raw ? raw : 1);
    if (z == NULL || *index == NULL) {
        free(z);
        return ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for the chunk index", call);
    }
    MPI_Offset got =
        ir_read_at(s, fh, disp + (MPI_Offset)h->index_offset, z, (MPI_Offset)h->index_length, st);
    if (st->errclass != MPI_SUCCESS) {
        free(z);
        return st->errclass;
    }
    if ((uint64_t)got < h->index_length) {
        free(z);
        return ir_fail(st, MPI_ERR_IO,
                       "%s: the file is truncated: the chunk index at offset %lld takes %llu "
                       "bytes, the file holds %lld of them",
                       call, (long long)(disp + (MPI_Offset)h->index_offset),
                       (unsigned long long)h->index_length, (long long)got);
    }
    size_t out = ZSTD_decompress(*index, raw, z, (size_t)h->index_length);
    unsigned long long content = ZSTD_getFrameContentSize(z, (size_t)h->index_length);
    free(z);
    if (ZSTD_isError(out) || out != raw || content != raw)
        return ir_fail(st, MPI_ERR_IO, "%s: corrupt chunk index at offset %lld (%s)", call,
                       (long long)(disp + (MPI_Offset)h->index_offset),
                       ZSTD_isError(out) ? ZSTD_getErrorName(out) : "wrong length");
    for (uint64_t k = 0; k < h->chunk_count; k++) {
        zentry e;
        entry_get(*index + k * ENTRY_SIZE, &e);
        const char *bad = check_entry(h, &e, k);
        if (bad)
            return ir_fail(st, MPI_ERR_IO, "%s: corrupt chunk index: entry %llu (%s)", call,
                           (unsigned long long)k, bad);
    }
    return MPI_SUCCESS;
}

int edonio_ir_zinquire(MPI_File fh, MPI_Offset disp, MPI_Offset *global_count,
                       MPI_Offset *element_size, MPI_Offset *chunk_size)
{
    static const char call[] = "edonio_ir_zinquire";
    ir_status st = IR_STATUS(call);
    zheader h;
    if (fh == MPI_FILE_NULL)
        return ir_error_code(MPI_ERR_FILE, "edonio_ir_zinquire: the file is MPI_FILE_NULL");
    if (disp < 0)
        return ir_error_code(MPI_ERR_ARG, "edonio_ir_zinquire: the displacement is negative");
    if (read_header(NULL, fh, disp, &h, call, &st) != MPI_SUCCESS)
        return ir_error_code(st.errclass, st.msg);
    if (global_count)
        *global_count = (MPI_Offset)h.global_count;
    if (element_size)
        *element_size = (MPI_Offset)h.element_size;
    if (chunk_size)
        *chunk_size = (MPI_Offset)(h.chunk_elems * h.element_size);
    return MPI_SUCCESS;
}

typedef struct {
    char *sbuf, *rbuf, *cbuf, *zbuf;
    char *tbuf; /* a chunk's bytes shuffled */
    size_t zcap;
} zbufs;

static void zbufs_free(zbufs *b)
{
    free(b->sbuf);
    free(b->rbuf);
    free(b->cbuf);
    free(b->zbuf);
    free(b->tbuf);
}

/* n elements of E bytes: byte j of element i to j * n + i, plane by plane (each a stream of
 * stores, 3 GB/s here), and back. */
static void shuffle(char *restrict out, const char *restrict in, size_t n, size_t E)
{
    for (size_t j = 0; j < E; j++) {
        char *o = out + j * n;
        const char *p = in + j;
        for (size_t i = 0; i < n; i++)
            o[i] = p[i * E];
    }
}

static void unshuffle(char *restrict out, const char *restrict in, size_t n, size_t E)
{
    for (size_t j = 0; j < E; j++) {
        const char *p = in + j * n;
        char *o = out + j;
        for (size_t i = 0; i < n; i++)
            o[i * E] = p[i];
    }
}

/* The buffers of a compressed call; tbuf (a chunk's bytes shuffled) where shuffled may be true:
 * zwrite's chunks are shuffled by its schedule's edonio_ir_shuffle, zread's by the file's flags. */
static int zbufs_get(edonio_ir_schedule s, int shuffled, zbufs *b, ir_status *st)
{
    MPI_Offset E = s->elem_size;
    b->zcap = ZSTD_compressBound((size_t)(s->chunk_elems * E));
    b->sbuf = malloc((size_t)(s->full->smax * E + 1));
    b->rbuf = malloc((size_t)(s->full->rmax * E + 1));
    b->cbuf = malloc((size_t)(s->chunk_elems * E));
    b->zbuf = malloc(b->zcap);
    shuffled = shuffled && E > 1;
    b->tbuf = shuffled ? malloc((size_t)(s->chunk_elems * E)) : NULL;
    if (!b->sbuf || !b->rbuf || !b->cbuf || !b->zbuf || (shuffled && !b->tbuf))
        return ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for a chunk of %lld bytes", st->call,
                       (long long)(s->chunk_elems * E));
    return MPI_SUCCESS;
}

/* Rank 0: the gathered entries into the index, written after the data, then the header. */
static void write_index(edonio_ir_schedule s, MPI_File fh, MPI_Offset disp, MPI_Offset end,
                        const unsigned char *got, int nentries, ir_status *st)
{
    static const char call[] = "edonio_ir_zwrite";
    size_t raw = (size_t)s->chunks * ENTRY_SIZE;
    unsigned char *index = calloc(raw ? raw : 1, 1);
    size_t cap = ZSTD_compressBound(raw);
    unsigned char *z = malloc(cap), hdr[HDR_SIZE];
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    if (index == NULL || z == NULL || cc == NULL) {
        ir_fail(st, MPI_ERR_NO_MEM, "%s: no memory for the chunk index", call);
        goto out;
    }
    for (int i = 0; i < nentries; i++) {
        uint64_t id = get64(got + (size_t)i * ENTRY_SIZE);
        memcpy(index + id * ENTRY_SIZE, got + (size_t)i * ENTRY_SIZE, ENTRY_SIZE);
    }
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, s->zlevel);
    size_t zlen = ZSTD_compress2(cc, z, cap, index, raw);
    if (ZSTD_isError(zlen)) {
        ir_fail(st, MPI_ERR_INTERN, "%s: zstd: %s", call, ZSTD_getErrorName(zlen));
        goto out;
    }
    zheader h = {EDONIO_IR_FORMAT_VERSION,
                 HDR_SIZE,
                 ALG_ZSTD,
                 s->zlevel,
                 (uint64_t)s->global_count,
                 (uint64_t)s->elem_size,
                 (uint64_t)s->chunk_elems,
                 (uint64_t)s->chunks,
                 (uint64_t)end,
                 zlen,
                 align_up(HDR_SIZE, (uint64_t)s->align),
                 (uint64_t)s->align,
                 (uint64_t)end + zlen};
    header_put(hdr, &h);
    ir_write_at(s, fh, disp + end, z, (MPI_Offset)zlen, st);
    if (st->errclass == MPI_SUCCESS) /* the header last, and only after the index */
        ir_write_at(s, fh, disp, hdr, HDR_SIZE, st);
out:
    ZSTD_freeCCtx(cc);
    free(index);
    free(z);
}

int edonio_ir_zwrite(MPI_File fh, MPI_Offset disp, edonio_ir_schedule s, const void *buf)
{
    static const char call[] = "edonio_ir_zwrite";
    ir_status st = IR_STATUS(call), rst = IR_STATUS(call);
    zbufs b = {0};
    if (ir_start(fh, disp, s, buf, &st) != 0)
        return ir_error_code(st.errclass, st.msg);
    if (ir_ensure_full(s, &rst) != MPI_SUCCESS)
        return ir_error_code(rst.errclass, rst.msg);
    /* The same on every process: no agreement needed. */
    if (s->chunks > INT32_MAX / ENTRY_SIZE)
        return ir_error_code(MPI_ERR_ARG, "edonio_ir_zwrite: more than 44,739,242 chunks: the "
                                          "chunk index would pass 2 GiB (a larger "
                                          "edonio_ir_chunk_size)");
    int P = s->nprocs, me = s->rank, err;
    MPI_Offset E = s->elem_size, mine_n = 0;
    unsigned char *entries = malloc((size_t)(s->rounds + 1) * ENTRY_SIZE), *all = NULL;
    MPI_Offset *sizes = malloc((size_t)P * sizeof *sizes);
    int *counts = NULL, *displs = NULL;
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    if (me == 0) { /* the index's gathering, before anything is written */
        counts = malloc((size_t)P * sizeof *counts);
        displs = malloc((size_t)P * sizeof *displs);
        all = malloc((size_t)s->chunks * ENTRY_SIZE + 1);
    }
    if (zbufs_get(s, s->shuffle, &b, &st) == MPI_SUCCESS &&
        (entries == NULL || sizes == NULL || cc == NULL ||
         (me == 0 && (counts == NULL || displs == NULL || all == NULL))))
        ir_fail(&st, MPI_ERR_NO_MEM, "%s: no memory for the compressor", call);
    if ((err = ir_agree_at(s->comm, &st, disp)) != MPI_SUCCESS)
        goto out;
    /* An old header stops being one first: a write that does not finish leaves none. */
    if (me == 0)
        ir_write_at(s, fh, disp, "\0\0\0\0\0\0\0\0", 8, &st);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, s->zlevel);
    MPI_Offset base = (MPI_Offset)align_up(HDR_SIZE, (uint64_t)s->align);
    for (MPI_Offset rd = 0; rd < s->rounds; rd++) {
        MPI_Offset c = rd * P + me, clen = 0, rawlen = 0;
        if (c < s->chunks) {
            rawlen = ir_chunk_len(s, c) * E;
            memset(b.cbuf, 0, (size_t)rawlen); /* elements nobody writes are zero */
        }
        ir_gather_round(s, s->full, rd, buf, b.sbuf, b.rbuf, b.cbuf, &st);
        uint32_t flags = s->shuffle && E > 1 ? SHUFFLED : 0;
        if (c < s->chunks) {
            if (flags)
                shuffle(b.tbuf, b.cbuf, (size_t)(rawlen / E), (size_t)E);
            size_t z = ZSTD_compress2(cc, b.zbuf, b.zcap, flags ? b.tbuf : b.cbuf, (size_t)rawlen);
            if (ZSTD_isError(z))
                ir_fail(&st, MPI_ERR_INTERN, "%s: zstd, chunk %lld: %s", call, (long long)c,
                        ZSTD_getErrorName(z));
            else
                clen = (MPI_Offset)z;
        }
        MPI_Offset slot = (MPI_Offset)align_up((uint64_t)clen, (uint64_t)s->align);
        MPI_Request req = MPI_REQUEST_NULL;
        if (MPI_Iallgather(&slot, 1, MPI_OFFSET, sizes, 1, MPI_OFFSET, s->comm, &req) !=
                MPI_SUCCESS ||
            ir_waitall(1, &req) != MPI_SUCCESS) {
            ir_fail(&st, MPI_ERR_OTHER, "%s: the gather of the chunks' sizes failed", call);
            for (int p = 0; p < P; p++)
                sizes[p] = 0;
            clen = 0; /* nothing written where no place is known */
        }
        MPI_Offset at = base;
        for (int p = 0; p < me; p++)
            at += sizes[p];
        for (int p = 0; p < P; p++)
            base += sizes[p];
        if (c < s->chunks && clen > 0) {
            ir_write_at(s, fh, disp + at, b.zbuf, clen, &st);
            zentry en = {(uint64_t)c,
                         (uint64_t)at,
                         (uint64_t)clen,
                         (uint64_t)rawlen,
                         (uint64_t)(c * s->chunk_elems),
                         ALG_ZSTD,
                         flags};
            entry_put(entries + mine_n++ * ENTRY_SIZE, &en);
        }
    }
    /* Every chunk written, or no index nor header: the outcome agreed first. */
    if ((err = ir_agree(s->comm, &st)) != MPI_SUCCESS) {
        MPI_Barrier(s->comm); /* as ir_written: what was written is handed over */
        goto out;
    }
    /* The index: every process's entries to rank 0 (rank p has one for each round r with
     * r * P + p < chunks), which writes it and then the header. */
    int total = 0;
    if (me == 0)
        for (int p = 0; p < P; p++) {
            MPI_Offset mine = p < s->chunks ? (s->chunks - p + P - 1) / P : 0;
            displs[p] = total;
            counts[p] = (int)(mine * ENTRY_SIZE);
            total += counts[p];
        }
    MPI_Gatherv(entries, (int)(mine_n * ENTRY_SIZE), MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
                s->comm);
    if (me == 0)
        write_index(s, fh, disp, base, all, total / ENTRY_SIZE, &st);
    err = ir_written(s, &st);
out:
    free(counts);
    free(displs);
    free(all);
    zbufs_free(&b);
    free(entries);
    free(sizes);
    ZSTD_freeCCtx(cc);
    return err;
}

/* One chunk read and decompressed into cbuf; every check failure is an error. */
static void read_chunk(edonio_ir_schedule s, MPI_File fh, MPI_Offset disp, const zentry *e,
                       zbufs *b, ZSTD_DCtx *dc, ir_status *st)
{
    static const char call[] = "edonio_ir_zread";
    MPI_Offset got =
        ir_read_at(s, fh, disp + (MPI_Offset)e->offset, b->zbuf, (MPI_Offset)e->clen, st);
    if (st->errclass != MPI_SUCCESS)
        return;
    if ((uint64_t)got < e->clen) {
        ir_fail(st, MPI_ERR_IO,
                "%s: the file is truncated: chunk %llu at offset %lld takes %llu bytes, the "
                "file holds %lld of them",
                call, (unsigned long long)e->id, (long long)(disp + (MPI_Offset)e->offset),
                (unsigned long long)e->clen, (long long)got);
        return;
    }
    unsigned long long content = ZSTD_getFrameContentSize(b->zbuf, (size_t)e->clen);
    char *to = e->flags & SHUFFLED ? b->tbuf : b->cbuf;
    size_t out = content == e->rawlen
                     ? ZSTD_decompressDCtx(dc, to, (size_t)e->rawlen, b->zbuf, (size_t)e->clen)
                     : 0;
    if (content != e->rawlen || ZSTD_isError(out) || out != e->rawlen) {
        memset(b->cbuf, 0, (size_t)e->rawlen);
        ir_fail(st, MPI_ERR_IO, "%s: corrupt chunk %llu at offset %lld (%s)", call,
                (unsigned long long)e->id, (long long)(disp + (MPI_Offset)e->offset),
                content != e->rawlen ? "its frame's content size is wrong"
                : ZSTD_isError(out)  ? ZSTD_getErrorName(out)
                                     : "short");
    } else if (e->flags & SHUFFLED) {
        size_t E = (size_t)s->elem_size;
        unshuffle(b->cbuf, b->tbuf, (size_t)e->rawlen / E, E);
    }
}

int edonio_ir_zread(MPI_File fh, MPI_Offset disp, edonio_ir_schedule s, void *buf)
{
    static const char call[] = "edonio_ir_zread";
    ir_status st = IR_STATUS(call), rst = IR_STATUS(call);
    zbufs b = {0};
    unsigned char *index = NULL;
    zheader h;
    if (ir_start(fh, disp, s, buf, &st) != 0)
        return ir_error_code(st.errclass, st.msg);
    if (ir_ensure_full(s, &rst) != MPI_SUCCESS)
        return ir_error_code(rst.errclass, rst.msg);
    int P = s->nprocs, me = s->rank, err;
    if (me == 0 && st.errclass == MPI_SUCCESS)
        read_index(s, fh, disp, &h, &index, &st);
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    size_t raw = (size_t)s->chunks * ENTRY_SIZE;
    if (me != 0)
        index = malloc(raw ? raw : 1);
    if (zbufs_get(s, 1, &b, &st) == MPI_SUCCESS && (dc == NULL || index == NULL))
        ir_fail(&st, MPI_ERR_NO_MEM, "%s: no memory for the chunk index", call);
    if ((err = ir_agree_at(s->comm, &st, disp)) != MPI_SUCCESS)
        goto out;
    MPI_Bcast(index, (int)raw, MPI_BYTE, 0, s->comm);
    for (MPI_Offset rd = 0; rd < s->rounds; rd++) {
        MPI_Offset c = rd * P + me;
        if (c < s->chunks && s->full->roff[rd * P] < s->full->roff[(rd + 1) * P]) {
            zentry e;
            entry_get(index + c * ENTRY_SIZE, &e);
            read_chunk(s, fh, disp, &e, &b, dc, &st);
        }
        ir_scatter_round(s, s->full, rd, b.cbuf, b.sbuf, b.rbuf, buf, &st);
    }
    err = ir_agree(s->comm, &st);
out:
    zbufs_free(&b);
    free(index);
    ZSTD_freeDCtx(dc);
    return err;
}
