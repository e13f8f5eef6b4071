/*
 * edonio irregular test: chunked, zstd-compressed arrays (seed 002, section 4): edonio_ir_zwrite,
 * edonio_ir_zread and edonio_ir_zinquire, the file format (version 2), and corrupt files.
 *
 * Five kinds of data, each in a file FILE.KIND of test_n elements at test_disp (the bytes before it
 * a pattern rank 0 writes first, which must stay): zeros (8 bytes), a smooth field of doubles (sin
 * quantized to 1/4096: about 10:1), random bytes (13-byte elements: incompressible), an int32 ramp
 * and text (1-byte elements, which are never shuffled: flag 0). The writers hold a random
 * distribution: holes (3 in 100 elements, and a run of a seventh of the array, a whole chunk or
 * more) that must read as zeros, duplicates across ranks and within a rank whose losing copies (not
 * the lowest rank's, not its last) hold other values; at 3 or more writers rank 1 holds nothing.
 * After the zwrite and the close, rank 0 reads the file with POSIX: the header (magic, version 2,
 * sizes, chunk count, index and data offsets, the alignment, zstd, the level given, the end, zero
 * reserved bytes; the file ends there), the index (one zstd frame with a checksum of chunk_count
 * 48-byte entries: ids, offsets at multiples of the alignment, not overlapping, before the index,
 * lengths, first elements, zstd, flag 1 for elements of several bytes where edonio_ir_shuffle is
 * not false, else 0), and every chunk (one frame with a checksum, of its length, whose contents,
 * unshuffled where flagged, are the model's); the compression ratio of each kind (zeros at least
 * 100:1, the smooth field at least 5:1, the ramp 5:1 shuffled and 1.3:1 not, the text 3:1, random
 * bytes besides the holes not at all, within zstd's bound); the write's statistics (the chunks, the
 * index and the header, nothing else).
 *
 * The readers (another run with test_phase=read, any process count, or the same run with
 * test_phase=all): edonio_ir_zinquire on every rank; a random distribution over the whole
 * array (duplicates, the last rank empty) read and checked element by element; then every
 * rank asks only for elements of chunk 1 and of the last chunk: the processes read only those
 * chunks (their compressed bytes, the header and the index, nothing more).
 *
 * Corrupt copies of FILE.smooth (rank 0 makes each with POSIX, every rank then opens it): a byte
 * flipped inside a chunk, a chunk's checksum, a byte of the index, the file cut inside the
 * index, inside the first chunk, inside the header and to nothing, the version set to 3, set
 * to 1 with the CRC-32 made right (read as version 1 where the chunks are not shuffled; a
 * corrupt index where they are), the magic changed, the chunk count changed, the element size
 * changed (caught by the header's CRC-32); and readers whose schedule describes another array
 * (element size, global count, chunk size). Each must give the documented class on every rank
 * (MPI_ERR_IO, MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_ARG) from edonio_ir_zread, and from
 * edonio_ir_zinquire where the header is at fault, with a message naming the call and the
 * cause; the good file reads right afterwards. test_phase=all also writes FILE.random again
 * with a smaller array of another element size (the ramp): it reads back as that.
 *
 *   t_ir_zarray FILE [edonio_ir_chunk_size=N edonio_ir_align=N edonio_ir_zstd_level=N]
 *               [test_seed=N] [test_n=N] [test_disp=N] [test_phase=all|write|read]
 *               [test_kinds=zeros,smooth,random,ramp,text] [test_corrupt=0|1]
 *               [edonio_ir_shuffle=true|false] [test_fs=edonio|ufs]
 */
#include "ir_test.h"

#include <math.h>
#include <zlib.h>
#include <zstd.h>

#define HDR   128
#define ENTRY 48

enum { ZEROS, SMOOTH, RANDOM, RAMP, TEXT, NKINDS };
static const char *kind_name[NKINDS] = {"zeros", "smooth", "random", "ramp", "text"};
static const long long kind_esize[NKINDS] = {8, 8, 13, 4, 1};

static uint64_t seed;
static long long N, disp;

/* Element g of a kind, as the model says. */
static void value(int kind, long long g, unsigned char *out)
{
    long long e = kind_esize[kind];
    switch (kind) {
        case ZEROS:
            memset(out, 0, (size_t)e);
            break;
        case SMOOTH: {
            double v = round(4096.0 * sin((double)g / 300.0)) / 4096.0;
            memcpy(out, &v, 8);
            break;
        }
        case RANDOM:
            for (long long j = 0; j < e; j++)
                out[j] = ir_byte(seed, 21, (uint64_t)g, j);
            break;
        case RAMP: {
            int32_t v = (int32_t)g;
            memcpy(out, &v, 4);
            break;
        }
        default: /* TEXT: letters in runs of 7 (1-byte elements: never shuffled) */
            out[0] = (unsigned char)('a' + g / 7 % 26);
    }
}

/* Holes: no process writes them (the same for any number of writers). */
static int hole(long long g)
{
    return (g >= N / 3 && g < N / 3 + N / 7) || ir_mix(seed ^ (uint64_t)g * 31) % 100 < 3;
}

/* The model's array: the kind's values, zeros in the holes. */
static unsigned char *model(int kind)
{
    long long e = kind_esize[kind];
    unsigned char *m = calloc((size_t)(N * e) + 1, 1);
    for (long long g = 0; g < N; g++)
        if (!hole(g))
            value(kind, g, m + g * e);
    return m;
}

/* This writer's indices and buffer (P writers): a losing copy of an element holds other bytes. */
static ir_list writer(int kind, int P, int me, unsigned char **buf)
{
    ir_list *w = calloc((size_t)P, sizeof(*w));
    uint64_t s = ir_seed(seed, 22, (uint64_t)P);
    int empty = P >= 3 ? 1 : -1;
    long long e = kind_esize[kind];

    for (long long g = 0; g < N; g++) {
        if (hole(g))
            continue;
        long long u = ir_below(&s, 100);
        int copies = u < 10 ? 2 : u < 15 ? 3 : 1;
        for (int c = 0; c < copies; c++) {
            int r;
            do
                r = (int)ir_below(&s, P);
            while (r == empty);
            ir_push(&w[r], g);
            if (ir_below(&s, 100) < 4)
                ir_push(&w[r], g);
        }
    }
    for (int r = 0; r < P; r++) {
        uint64_t sr = ir_seed(seed, 23, (uint64_t)(P * 1000 + r));
        ir_shuffle(&sr, w[r].idx, w[r].n);
    }
    /* the winners: the lowest rank's last copy */
    int *wr = malloc(sizeof(int) * (size_t)N);
    long long *wk = malloc(sizeof(long long) * (size_t)N);
    for (long long g = 0; g < N; g++)
        wr[g] = -1;
    for (int r = P - 1; r >= 0; r--)
        for (long long k = 0; k < w[r].n; k++) {
            wr[w[r].idx[k]] = r;
            wk[w[r].idx[k]] = k;
        }
    ir_list mine = w[me];
    *buf = malloc((size_t)(mine.n * e) + 1);
    for (long long k = 0; k < mine.n; k++) {
        MPI_Offset g = mine.idx[k];
        value(kind, g, *buf + k * e);
        if (wr[g] != me || wk[g] != k)
            for (long long j = 0; j < e; j++)
                (*buf)[k * e + j] ^= (unsigned char)(1 + ir_byte(seed, 24, (uint64_t)k, j) % 255);
    }
    for (int r = 0; r < P; r++)
        if (r != me)
            ir_list_free(&w[r]);
    free(w);
    free(wr);
    free(wk);
    return mine;
}

/* ---- the file format ---- */

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

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* What the readers need of a file: the header's fields and each chunk's place and length. */
typedef struct layout {
    long long chunks, ce, index_offset, index_length, data_offset, file_end;
    long long *offset, *clen; /* [chunks] */
} layout;

/* A zstd frame's descriptor: is its content checksum flag set? */
static int frame_has_checksum(const unsigned char *f, size_t len)
{
    return len > 5 && get32(f) == 0xFD2FB528u && (f[4] >> 2 & 1);
}

/*
 * Rank 0: check the file of kind (after the close) against the format and the model; fill lay.
 * Returns 0 when the file could be parsed.
 */
static int check_format(const char *name, int kind, layout *lay, const char *what)
{
    long long e = kind_esize[kind], size = 0, errs0 = ct_errors;
    unsigned char *f = ir_slurp(name, &size), *want = model(kind);
    long long cs = ir_want_chunk(e), ce = cs / e, chunks = (N + ce - 1) / ce;
    long long align = strtoll(co_hint("edonio_ir_align", "4096"), NULL, 10);
    long long level = strtoll(co_hint("edonio_ir_zstd_level", "3"), NULL, 10);
    int ok = 0;

    memset(lay, 0, sizeof(*lay));
    if (f == NULL || size < disp + HDR) {
        ct_error("%s: the file holds %lld bytes, not even a header at %lld", what, size, disp);
        goto out;
    }
    for (long long o = 0; o < disp; o++)
        if (f[o] != ct_pattern(o, 5)) {
            ct_error("%s: byte %lld before the displacement changed", what, o);
            break;
        }
    const unsigned char *h = f + disp;
    lay->chunks = (long long)get64(h + 40);
    lay->ce = (long long)get64(h + 32);
    lay->index_offset = (long long)get64(h + 48);
    lay->index_length = (long long)get64(h + 56);
    lay->data_offset = (long long)get64(h + 64);
    lay->file_end = (long long)get64(h + 88);
    CT_CHECK(memcmp(h, "EDONIOZA", 8) == 0, "%s: no magic EDONIOZA", what);
    CT_CHECK(get32(h + 8) == 2, "%s: version %u, expected 2", what, get32(h + 8));
    CT_CHECK(get32(h + 12) == HDR, "%s: header size %u", what, get32(h + 12));
    CT_CHECK((long long)get64(h + 16) == N, "%s: global count %llu, expected %lld", what,
             (unsigned long long)get64(h + 16), N);
    CT_CHECK((long long)get64(h + 24) == e, "%s: element size %llu, expected %lld", what,
             (unsigned long long)get64(h + 24), e);
    CT_CHECK(lay->ce == ce, "%s: %lld elements per chunk, expected %lld", what, lay->ce, ce);
    CT_CHECK(lay->chunks == chunks, "%s: %lld chunks, expected %lld", what, lay->chunks, chunks);
    CT_CHECK((long long)get64(h + 72) == align, "%s: alignment %llu, expected %lld", what,
             (unsigned long long)get64(h + 72), align);
    CT_CHECK(lay->data_offset >= HDR && lay->data_offset % align == 0,
             "%s: data offset %lld: not past the header at a multiple of %lld", what,
             lay->data_offset, align);
    CT_CHECK(get32(h + 80) == 1, "%s: algorithm %u, expected 1 (zstd)", what, get32(h + 80));
    CT_CHECK((int32_t)get32(h + 84) == level, "%s: level %d, expected %lld", what,
             (int32_t)get32(h + 84), level);
    CT_CHECK(lay->file_end == lay->index_offset + lay->index_length,
             "%s: file end %lld, the index ends at %lld", what, lay->file_end,
             lay->index_offset + lay->index_length);
    CT_CHECK(disp + lay->file_end == size, "%s: the file holds %lld bytes, the header says %lld",
             what, size, disp + lay->file_end);
    CT_CHECK(get32(h + 96) == (uint32_t)crc32(0L, h, 96),
             "%s: header CRC-32 %08x, the CRC-32 of bytes 0-95 is %08lx", what, get32(h + 96),
             crc32(0L, h, 96));
    for (int i = 100; i < HDR; i++)
        if (h[i]) {
            ct_error("%s: reserved header byte %d is %d", what, i, h[i]);
            break;
        }
    if (ct_errors > errs0 || lay->chunks != chunks || disp + lay->file_end > size)
        goto out;

    /* the index */
    const unsigned char *z = h + lay->index_offset;
    size_t raw = (size_t)chunks * ENTRY;
    unsigned char *index = malloc(raw + 1);
    CT_CHECK(frame_has_checksum(z, (size_t)lay->index_length),
             "%s: the index is not a zstd frame with a checksum", what);
    CT_CHECK(ZSTD_findFrameCompressedSize(z, (size_t)lay->index_length) ==
                 (size_t)lay->index_length,
             "%s: the index is not one zstd frame of %lld bytes", what, lay->index_length);
    CT_CHECK(ZSTD_getFrameContentSize(z, (size_t)lay->index_length) == raw,
             "%s: the index frame's content size is not %zu", what, raw);
    size_t got = ZSTD_decompress(index, raw, z, (size_t)lay->index_length);
    if (ZSTD_isError(got) || got != raw) {
        ct_error("%s: the index does not decompress to %zu bytes", what, raw);
        free(index);
        goto out;
    }
    lay->offset = malloc(sizeof(long long) * (size_t)chunks);
    lay->clen = malloc(sizeof(long long) * (size_t)chunks);
    unsigned char *chunk = malloc((size_t)(ce * e) + 1), *plain = malloc((size_t)(ce * e) + 1);
    uint32_t flags = e > 1 && ir_want_shuffle(); /* shuffled chunks: flag 1 */
    long long prev_end = lay->data_offset, bad = 0, zsum = 0;
    for (long long k = 0; k < chunks && bad < 3; k++) {
        const unsigned char *en = index + k * ENTRY;
        long long off = (long long)get64(en + 8), clen = (long long)get64(en + 16);
        long long elems = N - k * ce < ce ? N - k * ce : ce;
        lay->offset[k] = off;
        lay->clen[k] = clen;
        zsum += clen;
        int entry_ok = (long long)get64(en) == k && (long long)get64(en + 24) == elems * e &&
                       (long long)get64(en + 32) == k * ce && get32(en + 40) == 1 &&
                       get32(en + 44) == flags && off % align == 0 && off >= prev_end && clen > 0 &&
                       off + clen <= lay->index_offset;
        if (!entry_ok) {
            ct_error("%s: index entry %lld: id %llu, offset %lld, length %lld, raw %llu, first "
                     "%llu, algorithm %u, flags %u (expected %u; chunks from %lld, aligned to "
                     "%lld, before the index at %lld)",
                     what, k, (unsigned long long)get64(en), off, clen,
                     (unsigned long long)get64(en + 24), (unsigned long long)get64(en + 32),
                     get32(en + 40), get32(en + 44), flags, prev_end, align, lay->index_offset);
            bad++;
            continue;
        }
        prev_end = off + clen;
        const unsigned char *cz = h + off;
        size_t out = ZSTD_decompress(chunk, (size_t)(elems * e), cz, (size_t)clen);
        if (!frame_has_checksum(cz, (size_t)clen) ||
            ZSTD_findFrameCompressedSize(cz, (size_t)clen) != (size_t)clen || ZSTD_isError(out) ||
            out != (size_t)(elems * e)) {
            ct_error("%s: chunk %lld at %lld (%lld bytes) is not one checksummed zstd frame of "
                     "%lld bytes",
                     what, k, off, clen, elems * e);
            bad++;
            continue;
        }
        char w[200];
        snprintf(w, sizeof(w), "%s: chunk %lld", what, k);
        for (long long i = 0; i < elems; i++) /* byte j of element i at j * elems + i */
            for (long long j = 0; j < e; j++)
                plain[i * e + j] = flags ? chunk[j * elems + i] : chunk[i * e + j];
        if (ir_compare_elems(w, plain, want + k * ce * e, NULL, elems, e))
            bad++;
    }
    free(chunk);
    free(plain);
    free(index);
    if (bad == 0) {
        double ratio = (double)(N * e) / (double)zsum;
        /* shuffled, the ramp's high bytes are runs: 29:1 in 64 KiB chunks, 8.9:1 in 4,000 B
         * (2:1 not) */
        const double least[NKINDS] = {100, 5, 0, ir_want_shuffle() ? 5 : 1.3, 3};
        fprintf(stderr, "rank 0: %s: %lld chunks, %lld bytes in %lld compressed: %.2f:1\n", what,
                chunks, N * e, zsum, ratio);
        CT_CHECK(ratio >= least[kind], "%s: compression %.2f:1, expected at least %.1f:1", what,
                 ratio, least[kind]);
        if (kind == RANDOM) { /* the random bytes do not compress, only the holes' zeros */
            long long data = 0;
            for (long long g = 0; g < N; g++)
                data += hole(g) ? 0 : e;
            CT_CHECK(zsum >= data && zsum <= (long long)chunks *
                                                 (long long)ZSTD_compressBound((size_t)(ce * e)),
                     "%s: %lld random bytes (besides the holes) compressed to %lld", what, data,
                     zsum);
        }
        ok = 1;
    }
out:
    free(f);
    free(want);
    return ok;
}

static void layout_free(layout *lay)
{
    free(lay->offset);
    free(lay->clen);
    lay->offset = lay->clen = NULL;
}

/* The layout from rank 0 to every rank (lay's arrays allocated here on the others). */
static int share_layout(layout *lay, int ok)
{
    long long v[8] = {ok,
                      lay->chunks,
                      lay->ce,
                      lay->index_offset,
                      lay->index_length,
                      lay->data_offset,
                      lay->file_end,
                      0};
    MPI_Bcast(v, 8, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (!v[0]) {
        layout_free(lay);
        return 0;
    }
    if (ct_rank != 0) {
        lay->chunks = v[1];
        lay->ce = v[2];
        lay->index_offset = v[3];
        lay->index_length = v[4];
        lay->data_offset = v[5];
        lay->file_end = v[6];
        lay->offset = malloc(sizeof(long long) * (size_t)lay->chunks);
        lay->clen = malloc(sizeof(long long) * (size_t)lay->chunks);
    }
    MPI_Bcast(lay->offset, (int)lay->chunks, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(lay->clen, (int)lay->chunks, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    return 1;
}

static void write_kind(const char *base, int kind)
{
    char name[4096], what[200];
    long long e = kind_esize[kind];
    unsigned char *buf = NULL;
    ir_list mine = writer(kind, ct_nprocs, ct_rank, &buf);
    edonio_ir_schedule s = EDONIO_IR_SCHEDULE_NULL;
    MPI_Info info = ir_info();
    MPI_File fh;
    layout lay = {0};

    snprintf(name, sizeof(name), "%s.%s", base, kind_name[kind]);
    snprintf(what, sizeof(what), "%s, %d writers", kind_name[kind], ct_nprocs);
    ct_fresh(name);
    if (ct_rank == 0 && disp > 0) {
        unsigned char *pre = malloc((size_t)disp);
        for (long long o = 0; o < disp; o++)
            pre[o] = ct_pattern(o, 5);
        CT_CHECK(ir_pwrite(name, 0, pre, disp) == 0, "cannot write %s", name);
        free(pre);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    fh = co_open(name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, "open");
    /* an empty rank passes NULL for its indices and its buffer */
    IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, N, e, mine.n, mine.n ? mine.idx : NULL, info,
                                    &s));
    MPI_Info_free(&info);
    ir_check_info(s, e, what);
    IR_OK(edonio_ir_zwrite(fh, disp, s, mine.n ? buf : NULL));
    edonio_ir_stats sum = ir_stats_sum(ir_stats(s));
    IR_OK(edonio_ir_schedule_free(&s));
    CT_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);

    int ok = ct_rank == 0 ? check_format(name, kind, &lay, what) : 0;
    if (share_layout(&lay, ok)) {
        long long zsum = 0;
        for (long long k = 0; k < lay.chunks; k++)
            zsum += lay.clen[k];
        /* + 8: zwrite first zeroes an old header's magic (a write that does not finish leaves
         * no valid header) */
        CT_CHECK(sum.bytes_written >= zsum &&
                     sum.bytes_written <= zsum + HDR + lay.index_length + 8,
                 "%s: zwrite's statistics: %lld bytes written over all ranks, the chunks take "
                 "%lld, with the header, the index and the magic's unmarking %lld",
                 what, (long long)sum.bytes_written, zsum, zsum + HDR + lay.index_length + 8);
        CT_CHECK(sum.bytes_read == 0, "%s: zwrite read %lld bytes", what,
                 (long long)sum.bytes_read);
        CT_CHECK(sum.calls == ct_nprocs, "%s: zwrite's calls sum to %lld", what,
                 (long long)sum.calls);
        layout_free(&lay);
    }
    free(buf);
    ir_list_free(&mine);
}

/*
 * Open name read-only and run zinquire on every rank, expecting class icls (-1: any); then
 * zread through a schedule of n elements of e bytes (e == 0: of what zinquire said, with its
 * chunk size) with every rank's indices idx, expecting class rcls. Returns the buffer read (the
 * caller frees it).
 */
static unsigned char *zread_case(const char *name, long long n, long long e, const char *cs,
                                 const ir_list *idx, int icls, const char *icause, int rcls,
                                 const char *rcause, const char *what)
{
    MPI_Info info = ir_info();
    MPI_File fh;
    MPI_Offset gn = -1, ge = -1, gc = -1;
    edonio_ir_schedule s = EDONIO_IR_SCHEDULE_NULL;
    char w[240], v[32];

    fh = co_open(name, MPI_MODE_RDONLY, info, "open a corrupt copy");
    snprintf(w, sizeof(w), "%s: edonio_ir_zinquire", what);
    int rc = edonio_ir_zinquire(fh, 0, &gn, &ge, &gc);
    if (icls >= 0)
        ir_expect(rc, icls, "edonio_ir_zinquire", icause, 1, w);
    if (e == 0) {
        CT_CHECK(rc == MPI_SUCCESS && gn > 0 && ge > 0 && gc >= ge,
                 "%s: no array to read: %lld elements of %lld bytes, chunks of %lld", w,
                 (long long)gn, (long long)ge, (long long)gc);
        n = gn > 0 ? gn : 1;
        e = ge > 0 ? ge : 1;
        snprintf(v, sizeof(v), "%lld", (long long)gc);
        cs = v;
    }
    if (cs != NULL)
        MPI_Info_set(info, "edonio_ir_chunk_size", cs);
    unsigned char *buf = malloc((size_t)(idx->n * e) + 1);
    IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, n, e, idx->n, idx->idx, info, &s));
    snprintf(w, sizeof(w), "%s: edonio_ir_zread", what);
    ir_expect(edonio_ir_zread(fh, 0, s, buf), rcls, "edonio_ir_zread", rcause, 1, w);
    IR_OK(edonio_ir_schedule_free(&s));
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
    return buf;
}

/* Elements read for the indices of all against the model's array want. */
static void compare_all(const char *what, const unsigned char *buf, const ir_list *all, long long e,
                        const unsigned char *want)
{
    unsigned char *exp = malloc((size_t)(all->n * e) + 1);
    for (long long k = 0; k < all->n; k++)
        memcpy(exp + k * e, want + all->idx[k] * e, (size_t)e);
    ir_compare_elems(what, buf, exp, all->idx, all->n, e);
    free(exp);
}

/* A reader's indices: anywhere in the array, duplicates; the last rank asks for nothing. */
static ir_list reader(int kind)
{
    ir_list l = {0, 0, NULL};
    uint64_t s = ir_seed(seed, 25, (uint64_t)(kind * 1000 + ct_nprocs * 10 + ct_rank));

    if (ct_nprocs > 1 && ct_rank == ct_nprocs - 1)
        return l;
    long long want = N / ct_nprocs + ir_below(&s, N / ct_nprocs / 2 + 1) + 1;
    while (l.n < want) {
        long long g = ir_below(&s, N), len = ir_below(&s, 100) < 40 ? 1 + ir_below(&s, 200) : 1;
        for (long long i = 0; i < len && g + i < N; i++)
            ir_push(&l, g + i);
    }
    ir_shuffle(&s, l.idx, l.n);
    return l;
}

static void read_kind(const char *base, int kind, int corrupt)
{
    char name[4096], bad[4200], what[200], w[260];
    long long e = kind_esize[kind], cs = ir_want_chunk(e);
    unsigned char *want = model(kind);
    MPI_Info info = ir_info();
    MPI_File fh;
    layout lay = {0};
    MPI_Offset gn = -1, ge = -1, gc = -1;

    snprintf(name, sizeof(name), "%s.%s", base, kind_name[kind]);
    snprintf(what, sizeof(what), "%s, %d readers", kind_name[kind], ct_nprocs);
    int ok = ct_rank == 0 ? check_format(name, kind, &lay, what) : 0;
    if (!share_layout(&lay, ok)) {
        ct_error("%s: the file cannot be read; no reads tried", what);
        free(want);
        MPI_Info_free(&info);
        return;
    }
    fh = co_open(name, MPI_MODE_RDONLY, info, "open for reading");

    /* zinquire on every rank (not collective); NULL arguments allowed */
    snprintf(w, sizeof(w), "%s: edonio_ir_zinquire", what);
    ir_expect(edonio_ir_zinquire(fh, disp, &gn, &ge, &gc), MPI_SUCCESS, "edonio_ir_zinquire", NULL,
              1, w);
    CT_CHECK(gn == N && ge == e && gc == cs,
             "%s: %lld elements of %lld bytes in chunks of %lld bytes, expected %lld, %lld, %lld",
             w, (long long)gn, (long long)ge, (long long)gc, N, e, cs);
    ir_expect(edonio_ir_zinquire(fh, disp, NULL, NULL, NULL), MPI_SUCCESS, "edonio_ir_zinquire",
              NULL, 1, w);

    /* a random distribution, every element checked */
    ir_list mine = reader(kind);
    edonio_ir_schedule s = EDONIO_IR_SCHEDULE_NULL;
    unsigned char *buf = malloc((size_t)(mine.n * e) + 1), *exp = malloc((size_t)(mine.n * e) + 1);
    IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, gn, ge, mine.n, mine.idx, info, &s));
    memset(buf, 0xee, (size_t)(mine.n * e));
    IR_OK(edonio_ir_zread(fh, disp, s, buf));
    for (long long k = 0; k < mine.n; k++)
        memcpy(exp + k * e, want + mine.idx[k] * e, (size_t)e);
    snprintf(w, sizeof(w), "%s: edonio_ir_zread", what);
    ir_compare_elems(w, buf, exp, mine.idx, mine.n, e);
    edonio_ir_stats sum = ir_stats_sum(ir_stats(s));
    CT_CHECK(sum.bytes_written == 0, "%s: a read wrote %lld bytes", w,
             (long long)sum.bytes_written);
    IR_OK(edonio_ir_schedule_free(&s));
    free(buf);
    free(exp);
    ir_list_free(&mine);

    /* only chunk 1 and the last chunk asked for: only they are read (and the header, index) */
    if (lay.chunks >= 3) {
        long long last = lay.chunks - 1, c[2] = {1, last};
        uint64_t sr = ir_seed(seed, 26, (uint64_t)ct_rank);
        for (int i = 0; i < 2; i++) {
            long long first = c[i] * lay.ce, end = first + lay.ce < N ? first + lay.ce : N;
            for (int k = 0; k < 20; k++)
                ir_push(&mine, first + ir_below(&sr, end - first));
        }
        buf = malloc((size_t)(mine.n * e) + 1);
        IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, N, e, mine.n, mine.idx, info, &s));
        IR_OK(edonio_ir_zread(fh, disp, s, buf));
        exp = malloc((size_t)(mine.n * e) + 1);
        for (long long k = 0; k < mine.n; k++)
            memcpy(exp + k * e, want + mine.idx[k] * e, (size_t)e);
        snprintf(w, sizeof(w), "%s: edonio_ir_zread of chunks 1 and %lld", what, last);
        ir_compare_elems(w, buf, exp, mine.idx, mine.n, e);
        sum = ir_stats_sum(ir_stats(s));
        long long zc = lay.clen[1] + lay.clen[last];
        CT_CHECK(sum.bytes_read >= zc && sum.bytes_read <= zc + HDR + lay.index_length,
                 "%s: %lld bytes read over all ranks; the two chunks take %lld, with the "
                 "header and the index %lld (of %lld compressed bytes)",
                 w, (long long)sum.bytes_read, zc, zc + HDR + lay.index_length, lay.file_end);
        IR_OK(edonio_ir_schedule_free(&s));
        free(buf);
        free(exp);
        ir_list_free(&mine);
    }
    CT_MPI(MPI_File_close(&fh));

    if (corrupt) {
        /* every rank reads every element; the corrupt copies are made at displacement 0 */
        ir_list all = {0, 0, NULL};
        for (long long g = ct_rank; g < N; g += ct_nprocs)
            ir_push(&all, g);
        snprintf(bad, sizeof(bad), "%s.bad", name);
        long long size = 0;
        unsigned char *good = ct_rank == 0 ? ir_slurp(name, &size) : NULL;
        const long long mid = lay.offset[0] + lay.clen[0] / 2;
        /* A version 1 file has no shuffled chunks: one whose chunks are is corrupt there. */
        const int v1_cls = ir_want_shuffle() ? MPI_ERR_IO : MPI_SUCCESS;
        struct {
            const char *what;
            long long at, flip, cut; /* flip the byte at 'at' by 'flip' (0: none); cut: size */
            int version, icls, rcls;
            const char *icause, *rcause;
            int inquired; /* the reader's schedule made from what zinquire says */
        } cases[] = {
            {"a byte flipped inside chunk 0", mid, 0x10, -1, 0, MPI_SUCCESS, MPI_ERR_IO, NULL,
             "corrupt|checksum", 0},
            {"the last chunk's checksum flipped",
             lay.offset[lay.chunks - 1] + lay.clen[lay.chunks - 1] - 1, 0x01, -1, 0, MPI_SUCCESS,
             MPI_ERR_IO, NULL, "corrupt|checksum", 0},
            {"a byte of the index flipped", lay.index_offset + lay.index_length / 2, 0x04, -1, 0,
             MPI_SUCCESS, MPI_ERR_IO, NULL, "index", 0},
            {"the file cut inside the index", 0, 0, lay.file_end - 1, 0, MPI_SUCCESS, MPI_ERR_IO,
             NULL, "truncat", 0},
            {"the file cut inside chunk 0", 0, 0, mid, 0, MPI_SUCCESS, MPI_ERR_IO, NULL, "truncat",
             0},
            {"the file cut inside the header", 0, 0, HDR - 28, 0, MPI_ERR_IO, MPI_ERR_IO,
             "truncat|header", "truncat|header", 0},
            {"an empty file", 0, 0, 0, 0, MPI_ERR_IO, MPI_ERR_IO, "truncat|header",
             "truncat|header", 0},
            {"format version 3", 0, 0, -1, 3, MPI_ERR_UNSUPPORTED_DATAREP,
             MPI_ERR_UNSUPPORTED_DATAREP, "version", "version", 0},
            /* version 1 with its CRC-32 right (-1): read as version 1 */
            {"format version 1", 0, 0, -1, -1, MPI_SUCCESS, v1_cls, NULL, "version 1", 0},
            {"the magic changed", 3, 0x20, -1, 0, MPI_ERR_IO, MPI_ERR_IO,
             "EDONIOZA|magic|not an edonio", "EDONIOZA|magic|not an edonio", 0},
            {"the chunk count changed", 40, 0x01, -1, 0, MPI_ERR_IO, MPI_ERR_IO, "header|chunk",
             "header|chunk", 0},
            /* the header's CRC-32 catches a changed field that is still consistent */
            {"the element size changed", 24, 0x10, -1, 0, MPI_ERR_IO, MPI_ERR_IO, "CRC", "CRC", 0},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            if (ct_rank == 0) {
                unsigned char *copy = malloc((size_t)size + 1);
                long long len = size - disp;
                memcpy(copy, good + disp, (size_t)len);
                if (cases[i].flip)
                    copy[cases[i].at] ^= (unsigned char)cases[i].flip;
                if (cases[i].version > 0)
                    put32(copy + 8, (uint32_t)cases[i].version);
                if (cases[i].version < 0) {
                    put32(copy + 8, 1);
                    put32(copy + 96, (uint32_t)crc32(0L, copy, 96));
                }
                if (cases[i].cut >= 0)
                    len = cases[i].cut;
                CT_CHECK(ir_replace(bad, copy, len) == 0, "cannot write %s", bad);
                free(copy);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            snprintf(w, sizeof(w), "%s: %s", what, cases[i].what);
            buf = zread_case(bad, N, cases[i].inquired ? 0 : e, NULL, &all, cases[i].icls,
                             cases[i].icause, cases[i].rcls, cases[i].rcause, w);
            if (cases[i].rcls == MPI_SUCCESS) /* a file still good: its data */
                compare_all(w, buf, &all, e, want);
            free(buf);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        /* readers whose schedule describes another array: the good file, at displacement 0 */
        if (ct_rank == 0)
            CT_CHECK(ir_replace(bad, good + disp, size - disp) == 0, "cannot write %s", bad);
        MPI_Barrier(MPI_COMM_WORLD);
        char other[32];
        snprintf(other, sizeof(other), "%lld", cs / e / 2 * e);
        snprintf(w, sizeof(w), "%s: a schedule of another element size", what);
        free(zread_case(bad, N, e + 1, NULL, &all, MPI_SUCCESS, NULL, MPI_ERR_ARG, "element|size",
                        w));
        snprintf(w, sizeof(w), "%s: a schedule of another global count", what);
        free(zread_case(bad, N + 1, e, NULL, &all, MPI_SUCCESS, NULL, MPI_ERR_ARG, "element|count",
                        w));
        snprintf(w, sizeof(w), "%s: a schedule of another chunk size", what);
        free(zread_case(bad, N, e, other, &all, MPI_SUCCESS, NULL, MPI_ERR_ARG, "chunk", w));
        /* and the good copy reads right after all that, through what zinquire says */
        snprintf(w, sizeof(w), "%s: the good copy after the corrupt ones", what);
        buf = zread_case(bad, 0, 0, NULL, &all, MPI_SUCCESS, NULL, MPI_SUCCESS, NULL, w);
        compare_all(w, buf, &all, e, want);
        free(good);
        free(buf);
        ir_list_free(&all);
        MPI_Barrier(MPI_COMM_WORLD);
        if (ct_rank == 0)
            unlink(ir_path(bad));
    }
    layout_free(&lay);
    MPI_Info_free(&info);
    free(want);
}

/* FILE.random written again with the (smaller) ramp: it reads back as the ramp. */
static void rewrite(const char *base)
{
    char name[4096];
    long long e = kind_esize[RAMP], n2 = N / 2;
    MPI_Info info = ir_info();
    edonio_ir_schedule s = EDONIO_IR_SCHEDULE_NULL;
    ir_list mine = {0, 0, NULL};
    MPI_Offset gn = -1, ge = -1;

    snprintf(name, sizeof(name), "%s.%s", base, kind_name[RANDOM]);
    for (long long g = ct_rank; g < n2; g += ct_nprocs)
        ir_push(&mine, n2 - 1 - g);
    unsigned char *buf = malloc((size_t)(mine.n * e) + 1), *got = malloc((size_t)(mine.n * e) + 1);
    for (long long k = 0; k < mine.n; k++)
        value(RAMP, mine.idx[k], buf + k * e);
    MPI_File fh = co_open(name, MPI_MODE_RDWR, info, "open to write again");
    IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, n2, e, mine.n, mine.idx, info, &s));
    IR_OK(edonio_ir_zwrite(fh, disp, s, buf));
    IR_OK(edonio_ir_zinquire(fh, disp, &gn, &ge, NULL));
    CT_CHECK(gn == n2 && ge == e, "written again: zinquire says %lld elements of %lld bytes",
             (long long)gn, (long long)ge);
    memset(got, 0xee, (size_t)(mine.n * e));
    IR_OK(edonio_ir_zread(fh, disp, s, got));
    ir_compare_elems("written again with a smaller array: edonio_ir_zread", got, buf, mine.idx,
                     mine.n, e);
    IR_OK(edonio_ir_schedule_free(&s));
    CT_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
    free(buf);
    free(got);
    ir_list_free(&mine);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_OPTION=VALUE...]");
    seed = (uint64_t)ct_opt_ll("seed", 1);
    N = ct_opt_ll("n", 65536);
    disp = ct_opt_ll("disp", 0);
    const char *phase = ct_opt("phase", "all"),
               *list = ct_opt("kinds", "zeros,smooth,random,ramp,text");
    int corrupt = (int)ct_opt_ll("corrupt", 1);
    int kinds[NKINDS], nk = 0;

    for (int k = 0; k < NKINDS; k++)
        if (strstr(list, kind_name[k]) != NULL)
            kinds[nk++] = k;
    if (strcmp(phase, "all") != 0 && strcmp(phase, "write") != 0 && strcmp(phase, "read") != 0) {
        ct_error("test_phase=%s: all, write or read", phase);
        return ct_finish();
    }
    if (strcmp(phase, "read") != 0)
        for (int i = 0; i < nk; i++)
            write_kind(argv[1], kinds[i]);
    if (strcmp(phase, "write") != 0)
        for (int i = 0; i < nk; i++)
            read_kind(argv[1], kinds[i], corrupt && kinds[i] == SMOOTH);
    if (strcmp(phase, "all") == 0 && strstr(list, "random") != NULL)
        rewrite(argv[1]);
    return ct_finish();
}
