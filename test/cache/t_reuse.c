/*
 * edonio cache test: one file's cache leaves nothing behind for the next file the same processes
 * open, though its memory serves again (romio_edonio_keep_memory).
 *
 *   t_reuse FILE [KEY=VALUE...]
 *
 * Files A and B (FILE.a, FILE.b) are opened one after the other by the same processes, so B's open
 * comes right after A's close. Every rank writes its own pattern into A (blocks of 4 KiB, a
 * few per process, none synced), closes it, opens B: B must be empty and read as nothing, and
 * none of A's blocks may be found in B's cache (no hits before B is written). Then B gets another
 * pattern. Between B's close and A's reopen, rank 0 overwrites A's first block with POSIX: A,
 * reopened read-only, must show it (memory is kept, never blocks). That read-only cache's reads
 * keep A's blocks, clean (romio_edonio_read_fill=block), and its close writes nothing back: B,
 * opened next, must read B's bytes, not A's blocks of the same numbers. An open of B with
 * another cache size (another shape) must still see B's data. The last open of B has rank 0 ask
 * the first cache size again and the other ranks the kept one: they offer the kept memory and make
 * none, rank 0's hints then refuse it, and every process makes memory and exchanges again; B's
 * data is still seen, and written and read again through that cache. Then every rank but 0 opens
 * and closes a file of its own on MPI_COMM_SELF (what it keeps is for that group), and B is opened
 * once more: rank 0 offers its kept memory without making any, the others offer none, and again
 * every process makes memory and exchanges again; B's data is still seen.
 *
 * Memory: with romio_edonio_keep_memory true (the default; the effective value is read back), B's
 * cache and the next two must start with memory kept from the cache closed before
 * (romio_edonio_stats_mem_reused > 0 on every process), the last three must not (the last
 * one at 1 process must: nothing else was opened); with false, none may.
 */
#include "cache_test.h"

#include <fcntl.h>
#include <unistd.h>

enum { BS = 4096, PER_RANK = 6 };

static char name_a[4096], name_b[4096];

static unsigned char byte_of(int file, long long off)
{
    return (unsigned char)(file * 101 + off * 7 + off / BS);
}

static MPI_File open_file(const char *name, int amode, const char *cache_size)
{
    /* read_fill=block: the reads of a read-only open keep whole blocks, clean */
    MPI_Info info = ct_info("romio_edonio_block_size", "4096", "romio_edonio_cache_size",
                            cache_size, "romio_edonio_read_fill", "block", NULL);
    MPI_File fh = MPI_FILE_NULL;

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, name, amode, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

/* Every rank writes PER_RANK blocks, rank-interleaved: block b by rank b mod P (owner b+1). */
static void write_pattern(MPI_File fh, int file)
{
    unsigned char buf[BS];

    for (int i = 0; i < PER_RANK; i++) {
        long long b = (long long)i * ct_nprocs + ct_rank, off = b * BS;
        for (int k = 0; k < BS; k++)
            buf[k] = byte_of(file, off + k);
        CT_MPI(MPI_File_write_at(fh, off + (ct_nprocs > 1 ? BS : 0), buf, BS, MPI_BYTE,
                                 MPI_STATUS_IGNORE));
    }
}

/* The file's pattern; its first 'other' bytes are file 2's (written with POSIX). */
static void check_pattern(MPI_File fh, int file, long long other)
{
    long long len = (long long)PER_RANK * ct_nprocs * BS, bad = 0, first = -1;
    long long shift = ct_nprocs > 1 ? BS : 0;
    unsigned char *buf = malloc((size_t)len);

    CT_MPI(MPI_File_read_at_all(fh, shift, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
    for (long long off = 0; off < len; off++)
        if (buf[off] != byte_of(off < other ? 2 : file, off) && bad++ == 0)
            first = off;
    CT_CHECK(bad == 0, "file %c: %lld wrong bytes, the first at %lld", 'A' + file, bad, first);
    free(buf);
}

/* Rank 0 writes file 2's pattern over the first block of the pattern, with POSIX. */
static void overwrite_first_block(const char *name)
{
    unsigned char buf[BS];
    int fd;

    if (ct_rank == 0) {
        for (int k = 0; k < BS; k++)
            buf[k] = byte_of(2, k);
        fd = open(name, O_WRONLY);
        CT_CHECK(fd >= 0 && pwrite(fd, buf, BS, ct_nprocs > 1 ? BS : 0) == BS,
                 "cannot overwrite %s with POSIX", name);
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Did this handle's cache start with kept memory, as it should ('expect') on every process? */
static void check_reused(MPI_File fh, int expect, const char *what)
{
    char keep[MPI_MAX_INFO_VAL + 1];
    long long reused = ct_stat(fh, "mem_reused");

    if (strcmp(ct_get(fh, "romio_edonio_keep_memory", keep), "true") != 0)
        expect = 0; /* kept nothing, so nothing to reuse */
    CT_CHECK((reused > 0) == expect, "%s: mem_reused is %lld, expected %s", what, reused,
             expect ? "> 0 (kept from the last close)" : "0");
}

int main(int argc, char **argv)
{
    unsigned char probe[BS];
    MPI_Offset size = -1;
    MPI_Status st;
    int got = -1;
    MPI_File fh;

    ct_init(&argc, &argv, "FILE [KEY=VALUE...]");
    snprintf(name_a, sizeof(name_a), "%s.a", argv[1]);
    snprintf(name_b, sizeof(name_b), "%s.b", argv[1]);
    if (ct_rank == 0) {
        MPI_File_delete(name_a, MPI_INFO_NULL);
        MPI_File_delete(name_b, MPI_INFO_NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    fh = open_file(name_a, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    write_pattern(fh, 0);
    CT_MPI(MPI_File_close(&fh));

    /* B: empty, and nothing of A in its cache. */
    fh = open_file(name_b, MPI_MODE_CREATE | MPI_MODE_RDWR, "1048576");
    check_reused(fh, 1, "B, opened after A's close");
    CT_MPI(MPI_File_get_size(fh, &size));
    CT_CHECK(size == 0, "new file B has size %lld", (long long)size);
    CT_MPI(MPI_File_read_at(fh, (MPI_Offset)ct_rank * BS, probe, BS, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &got);
    CT_CHECK(got == 0, "reading empty file B gave %d bytes", got);
    MPI_Barrier(MPI_COMM_WORLD); /* nobody writes B before everyone has seen it empty */
    write_pattern(fh, 1);
    CT_CHECK(ct_get_ll(fh, "romio_edonio_stats_hits") == 0,
             "B's cache found blocks before any was written to B (A's?)");
    CT_MPI(MPI_File_close(&fh));

    overwrite_first_block(name_a);
    fh = open_file(name_a, MPI_MODE_RDONLY, "1048576");
    check_reused(fh, 1, "A, reopened read-only after B's close");
    check_pattern(fh, 0, BS);
    CT_MPI(MPI_File_close(&fh));
    fh = open_file(name_b, MPI_MODE_RDWR, "1048576");
    check_reused(fh, 1, "B, reopened after A's read-only close");
    check_pattern(fh, 1, 0);
    CT_MPI(MPI_File_close(&fh));
    fh = open_file(name_b, MPI_MODE_RDWR, "2097152"); /* another shape: new memory */
    check_reused(fh, 0, "B, reopened with another cache size");
    check_pattern(fh, 1, 0);
    CT_MPI(MPI_File_close(&fh));
    /* Rank 0's hints (another shape) refuse what the others offer without making memory. */
    fh = open_file(name_b, MPI_MODE_RDWR, ct_rank == 0 ? "1048576" : "2097152");
    check_reused(fh, 0, "B, reopened with rank 0 asking another cache size");
    CT_CHECK(ct_get_ll(fh, "romio_edonio_cache_size") == 1048576,
             "B's cache size is %lld, not rank 0's 1048576",
             ct_get_ll(fh, "romio_edonio_cache_size"));
    check_pattern(fh, 1, 0);
    write_pattern(fh, 1);
    CT_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CT_MPI(MPI_File_sync(fh));
    check_pattern(fh, 1, 0);
    CT_MPI(MPI_File_close(&fh));
    /* Ranks but 0 keep memory for MPI_COMM_SELF: rank 0's offer finds no other. */
    if (ct_rank > 0) {
        char own[4200];
        MPI_Info info = ct_info("romio_edonio_block_size", "4096", "romio_edonio_cache_size",
                                "1048576", "romio_edonio_read_fill", "block", NULL);
        snprintf(own, sizeof(own), "%s.self-%d", argv[1], ct_rank);
        CT_MPI(MPI_File_open(MPI_COMM_SELF, own, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
        CT_MPI(MPI_File_close(&fh));
        MPI_Info_free(&info);
        unlink(own);
    }
    fh = open_file(name_b, MPI_MODE_RDWR, "1048576");
    check_reused(fh, ct_nprocs == 1, "B, reopened where only rank 0 kept memory for them");
    check_pattern(fh, 1, 0);
    CT_MPI(MPI_File_close(&fh));
    return ct_finish();
}
