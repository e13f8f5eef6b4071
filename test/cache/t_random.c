/*
 * edonio cache test: random operations through several handles of one file, against a model.
 *
 *   t_random FILE [KEY=VALUE...] [test_seed=N] [test_ops=N]
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
 */
#include "cache_test.h"

#include <fcntl.h>
#include <unistd.h>

enum { STRIPE = 1000, SPAN = 256 * 1024, MAXLEN = 9000 };

static unsigned long long rng;
static unsigned char *model; /* the file as every process's plan leaves it */
static long long model_size;

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
        if (owner_of_byte(i) == r)
            model[i] = (unsigned char)(i * 11 + s * 7 + r + 1);
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

/* Check [off, off + len) read through fh: every byte (all) or this rank's own. */
static void check_range(MPI_File fh, long long off, long long len, int all, const char *what)
{
    unsigned char *buf = malloc((size_t)len);
    MPI_Status st;
    int got = 0;

    memset(buf, 0xee, (size_t)len);
    CT_MPI(MPI_File_read_at(fh, off, buf, (int)len, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &got);
    for (long long i = off; i < off + len; i++) {
        if (!all && owner_of_byte(i) != ct_rank)
            continue;
        unsigned char want = i < model_size ? model[i] : 0;
        if (i - off >= got) { /* past the end this process knows: nothing of its own there */
            if (!all && i < model_size && model[i] != 0) {
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

int main(int argc, char **argv)
{
    MPI_File all, self;
    char what[96];

    ct_init(&argc, &argv, "FILE [KEY=VALUE...] [test_seed=N] [test_ops=N]");
    const char *name = argv[1];
    long long seed = ct_opt_ll("seed", 12345), ops = ct_opt_ll("ops", 400);
    rng = (unsigned long long)seed * 2654435761ULL + 1;
    model = calloc(SPAN + MAXLEN, 1);
    if (ct_rank == 0)
        printf("seed %lld, %lld steps, %d processes\n", seed, ops, ct_nprocs);
    ct_fresh(name);
    all = open_h(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, "4096");
    self = open_h(MPI_COMM_SELF, name, MPI_MODE_RDWR, "4096");
    for (int s = 0; s < ops; s++) {
        long long kind = below(100), off = below(SPAN), len = 1 + below(MAXLEN);
        int writer = (int)below(ct_nprocs), through_self = (int)below(2);
        snprintf(what, sizeof(what), "step %d", s);
        if (kind < 45) { /* every rank replays every rank's write into the model */
            apply_write(writer, off, len, s);
            if (writer == ct_rank)
                do_write(through_self ? self : all, off, len);
        } else if (kind < 80) {
            if (writer == ct_rank)
                check_range(through_self ? self : all, off, len, 0, what);
        } else if (kind < 90) {
            CT_MPI(MPI_File_sync(self));
            ct_sync(all);
            CT_MPI(MPI_File_sync(self));
            check_range(all, 0, model_size + 100, 1, what);
            check_range(self, 0, model_size + 100, 1, what);
            MPI_Barrier(MPI_COMM_WORLD); /* nobody writes the next step's bytes before all checked */
        } else if (kind < 96) {
            long long cache = 4096LL << below(8);
            if (through_self) {
                set_info(self, "romio_edonio_cache_size", cache); /* keeps the cache's shape */
            } else {
                set_info(all, "romio_edonio_cache_size", cache);
                if (below(3) == 0)
                    set_info(all, "romio_edonio_block_size", 4096LL << below(3));
            }
        } else {
            CT_MPI(MPI_File_sync(self));
            ct_sync(all);
            MPI_File ro = open_h(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, "8192");
            check_range(ro, 0, model_size + 100, 1, what);
            CT_MPI(MPI_File_close(&ro)); /* collective: nobody writes on before all checked */
        }
    }
    CT_MPI(MPI_File_close(&self));
    CT_MPI(MPI_File_close(&all));
    all = open_h(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, "4096");
    check_range(all, 0, model_size + 100, 1, "after close and reopen");
    CT_MPI(MPI_File_close(&all));
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
    return ct_finish();
}
