/*
 * edonio test: a file system that fails, and nothing lost (issue 12, items 6, 8, 9 and 10).
 * Needs fault.so preloaded before the library (run.sh does it), which it arms at run time.
 *
 *   t_faults DIR
 *
 * 1. set_size whose ftruncate fails (rank 0): every rank gets MPI_ERR_IO, the size and every
 *    cached byte stay (they are in the file after close).
 * 2. Write-backs that fail (every pwrite EIO), cache of 4 blocks, one process: the write that
 *    needs a fifth slot fails at the call; reads of blocks not cached still work (they go to the
 *    file); reads of the dirty blocks too; once the file system works again a sync writes every
 *    dirty byte and nothing is lost.
 * 3. A collective open that fails on one rank (its open(2)): every rank gets that rank's class,
 *    and no rank keeps a descriptor (the ranks whose open worked close theirs).
 * 4. A write that fails (pwrite EIO) does not grow the file's size.
 * 5. Write-backs that fail during a sync that delivers other nodes' writes (2 or more ranks; on
 *    simulated nodes the owners' caches of 4 blocks overflow while they apply what is delivered,
 *    on one node the write-back after it fails): every rank gets MPI_ERR_IO, and once the file
 *    system works again the next sync writes every byte, written by a rank that does not own it.
 * 6. A collective write that fails (every owner's cache of 4 blocks full of dirty blocks whose
 *    write-back fails, and the file refusing the piece too) does not grow the file's size on any
 *    rank; once the file system works again a sync writes the earlier blocks and nothing more.
 * 7. Eviction while write-backs fail (one process, a cache of 32 blocks, issue 12 item 8):
 *    a. 20 dirty blocks at the least recently used end (more than the clean blocks looked for
 *       first), 12 clean after them, every pwrite failing: reads and a write of new blocks still
 *       get a slot (clean blocks are evicted), which the reads that follow hit while every pread
 *       fails too, and the dirty blocks stay cached; a sync once pwrite works writes them all.
 *    b. 32 dirty blocks, the next pwrite failing: a write of a new block gets the slot of the
 *       second least recently used block (the first one's write-back failed and is skipped).
 *    c. A dirty block, the least recently used, before clean ones, the next pwrite failing: a
 *       read of a new block evicts a clean block and writes nothing back, so it is the sync
 *       that meets the failure, and the next sync writes the block.
 * 8. No memory for the cache (every fallocate on edonio's memfds fails with ENOMEM, from the open
 *    on): every rank writes records into blocks of every owner, reads its own back at once, and,
 *    after sync-barrier-sync, everyone's; then the file holds them all. No call fails (each
 *    request goes to the file when its block gets no slot) and nothing is cached (no hits).
 * 9. A block made whole with write-through on, written at once while every pwrite fails: the
 *    writes succeed (the failed write-back is not theirs), one write was tried, the block is read
 *    back, the sync fails with MPI_ERR_IO, and once the file system works again the next sync
 *    writes it.
 * 10. A process that cannot map its peers' memory (2 or more ranks; its pidfd_open and its opens of
 *    /proc/PID/fd/N fail; refused once, it no longer asks for pidfd copies in the later cases),
 *    write-through on: it reads rank 0's block (a copy in its remote segment: read_fill=block), and
 *    after rank 0 writes it again and sync-barrier-sync, it reads the new bytes, not its copy; then
 *    it writes the block whole, and after sync-barrier-sync rank 0 (which holds a clean copy) reads
 *    those bytes.
 * 11. A write that passes the cache (2 or more ranks; write-through on, a request of 8 KiB, 16 KiB
 *    blocks, none cached) is stopped just before it reaches the file, and meanwhile rank 1 fills
 *    the block from the file by reading other bytes of it (read_fill=block): a. only that (a clean
 *    copy, with the old bytes where rank 0 is writing); b. after writing 100 bytes of it (a copy
 *    with dirty bytes). Rank 0 then reads back what it wrote: its bytes, not the copy's old ones.
 *    After the close the file holds both ranks' bytes. (On simulated nodes rank 1's copy is its
 *    node's own, and the case checks only that nothing is lost.)
 * 12. The same for a whole block moved directly (write-through off, a direct threshold of one
 *    block): rank 0 writes the whole block, so in b its bytes 0-99 conflict with rank 1's and it
 *    reads back the others.
 * 13. The same for a piece of a request that passes the cache by pieces: rank 0 first writes 100
 *    bytes of the block before (cached), then a request of those 100 bytes and the first 8 KiB of
 *    the block; rank 1 fills the block while the 8 KiB piece is stopped in pwrite.
 * 14. A read-only cache's fill that fails (read_fill=block; every rank reads pieces of 64 bytes
 *    at a stride of 128 from 16 blocks through a vector view, so that each read brings its span
 *    into the node's cache with one read): rank 0 reads first, alone, and all its reads fail: it
 *    gets MPI_ERR_IO; then the others get their bytes (a block whose fill failed is not left in
 *    the cache: they read it themselves), and then everyone, rank 0 too now that the file system
 *    works again (seen to fail with the failed fill's slots left cached: zeros).
 * Cases 2 to 8 hold every write until a sync (romio_edonio_write_through=0).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edonio_check.h"

typedef void arm_fn(const char *call, const char *path_part, int err, long long count);
typedef void pause_fn(const char *path_part, void (*fn)(void));
typedef long long fired_fn(const char *call);

static int nprocs;
static arm_fn *arm;
static pause_fn *pause_at;
static fired_fn *fired;
static char dir[4096];

static int error_class(int code)
{
    int cls = MPI_SUCCESS;

    MPI_Error_class(code, &cls);
    return cls;
}

static unsigned char byte_of(long long off)
{
    return (unsigned char)(off * 5 + off / 1013 + 3);
}

static void fill(unsigned char *buf, long long off, long long len)
{
    for (long long i = 0; i < len; i++)
        buf[i] = byte_of(off + i);
}

static long long check_file(const char *path, long long from, long long len, const char *what)
{
    unsigned char *buf = malloc((size_t)len);
    int fd = open(path, O_RDONLY);
    long long bad = 0, got = fd >= 0 ? pread(fd, buf, (size_t)len, from) : -1;

    if (fd >= 0)
        close(fd);
    CHECK(got == len, "%s: read %lld of %lld bytes from the disk", what, got, len);
    for (long long i = 0; i < got; i++)
        bad += buf[i] != byte_of(from + i);
    CHECK(bad == 0, "%s: %lld wrong bytes on disk", what, bad);
    free(buf);
    return bad;
}

static MPI_File open_file(MPI_Comm comm, const char *path, int amode, const char *cache)
{
    MPI_Info info;
    MPI_File fh = MPI_FILE_NULL;

    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_edonio_block_size", "4096");
    MPI_Info_set(info, "romio_edonio_cache_size", cache);
    /* Reads bring blocks into the cache on every file system: case 7 counts on clean blocks. */
    MPI_Info_set(info, "romio_edonio_read_fill", "block");
    /* Every write held until a sync, close or eviction, whole blocks too: cases 2 to 7 build
     * caches of dirty blocks (case 9 turns write-through on). */
    MPI_Info_set(info, "romio_edonio_write_through", "0");
    int rc = MPI_File_open(comm, path, amode, info, &fh);
    CHECK(rc == MPI_SUCCESS, "cannot open %s", path);
    MPI_Info_free(&info);
    return fh;
}

static void case_resize(void)
{
    char path[4200];
    long long rec = 3000, off = rank * rec, size = nprocs * rec;
    unsigned char buf[3000];
    MPI_Offset got = -1;
    MPI_File fh;

    snprintf(path, sizeof(path), "%s/resize", dir);
    fh = open_file(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    fill(buf, off, rec);
    MPI_File_write_at(fh, off, buf, (int)rec, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    if (rank == 0)
        arm("ftruncate", "resize", EIO, 1);
    int rc = MPI_File_set_size(fh, 100);
    if (rank == 0)
        arm("ftruncate", "", 0, 0);
    CHECK(error_class(rc) == MPI_ERR_IO, "set_size with a failing ftruncate: class %d, not %d",
          error_class(rc), MPI_ERR_IO);
    MPI_File_get_size(fh, &got);
    CHECK(got == size, "after the failed set_size the size is %lld, not %lld", (long long)got,
          size);
    memset(buf, 0, sizeof(buf));
    MPI_File_read_at(fh, off, buf, (int)rec, MPI_BYTE, MPI_STATUS_IGNORE);
    for (long long i = 0; i < rec; i++)
        if (buf[i] != byte_of(off + i)) {
            CHECK(0, "after the failed set_size byte %lld is %d", off + i, buf[i]);
            break;
        }
    MPI_File_close(&fh);
    if (rank == 0)
        check_file(path, 0, size, "after the failed set_size and close");
}

static void case_write_back(void)
{
    char path[4200];
    unsigned char buf[4096], zero[4096]; /* zero: what block 6 holds */
    MPI_File fh;

    snprintf(path, sizeof(path), "%s/wb-%d", dir, rank);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644); /* 8 blocks on disk */
    for (long long b = 0; fd >= 0 && b < 8; b++) {
        fill(buf, b * 4096, 4096);
        CHECK(pwrite(fd, buf, 4096, b * 4096) == 4096, "cannot write %s", path);
    }
    if (fd >= 0)
        close(fd);
    fh = open_file(MPI_COMM_SELF, path, MPI_MODE_RDWR, "16384");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    arm("pwrite", "wb-", EIO, -1);
    for (long long b = 0; b < 4; b++) { /* four dirty blocks: the cache is full */
        fill(buf, b * 4096, 4096);
        int rc = MPI_File_write_at(fh, b * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "write of block %lld into the cache failed", b);
    }
    fill(buf, 4 * 4096, 4096);
    int rc = MPI_File_write_at(fh, 4 * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(error_class(rc) == MPI_ERR_IO, "the write that needs a fifth slot: class %d, not %d",
          error_class(rc), MPI_ERR_IO);
    memset(buf, 0xee, sizeof(buf));
    rc = MPI_File_read_at(fh, 6 * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
    fill(zero, 6 * 4096, 4096);
    CHECK(rc == MPI_SUCCESS && memcmp(buf, zero, 4096) == 0,
          "a read of a block not cached failed while write-backs fail");
    for (long long b = 0; b < 4; b++) {
        unsigned char want[4096];
        fill(want, b * 4096, 4096);
        memset(buf, 0, sizeof(buf));
        rc = MPI_File_read_at(fh, b * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS && memcmp(buf, want, 4096) == 0,
              "dirty block %lld not read back while write-backs fail", b);
    }
    rc = MPI_File_sync(fh);
    CHECK(error_class(rc) == MPI_ERR_IO, "sync with failing write-backs: class %d",
          error_class(rc));
    arm("pwrite", "", 0, 0);
    rc = MPI_File_sync(fh);
    CHECK(rc == MPI_SUCCESS, "sync once the file system works again failed");
    check_file(path, 0, 4 * 4096, "the dirty blocks, after the second sync");
    MPI_File_close(&fh);
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d != NULL)
        closedir(d);
    return n;
}

static void case_open(void)
{
    char path[4200];
    MPI_File fh = MPI_FILE_NULL;
    int failing = nprocs - 1;

    snprintf(path, sizeof(path), "%s/open-fails", dir);
    MPI_Barrier(MPI_COMM_WORLD);
    int before = count_fds();
    if (rank == failing)
        arm("open", "open-fails", EACCES, -1);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                           &fh);
    if (rank == failing)
        arm("open", "", 0, 0);
    CHECK(error_class(rc) == MPI_ERR_ACCESS, "open failing on rank %d: class %d, not %d", failing,
          error_class(rc), MPI_ERR_ACCESS);
    CHECK(count_fds() == before, "open failing on rank %d: %d descriptors before, %d after",
          failing, before, count_fds());
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
}

static void case_size(void)
{
    char path[4200];
    static unsigned char big[2 << 20];
    MPI_Offset size = -1;
    MPI_File fh;

    snprintf(path, sizeof(path), "%s/size-%d", dir, rank);
    fh = open_file(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    arm("pwrite", "size-", EIO, -1);
    int rc = MPI_File_write_at(fh, 10 << 20, big, sizeof(big), MPI_BYTE, MPI_STATUS_IGNORE);
    arm("pwrite", "", 0, 0);
    CHECK(error_class(rc) == MPI_ERR_IO, "a large write that fails: class %d", error_class(rc));
    MPI_File_get_size(fh, &size);
    CHECK(size == 0, "a write that failed grew the file to %lld bytes", (long long)size);
    MPI_File_close(&fh);
}

/*
 * Each rank fills its own 4 cache slots with dirty blocks it owns (a collective write: every rank
 * learns the size), then, with every pwrite failing, writes 100 bytes into a block of the next
 * rank past the end: no owner has a slot to give, the file refuses the bytes, nothing is written.
 */
static void case_coll_size(void)
{
    enum { BS = 4096, FULL = 4 };
    long long size = (long long)FULL * nprocs * BS;
    long long past = (long long)(FULL * nprocs + (rank + 1) % nprocs) * BS + 10;
    unsigned char buf[FULL * BS];
    MPI_Offset got = -1;
    MPI_Datatype mine;
    char path[4200];
    MPI_File fh;

    snprintf(path, sizeof(path), "%s/collsize", dir);
    fh = open_file(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, "16384");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_Type_vector(FULL, BS, BS * nprocs, MPI_BYTE, &mine); /* blocks rank, rank + P, ... */
    MPI_Type_commit(&mine);
    for (int k = 0; k < FULL; k++)
        fill(buf + k * BS, ((long long)k * nprocs + rank) * BS, BS);
    MPI_File_set_view(fh, (MPI_Offset)rank * BS, MPI_BYTE, mine, "native", MPI_INFO_NULL);
    int rc = MPI_File_write_at_all(fh, 0, buf, FULL * BS, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "the collective write that fills the caches failed");
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    arm("pwrite", "collsize", EIO, -1);
    fill(buf, past, 100);
    rc = MPI_File_write_at_all(fh, past, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(error_class(rc) == MPI_ERR_IO, "a collective write that fails: class %d, not %d",
          error_class(rc), MPI_ERR_IO);
    MPI_File_get_size(fh, &got);
    CHECK(got == size, "a collective write that failed grew the file from %lld to %lld bytes", size,
          (long long)got);
    arm("pwrite", "", 0, 0);
    rc = MPI_File_sync(fh);
    CHECK(rc == MPI_SUCCESS, "sync once the file system works again failed");
    MPI_File_get_size(fh, &got);
    CHECK(got == size, "after the sync the file has %lld bytes, not %lld", (long long)got, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_file(path, 0, size, "the blocks that filled the caches, after the sync");
    MPI_File_close(&fh);
    MPI_Type_free(&mine);
}

/* Block b (4 KiB) belongs to rank b mod P and is written by another rank, each in turn. */
static int writer_of(long long b)
{
    return (int)((b % nprocs + 1 + (b / nprocs) % (nprocs - 1)) % nprocs);
}

static void case_delivery(void)
{
    enum { K = 6 }; /* blocks each rank writes for each other owner */
    long long nblocks = (long long)K * nprocs * (nprocs - 1);
    unsigned char buf[4096];
    char path[4200];
    MPI_File fh;

    if (nprocs < 2)
        return;
    snprintf(path, sizeof(path), "%s/delivery", dir);
    fh = open_file(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, "16384");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    for (long long b = 0; b < nblocks; b++) {
        if (writer_of(b) != rank)
            continue;
        fill(buf, b * 4096, 4096);
        int rc = MPI_File_write_at(fh, b * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "write of block %lld failed", b);
    }
    arm("pwrite", "delivery", EIO, -1);
    int rc = MPI_File_sync(fh);
    CHECK(error_class(rc) == MPI_ERR_IO, "sync whose write-backs fail: class %d, not %d",
          error_class(rc), MPI_ERR_IO);
    arm("pwrite", "", 0, 0);
    rc = MPI_File_sync(fh);
    CHECK(rc == MPI_SUCCESS, "sync once the file system works again failed");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_file(path, 0, nblocks * 4096, "every rank's blocks, after the second sync");
    MPI_File_close(&fh);
}

/* ------------------------------------------------------------------ case 7: eviction */

enum { EV_BS = 4096, EV_BLOCKS = 64 };

static unsigned char ev_want[EV_BLOCKS * EV_BS]; /* what the file holds once synced */
static char ev_path[4200];

/* The bytes of [off, off + len) in version v (0: what the file starts with). */
static void ev_fill(unsigned char *buf, long long off, long long len, int v)
{
    fill(buf, off, len);
    for (long long i = 0; i < len; i++)
        buf[i] = (unsigned char)(buf[i] + 37 * v);
}

static void ev_write(MPI_File fh, long long off, long long len, int v, const char *what)
{
    ev_fill(ev_want + off, off, len, v);
    int rc = MPI_File_write_at(fh, off, ev_want + off, (int)len, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "%s: the write of %lld bytes at %lld failed (class %d)", what, len,
          off, error_class(rc));
}

static void ev_read(MPI_File fh, long long off, long long len, const char *what)
{
    unsigned char buf[EV_BS];

    memset(buf, 0xee, sizeof(buf));
    int rc = MPI_File_read_at(fh, off, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && memcmp(buf, ev_want + off, (size_t)len) == 0,
          "%s: the read of %lld bytes at %lld failed (class %d) or was wrong", what, len, off,
          error_class(rc));
}

/* Blocks [from, to): written whole in version v, or (v == 0) read and checked. */
static void ev_blocks(MPI_File fh, long long from, long long to, int v, const char *what)
{
    for (long long b = from; b < to; b++) {
        if (v > 0)
            ev_write(fh, b * EV_BS, EV_BS, v, what);
        else
            ev_read(fh, b * EV_BS, EV_BS, what);
    }
}

/* A sync that must give this class; when it works, the file holds every byte written. */
static void ev_sync(MPI_File fh, int want_class, const char *what)
{
    static unsigned char disk[EV_BLOCKS * EV_BS];
    int rc = MPI_File_sync(fh), fd = open(ev_path, O_RDONLY);
    long long got = fd >= 0 ? pread(fd, disk, sizeof(disk), 0) : -1, i = 0;

    if (fd >= 0)
        close(fd);
    CHECK(error_class(rc) == want_class, "%s: sync gave class %d, not %d", what, error_class(rc),
          want_class);
    if (want_class != MPI_SUCCESS)
        return;
    while (i < got && disk[i] == ev_want[i])
        i++;
    CHECK(i == (long long)sizeof(disk), "%s: after the sync byte %lld of the file is wrong", what,
          i);
}

/* Every pread of the file fails (1) or none does (0): what a read gets must be cached. */
static void ev_no_reads(int on)
{
    arm("pread", on ? "evict-" : "", on ? EIO : 0, on ? -1 : 0);
}

static void case_evict_a(MPI_File fh)
{
    const char *what = "7a: clean blocks evicted while write-backs fail";

    ev_blocks(fh, 0, 20, 1, what);  /* least recently used: 20 dirty */
    ev_blocks(fh, 20, 32, 0, what); /* then 12 clean: the cache is full */
    arm("pwrite", "evict-", EIO, -1);
    ev_blocks(fh, 40, 46, 0, what);
    ev_write(fh, 50 * EV_BS + 10, 100, 1, what);
    ev_no_reads(1); /* all of them cached: a clean block made room for each */
    ev_blocks(fh, 40, 46, 0, what);
    ev_read(fh, 50 * EV_BS + 10, 100, what);
    ev_blocks(fh, 0, 20, 0, what); /* and no dirty block was given up */
    ev_no_reads(0);
    ev_sync(fh, MPI_ERR_IO, what);
    arm("pwrite", "", 0, 0);
    ev_sync(fh, MPI_SUCCESS, what);
}

static void case_evict_b(MPI_File fh)
{
    const char *what = "7b: a victim whose write-back fails is skipped";

    ev_blocks(fh, 0, 32, 2, what); /* 32 dirty blocks, block 0 the least recently used */
    arm("pwrite", "evict-", EIO, 1);
    ev_write(fh, 60 * EV_BS, EV_BS, 2, what);
    ev_no_reads(1);
    ev_blocks(fh, 60, 61, 0, what); /* cached: block 1 made room, once written back */
    ev_blocks(fh, 0, 1, 0, what);   /* still dirty in the cache */
    ev_no_reads(0);
    arm("pwrite", "", 0, 0);
    ev_sync(fh, MPI_SUCCESS, what);
}

static void case_evict_c(MPI_File fh)
{
    const char *what = "7c: a clean block is evicted before a dirty one";

    ev_write(fh, 0, EV_BS, 3, what);
    ev_blocks(fh, 1, 32, 0, what);
    arm("pwrite", "evict-", EIO, 1);
    ev_blocks(fh, 40, 41, 0, what); /* evicts block 1: nothing written back */
    ev_sync(fh, MPI_ERR_IO, what);  /* the failure is still there for block 0's write-back */
    arm("pwrite", "", 0, 0);
    ev_sync(fh, MPI_SUCCESS, what);
}

static void case_evict(void)
{
    MPI_File fh;

    snprintf(ev_path, sizeof(ev_path), "%s/evict-%d", dir, rank);
    ev_fill(ev_want, 0, sizeof(ev_want), 0);
    int fd = open(ev_path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    CHECK(fd >= 0 && pwrite(fd, ev_want, sizeof(ev_want), 0) == (ssize_t)sizeof(ev_want),
          "cannot write %s", ev_path);
    if (fd >= 0)
        close(fd);
    fh = open_file(MPI_COMM_SELF, ev_path, MPI_MODE_RDWR, "131072"); /* 32 blocks */
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    case_evict_a(fh);
    case_evict_b(fh);
    case_evict_c(fh);
    MPI_File_close(&fh);
}

/* Case 8: records of 1000 B, rank-interleaved, so that every rank writes into every owner's blocks. */
enum { NM_REC = 1000, NM_RECS = 40 };

static void case_no_memory(void)
{
    char path[4200];
    unsigned char buf[NM_REC], want[NM_REC];
    long long total = (long long)NM_RECS * nprocs * NM_REC, hits = -1;
    char value[MPI_MAX_INFO_VAL + 1];
    MPI_Info info;
    MPI_File fh;
    int flag = 0;

    snprintf(path, sizeof(path), "%s/nomem", dir);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    arm("fallocate", "memfd:edonio-cache", ENOMEM, -1);
    /* A cache size no case before used: new memory, none kept from an earlier close. */
    fh = open_file(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, "73728");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    for (int k = 0; k < NM_RECS; k++) {
        long long off = ((long long)k * nprocs + rank) * NM_REC;
        fill(want, off, NM_REC);
        CHECK(MPI_File_write_at(fh, off, want, NM_REC, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
              "no memory: a write failed");
        CHECK(MPI_File_read_at(fh, off, buf, NM_REC, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                  memcmp(buf, want, NM_REC) == 0,
              "no memory: record %d does not read back", k);
    }
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "no memory: sync failed");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "no memory: sync failed");
    for (long long off = 0; off < total; off += NM_REC) {
        fill(want, off, NM_REC);
        CHECK(MPI_File_read_at(fh, off, buf, NM_REC, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                  memcmp(buf, want, NM_REC) == 0,
              "no memory: the record at %lld does not read back after the sync", off);
    }
    MPI_File_get_info(fh, &info);
    MPI_Info_get(info, "romio_edonio_stats_hits", MPI_MAX_INFO_VAL, value, &flag);
    MPI_Info_free(&info);
    if (flag)
        hits = atoll(value);
    CHECK(hits == 0, "no memory: %lld hits, so a block was cached without memory", hits);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "no memory: close failed");
    arm("fallocate", "", 0, 0);
    if (rank == 0)
        check_file(path, 0, total, "no memory");
}

static void case_whole(void)
{
    char path[4200];
    unsigned char buf[4096], back[4096];
    MPI_Info info;
    MPI_File fh;

    snprintf(path, sizeof(path), "%s/whole-%d", dir, rank);
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_edonio_block_size", "4096");
    MPI_Info_set(info, "romio_edonio_write_through", "1048576");
    int rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    CHECK(rc == MPI_SUCCESS, "cannot open %s", path);
    MPI_Info_free(&info);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    fill(buf, 0, 4096);
    arm("pwrite", "whole-", EIO, -1);
    for (int half = 0; half < 2; half++) { /* the second half makes the block whole */
        rc = MPI_File_write_at(fh, half * 2048, buf + half * 2048, 2048, MPI_BYTE,
                               MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS,
              "9: write of half %d: class %d, not 0 (its write-back is not its "
              "own)",
              half, error_class(rc));
    }
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_File_get_info(fh, &info);
    MPI_Info_get(info, "romio_edonio_stats_fs_writes", MPI_MAX_INFO_VAL, value, &flag);
    MPI_Info_free(&info);
    CHECK(flag && atoll(value) == 1, "9: %s write(s) tried before the sync, not 1 (the write at "
          "once)", flag ? value : "no count of");
    rc = MPI_File_read_at(fh, 0, back, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && memcmp(back, buf, 4096) == 0,
          "9: the block whose write-back failed is not read back");
    rc = MPI_File_sync(fh);
    CHECK(error_class(rc) == MPI_ERR_IO, "9: sync with failing write-backs: class %d, not %d",
          error_class(rc), MPI_ERR_IO);
    arm("pwrite", "", 0, 0);
    rc = MPI_File_sync(fh);
    CHECK(rc == MPI_SUCCESS, "9: sync once the file system works again failed");
    MPI_File_close(&fh);
    check_file(path, 0, 4096, "9: a whole block whose write at once failed, after the sync");
}

/* Block 0 (rank 0's) read by 'reader' after a sync-barrier-sync; its bytes must be v. */
static void unmapped_read(MPI_File fh, int reader, int v, const char *what)
{
    unsigned char buf[4096];

    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    if (rank == reader) {
        memset(buf, 0, sizeof(buf));
        int rc = MPI_File_read_at(fh, 0, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS && buf[0] == v && buf[4095] == v,
              "10: %s: rank %d reads %d, not %d", what, reader, buf[0], v);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* read before anyone writes again */
}

/* Block 0 written whole by 'writer', in two halves (the second makes it whole). */
static void unmapped_write(MPI_File fh, int writer, int v)
{
    unsigned char buf[4096];

    memset(buf, v, sizeof(buf));
    for (int half = 0; rank == writer && half < 2; half++)
        MPI_File_write_at(fh, half * 2048, buf + half * 2048, 2048, MPI_BYTE, MPI_STATUS_IGNORE);
}

static void case_unmapped(void)
{
    char path[4200];
    MPI_Info info;
    MPI_File fh;

    if (nprocs < 2)
        return;
    snprintf(path, sizeof(path), "%s/unmapped", dir);
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_edonio_block_size", "4096");
    MPI_Info_set(info, "romio_edonio_read_fill", "block");
    MPI_Info_set(info, "romio_edonio_write_through", "1048576"); /* whole blocks at once */
    long long refused = fired("open");
    if (rank == 1) /* it cannot take its peers' memory (pidfd_open, /proc/PID/fd/N: fault.c):
                    * what it reaches of their blocks goes to its remote segment */
        arm("open", "/proc/", EACCES, -1);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    arm("open", "", 0, 0);
    /* On one node it must have been refused a peer's memory, or this case tests a mapped process
     * (as when edonio took peers' memory a way this library did not refuse). Simulated nodes
     * (MPIR_CVAR_NOLOCAL) share no memory: nothing to refuse. */
    CHECK(rank != 1 || getenv("MPIR_CVAR_NOLOCAL") != NULL || fired("open") > refused,
          "10: rank 1 was refused none of its peers' memory");
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "10: cannot open %s", path);
    unmapped_write(fh, 0, 1);
    unmapped_read(fh, 1, 1, "the first bytes");
    unmapped_write(fh, 0, 2);
    unmapped_read(fh, 1, 2, "the owner's newer bytes after sync-barrier-sync (a clean copy kept)");
    unmapped_write(fh, 1, 3);
    unmapped_read(fh, 0, 3, "rank 1's bytes after sync-barrier-sync (the owner's copy kept)");
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "10: close failed");
}

/*
 * Cases 11 and 12: rank 0's write stops in pwrite until rank 1 has acted (files signal it: one
 * node). Case 11 writes PF_LEN bytes at PF_AT of a block (a request that passes the cache), case
 * 12 the whole block (moved directly).
 */
enum { PF_BS = 16384, PF_AT = 4096, PF_LEN = 8192, PF_MINE = 100 };
struct pf_case {
    int num;
    const char *name;          /* the file's, and the pause's path part */
    const char *write_through; /* and the direct threshold, hints */
    const char *direct_threshold;
    int at, len;               /* rank 0's write in the block */
    int first;                 /* the block of step 0 (step 1: the next) */
    int lead;                  /* bytes of the request in the block before, cached first */
};
static const struct pf_case *pf;
static char pf_go[4300], pf_done[4300];

static int pf_wait(const char *path)
{
    for (int ms = 0; ms < 60000; ms++) {
        if (access(path, F_OK) == 0) {
            unlink(path);
            return 1;
        }
        usleep(1000);
    }
    return 0;
}

static void pf_signal(const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY, 0644);

    if (fd >= 0)
        close(fd);
}

static void pf_pause(void)
{
    pf_signal(pf_go);
    CHECK(pf_wait(pf_done), "%d: rank 1 did not act within 60 s", pf->num);
}

/* What the file holds at off once both ranks wrote (the file was all 1 before). */
static unsigned char pf_byte(long long off)
{
    long long b = off / PF_BS - pf->first, in = off % PF_BS;

    if (b == 1 && in < PF_MINE)
        return 9;
    if ((b == 0 || b == 1) && in >= pf->at && in < pf->at + pf->len)
        return (unsigned char)(2 + b);
    if ((b == -1 || b == 0) && in >= PF_BS - pf->lead)
        return (unsigned char)(3 + b); /* the lead of step b + 1 */
    return 1;
}

/*
 * Step 'step' on block 'step': rank 0 writes while rank 1 fills. Rank 0 then reads back what it
 * wrote, less the bytes rank 1 wrote meanwhile (case 12 overlaps them: a conflict).
 */
static void pass_fill_step(MPI_File fh, int step)
{
    unsigned char buf[PF_BS], want[PF_BS + 100];
    long long blk = (long long)(pf->first + step) * PF_BS;
    int from = step == 1 && pf->at < PF_MINE ? PF_MINE : pf->at, n = pf->at + pf->len - from;

    if (rank == 0) { /* no signal left by a step that gave up waiting */
        unlink(pf_go);
        unlink(pf_done);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        memset(want, 2 + step, sizeof(want));
        if (pf->lead > 0) /* a small write: the block before is cached, so the request goes by
                           * pieces */
            MPI_File_write_at(fh, blk - pf->lead, want, pf->lead, MPI_BYTE, MPI_STATUS_IGNORE);
        pause_at(pf->name, pf_pause);
        int rc = MPI_File_write_at(fh, blk + pf->at - pf->lead, want, pf->lead + pf->len, MPI_BYTE,
                                   MPI_STATUS_IGNORE);
        pause_at("", NULL);
        CHECK(rc == MPI_SUCCESS, "%d%c: the write failed", pf->num, 'a' + step);
        rc = MPI_File_read_at(fh, blk + from, buf, n, MPI_BYTE, MPI_STATUS_IGNORE);
        long long bad = 0;
        for (int i = 0; i < n; i++)
            bad += buf[i] != want[i];
        CHECK(rc == MPI_SUCCESS && bad == 0,
              "%d%c: rank 0 reads %lld wrong bytes of its write that %s (a copy filled "
              "meanwhile, %s)", pf->num, 'a' + step, bad,
              pf->num == 11   ? "passed the cache"
              : pf->num == 12 ? "went directly"
                              : "passed the cache by pieces",
              step ? "with dirty bytes" : "clean");
    } else if (rank == 1) {
        CHECK(pf_wait(pf_go), "%d: rank 0's write did not reach the file within 60 s", pf->num);
        memset(buf, 9, PF_MINE);
        if (step == 1)
            MPI_File_write_at(fh, blk, buf, PF_MINE, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_File_read_at(fh, blk + PF_BS - 100, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE);
        pf_signal(pf_done);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void case_pass_fill(const struct pf_case *which)
{
    char path[4200];
    unsigned char buf[3 * PF_BS];
    long long bytes = (long long)(which->first + 2) * PF_BS;
    MPI_Info info;
    MPI_File fh;

    if (nprocs < 2)
        return;
    pf = which;
    snprintf(path, sizeof(path), "%s/%s", dir, pf->name);
    snprintf(pf_go, sizeof(pf_go), "%s/pf-go", dir);
    snprintf(pf_done, sizeof(pf_done), "%s/pf-done", dir);
    if (rank == 0) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        memset(buf, 1, sizeof(buf));
        CHECK(fd >= 0 && write(fd, buf, (size_t)bytes) == (ssize_t)bytes,
              "%d: cannot write %s", pf->num, path);
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_edonio_block_size", "16384");
    MPI_Info_set(info, "romio_edonio_read_fill", "block");
    MPI_Info_set(info, "romio_edonio_write_through", pf->write_through);
    MPI_Info_set(info, "romio_edonio_direct_threshold", pf->direct_threshold);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "%d: cannot open %s", pf->num, path);
    pass_fill_step(fh, 0);
    pass_fill_step(fh, 1);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "%d: close failed", pf->num);
    if (rank != 0)
        return;
    int fd = open(path, O_RDONLY);
    long long bad = 0, got = fd >= 0 ? pread(fd, buf, (size_t)bytes, 0) : -1;
    if (fd >= 0)
        close(fd);
    for (long long i = 0; i < got; i++)
        bad += buf[i] != pf_byte(i);
    CHECK(got == bytes && bad == 0, "%d: %lld wrong bytes on disk (read %lld)",
          pf->num, bad, got);
}

/* 14. One rank's fill of a read-only cache fails; its slots must not stay cached. */
static void fill_read(MPI_File fh, int expect_class, const char *what)
{
    enum { PIECE = 64, NPIECES = 16 * 4096 / 128 };
    unsigned char got[NPIECES * PIECE];
    long long bad = 0;

    memset(got, 0, sizeof(got));
    int rc = MPI_File_read_at(fh, 0, got, NPIECES * PIECE, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(error_class(rc) == expect_class, "%s: class %d, not %d", what, error_class(rc),
          expect_class);
    for (long long i = 0; expect_class == MPI_SUCCESS && i < NPIECES; i++)
        for (long long k = 0; k < PIECE; k++)
            bad += got[i * PIECE + k] != byte_of(i * 128 + (rank % 2) * PIECE + k);
    CHECK(bad == 0, "%s: %lld wrong bytes", what, bad);
}

static void case_fill_fails(void)
{
    enum { BS = 4096, SIZE = 16 * BS };
    char path[4200];
    static unsigned char buf[SIZE];
    MPI_Datatype piece, view;
    MPI_File fh;

    snprintf(path, sizeof(path), "%s/fillfail", dir);
    if (rank == 0) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        fill(buf, 0, SIZE);
        CHECK(fd >= 0 && pwrite(fd, buf, SIZE, 0) == SIZE, "cannot write %s", path);
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_contiguous(64, MPI_BYTE, &piece);
    MPI_Type_create_resized(piece, 0, 128, &view);
    MPI_Type_commit(&view);
    fh = open_file(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, "1048576");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_File_set_view(fh, (rank % 2) * 64, MPI_BYTE, view, "native", MPI_INFO_NULL);
    if (rank == 0) { /* first, alone */
        arm("pread", "fillfail", EIO, -1);
        fill_read(fh, MPI_ERR_IO, "14: a read whose fill fails");
        CHECK(fired("pread") > 0, "14: no read of the file failed");
        arm("pread", "", 0, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        fill_read(fh, MPI_SUCCESS, "14: a read of the blocks of a failed fill");
    MPI_Barrier(MPI_COMM_WORLD);
    fill_read(fh, MPI_SUCCESS, "14: the read after a failed fill");
    MPI_File_close(&fh);
    MPI_Type_free(&view);
    MPI_Type_free(&piece);
}

int main(int argc, char **argv)
{

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    snprintf(dir, sizeof(dir), "%s", argc > 1 ? argv[1] : ".");
    arm = (arm_fn *)dlsym(RTLD_DEFAULT, "edonio_fault_arm");
    pause_at = (pause_fn *)dlsym(RTLD_DEFAULT, "edonio_fault_pause");
    fired = (fired_fn *)dlsym(RTLD_DEFAULT, "edonio_fault_fired");
    if (arm == NULL || pause_at == NULL || fired == NULL) {
        if (rank == 0)
            printf("fault.so is not preloaded: no fault can be injected\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    case_resize();
    case_write_back();
    case_open();
    case_size();
    case_delivery();
    case_coll_size();
    case_evict();
    case_no_memory();
    case_whole();
    case_unmapped();
    static const struct pf_case passing = {11, "passfill", "8192", "0", PF_AT, PF_LEN, 0, 0};
    static const struct pf_case direct = {12, "directfill", "0", "16384", 0, PF_BS, 0, 0};
    static const struct pf_case pieces = {13, "piecefill", "8192", "0", 0, PF_LEN, 1, 100};
    case_pass_fill(&passing);
    case_pass_fill(&direct);
    case_pass_fill(&pieces);
    case_fill_fails();
    int failed = check_verdict();
    MPI_Finalize();
    return failed;
}
