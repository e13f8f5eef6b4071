/*
 * edonio cache test: random operations through several handles of one file, against a model.
 *
 *   t_random FILE [KEY=VALUE...] [test_seed=N] [test_ops=N] [test_ro_first=1]
 *
 * Every process follows the same seeded plan of steps; a step is one of:
 *   write   this rank writes random bytes into a random range, only in its own stripes (bytes
 *           whose STRIPE-sized stripe number is its rank mod P), through the world handle or its
 *           MPI_COMM_SELF handle (which shares the cache); writes of different ranks never
 *           overlap but share blocks everywhere
 *   read    this rank reads a random range through either handle: its own stripes must hold
 *           what it wrote last (no sync needed: its own writes)
 *   share   sync-barrier-sync through the world handle (and the self handle's sync): then every
 *           rank checks the whole file, every rank's bytes
 *   set     MPI_File_set_info on the world handle with a random cache size, sometimes a new block
 *           size (a rebuild in place), or on the self handle (its cache keeps its shape)
 *   ro      a read-only world handle opened after a share, the whole file checked, closed
 * The model is each rank's own plan, replayed by every rank for every rank. At the end both
 * handles are closed, the file reopened and checked, and checked once more with POSIX reads.
 *
 * test_ro_first=1: a read-only world handle is opened first and stays open, then the self handle,
 * then the world handle (issue 12's pattern: neither may share the read-only cache). The self and
 * world handles then have caches of their own, so MPI (13.6.1) treats them as two processes:
 * between two shares a rank writes through one of them only (the first it writes through), and
 * reads its own stripes through that one. The read-only handle is entitled to others' writes only
 * after sync-barrier-sync, and ROMIO refuses MPI_File_sync on a read-only handle: its reads are
 * checked only where nobody wrote since it was opened (zeros, or short): every such byte at a
 * share, and in a read step this rank's own stripes (the others' writes of later steps may reach
 * the file already; with romio_edonio_read_fill=none they do). The reopen at the end must see
 * every byte all the same.
 */
#include "cache_test.h"

#include <fcntl.h>
#include <unistd.h>

enum { STRIPE = 1000, SPAN = 256 * 1024, MAXLEN = 9000 };

static unsigned long long rng;
static unsigned char *model; /* the file as every process's plan leaves it */
static long long model_size;
/* test_ro_first: bytes written since the read-only handle was opened, and the handle (0 world,
 * 1 self) each rank writes through until the next share (-1: not chosen yet). */
static unsigned char *written;
static int *epoch;

/* Which bytes a read must get right. */
enum seen {
    OWN,       /* this rank's own stripes */
    ALL,       /* every byte (after a share) */
    UNWRITTEN, /* every byte nobody wrote since the read-only handle was opened */
    /* this rank's own stripes that it did not write since then: between two shares the others
     * run ahead of this rank's step, and their writes may reach the file meanwhile */
    OWN_UNWRITTEN,
};

static unsigned long long next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static long long below(long long n)
{
    return (long long)(next_random() % (unsigned long long)n);
}

static int owner_of_byte(long long off)
{
    return (int)((off / STRIPE) % ct_nprocs);
}

/* Rank r's write of step s: its own stripes of [off, off + len), the byte values of the step. */
static void apply_write(int r, long long off, long long len, int s)
{
    for (long long i = off; i < off + len; i++)
        if (owner_of_byte(i) == r) {
            model[i] = (unsigned char)(i * 11 + s * 7 + r + 1);
            if (written != NULL)
                written[i] = 1;
        }
    if (off + len > model_size)
        for (long long i = off + len - 1; i >= off; i--)
            if (owner_of_byte(i) == r) {
                model_size = i + 1 > model_size ? i + 1 : model_size;
                break;
            }
}

static void do_write(MPI_File fh, long long off, long long len)
{
    for (long long at = off; at < off + len;) { /* one write per own stripe piece */
        long long end = (at / STRIPE + 1) * STRIPE;
        end = end < off + len ? end : off + len;
        if (owner_of_byte(at) == ct_rank)
            ct_write_at(fh, at, model + at, end - at, "write");
        at = end;
    }
}

/* Check [off, off + len) read through fh: the bytes 'seen' says. */
static void check_range(MPI_File fh, long long off, long long len, enum seen seen, const char *what)
{
    unsigned char *buf = malloc((size_t)len);
    MPI_Status st;
    int got = 0;

    memset(buf, 0xee, (size_t)len);
    CT_MPI(MPI_File_read_at(fh, off, buf, (int)len, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &got);
    for (long long i = off; i < off + len; i++) {
        if (((seen == OWN || seen == OWN_UNWRITTEN) && owner_of_byte(i) != ct_rank) ||
            ((seen == UNWRITTEN || seen == OWN_UNWRITTEN) && written[i]))
            continue;
        unsigned char want = i < model_size ? model[i] : 0;
        if (i - off >= got) { /* past the end this process knows: nothing of its own there */
            if (seen == OWN && i < model_size && model[i] != 0) {
                ct_error("%s: read of %lld at %lld returned %d bytes, byte %lld is missing", what,
                         len, off, got, i);
                break;
            }
            continue;
        }
        if (buf[i - off] != want) {
            ct_error("%s: byte %lld is %d, expected %d", what, i, buf[i - off], want);
            break;
        }
    }
    free(buf);
}

static MPI_File open_h(MPI_Comm comm, const char *name, int amode, const char *block)
{
    MPI_Info info = ct_info("romio_edonio_block_size", block, NULL);
    MPI_File fh = MPI_FILE_NULL;

    CT_MPI(MPI_File_open(comm, name, amode, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

static void set_info(MPI_File fh, const char *key, long long value)
{
    MPI_Info info;
    char v[32];

    snprintf(v, sizeof(v), "%lld", value);
    MPI_Info_create(&info);
    MPI_Info_set(info, key, v);
    CT_MPI(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
}

/* The handles of the run; first: the read-only one opened before the others (test_ro_first). */
struct handles {
    MPI_File all, self, first;
};

/* The handle rank r reads and writes its own stripes through in a step. */
static MPI_File handle_of(const struct handles *h, int r, int through_self, int writing)
{
    if (epoch != NULL && epoch[r] < 0 && writing)
        epoch[r] = through_self; /* until the next share */
    if (epoch != NULL && epoch[r] >= 0)
        through_self = epoch[r];
    return through_self ? h->self : h->all;
}

/* sync-barrier-sync through the writable handles; every rank checks the file through each. */
static void share(const struct handles *h, const char *what)
{
    CT_MPI(MPI_File_sync(h->self));
    ct_sync(h->all);
    CT_MPI(MPI_File_sync(h->self));
    check_range(h->all, 0, model_size + 100, ALL, what);
    check_range(h->self, 0, model_size + 100, ALL, what);
    if (h->first != MPI_FILE_NULL) { /* no sync: ROMIO refuses it on a read-only handle */
        check_range(h->first, 0, model_size + 100, UNWRITTEN, what);
        for (int r = 0; r < ct_nprocs; r++)
            epoch[r] = -1;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* nobody writes the next step's bytes before all checked */
}

static void set_step(const struct handles *h, int through_self)
{
    long long cache = 4096LL << below(8);

    if (through_self) { /* a shared cache keeps its shape; a cache of its own is rebuilt */
        set_info(h->self, "romio_edonio_cache_size", cache);
    } else {
        set_info(h->all, "romio_edonio_cache_size", cache);
        if (below(3) == 0)
            set_info(h->all, "romio_edonio_block_size", 4096LL << below(3));
    }
}

static void ro_step(const struct handles *h, const char *name, const char *what)
{
    CT_MPI(MPI_File_sync(h->self));
    ct_sync(h->all);
    MPI_File ro = open_h(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, "8192");
    check_range(ro, 0, model_size + 100, ALL, what);
    CT_MPI(MPI_File_close(&ro)); /* collective: nobody writes on before all checked */
}

static void step(const struct handles *h, const char *name, int s)
{
    long long kind = below(100), off = below(SPAN), len = 1 + below(MAXLEN);
    int writer = (int)below(ct_nprocs), through_self = (int)below(2);
    char what[96];

    snprintf(what, sizeof(what), "step %d", s);
    if (kind < 45) { /* every rank replays every rank's write into the model */
        apply_write(writer, off, len, s);
        if (writer == ct_rank)
            do_write(handle_of(h, writer, through_self, 1), off, len);
    } else if (kind < 80) {
        int through_first = h->first != MPI_FILE_NULL && below(4) == 0;
        if (writer == ct_rank && through_first)
            check_range(h->first, off, len, OWN_UNWRITTEN, what);
        else if (writer == ct_rank)
            check_range(handle_of(h, writer, through_self, 0), off, len, OWN, what);
    } else if (kind < 90) {
        share(h, what);
    } else if (kind < 96) {
        set_step(h, through_self);
    } else {
        ro_step(h, name, what);
    }
}

/*
 * The handles: world then self, or (test_ro_first) a read-only world handle first, then self,
 * then world. A read-only open needs the file: an empty one is made first.
 */
static void open_all(struct handles *h, const char *name, int ro_first)
{
    h->first = MPI_FILE_NULL;
    if (ro_first) {
        h->all = open_h(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, "4096");
        CT_MPI(MPI_File_close(&h->all));
        h->first = open_h(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, "4096");
        h->self = open_h(MPI_COMM_SELF, name, MPI_MODE_RDWR, "4096");
        h->all = open_h(MPI_COMM_WORLD, name, MPI_MODE_RDWR, "4096");
        written = calloc(SPAN + MAXLEN + 100, 1);
        epoch = malloc((size_t)ct_nprocs * sizeof(*epoch));
        for (int r = 0; r < ct_nprocs; r++)
            epoch[r] = -1;
        return;
    }
    h->all = open_h(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, "4096");
    h->self = open_h(MPI_COMM_SELF, name, MPI_MODE_RDWR, "4096");
}

/* Both writable handles closed, the file reopened and checked; the first handle last. */
static void close_all(struct handles *h, const char *name)
{
    CT_MPI(MPI_File_close(&h->self));
    CT_MPI(MPI_File_close(&h->all));
    h->all = open_h(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, "4096");
    check_range(h->all, 0, model_size + 100, ALL, "after close and reopen");
    CT_MPI(MPI_File_close(&h->all));
    if (h->first == MPI_FILE_NULL)
        return;
    check_range(h->first, 0, model_size + 100, UNWRITTEN, "the read-only handle, at the end");
    CT_MPI(MPI_File_close(&h->first));
}

int main(int argc, char **argv)
{
    struct handles h;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_seed=N] [test_ops=N] [test_ro_first=1]");
    const char *name = argv[1];
    long long seed = ct_opt_ll("seed", 12345), ops = ct_opt_ll("ops", 400);
    int ro_first = ct_opt_ll("ro_first", 0) != 0;
    rng = (unsigned long long)seed * 2654435761ULL + 1;
    model = calloc(SPAN + MAXLEN, 1);
    if (ct_rank == 0)
        printf("seed %lld, %lld steps, %d processes%s\n", seed, ops, ct_nprocs,
               ro_first ? ", a read-only handle opened first" : "");
    ct_fresh(name);
    open_all(&h, name, ro_first);
    for (int s = 0; s < ops; s++)
        step(&h, name, s);
    close_all(&h, name);
    if (ct_rank == 0) { /* and on disk */
        unsigned char *disk = malloc((size_t)model_size + 1);
        int fd = open(name, O_RDONLY);
        long long got = fd >= 0 ? pread(fd, disk, (size_t)model_size + 1, 0) : -1;
        if (fd >= 0)
            close(fd);
        CT_CHECK(got == model_size, "on disk: %lld bytes, expected %lld", got, model_size);
        ct_compare("on disk", disk, model, 0, got < model_size ? got : model_size);
        free(disk);
    }
    free(model);
    free(written);
    free(epoch);
    return ct_finish();
}
