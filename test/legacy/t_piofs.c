/*
 * edonio: the PIOFS-style API: create (bsu, cells), fstat, views, the notes' worked example.
 *   t_piofs DIR    writes DIR/piofs.dat (the same bytes on every file system: cmp by run.sh)
 * bsu 1024, cells 4, view (Vbs 1, Vn 2, Hbs 2, Hn 2): four subfiles, each written through its
 * view by one process (process r writes subfiles r, r+P, ...), then the whole file is read
 * without a view and every byte checked against the mapping, computed here independently.
 * Prints " No Errors" on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#define EDONIO_PIOFS_NAMES
#include "edonio_piofs.h"

enum { BSU = 1024, CELLS = 4, ROWS = 8, SUB = ROWS * CELLS * BSU / 4, FILE_BYTES = ROWS * CELLS * BSU };

#include "legacy_test.h"

static char value(int subfile, long i)
{
    return (char)(subfile * 59 + i * 3 + i / 251);
}

/* Byte b of the file: which subfile and where in it (Vbs 1, Vn 2, Hbs 2, Hn 2). */
static void locate(long b, int *subfile, long *i)
{
    long k = b / BSU, c = k % CELLS, r = k / CELLS;
    int v = (int)(r % 2), h = (int)((c / 2) % 2);
    *subfile = v * 2 + h;
    /* per period (2 rows) the subfile has 2 cells = 2048 bytes */
    *i = (r / 2) * 2 * BSU + (c % 2) * BSU + b % BSU;
}

static void errors(const char *path)
{
    struct piofs_create c = {.bsu = 0, .cells = 4, .permissions = 0644};
    struct piofs_change_view cv = {1, 2, 2, 2, 4, 0}; /* subfile 4 of a 2x2 grid */
    struct piofs_fstat st;
    int fd;

    snprintf(c.name, sizeof(c.name), "%s.bad", path);
    FAILS(piofsioctl(-1, PIOFS_CREATE, &c), EINVAL); /* bsu 0 */
    FAILS(piofsioctl(99, PIOFS_FSTAT, &st), EBADF);
    FAILS(piofsioctl(0, 42, &st), EINVAL);
    FAILS(piofs_open(c.name, O_RDONLY, 0), ENOENT);
    fd = piofs_open(path, O_RDONLY, 0);
    CHECK(fd >= 0);
    FAILS(piofsioctl(fd, PIOFS_CHANGE_VIEW, &cv), EINVAL);
    cv.subfile = 1;
    cv.Hbs = 4; /* h = 1 starts at cell 4: no cells */
    FAILS(piofsioctl(fd, PIOFS_CHANGE_VIEW, &cv), EINVAL);
    cv.Hbs = 2;
    CHECK(piofsioctl(fd, PIOFS_CHANGE_VIEW, &cv) == 0);
    FAILS(piofs_lseek(fd, 0, SEEK_END), EINVAL);
    FAILS(piofs_write(fd, "x", 1), EBADF);
    CHECK(piofs_close(fd) == 0);
}

static void write_subfiles(const char *path)
{
    char *buf = malloc(SUB);
    int fd = piofs_open(path, O_RDWR, 0);
    struct piofs_fstat st;

    CHECK(fd >= 0 && piofsioctl(fd, PIOFS_FSTAT, &st) == 0);
    CHECK(st.bsu == BSU && st.cells == CELLS && st.base_node == 3);
    for (int s = rank; s < 4; s += nprocs) {
        struct piofs_change_view cv = {1, 2, 2, 2, s, 0};
        CHECK(piofsioctl(fd, PIOFS_CHANGE_VIEW, &cv) == 0);
        for (long i = 0; i < SUB; i++)
            buf[i] = value(s, i);
        /* in two pieces, with a seek between */
        CHECK(piofs_write(fd, buf, 1000) == 1000);
        CHECK(llseek(fd, 1000, SEEK_SET) == 1000);
        CHECK(piofs_write(fd, buf + 1000, SUB - 1000) == SUB - 1000);
        CHECK(piofs_lseek(fd, 0, SEEK_CUR) == SUB);
    }
    CHECK(piofs_close(fd) == 0);
    free(buf);
}

static void check_file(const char *path)
{
    char *buf = malloc(FILE_BYTES), *sub = malloc(SUB);
    int fd = piofs_open(path, O_RDONLY, 0), s;
    struct piofs_fstat st;
    struct piofs_change_view whole = {1, 1, 1, 1, 0, 0}, one = {1, 2, 2, 2, 1, 0};
    long i;

    CHECK(piofsioctl(fd, PIOFS_FSTAT, &st) == 0 && st.size == FILE_BYTES);
    CHECK(piofs_read(fd, buf, FILE_BYTES) == FILE_BYTES);
    for (long b = 0; b < FILE_BYTES; b++) {
        locate(b, &s, &i);
        if (buf[b] != value(s, i)) {
            CHECK(buf[b] == value(s, i));
            break;
        }
    }
    /* The notes' worked example: subfile (v 0, h 1) holds [2048, 4096), [10240, 12288), ... */
    CHECK(buf[2048] == value(1, 0) && buf[4095] == value(1, 2047));
    CHECK(buf[10240] == value(1, 2048) && buf[12287] == value(1, 4095));
    /* Read subfile 1 through its view, and the whole file through view (1,1,1,1). */
    CHECK(piofsioctl(fd, PIOFS_CHANGE_VIEW, &one) == 0);
    CHECK(piofs_read(fd, sub, SUB) == SUB);
    for (i = 0; i < SUB && sub[i] == value(1, i); i++)
        ;
    CHECK(i == SUB);
    CHECK(piofsioctl(fd, PIOFS_CHANGE_VIEW, &whole) == 0);
    CHECK(piofs_lseek(fd, 2048, SEEK_SET) == 2048);
    CHECK(piofs_read(fd, sub, 2) == 2 && sub[0] == value(1, 0));
    CHECK(piofs_lseek(fd, -4, SEEK_END) == FILE_BYTES - 4);
    CHECK(piofs_read(fd, sub, 100) == 4);
    CHECK(piofs_close(fd) == 0);
    free(buf);
    free(sub);
}

int main(int argc, char **argv)
{
    char path[PIOFS_NAME_MAX - 4]; /* and ".bad" is a PIOFS name */
    int total;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(path, sizeof(path), "%s/piofs.dat", argv[1]);
    if (rank == 0) {
        struct piofs_create c = {.bsu = BSU, .cells = CELLS, .permissions = 0644,
                                 .flags = O_TRUNC, .base_node = 3};
        snprintf(c.name, sizeof(c.name), "%s", path);
        CHECK(piofsioctl(-1, PIOFS_CREATE, &c) == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    errors(path);
    write_subfiles(path);
    MPI_Barrier(MPI_COMM_WORLD);
    check_file(path);
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? " Found %d errors\n" : " No Errors\n", total);
    MPI_Finalize();
    return 0;
}
