/*
 * edonio: file names of every length the system takes, through MPI-IO and the legacy C APIs (the
 * program is linked with -ledonio, so that both reach edonio's ROMIO). DIR is a deep directory.
 *   t_longname DIR     -> " No Errors"
 *
 * 1. A 250-byte file name, where ROMIO's hidden shared-file-pointer file ".NAME.shfp.R.PID" does
 *    not fit NAME_MAX (255): MPI_File_write_shared, write_ordered, seek_shared and read_ordered
 *    work; the hidden file is in DIR while the file is open, no longer than NAME_MAX, ends with
 *    rank 0's process id, and is gone after the close.
 * 2. Two such names with the same first 240 bytes, open at once: their shared pointers stay apart
 *    (ROMIO's "random" number is the time in seconds, so the shortened names must differ).
 * 3. A path of 4081 bytes: the hidden file's path is shortened to fit PATH_MAX, not cut.
 * 4. A path of PATH_MAX - 1 bytes, where no hidden name fits: the file opens, is written and read;
 *    the shared pointer fails on every process (no process waits for another), and it closes.
 * 5. Names the system cannot take (a 256-byte part; PATH_MAX bytes): MPI_File_open fails with
 *    MPI_ERR_BAD_FILE on every process ("too long" in the message), do_open, pfs__gopen, pfs_open
 *    and piofs_open with errno ENAMETOOLONG, and no file is made.
 * 6. The legacy APIs with 250-byte names: do_open, PFS's M_LOG mode (ROMIO's shared pointer).
 */
#define _POSIX_C_SOURCE 200809L /* strdup, PATH_MAX, NAME_MAX */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>
#include "edonio_do.h"
#include "edonio_pfs.h"
#include "edonio_piofs.h"

#include "legacy_test.h"

/* DIR "/" and a part of n copies of c: a new string. */
static char *join(const char *dir, char c, size_t n)
{
    size_t len = strlen(dir);
    char *s = malloc(len + n + 2);

    memcpy(s, dir, len);
    s[len] = '/';
    memset(s + len + 1, c, n);
    s[len + 1 + n] = '\0';
    return s;
}

/* A directory under dir whose path has exactly len bytes (parts of at most 200), made by rank 0. */
static char *deepen(const char *dir, size_t len)
{
    char *d = strdup(dir), *next;
    size_t have;

    while ((have = strlen(d)) < len) {
        size_t part = len - have - 1 > 200 ? 150 : len - have - 1; /* the last one not empty */
        next = join(d, 'd', part);
        free(d);
        d = next;
        if (rank == 0 && mkdir(d, 0755) != 0 && errno != EEXIST)
            CHECK(!"mkdir");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return d;
}

/* The hidden shared-file-pointer files in dir: how many; the first one's name in *name. */
static int hidden_files(const char *dir, char *name, size_t size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    CHECK(d != NULL);
    while (d != NULL && (e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strstr(e->d_name, ".shfp.") != NULL && n++ == 0)
            snprintf(name, size, "%s", e->d_name);
    if (d != NULL)
        closedir(d);
    return n;
}

/* While open: one hidden file, within the limits, named in full (rank 0's pid at its end). */
static void check_hidden(const char *dir)
{
    char name[NAME_MAX + 1] = "", pid[32];

    if (rank != 0)
        return;
    snprintf(pid, sizeof(pid), ".%u", (unsigned)getpid());
    CHECK(hidden_files(dir, name, sizeof(name)) == 1);
    CHECK(strlen(name) <= NAME_MAX && strlen(dir) + 1 + strlen(name) < PATH_MAX);
    CHECK(strlen(name) > strlen(pid) && strcmp(name + strlen(name) - strlen(pid), pid) == 0);
}

static MPI_File open_file(const char *path)
{
    MPI_File fh = MPI_FILE_NULL;

    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    return fh;
}

/* The shared pointer, each process's int once: write_shared (any order), then write_ordered. */
static void shared_pointer(MPI_File fh, int base)
{
    int v = base + rank, got = -1, *all = calloc((size_t)nprocs, sizeof(int)), seen = 0;
    MPI_Offset pos = -1;

    CHECK(MPI_File_write_shared(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_write_ordered(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_get_position_shared(fh, &pos) == MPI_SUCCESS && pos == 8 * nprocs);
    MPI_Barrier(MPI_COMM_WORLD); /* all have read it before seek_shared moves it */
    CHECK(MPI_File_seek_shared(fh, 4 * nprocs, MPI_SEEK_SET) == MPI_SUCCESS);
    CHECK(MPI_File_read_ordered(fh, &got, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got == v);
    CHECK(MPI_File_read_at_all(fh, 0, all, nprocs, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < nprocs; i++)
        seen += all[i] >= base && all[i] < base + nprocs;
    CHECK(seen == nprocs);
    free(all);
}

static void close_file(MPI_File *fh, const char *dir)
{
    char name[NAME_MAX + 1];

    CHECK(MPI_File_close(fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(hidden_files(dir, name, sizeof(name)) == 0);
}

/* 1. and 2. */
static void long_file_names(const char *dir)
{
    char *path = join(dir, 'n', 250), *a = join(dir, 'a', 250), *b = join(dir, 'a', 250);
    MPI_File fh, fa, fb;
    MPI_Offset pos;
    int v;

    fh = open_file(path);
    shared_pointer(fh, 100);
    MPI_Barrier(MPI_COMM_WORLD);
    check_hidden(dir);
    close_file(&fh, dir);

    memcpy(a + strlen(dir) + 241, "-first...", 9);
    memcpy(b + strlen(dir) + 241, "-second..", 9);
    fa = open_file(a);
    fb = open_file(b);
    v = rank;
    CHECK(MPI_File_write_ordered(fa, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_write_ordered(fb, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_write_ordered(fb, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_get_position_shared(fa, &pos) == MPI_SUCCESS && pos == 4 * nprocs);
    CHECK(MPI_File_get_position_shared(fb, &pos) == MPI_SUCCESS && pos == 8 * nprocs);
    CHECK(MPI_File_close(&fa) == MPI_SUCCESS && MPI_File_close(&fb) == MPI_SUCCESS);
    free(path);
    free(a);
    free(b);
}

/* 3. and 4. */
static void long_paths(const char *dir)
{
    char *d3 = deepen(dir, 4040), *d4 = deepen(dir, PATH_MAX - 1 - 15);
    char *p3 = join(d3, 'p', 40), *p4 = join(d4, 'q', 14);
    MPI_File fh;
    int v = rank, got = -1, err;

    fh = open_file(p3);
    shared_pointer(fh, 200);
    MPI_Barrier(MPI_COMM_WORLD);
    check_hidden(d3);
    close_file(&fh, d3);

    CHECK(strlen(p4) == PATH_MAX - 1);
    fh = open_file(p4);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    CHECK(MPI_File_write_at_all(fh, 4 * rank, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_read_at_all(fh, 4 * rank, &got, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got == v);
    err = MPI_File_write_shared(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(err != MPI_SUCCESS);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    free(d3);
    free(d4);
    free(p3);
    free(p4);
}

/* 5. */
static void too_long(const char *dir)
{
    char *part = join(dir, 'z', NAME_MAX + 1), *whole = malloc(PATH_MAX + 64);
    char *names[] = {part, whole}, msg[MPI_MAX_ERROR_STRING];
    struct stat st;
    MPI_File fh;
    int err, cls = -1, len = 0, said, anyone;

    snprintf(whole, PATH_MAX + 64, "%s", dir);
    while (strlen(whole) < PATH_MAX)
        strcat(whole, "/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz");
    for (int i = 0; i < 2; i++) {
        err = MPI_File_open(MPI_COMM_WORLD, names[i], MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh);
        MPI_Error_class(err, &cls);
        MPI_Error_string(err, msg, &len);
        CHECK(err != MPI_SUCCESS && cls == MPI_ERR_BAD_FILE);
        /* the others may only say that another process failed */
        said = strstr(msg, "too long") != NULL;
        MPI_Allreduce(&said, &anyone, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(anyone);
        FAILS(do_open(names[i], O_RDWR | O_CREAT, 0644), ENAMETOOLONG);
        FAILS(pfs__gopen(names[i], O_RDWR | O_CREAT, M_UNIX, 0644), ENAMETOOLONG);
        FAILS(pfs_open(names[i], O_RDWR | O_CREAT, 0644), ENAMETOOLONG);
        FAILS(piofs_open(names[i], O_RDWR | O_CREAT, 0644), ENAMETOOLONG);
        CHECK(stat(names[i], &st) != 0);
    }
    free(part);
    free(whole);
}

/* 6. */
static void legacy_apis(const char *dir)
{
    char *dpath = join(dir, 'l', 250), *ppath = join(dir, 'm', 250);
    int fd, v = 300 + rank, got = -1, *all = calloc((size_t)nprocs, sizeof(int)), seen = 0;

    fd = do_open(dpath, O_RDWR, 0644);
    CHECK(fd >= 0);
    CHECK(do_lseek(fd, 4 * rank, SEEK_SET) == 4 * rank && do_write(fd, &v, 4) == 4);
    CHECK(do_flush(fd) == 0);
    CHECK(do_lseek(fd, 4 * rank, SEEK_SET) == 4 * rank && do_read(fd, &got, 4) == 4 && got == v);
    CHECK(do_close(fd) == 0);

    fd = pfs__gopen(ppath, O_RDWR | O_CREAT | O_TRUNC, M_LOG, 0644);
    CHECK(fd >= 0);
    CHECK(pfs__cwrite(fd, &v, 4) == 4); /* at the shared pointer: first come, first served */
    CHECK(pfs_close(fd) == 0);
    fd = pfs__gopen(ppath, O_RDONLY, M_UNIX, 0);
    CHECK(fd >= 0 && pfs__cread(fd, all, 4L * nprocs) == 4L * nprocs);
    for (int i = 0; i < nprocs; i++)
        seen += all[i] >= 300 && all[i] < 300 + nprocs;
    CHECK(seen == nprocs);
    CHECK(pfs_close(fd) == 0);
    free(dpath);
    free(ppath);
    free(all);
}

int main(int argc, char **argv)
{
    int total;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2 || strlen(argv[1]) > 1000)
        MPI_Abort(MPI_COMM_WORLD, 2);
    CHECK(do_nio(rank, nprocs) == 0);
    long_file_names(argv[1]);
    long_paths(argv[1]);
    too_long(argv[1]);
    legacy_apis(argv[1]);
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? " Found %d errors\n" : " No Errors\n", total);
    MPI_Finalize();
    return 0;
}
