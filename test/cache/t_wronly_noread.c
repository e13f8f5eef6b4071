/*
 * edonio cache test: a write-only open of a file without read permission.
 *
 *   t_wronly_noread DIR [KEY=VALUE...]
 *
 * edonio reads blocks to fill in around what is written, so it opens write-only files for
 * reading too. Opening (MPI_MODE_WRONLY) an existing file of mode 0200 must fail on every rank
 * with error class MPI_ERR_ACCESS and a message (MPI_Error_string) that says why: it mentions
 * read permission. For contrast, the same open of a file of mode 0600 works and can be written.
 *
 * DIR must be writable; the program must not run as root (root reads any file), run.sh runs it
 * as an unprivileged user.
 */
#include "cache_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void make_file(const char *name, mode_t mode)
{
    int fd;

    unlink(name);
    fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    CT_CHECK(fd >= 0, "cannot create %s", name);
    if (fd < 0)
        return;
    CT_CHECK(write(fd, "existing data\n", 14) == 14, "cannot write %s", name);
    CT_CHECK(fchmod(fd, mode) == 0, "cannot chmod %s", name);
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_File fh = MPI_FILE_NULL;
    MPI_Info info;
    char noread[4096], readable[4096], msg[MPI_MAX_ERROR_STRING + 1];
    int rc, cls = -1, len = 0;

    ct_init(&argc, &argv, "DIR [KEY=VALUE...]");
    snprintf(noread, sizeof(noread), "%s/noread", argv[1]);
    snprintf(readable, sizeof(readable), "%s/readable", argv[1]);
    if (geteuid() == 0)
        ct_error("running as root, which reads any file: run this as an unprivileged user");
    if (ct_rank == 0) {
        make_file(noread, 0200);
        make_file(readable, 0600);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    info = ct_info(NULL);

    rc = MPI_File_open(MPI_COMM_WORLD, noread, MPI_MODE_WRONLY, info, &fh);
    if (rc == MPI_SUCCESS) {
        ct_error("MPI_File_open(MPI_MODE_WRONLY) of a file of mode 0200 succeeded");
        MPI_File_close(&fh);
    } else {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
        msg[len] = '\0';
        printf("rank %d: class %d (MPI_ERR_ACCESS is %d): %s\n", ct_rank, cls, MPI_ERR_ACCESS, msg);
        fflush(stdout);
        CT_CHECK(cls == MPI_ERR_ACCESS, "error class %d, expected MPI_ERR_ACCESS (%d)", cls,
                 MPI_ERR_ACCESS);
        CT_CHECK(strstr(msg, "read permission") != NULL,
                 "the message does not mention read permission: %s", msg);
        CT_CHECK(strstr(msg, "noread") != NULL, "the message does not name the file: %s", msg);
    }

    /* The same open works when the file may be read, and the file can be written. */
    rc = MPI_File_open(MPI_COMM_WORLD, readable, MPI_MODE_WRONLY, info, &fh);
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        msg[len] = '\0';
        ct_error("MPI_File_open(MPI_MODE_WRONLY) of a file of mode 0600 failed: %s", msg);
    } else {
        char rec[8];
        memset(rec, 'a' + ct_rank % 26, sizeof(rec));
        ct_write_at(fh, 100 + 8 * ct_rank, rec, 8, "write-only file");
        CT_MPI(MPI_File_close(&fh));
        if (ct_rank == 0) {
            struct stat st;
            CT_CHECK(stat(readable, &st) == 0 && st.st_size == 100 + 8 * ct_nprocs,
                     "the written file has %lld bytes, expected %d", (long long)st.st_size,
                     100 + 8 * ct_nprocs);
        }
    }
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank == 0) {
        unlink(noread);
        unlink(readable);
    }
    return ct_finish();
}
