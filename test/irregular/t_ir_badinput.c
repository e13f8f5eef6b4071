/*
 * edonio irregular test: bad input to every call of libedonio_irregular gives the documented
 * class on every process alike, with a message that names the call and the cause (through
 * MPI_Error_string and edonio_ir_error_string, which must agree), and changes nothing.
 *
 * edonio_ir_schedule_create: an index out of range on the last rank only (one past the end),
 * a negative index on rank 0, a negative count on rank 0, negative and zero element sizes, a
 * negative global count, indices NULL with a count on the last rank, sched NULL, element sizes
 * or chunk sizes that differ between processes: MPI_ERR_ARG, the handle left
 * EDONIO_IR_SCHEDULE_NULL. edonio_ir_schedule_update: the same for its indices, a NULL old
 * schedule. Every data call (write, read, switch, zwrite, zread) and get_info, stats and free
 * with EDONIO_IR_SCHEDULE_NULL; the data calls with a negative displacement, and with one that
 * differs between the processes; with a file opened
 * on MPI_COMM_SELF and a schedule over MPI_COMM_WORLD (at 2 or more ranks): MPI_ERR_ARG; with
 * MPI_FILE_NULL: MPI_ERR_FILE; a NULL buffer on a rank with elements: MPI_ERR_BUFFER;
 * edonio_ir_switch with a schedule that edonio_ir_schedule_update did not make: MPI_ERR_ARG.
 * edonio_ir_read of elements past the end of an uncompressed file (a file cut short; also when
 * only the last rank asks for such an element), edonio_ir_switch reading new elements there,
 * edonio_ir_zread and edonio_ir_zinquire of a file that is no compressed array: MPI_ERR_IO. The
 * writing calls on a read-only handle: MPI_ERR_READ_ONLY (the MPI-IO call's class, kept), the
 * call and the cause named. A schedule over WORLD's processes in reverse order with a file on
 * WORLD: MPI_ERR_ARG; schedules and files on the two halves of WORLD work.
 * Invalid info values fall back to the defaults (get_info says), values in range are taken, a
 * chunk smaller than an element is one element. Afterwards the schedules made before still
 * write and read the file right, and the file holds what they wrote and nothing from the bad
 * calls.
 *
 *   t_ir_badinput FILE [test_fs=edonio|ufs]
 */
#include "ir_test.h"

#define N 1000
#define E 8

static int dummy;
/* Not a schedule: a failed create or update must replace it by EDONIO_IR_SCHEDULE_NULL. */
#define JUNK ((edonio_ir_schedule)(void *)&dummy)

static void create_case(const char *what, MPI_Offset n, MPI_Offset e, MPI_Offset count,
                        const MPI_Offset *idx, MPI_Info info, const char *cause)
{
    edonio_ir_schedule s = JUNK;
    int rc = edonio_ir_schedule_create(MPI_COMM_WORLD, n, e, count, idx, info, &s);

    ir_expect(rc, MPI_ERR_ARG, "edonio_ir_schedule_create", cause, 1, what);
    if (rc != MPI_SUCCESS)
        CT_CHECK(s == EDONIO_IR_SCHEDULE_NULL, "%s: the failed create left the handle %p", what,
                 (void *)s);
    else
        IR_OK(edonio_ir_schedule_free(&s));
}

static void update_case(const char *what, edonio_ir_schedule old, MPI_Offset count,
                        const MPI_Offset *idx, const char *cause)
{
    edonio_ir_schedule s = JUNK;
    int rc = edonio_ir_schedule_update(old, count, idx, &s);

    ir_expect(rc, MPI_ERR_ARG, "edonio_ir_schedule_update", cause, 1, what);
    if (rc != MPI_SUCCESS)
        CT_CHECK(s == EDONIO_IR_SCHEDULE_NULL || old == EDONIO_IR_SCHEDULE_NULL,
                 "%s: the failed update left the handle %p", what, (void *)s);
    else
        IR_OK(edonio_ir_schedule_free(&s));
}

/* Every data call with these arguments must give class want (cause: the message's words). */
static void data_calls(const char *what, MPI_File fh, MPI_Offset disp, edonio_ir_schedule s,
                       edonio_ir_schedule sw, void *buf, void *buf2, int want, const char *cause)
{
    char w[200];

    snprintf(w, sizeof(w), "%s: edonio_ir_write", what);
    ir_expect(edonio_ir_write(fh, disp, s, buf), want, "edonio_ir_write", cause, 1, w);
    snprintf(w, sizeof(w), "%s: edonio_ir_read", what);
    ir_expect(edonio_ir_read(fh, disp, s, buf), want, "edonio_ir_read", cause, 1, w);
    snprintf(w, sizeof(w), "%s: edonio_ir_zwrite", what);
    ir_expect(edonio_ir_zwrite(fh, disp, s, buf), want, "edonio_ir_zwrite", cause, 1, w);
    snprintf(w, sizeof(w), "%s: edonio_ir_zread", what);
    ir_expect(edonio_ir_zread(fh, disp, s, buf), want, "edonio_ir_zread", cause, 1, w);
    snprintf(w, sizeof(w), "%s: edonio_ir_switch", what);
    ir_expect(edonio_ir_switch(fh, disp, sw, buf, buf2), want, "edonio_ir_switch", cause, 1, w);
}

static void info_case(const char *key, const char *value, long long e, const char *ikey,
                      long long want)
{
    MPI_Info info;
    edonio_ir_schedule s = EDONIO_IR_SCHEDULE_NULL;
    MPI_Offset g = ct_rank;

    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, N, e, 1, &g, info, &s));
    MPI_Info_free(&info);
    if (s == EDONIO_IR_SCHEDULE_NULL)
        return;
    long long got = ir_sched_info(s, ikey);
    CT_CHECK(got == want, "%s=%s (element size %lld): get_info says %s=%lld, expected %lld", key,
             value, e, ikey, got, want);
    IR_OK(edonio_ir_schedule_free(&s));
}

static void fill(unsigned char *buf, const MPI_Offset *idx, long long n, int step)
{
    for (long long k = 0; k < n; k++)
        for (long long j = 0; j < E; j++)
            buf[k * E + j] = ir_byte(9, (uint64_t)step, (uint64_t)idx[k], j);
}

int main(int argc, char **argv)
{
    char name2[4096];
    int P, me;

    ct_init(&argc, &argv, "FILE [test_fs=edonio|ufs]");
    P = ct_nprocs;
    me = ct_rank;

    /* good schedules: every rank a share of the array (a cyclic one; the other in blocks) */
    long long n = 0, n2 = 0;
    MPI_Offset *idx = malloc(sizeof(MPI_Offset) * N), *idx2 = malloc(sizeof(MPI_Offset) * N);
    for (long long g = me; g < N; g += P)
        idx[n++] = g;
    for (long long g = (long long)N * me / P; g < (long long)N * (me + 1) / P; g++)
        idx2[n2++] = g;
    MPI_Info info = ir_info();
    edonio_ir_schedule s = EDONIO_IR_SCHEDULE_NULL, s2 = EDONIO_IR_SCHEDULE_NULL;
    IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, N, E, n, idx, info, &s));
    IR_OK(edonio_ir_schedule_update(s, n2, idx2, &s2));
    unsigned char *buf = malloc((size_t)(N * E)), *buf2 = malloc((size_t)(N * E));
    fill(buf, idx, n, 1);

    ct_fresh(argv[1]);
    MPI_File fh = co_open(argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, "open");
    IR_OK(edonio_ir_write(fh, 0, s, buf));

    /* 1. edonio_ir_schedule_create */
    MPI_Offset bad[3] = {0, 1, 2};
    if (me == P - 1)
        bad[1] = N;
    create_case("an index one past the end on the last rank", N, E, 3, bad, info, "range");
    bad[1] = 1;
    if (me == 0)
        bad[2] = -1;
    create_case("a negative index on rank 0", N, E, 3, bad, info, "range");
    bad[2] = 2;
    create_case("a negative count on rank 0", N, E, me == 0 ? -1 : 3, bad, info, "count");
    create_case("a negative element size", N, -8, 3, bad, info, "element size");
    create_case("element size 0", N, 0, 3, bad, info, "element size");
    create_case("a negative global count", -5, E, 0, NULL, info, "global count");
    create_case("indices NULL with a count on the last rank", N, E, 3, me == P - 1 ? NULL : bad,
                info, "NULL");
    if (P > 1) {
        create_case("element sizes that differ", N, me == 0 ? 8 : 16, 3, bad, info, "differ");
        MPI_Info odd;
        MPI_Info_create(&odd);
        MPI_Info_set(odd, "edonio_ir_chunk_size", me == 0 ? "4096" : "8192");
        create_case("chunk sizes that differ", N, E, 3, bad, odd, "differ|chunk");
        MPI_Info_free(&odd);
    }
    ir_expect(edonio_ir_schedule_create(MPI_COMM_WORLD, N, E, 3, bad, info, NULL), MPI_ERR_ARG,
              "edonio_ir_schedule_create", "sched", 1, "sched NULL");

    /* 2. edonio_ir_schedule_update */
    if (me == P - 1)
        bad[0] = N + 7;
    update_case("update: an index past the end on the last rank", s, 3, bad, "range");
    bad[0] = 0;
    update_case("update: a negative count on rank 0", s, me == 0 ? -2 : 3, bad, "count");
    update_case("update: indices NULL with a count", s, 3, NULL, "NULL");
    update_case("update: the old schedule EDONIO_IR_SCHEDULE_NULL", EDONIO_IR_SCHEDULE_NULL, 3, bad,
                "schedule");
    ir_expect(edonio_ir_schedule_update(s, 3, bad, NULL), MPI_ERR_ARG, "edonio_ir_schedule_update",
              "sched", 1, "update: sched NULL");

    /* 3. the data calls */
    data_calls("EDONIO_IR_SCHEDULE_NULL", fh, 0, EDONIO_IR_SCHEDULE_NULL, EDONIO_IR_SCHEDULE_NULL,
               buf, buf2, MPI_ERR_ARG, "schedule");
    data_calls("a negative displacement", fh, -8, s, s2, buf, buf2, MPI_ERR_ARG, "displacement");
    /* a displacement that differs between the processes (seen to fail before the agreement took
     * it: the chunks went where each process's displacement put them, MPI_SUCCESS) */
    if (ct_nprocs > 1)
        data_calls("a displacement on the last rank only", fh, me == ct_nprocs - 1 ? 8 : 0, s, s2,
                   buf, buf2, MPI_ERR_ARG, "displacement");
    data_calls("MPI_FILE_NULL", MPI_FILE_NULL, 0, s, s2, buf, buf2, MPI_ERR_FILE, "file");
    /* a NULL buffer: on rank 0, which holds elements (the others give theirs) */
    data_calls("a NULL buffer on rank 0", fh, 0, s, s2, me == 0 ? NULL : buf, me == 0 ? NULL : buf2,
               MPI_ERR_BUFFER, "buffer");
    ir_expect(edonio_ir_switch(fh, 0, s, buf, buf2), MPI_ERR_ARG, "edonio_ir_switch", "update", 1,
              "edonio_ir_switch with a schedule not made by edonio_ir_schedule_update");
    if (P > 1) {
        /* every rank's own file, open on MPI_COMM_SELF */
        MPI_File self;
        snprintf(name2, sizeof(name2), "%s.self%d", argv[1], me);
        MPI_File_delete(name2, MPI_INFO_NULL);
        CT_MPI(MPI_File_open(MPI_COMM_SELF, name2, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &self));
        data_calls("a file open on MPI_COMM_SELF", self, 0, s, s2, buf, buf2, MPI_ERR_ARG, "group");
        MPI_Offset size = -1;
        CT_MPI(MPI_File_get_size(self, &size));
        CT_CHECK(size == 0, "the bad calls wrote %lld bytes into the MPI_COMM_SELF file",
                 (long long)size);
        CT_MPI(MPI_File_close(&self));
        MPI_File_delete(name2, MPI_INFO_NULL);
    }

    /* 4. the calls without a communicator */
    edonio_ir_stats st;
    MPI_Info got = MPI_INFO_NULL;
    ir_expect(edonio_ir_schedule_stats(EDONIO_IR_SCHEDULE_NULL, &st), MPI_ERR_ARG,
              "edonio_ir_schedule_stats", "schedule", 0, "stats of EDONIO_IR_SCHEDULE_NULL");
    ir_expect(edonio_ir_schedule_stats(s, NULL), MPI_ERR_ARG, "edonio_ir_schedule_stats", "stats",
              0, "stats into NULL");
    ir_expect(edonio_ir_schedule_get_info(EDONIO_IR_SCHEDULE_NULL, &got), MPI_ERR_ARG,
              "edonio_ir_schedule_get_info", "schedule", 0, "get_info of EDONIO_IR_SCHEDULE_NULL");
    ir_expect(edonio_ir_schedule_get_info(s, NULL), MPI_ERR_ARG, "edonio_ir_schedule_get_info",
              "info", 0, "get_info into NULL");
    edonio_ir_schedule none = EDONIO_IR_SCHEDULE_NULL;
    ir_expect(edonio_ir_schedule_free(&none), MPI_ERR_ARG, "edonio_ir_schedule_free", "schedule", 1,
              "free of EDONIO_IR_SCHEDULE_NULL");
    ir_expect(edonio_ir_schedule_free(NULL), MPI_ERR_ARG, "edonio_ir_schedule_free", "sched", 1,
              "free of NULL");

    /* 5. info values: invalid ones fall back to the defaults */
    static const struct {
        const char *key, *value;
        long long e, want;
    } infos[] = {
        {"edonio_ir_chunk_size", "abc", 8, 1048576},
        {"edonio_ir_chunk_size", "0", 8, 1048576},
        {"edonio_ir_chunk_size", "-4096", 8, 1048576},
        {"edonio_ir_chunk_size", "268435457", 8, 1048576},
        {"edonio_ir_chunk_size", "12x", 8, 1048576},
        {"edonio_ir_chunk_size", "268435456", 8, 268435456},
        {"edonio_ir_chunk_size", "1000", 24, 984},
        {"edonio_ir_chunk_size", "4", 8, 8}, /* at least one element */
        {"edonio_ir_chunk_size", "1048576", 24, 1048560},
        {"edonio_ir_align", "0", 8, 4096},
        {"edonio_ir_align", "-512", 8, 4096},
        {"edonio_ir_align", "many", 8, 4096},
        {"edonio_ir_align", "512", 8, 512},
        {"edonio_ir_zstd_level", "abc", 8, 3},
        {"edonio_ir_zstd_level", "1000", 8, 3},
        {"edonio_ir_zstd_level", "19", 8, 19},
        {"edonio_ir_zstd_level", "1", 8, 1},
        {"edonio_ir_shuffle", "false", 8, 0},
        {"edonio_ir_shuffle", "true", 8, 1},
        {"edonio_ir_shuffle", "no", 8, 1},
        {"edonio_ir_shuffle", "DISABLE", 8, 0},
        {"edonio_ir_shuffle", "0", 8, 0},
    };
    for (size_t i = 0; i < sizeof(infos) / sizeof(infos[0]); i++)
        info_case(infos[i].key, infos[i].value, infos[i].e, infos[i].key, infos[i].want);

    /* 6. what the file holds after all that: the first write's data; the schedules still work */
    memset(buf2, 0xee, (size_t)(N * E));
    IR_OK(edonio_ir_read(fh, 0, s, buf2));
    ir_compare_elems("after the bad calls: edonio_ir_read", buf2, buf, idx, n, E);
    fill(buf, idx, n, 2);
    IR_OK(edonio_ir_write(fh, 0, s, buf));
    IR_OK(edonio_ir_switch(fh, 0, s2, buf, buf2));
    unsigned char *want = malloc((size_t)(N * E));
    fill(want, idx2, n2, 2);
    ir_compare_elems("after the bad calls: edonio_ir_switch", buf2, want, idx2, n2, E);
    MPI_Offset size = -1;
    CT_MPI(MPI_File_get_size(fh, &size));
    CT_CHECK(size == N * E, "the file holds %lld bytes, expected %d", (long long)size, N * E);

    /* 7. past the end of an uncompressed file; an uncompressed file read as a compressed one */
    ir_expect(edonio_ir_zread(fh, 0, s, buf), MPI_ERR_IO, "edonio_ir_zread",
              "EDONIOZA|not an edonio", 1, "zread of an uncompressed array");
    MPI_Offset gn = 0;
    ir_expect(edonio_ir_zinquire(fh, 0, &gn, NULL, NULL), MPI_ERR_IO, "edonio_ir_zinquire",
              "EDONIOZA|not an edonio", 1, "zinquire of an uncompressed array");
    ir_expect(edonio_ir_read(fh, 200, s, buf2), MPI_ERR_IO, "edonio_ir_read", "end", 1,
              "read of elements past the end of the file (displacement 200)");
    CT_MPI(MPI_File_set_size(fh, N * E / 2 + 4));
    MPI_Barrier(MPI_COMM_WORLD);
    ir_expect(edonio_ir_read(fh, 0, s, buf2), MPI_ERR_IO, "edonio_ir_read", "end", 1,
              "read of elements past the end of a file cut short");
    /* a rank whose elements lie before the cut only: the class is the same on every rank */
    edonio_ir_schedule s3 = EDONIO_IR_SCHEDULE_NULL;
    MPI_Offset tail = N - 1, head = me;
    IR_OK(
        edonio_ir_schedule_create(MPI_COMM_WORLD, N, E, 1, me == P - 1 ? &tail : &head, info, &s3));
    ir_expect(edonio_ir_read(fh, 0, s3, buf2), MPI_ERR_IO, "edonio_ir_read", "end", 1,
              "the last rank's element past the end of a file cut short");
    IR_OK(edonio_ir_schedule_free(&s3));
    /* a switch whose new elements lie past the end (nothing released: nothing written first) */
    edonio_ir_schedule s4 = EDONIO_IR_SCHEDULE_NULL, s5 = EDONIO_IR_SCHEDULE_NULL;
    IR_OK(edonio_ir_schedule_create(MPI_COMM_WORLD, N, E, 0, NULL, info, &s4));
    IR_OK(edonio_ir_schedule_update(s4, n2, idx2, &s5));
    ir_expect(edonio_ir_switch(fh, 0, s5, NULL, buf2), MPI_ERR_IO, "edonio_ir_switch", "end", 1,
              "a switch reading new elements past the end of a file cut short");
    IR_OK(edonio_ir_schedule_free(&s5));
    IR_OK(edonio_ir_schedule_free(&s4));
    CT_MPI(MPI_File_close(&fh));

    /* the writing calls on a read-only handle: the MPI-IO call's class (MPI_ERR_READ_ONLY, which
     * the library keeps), the call and the cause named; nothing written */
    fh = co_open(argv[1], MPI_MODE_RDONLY, info, "open read-only");
    ir_expect(edonio_ir_write(fh, 0, s, buf), MPI_ERR_READ_ONLY, "edonio_ir_write", "read-only", 1,
              "edonio_ir_write on a read-only handle");
    ir_expect(edonio_ir_zwrite(fh, 0, s, buf), MPI_ERR_READ_ONLY, "edonio_ir_zwrite", "read-only",
              1, "edonio_ir_zwrite on a read-only handle");
    CT_MPI(MPI_File_get_size(fh, &size));
    CT_CHECK(size == N * E / 2 + 4, "the writes on a read-only handle changed the size to %lld",
             (long long)size);

    CT_MPI(MPI_File_close(&fh));

    /* 8. communicators: a schedule over WORLD's processes in reverse order with a file open on
     * WORLD (not congruent): MPI_ERR_ARG; schedules over the halves of WORLD, each with a file of
     * its own open on its half: they work */
    if (P > 1) {
        MPI_Comm rev, half;
        edonio_ir_schedule sr = EDONIO_IR_SCHEDULE_NULL, sh = EDONIO_IR_SCHEDULE_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, 0, P - me, &rev);
        fh = co_open(argv[1], MPI_MODE_RDWR, info, "open again");
        IR_OK(edonio_ir_schedule_create(rev, N, E, n, idx, info, &sr));
        ir_expect(edonio_ir_write(fh, 0, sr, buf), MPI_ERR_ARG, "edonio_ir_write", "group", 1,
                  "a schedule over WORLD in reverse order, the file on WORLD");
        IR_OK(edonio_ir_schedule_free(&sr));
        CT_MPI(MPI_File_close(&fh));
        MPI_Comm_free(&rev);

        int hr, hp;
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
        MPI_Comm_rank(half, &hr);
        MPI_Comm_size(half, &hp);
        snprintf(name2, sizeof(name2), "%s.half%d", argv[1], me % 2);
        if (hr == 0)
            MPI_File_delete(name2, MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File hf = MPI_FILE_NULL;
        CT_MPI(MPI_File_open(half, name2, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &hf));
        long long nh = 0;
        for (long long g = hr; g < N; g += hp)
            idx[nh++] = N - 1 - g;
        fill(buf, idx, nh, 3 + me % 2);
        IR_OK(edonio_ir_schedule_create(half, N, E, nh, idx, info, &sh));
        IR_OK(edonio_ir_write(hf, 0, sh, buf));
        memset(buf2, 0xee, (size_t)(N * E));
        IR_OK(edonio_ir_read(hf, 0, sh, buf2));
        ir_compare_elems("a schedule and a file on half of WORLD: edonio_ir_read", buf2, buf, idx,
                         nh, E);
        IR_OK(edonio_ir_schedule_free(&sh));
        CT_MPI(MPI_File_close(&hf));
        MPI_Barrier(MPI_COMM_WORLD);
        if (hr == 0)
            MPI_File_delete(name2, MPI_INFO_NULL);
        MPI_Comm_free(&half);
    }

    IR_OK(edonio_ir_schedule_free(&s));
    IR_OK(edonio_ir_schedule_free(&s2));
    MPI_Info_free(&info);
    free(idx);
    free(idx2);
    free(buf);
    free(buf2);
    free(want);
    return ct_finish();
}
