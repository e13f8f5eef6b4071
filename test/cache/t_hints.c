/*
 * edonio cache test: the cache hints.
 *
 *   t_hints FILE            invalid values, valid values, MPI_File_set_info
 *   t_hints FILE uneven     MPI_File_set_info with a new cache size on rank 0 only
 *
 * Invalid values (negative, zero, "abc", trailing garbage, a block size that is not a power of
 * two or out of range, 1000, a cache smaller than a block, a preload that is not a boolean) fall
 * back to the defaults, a remote cache smaller than a block holds one block, and
 * MPI_File_get_info reports the values in effect on every rank (also when the ranks pass
 * different values: rank 0's win; romio_edonio_ro_cache_size is the remote cache's older name);
 * valid values are honoured (and the file works with them); a cache larger than the node's
 * memory is lowered to what the node can give. MPI_File_set_info with a new romio_edonio_cache_size
 * (smaller than the data; then a new block size; then an invalid cache size) after open
 * rebuilds the cache: get_info reports the new value and the data written before, never synced,
 * is all still there, also after close.
 *
 * romio_edonio_read_fill: auto (and an invalid value) is reported as what it decided for the
 * file's file system (none on a local one with a page cache, block elsewhere), block and none as
 * asked, set_info changes it, and the file reads right each way.
 *
 * romio_edonio_write_through: auto (and invalid values) is reported as what it decided (16384 on
 * a local file system with a page cache, 0 elsewhere), numbers as asked. A write of a piece at
 * least that large to a block not cached goes to the file before write_at returns (seen by a
 * POSIX read, before any sync); a smaller one, or one to a block already cached, does not; every
 * rank reads its own writes back before the close, and the whole file is right after it.
 *
 * romio_edonio_write_back: auto (and an invalid value) is reported as what it decided (exact on
 * a local file system with a page cache, span elsewhere), span and exact as asked, set_info
 * changes it, and small interleaved records written each way (synced between) read back right,
 * also after a reopen. Seen to fail with the hint ignored (auto always): "write_back 'span' at
 * open: romio_edonio_write_back is 'exact', expected 'span'".
 *
 * romio_edonio_keep_memory: true when not given or invalid, false as asked (t_reuse checks what
 * it does).
 *
 * "uneven": the cache's shape is rank 0's (doc/hints.md); MPI_File_set_info where only rank 0
 * asks for a new cache size must still leave every rank with the same, working cache.
 */
#include "cache_test.h"

#include <fcntl.h>
#include <strings.h>
#include <sys/vfs.h>
#include <unistd.h>

#define KIB       1024LL
#define MIB       (1024LL * 1024)
#define DEF_BLOCK (64 * KIB)
#define DEF_CACHE (64 * MIB)
#define DEF_RO    (64 * MIB) /* romio_edonio_remote_cache_size */

struct expect {
    long long block, cache, ro;
    const char *preload;
};

static const struct expect defaults = {DEF_BLOCK, DEF_CACHE, DEF_RO, "false"};

/*
 * Open on comm with the given hints (key, value pairs, NULL-terminated), check what get_info
 * reports, write and read a little through the cache, close. The many cases of invalid values are
 * opened on MPI_COMM_SELF (each rank its own file), which is quick; a few on MPI_COMM_WORLD.
 */
static MPI_Comm comm = MPI_COMM_WORLD;

static void one_case(const char *filename, const char *name, struct expect want, ...)
{
    MPI_File fh;
    MPI_Info info;
    va_list ap;
    char value[MPI_MAX_INFO_VAL + 1];
    int rank, nprocs;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    MPI_Info_create(&info);
    va_start(ap, want);
    for (const char *k = va_arg(ap, const char *); k != NULL; k = va_arg(ap, const char *))
        MPI_Info_set(info, k, va_arg(ap, const char *));
    va_end(ap);
    CT_MPI(MPI_File_open(comm, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);

    long long block = ct_get_ll(fh, "romio_edonio_block_size");
    long long cache = ct_get_ll(fh, "romio_edonio_cache_size");
    long long ro = ct_get_ll(fh, "romio_edonio_remote_cache_size");
    ct_get(fh, "romio_edonio_preload", value);
    CT_CHECK(block == want.block, "%s: romio_edonio_block_size is %lld, expected %lld", name, block,
             want.block);
    CT_CHECK(cache == want.cache, "%s: romio_edonio_cache_size is %lld, expected %lld", name, cache,
             want.cache);
    CT_CHECK(ro == want.ro, "%s: romio_edonio_remote_cache_size is %lld, expected %lld", name, ro,
             want.ro);
    CT_CHECK(strcmp(value, want.preload) == 0, "%s: romio_edonio_preload is '%s', expected '%s'",
             name, value, want.preload);

    /* The file works: each rank writes up to 3 blocks across block boundaries, all read it. */
    long long len = 3 * (block > 0 ? block : DEF_BLOCK), size;
    if (len > 300000)
        len = 300000;
    size = len * nprocs;
    unsigned char *buf = malloc((size_t)size), *want_buf = malloc((size_t)size);
    for (long long i = 0; i < size; i++)
        want_buf[i] = ct_pattern(100 + i, 10);
    ct_write_at(fh, 100 + len * rank, want_buf + len * rank, len, name);
    if (comm == MPI_COMM_WORLD)
        ct_share(fh);
    memset(buf, 0xee, (size_t)size);
    ct_read_at(fh, 100, buf, size, size, name);
    ct_compare(name, buf, want_buf, 100, size);
    MPI_Barrier(comm);
    CT_MPI(MPI_File_close(&fh));
    free(buf);
    free(want_buf);
}

static void invalid_and_valid(const char *filename)
{
    struct expect w;

    one_case(filename, "no hints", defaults, NULL);

    /* Invalid block sizes. */
    const char *bad_blocks[] = {"-4096",    "0",         "abc",
                                "16384abc", "12288",     "1000",
                                "2048",     "134217728", "99999999999999999999"};
    for (size_t i = 0; i < sizeof(bad_blocks) / sizeof(bad_blocks[0]); i++) {
        char name[96];
        snprintf(name, sizeof(name), "romio_edonio_block_size='%s'", bad_blocks[i]);
        one_case(filename, name, defaults, "romio_edonio_block_size", bad_blocks[i], NULL);
    }
    /* Invalid cache sizes (1000 and 32768 are smaller than a block). */
    const char *bad_caches[] = {"-1", "0", "abc", "1000", "32768", "65535"};
    for (size_t i = 0; i < sizeof(bad_caches) / sizeof(bad_caches[0]); i++) {
        char name[96];
        snprintf(name, sizeof(name), "romio_edonio_cache_size='%s'", bad_caches[i]);
        one_case(filename, name, defaults, "romio_edonio_cache_size", bad_caches[i], NULL);
    }
    /* A cache smaller than a valid, non-default block. */
    w = defaults;
    w.block = 1 * MIB;
    one_case(filename, "cache 512 KiB smaller than a block of 1 MiB", w, "romio_edonio_block_size",
             "1048576", "romio_edonio_cache_size", "524288", NULL);
    /* Invalid remote cache sizes, under both names. */
    const char *bad_ros[] = {"-5", "abc", "0"};
    for (size_t i = 0; i < sizeof(bad_ros) / sizeof(bad_ros[0]); i++) {
        char name[96];
        snprintf(name, sizeof(name), "romio_edonio_remote_cache_size='%s'", bad_ros[i]);
        one_case(filename, name, defaults, "romio_edonio_remote_cache_size", bad_ros[i], NULL);
        snprintf(name, sizeof(name), "romio_edonio_ro_cache_size='%s'", bad_ros[i]);
        one_case(filename, name, defaults, "romio_edonio_ro_cache_size", bad_ros[i], NULL);
    }
    /* Smaller than a block: one block. */
    w = defaults;
    w.ro = DEF_BLOCK;
    one_case(filename, "remote cache 1000 bytes: one block", w, "romio_edonio_remote_cache_size",
             "1000", NULL);
    /* Larger than the machine: what the node can give, and the open is quick. */
    {
        MPI_File fh;
        MPI_Info big = ct_info("romio_edonio_cache_size", "1099511627776",
                               "romio_edonio_remote_cache_size", "1099511627776", NULL);
        double t0 = MPI_Wtime();
        CT_MPI(MPI_File_open(MPI_COMM_SELF, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, big, &fh));
        double took = MPI_Wtime() - t0;
        long long phys = (long long)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
        long long cache = ct_get_ll(fh, "romio_edonio_cache_size");
        long long remote = ct_get_ll(fh, "romio_edonio_remote_cache_size");
        CT_CHECK(cache > 0 && cache <= phys / 2, "a cache of 1 TiB on %lld bytes of memory: "
                 "romio_edonio_cache_size is %lld", phys, cache);
        CT_CHECK(remote > 0 && remote <= phys / 4, "a remote cache of 1 TiB on %lld bytes of "
                 "memory: romio_edonio_remote_cache_size is %lld", phys, remote);
        CT_CHECK(took < 5, "opening with a cache of 1 TiB took %.1f s", took);
        CT_MPI(MPI_File_close(&fh));
        MPI_Info_free(&big);
    }
    /* Invalid preload values. */
    const char *bad_preloads[] = {"abc", "yes", "2"};
    for (size_t i = 0; i < sizeof(bad_preloads) / sizeof(bad_preloads[0]); i++) {
        char name[96];
        snprintf(name, sizeof(name), "romio_edonio_preload='%s'", bad_preloads[i]);
        one_case(filename, name, defaults, "romio_edonio_preload", bad_preloads[i], NULL);
    }
    /* All invalid at once. */
    one_case(filename, "all invalid", defaults, "romio_edonio_block_size", "1000",
             "romio_edonio_cache_size", "-7", "romio_edonio_remote_cache_size", "x",
             "romio_edonio_preload", "maybe", NULL);

    /* Valid values are honoured. */
    w.block = 16 * KIB;
    w.cache = 1 * MIB;
    w.ro = 256 * KIB;
    w.preload = "true";
    one_case(filename, "valid: 16 KiB, 1 MiB, 256 KiB, true", w, "romio_edonio_block_size", "16384",
             "romio_edonio_cache_size", "1048576", "romio_edonio_remote_cache_size", "262144",
             "romio_edonio_preload", "true", NULL);
    w.block = 4 * KIB;
    w.cache = 4 * KIB;
    w.ro = 8 * KIB;
    w.preload = "false";
    one_case(filename, "valid: smallest block, caches of one and two blocks (older name)", w,
             "romio_edonio_block_size", "4096", "romio_edonio_cache_size", "4096",
             "romio_edonio_ro_cache_size", "8192", "romio_edonio_preload", "false", NULL);
    w = defaults;
    w.block = 64 * MIB;
    w.cache = 64 * MIB; /* the default cache holds one such block */
    w.ro = 64 * MIB;    /* and so does the default remote cache */
    one_case(filename, "valid: the largest block", w, "romio_edonio_block_size", "67108864", NULL);
    w = defaults;
    w.preload = "true";
    one_case(filename, "valid: preload=enable", w, "romio_edonio_preload", "enable", NULL);
    one_case(filename, "valid: preload=1", w, "romio_edonio_preload", "1", NULL);
    one_case(filename, "valid: preload=TRUE", w, "romio_edonio_preload", "TRUE", NULL);
    w.preload = "false";
    one_case(filename, "valid: preload=disable", w, "romio_edonio_preload", "disable", NULL);
}

/* On everyone's file: all invalid, all valid, and rank 0's values win. */
static void world_cases(const char *filename)
{
    struct expect w = defaults;

    one_case(filename, "everyone: all invalid", defaults, "romio_edonio_block_size", "12288",
             "romio_edonio_cache_size", "0", "romio_edonio_remote_cache_size", "-1",
             "romio_edonio_preload", "abc", NULL);
    w.block = 16 * KIB;
    w.cache = 1 * MIB;
    w.ro = 512 * KIB;
    w.preload = "true";
    one_case(filename, "everyone: valid", w, "romio_edonio_block_size", "16384",
             "romio_edonio_cache_size", "1048576", "romio_edonio_remote_cache_size", "524288",
             "romio_edonio_preload", "true", NULL);
    /* Different values on different ranks: rank 0's are in effect everywhere. */
    w.block = 32 * KIB;
    w.cache = 2 * MIB;
    w.ro = DEF_RO;
    w.preload = "false";
    if (ct_rank == 0)
        one_case(filename, "everyone: rank 0's values", w, "romio_edonio_block_size", "32768",
                 "romio_edonio_cache_size", "2097152", NULL);
    else
        one_case(filename, "everyone: rank 0's values", w, "romio_edonio_block_size", "8192",
                 "romio_edonio_cache_size", "abc", "romio_edonio_preload", "true", NULL);
}

/* The value of one hint on every rank must be 'want'. */
static void expect_hint(MPI_File fh, const char *key, long long want, const char *what)
{
    long long v = ct_get_ll(fh, key);
    CT_CHECK(v == want, "%s: %s is %lld, expected %lld", what, key, v, want);
}

/* A fresh-or-existing file opened with 16 KiB blocks and a 1 MiB cache. */
static void open_16k_1m(const char *filename, MPI_File *fh)
{
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_edonio_block_size", "16384");
    MPI_Info_set(info, "romio_edonio_cache_size", "1048576");
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, fh));
    MPI_Info_free(&info);
}

static void set_info(const char *filename)
{
    MPI_File fh;
    long long size = 10 * 16 * KIB + 777;
    unsigned char *want = malloc((size_t)size);

    for (long long i = 0; i < size; i++)
        want[i] = ct_pattern(i, 11);
    ct_fresh(filename);
    open_16k_1m(filename, &fh);
    expect_hint(fh, "romio_edonio_cache_size", 1 * MIB, "at open");
    /* Interleaved records of 3000 bytes, never synced. */
    for (long long c = 0; c * 3000 < size; c++)
        if (c % ct_nprocs == ct_rank)
            ct_write_at(fh, c * 3000, want + c * 3000,
                        (c + 1) * 3000 <= size ? 3000 : size - c * 3000, "record");
    ct_share(fh);
    ct_read_check(fh, want, size, "before MPI_File_set_info");
    MPI_Barrier(MPI_COMM_WORLD);

    /* A cache of 2 blocks per process, smaller than the data. */
    ct_set_hint(fh, "romio_edonio_cache_size", "32768");
    expect_hint(fh, "romio_edonio_cache_size", 32 * KIB, "set_info cache 32 KiB");
    expect_hint(fh, "romio_edonio_block_size", 16 * KIB, "set_info cache 32 KiB");
    ct_read_check(fh, want, size, "after set_info cache 32 KiB");
    MPI_Barrier(MPI_COMM_WORLD);

    /* Written after the rebuild, then rebuilt again with another block size. */
    for (long long i = 5000; i < 9000; i++)
        want[i] = ct_pattern(i, 12);
    if (ct_rank == ct_nprocs - 1)
        ct_write_at(fh, 5000, want + 5000, 4000, "record after set_info");
    MPI_Barrier(MPI_COMM_WORLD);
    ct_set_hint(fh, "romio_edonio_block_size", "32768");
    expect_hint(fh, "romio_edonio_block_size", 32 * KIB, "set_info block 32 KiB");
    expect_hint(fh, "romio_edonio_cache_size", 32 * KIB, "set_info block 32 KiB");
    ct_read_check(fh, want, size, "after set_info block 32 KiB");
    MPI_Barrier(MPI_COMM_WORLD);

    /* An invalid value falls back to the default here too. */
    ct_set_hint(fh, "romio_edonio_cache_size", "abc");
    expect_hint(fh, "romio_edonio_cache_size", DEF_CACHE, "set_info cache 'abc'");
    ct_read_check(fh, want, size, "after set_info cache 'abc'");
    MPI_Barrier(MPI_COMM_WORLD);

    /* The same shape again: nothing to rebuild, still fine. */
    ct_set_hint(fh, "romio_edonio_cache_size", "67108864");
    expect_hint(fh, "romio_edonio_cache_size", DEF_CACHE, "set_info the same cache size");
    ct_read_check(fh, want, size, "after set_info the same cache size");
    ct_expect_size(fh, size, "after the set_infos");
    CT_MPI(MPI_File_close(&fh));

    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    ct_read_check(fh, want, size, "reopened after the set_infos");
    CT_MPI(MPI_File_close(&fh));
    free(want);
}

/* What romio_edonio_read_fill=auto must decide for filename's file system (doc/hints.md). */
static const char *auto_fill(const char *filename)
{
    static const long local[] = {0xEF53, 0x58465342, 0x9123683E, 0x01021994, 0xF2F52010,
                                 0x2FC12FC1, 0x794C7630};
    struct statfs sb;

    if (statfs(filename, &sb) != 0)
        return "block";
    for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
        if ((unsigned long)sb.f_type == (unsigned long)local[i])
            return "none";
    return "block";
}

/* get_info's value of a hint that is a word (read_fill, write_back) must be want. */
static void expect_word(MPI_File fh, const char *key, const char *want, const char *what)
{
    char v[MPI_MAX_INFO_VAL + 1];

    CT_CHECK(strcmp(ct_get(fh, key, v), want) == 0, "%s: %s is '%s', expected '%s'", what, key, v,
             want);
}

/* romio_edonio_read_fill at open and by set_info; the file reads right each way. */
static void read_fill(const char *filename)
{
    const char *asked[] = {NULL, "auto", "AUTO", "bogus", "block", "none", "Block"};
    long long size = 5 * DEF_BLOCK + 333;
    unsigned char *want = malloc((size_t)size);
    MPI_File fh;

    for (long long i = 0; i < size; i++)
        want[i] = ct_pattern(i, 3);
    ct_fresh(filename);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh));
    if (ct_rank == 0)
        ct_write_at(fh, 0, want, size, "read_fill data");
    CT_MPI(MPI_File_close(&fh));
    const char *decided = auto_fill(filename);
    for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
        const char *expect = asked[i] == NULL || strcasecmp(asked[i], "block") ? decided : "block";
        if (asked[i] != NULL && strcmp(asked[i], "none") == 0)
            expect = "none";
        MPI_Info info = asked[i] ? ct_info("romio_edonio_read_fill", asked[i], NULL)
                                 : MPI_INFO_NULL;
        char what[64];
        snprintf(what, sizeof(what), "read_fill '%s' at open", asked[i] ? asked[i] : "(none)");
        CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDWR, info, &fh));
        expect_word(fh, "romio_edonio_read_fill", expect, what);
        ct_read_check(fh, want, size, what);
        ct_read_check(fh, want, size, what); /* again: from the cache or the file */
        ct_set_hint(fh, "romio_edonio_read_fill", strcmp(expect, "none") ? "none" : "block");
        expect_word(fh, "romio_edonio_read_fill", strcmp(expect, "none") ? "none" : "block",
                    "after set_info");
        ct_read_check(fh, want, size, "after set_info read_fill");
        CT_MPI(MPI_File_close(&fh));
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }
    if (ct_rank == 0)
        printf("read_fill: auto decides '%s' here\n", decided);
    free(want);
}

/* Records of 100 bytes, record i by rank i mod P, the even ones or the odd ones. */
static void write_records(MPI_File fh, const unsigned char *want, long long size, int odd)
{
    for (long long i = 2 * ct_rank + odd; i * 100 < size; i += 2 * ct_nprocs)
        ct_write_at(fh, i * 100, want + i * 100, i * 100 + 100 <= size ? 100 : size - i * 100,
                    "write_back record");
}

/* romio_edonio_write_back at open and by set_info; the file is right each way. */
static void write_back(const char *filename)
{
    const char *asked[] = {NULL, "auto", "bogus", "span", "exact", "SPAN"};
    const char *decided = NULL;
    long long size = 3 * DEF_BLOCK + 333;
    unsigned char *want = malloc((size_t)size);
    MPI_File fh;

    for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
        MPI_Info info = asked[i] ? ct_info("romio_edonio_write_back", asked[i], NULL)
                                 : MPI_INFO_NULL;
        char what[64];
        snprintf(what, sizeof(what), "write_back '%s' at open", asked[i] ? asked[i] : "(none)");
        for (long long k = 0; k < size; k++)
            want[k] = ct_pattern(k, (int)i + 5);
        ct_fresh(filename);
        CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info,
                             &fh));
        if (decided == NULL) /* the file exists now, for statfs */
            decided = strcmp(auto_fill(filename), "none") ? "span" : "exact";
        const char *expect = decided;
        if (asked[i] != NULL && (!strcasecmp(asked[i], "span") || !strcmp(asked[i], "exact")))
            expect = strcasecmp(asked[i], "span") ? "exact" : "span";
        const char *other = strcmp(expect, "span") ? "span" : "exact";
        expect_word(fh, "romio_edonio_write_back", expect, what);
        write_records(fh, want, size, 0);
        ct_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        ct_sync(fh);
        ct_set_hint(fh, "romio_edonio_write_back", other);
        expect_word(fh, "romio_edonio_write_back", other, "after set_info");
        write_records(fh, want, size, 1);
        ct_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        ct_sync(fh);
        ct_read_check(fh, want, size, what);
        CT_MPI(MPI_File_close(&fh));
        CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
        ct_read_check(fh, want, size, "write_back, reopened");
        CT_MPI(MPI_File_close(&fh));
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }
    if (ct_rank == 0)
        printf("write_back: auto decides '%s' here\n", decided);
    free(want);
}

/* Are the file's bytes [off, off + len), read around MPI-IO, want's? */
static int in_file(const char *filename, long long off, const unsigned char *want, long long len)
{
    unsigned char *buf = malloc((size_t)len);
    int fd = open(filename, O_RDONLY), same = 0;

    if (fd >= 0 && pread(fd, buf, (size_t)len, (off_t)off) == (ssize_t)len)
        same = memcmp(buf, want, (size_t)len) == 0;
    if (fd >= 0)
        close(fd);
    free(buf);
    return same;
}

/*
 * One open with romio_edonio_write_through asked as 'asked' (NULL: not given), reported as
 * 'expect' (-1: what auto decides). Rank r writes, in its blocks 2r and 2r+1: A, 32 KiB at the start of block 2r (not
 * cached: to the file if expect is at most 32 KiB); B, 1000 bytes into block 2r+1 (cached); C,
 * 32 KiB at the middle of block 2r+1 (cached now: never to the file).
 */
static long long write_through_one(const char *filename, const char *asked, long long expect,
                                   const unsigned char *want)
{
    long long a = 2 * ct_rank * DEF_BLOCK, b = a + DEF_BLOCK + 100, cc = a + DEF_BLOCK + 32 * KIB;
    MPI_Info info = asked ? ct_info("romio_edonio_write_through", asked, NULL) : MPI_INFO_NULL;
    char what[96];
    MPI_File fh;

    snprintf(what, sizeof(what), "write_through '%s'", asked ? asked : "(none)");
    ct_fresh(filename);
    CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    if (expect < 0) /* the file exists now: its file system decides */
        expect = strcmp(auto_fill(filename), "none") == 0 ? 16 * KIB : 0;
    CT_CHECK(ct_get_ll(fh, "romio_edonio_write_through") == expect,
             "%s: romio_edonio_write_through is %lld, expected %lld", what,
             ct_get_ll(fh, "romio_edonio_write_through"), expect);
    ct_write_at(fh, a, want + a, 32 * KIB, what);
    ct_write_at(fh, b, want + b, 1000, what);
    ct_write_at(fh, cc, want + cc, 32 * KIB, what);
    int through = expect > 0 && expect <= 32 * KIB;
    CT_CHECK(in_file(filename, a, want + a, 32 * KIB) == through,
             "%s: 32 KiB to an uncached block %s in the file before any sync", what,
             through ? "is not" : "is already");
    CT_CHECK(!in_file(filename, b, want + b, 1000) && !in_file(filename, cc, want + cc, 32 * KIB),
             "%s: a write that the cache should hold is in the file before any sync", what);
    /* A close writes back at once what the closing process's segment holds, others' writes too
     * (no barrier before: patch 0011): every process looks at the file before any closes. */
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char *buf = malloc((size_t)(2 * DEF_BLOCK));
    ct_read_at(fh, a, buf, 32 * KIB, 32 * KIB, what); /* this process reads its own writes */
    ct_compare(what, buf, want + a, a, 32 * KIB);
    ct_read_at(fh, b, buf, cc + 32 * KIB - b, cc + 32 * KIB - b, what);
    ct_compare(what, buf, want + b, b, 1000);
    ct_compare(what, buf + (cc - b), want + cc, cc, 32 * KIB);
    free(buf);
    CT_MPI(MPI_File_close(&fh));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return expect;
}

/* romio_edonio_write_through at open; the file is right each way. */
static void write_through(const char *filename)
{
    const char *asked[] = {NULL, "auto", "bogus", "-5", "0", "4096", "65536", "32768"};
    long long decided = -1;
    long long size = 2 * ct_nprocs * DEF_BLOCK;
    unsigned char *want = malloc((size_t)size);

    for (long long i = 0; i < size; i++)
        want[i] = ct_pattern(i, 5);
    for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
        char *end;
        long long v = asked[i] ? strtoll(asked[i], &end, 10) : -1;
        if (asked[i] && end != asked[i] && *end == '\0' && v >= 0)
            write_through_one(filename, asked[i], v, want);
        else
            decided = write_through_one(filename, asked[i], -1, want);
        /* every rank's A, B and C, from the file, after the close */
        MPI_File fh;
        CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
        unsigned char *buf = malloc((size_t)size);
        ct_read_at(fh, 0, buf, size, size, "write_through, reopened");
        for (int r = 0; r < ct_nprocs; r++) {
            long long a = 2 * r * DEF_BLOCK, b = a + DEF_BLOCK + 100, cc = a + DEF_BLOCK + 32 * KIB;
            ct_compare("write_through A, reopened", buf + a, want + a, a, 32 * KIB);
            ct_compare("write_through B, reopened", buf + b, want + b, b, 1000);
            ct_compare("write_through C, reopened", buf + cc, want + cc, cc, 32 * KIB);
        }
        free(buf);
        CT_MPI(MPI_File_close(&fh));
    }
    if (ct_rank == 0)
        printf("write_through: auto decides %lld here\n", decided);
    free(want);
}

/* Only rank 0 asks for a new cache size: rank 0's values win, as at open. */
static void uneven(const char *filename)
{
    MPI_File fh;
    MPI_Info info;
    long long size = 8 * 16 * KIB * ct_nprocs + 5;
    unsigned char *want = malloc((size_t)size);

    for (long long i = 0; i < size; i++)
        want[i] = ct_pattern(i, 13);
    ct_fresh(filename);
    open_16k_1m(filename, &fh);
    if (ct_rank == 0)
        ct_write_at(fh, 0, want, size, "data");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info_create(&info);
    if (ct_rank == 0)
        MPI_Info_set(info, "romio_edonio_cache_size", "524288");
    if (ct_rank == 0)
        printf("MPI_File_set_info: romio_edonio_cache_size=524288 on rank 0 only\n");
    fflush(stdout);
    CT_MPI(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
    expect_hint(fh, "romio_edonio_cache_size", 512 * KIB, "rank 0's new cache size");
    ct_read_check(fh, want, size, "after an uneven set_info");
    CT_MPI(MPI_File_close(&fh));
    free(want);
}

/* romio_edonio_keep_memory: reported as asked, the default when not given or invalid. */
static void keep_memory(const char *filename)
{
    const char *asked[] = {NULL, "true", "false", "FALSE", "bogus", "1"};
    const char *want[] = {"true", "true", "false", "false", "true", "true"};
    char v[MPI_MAX_INFO_VAL + 1];
    MPI_File fh;

    for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
        MPI_Info info = asked[i] ? ct_info("romio_edonio_keep_memory", asked[i], NULL)
                                 : MPI_INFO_NULL;
        CT_MPI(MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE | MPI_MODE_RDWR, info,
                             &fh));
        CT_CHECK(strcmp(ct_get(fh, "romio_edonio_keep_memory", v), want[i]) == 0,
                 "keep_memory '%s': romio_edonio_keep_memory is '%s', expected '%s'",
                 asked[i] ? asked[i] : "(none)", v, want[i]);
        CT_MPI(MPI_File_close(&fh));
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "FILE [uneven]");
    if (argc > 2 && strcmp(argv[2], "uneven") == 0) {
        uneven(argv[1]);
    } else {
        /* The many single cases on each rank's own file, then a few on everyone's. */
        char self_name[4096];
        snprintf(self_name, sizeof(self_name), "%s.self%d", argv[1], ct_rank);
        MPI_File_delete(self_name, MPI_INFO_NULL);
        comm = MPI_COMM_SELF;
        invalid_and_valid(self_name);
        MPI_File_delete(self_name, MPI_INFO_NULL);
        comm = MPI_COMM_WORLD;
        ct_fresh(argv[1]);
        world_cases(argv[1]);
        set_info(argv[1]);
        read_fill(argv[1]);
        write_through(argv[1]);
        write_back(argv[1]);
        keep_memory(argv[1]);
    }
    return ct_finish();
}
