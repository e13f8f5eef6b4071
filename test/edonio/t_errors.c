/*
 * edonio test: errors come back as MPI error codes of the right class, with a readable message
 * that names the file, the same class on every rank; file error handlers work as the MPI standard
 * says (create, set on a file and on MPI_FILE_NULL, get, call, free while in use).
 *
 *   t_errors DIR      (a writable directory)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;
static int handler_calls;
static int handler_last_code;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "line %d: ", __LINE__);                                                \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static void counting_handler(MPI_File *fh, int *code, ...)
{
    (void)fh;
    handler_calls++;
    handler_last_code = *code;
}

static int error_class(int code)
{
    int cls;
    MPI_Error_class(code, &cls);
    return cls;
}

static void error_text(int code, char *text)
{
    int len;
    MPI_Error_string(code, text, &len);
}

/* The same value on every rank. */
static int same_everywhere(int value)
{
    int lo, hi;
    MPI_Allreduce(&value, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&value, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

static void test_missing_file(const char *dir)
{
    char name[4096], text[MPI_MAX_ERROR_STRING];
    MPI_File fh;
    int err;

    snprintf(name, sizeof(name), "%s/no-such-file", dir);
    err = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(err != MPI_SUCCESS, "opening a missing file succeeded");
    CHECK(error_class(err) == MPI_ERR_NO_SUCH_FILE, "class %d, expected MPI_ERR_NO_SUCH_FILE",
          error_class(err));
    CHECK(same_everywhere(error_class(err)), "ranks disagree on the error class");
    error_text(err, text);
    CHECK(strstr(text, "no-such-file") != NULL, "message does not name the file: %s", text);
    CHECK(strstr(text, "**") == NULL, "message has an untranslated key: %s", text);
}

static void test_wronly_read(const char *dir)
{
    char name[4096], text[MPI_MAX_ERROR_STRING], buf[8];
    MPI_File fh;
    int err;

    snprintf(name, sizeof(name), "%s/wronly", dir);
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    err = MPI_File_read_at(fh, 0, buf, 8, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(error_class(err) == MPI_ERR_ACCESS, "read on a write-only file: class %d",
          error_class(err));
    error_text(err, text);
    CHECK(strstr(text, "**") == NULL && strlen(text) > 10, "unreadable message: %s", text);
    MPI_File_close(&fh);
}

static void test_default_handler(const char *dir)
{
    char name[4096];
    MPI_Errhandler eh;
    MPI_File fh;

    snprintf(name, sizeof(name), "%s/still-missing", dir);
    MPI_File_create_errhandler(counting_handler, &eh);
    MPI_File_set_errhandler(MPI_FILE_NULL, eh);
    handler_calls = 0;
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(handler_calls == 1, "handler on MPI_FILE_NULL called %d times", handler_calls);
    CHECK(error_class(handler_last_code) == MPI_ERR_NO_SUCH_FILE, "handler got class %d",
          error_class(handler_last_code));
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not reset the handle");
}

static void test_file_handler(const char *dir)
{
    char name[4096];
    MPI_Errhandler eh, got;
    MPI_File fh;

    snprintf(name, sizeof(name), "%s/handled", dir);
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_get_errhandler(fh, &got);
    CHECK(got == MPI_ERRORS_RETURN, "a new file's handler is not MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&got);
    MPI_File_create_errhandler(counting_handler, &eh);
    CHECK(MPI_File_set_errhandler(fh, eh) == MPI_SUCCESS, "set_errhandler failed");
    MPI_File_get_errhandler(fh, &got);
    CHECK(got == eh, "get_errhandler returned another handler");
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh); /* still in use by the file: must stay callable */
    handler_calls = 0;
    MPI_File_call_errhandler(fh, MPI_ERR_OTHER);
    CHECK(handler_calls == 1 && handler_last_code == MPI_ERR_OTHER,
          "call_errhandler: %d calls, code %d", handler_calls, handler_last_code);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    int rank, total;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 2) {
        fprintf(stderr, "usage: t_errors DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    test_missing_file(argv[1]);
    test_wronly_read(argv[1]);
    test_default_handler(argv[1]);
    test_file_handler(argv[1]);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return total != 0;
}
