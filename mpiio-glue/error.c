/*
 * edonio: MPI error codes for ROMIO, made with the public MPI API.
 *
 * ROMIO reports a failure through MPIO_Err_create_code(class, message key, details...). Inside
 * MPICH that makes an error code that carries the message. Here edonio makes a dynamic error code
 * of the right class (MPI_Add_error_code), so MPI_Error_class gives the class, and keeps the
 * readable message, which says what failed and on which file, for MPI_Error_string.
 *
 * MPI_Add_error_string would be the standard way to attach the message, but MPICH 4.0.2 encodes
 * codes added to a predefined class so that its MPI_Error_string decodes them as internal codes
 * and prints unrelated text. So edonio also answers MPI_Error_string for its own codes and passes
 * every other code to the host MPI.
 *
 * Codes are recycled from a small ring per class, since the MPI library holds only so many
 * dynamic codes; a message stays readable until its class has failed RING_SIZE more times.
 *
 * ROMIO hands error codes from one process to the others (a broadcast of the opening process's
 * code, a maximum over all of them). MPICH's dynamic codes carry their class in their bits, so
 * any process reads a code of another's class right. Open MPI's are numbered in the order a
 * process adds them, so there every process adds the rings of all predefined classes at once, in
 * the same order, at its first open (or error): a code then means the same class in every
 * process (unless the program itself added codes before on some processes only). Its message is
 * the process's own: edonio's agreements pass the failing process's message on
 * (ad_edonio_cache.c).
 *
 * Not thread-safe: like ROMIO outside MPICH, edonio expects MPI_THREAD_SINGLE, FUNNELED or
 * SERIALIZED use of MPI-IO.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adio.h"
#include "adio_extern.h"
#include "glue.h"

enum {
    RING_SIZE = 16,    /* dynamic codes kept per error class */
    MAX_CLASSES = 128, /* error classes above this get no ring of their own */
};

struct code_ring {
    int codes[RING_SIZE];
    char *texts[RING_SIZE]; /* the message of each code */
    int used;               /* codes allocated so far */
    int next;               /* next slot to reuse */
};

static struct code_ring rings[MAX_CLASSES];

/* Format "<fcname>: <text>[: <details>]" from ROMIO's "**key details-format". */
static void format_message(char *buf, size_t len, const char fcname[], const char *fmt,
                           va_list args, int has_args)
{
    const char *key = fmt, *text;
    size_t keylen = 0, n;
    char details[512] = "";

    fmt += strspn(fmt, " ");
    if (strncmp(fmt, "**", 2) == 0) {
        key = fmt + 2;
        keylen = strcspn(key, " ");
        fmt = key + keylen;
    }
    text = edonio_message_text(key, keylen);
    if (has_args)
        vsnprintf(details, sizeof(details), fmt, args);
    else
        snprintf(details, sizeof(details), "%s", fmt);
    n = strspn(details, " ");
    /* Some of ROMIO's function names end in ": " already. */
    int fclen = (int)strlen(fcname);
    while (fclen > 0 && (fcname[fclen - 1] == ' ' || fcname[fclen - 1] == ':'))
        fclen--;
    if (text == NULL)
        snprintf(buf, len, "%.*s: %.*s%s%s", fclen, fcname, (int)keylen, key,
                 details[n] ? ": " : "", details + n);
    else
        snprintf(buf, len, "%.*s: %s%s%s", fclen, fcname, text, details[n] ? ": " : "",
                 details + n);
}

/* Over Open MPI, every predefined class's ring, added at once in class order (above): at a
 * process's first open, before a code from another process can reach it. */
void edonio_error_codes_init(void)
{
#ifdef OPEN_MPI
    static int added;

    if (added)
        return;
    added = 1;
    for (int c = 1; c <= MPI_ERR_LASTCODE && c < MAX_CLASSES; c++)
        for (struct code_ring *ring = &rings[c]; ring->used < RING_SIZE; ring->used++)
            if (MPI_Add_error_code(c, &ring->codes[ring->used]) != MPI_SUCCESS)
                return;
#endif
}

/* A dynamic error code of this class carrying this message. */
static int code_with_message(int error_class, const char *message)
{
    struct code_ring *ring;
    int slot;

    if (error_class < 0 || error_class >= MAX_CLASSES)
        return error_class;
    edonio_error_codes_init();
    ring = &rings[error_class];
    if (ring->used < RING_SIZE) {
        slot = ring->used;
        ring->texts[slot] = malloc(MPI_MAX_ERROR_STRING);
        if (ring->texts[slot] == NULL ||
            MPI_Add_error_code(error_class, &ring->codes[slot]) != MPI_SUCCESS) {
            free(ring->texts[slot]);
            return error_class;
        }
        ring->used++;
    } else {
        slot = ring->next;
        ring->next = (ring->next + 1) % RING_SIZE;
        if (ring->texts[slot] == NULL && (ring->texts[slot] = malloc(MPI_MAX_ERROR_STRING)) == NULL)
            return ring->codes[slot];
    }
    snprintf(ring->texts[slot], MPI_MAX_ERROR_STRING, "%s", message);
    MPI_Add_error_string(ring->codes[slot], message);
    return ring->codes[slot];
}

/* The message of one of edonio's codes (MPI_MAX_ERROR_STRING bytes), or NULL. */
static char *message_of(int code)
{
    for (int c = 0; c < MAX_CLASSES; c++)
        for (int i = 0; i < rings[c].used; i++)
            if (rings[c].codes[i] == code)
                return rings[c].texts[i];
    return NULL;
}

/*
 * An error returned on a file names that file: ROMIO's argument checks (a bad count, an
 * uncommitted datatype, ...) say what was wrong but not on which file.
 */
static void name_the_file(const char *filename, int error_code)
{
    char *text = message_of(error_code);
    size_t n;

    if (text == NULL || filename == NULL || strstr(text, filename) != NULL)
        return;
    n = strlen(text);
    snprintf(text + n, MPI_MAX_ERROR_STRING - n, " (file %s)", filename);
}

/*
 * An open that failed (our patch 0007 calls this): the message names the file. A code made on
 * another process (ROMIO shares the outcome of an open) means nothing here, so it becomes a code
 * of its class that says so.
 */
int MPIO_Err_name_file(int error_code, const char *filename)
{
    if (error_code != MPI_SUCCESS && message_of(error_code) == NULL) {
        char text[MPI_MAX_ERROR_STRING];
        int cls = error_code, len = 0;

        MPI_Error_class(error_code, &cls);
        PMPI_Error_string(error_code, text, &len);
        error_code = edonio_error_code(cls, text);
    }
    name_the_file(filename, error_code);
    return error_code;
}

typedef int host_error_string_fn(int, char *, int *);

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *text = message_of(errorcode);
    host_error_string_fn *host;

    if (text != NULL) {
        snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
        *resultlen = (int)strlen(string);
        return MPI_SUCCESS;
    }
    host = (host_error_string_fn *)dlsym(RTLD_NEXT, "PMPI_Error_string");
    if (host == NULL)
        return MPI_ERR_INTERN;
    int err = host(errorcode, string, resultlen);
    /*
     * ROMIO's generic code passes error codes between processes (an MPI_Allreduce of codes when
     * an open fails), and a dynamic code made on another process means nothing here: MPICH then
     * prints its class's text followed by an unrelated "(unknown)()" stack. Say only the class.
     */
    int cls;
    if (err == MPI_SUCCESS && strstr(string, "(unknown)()") != NULL &&
        MPI_Error_class(errorcode, &cls) == MPI_SUCCESS && cls != errorcode &&
        host(cls, string, resultlen) == MPI_SUCCESS) {
        size_t n = strlen(string);
        snprintf(string + n, MPI_MAX_ERROR_STRING - n, " (reported by another process)");
        *resultlen = (int)strlen(string);
    }
    return err;
}

int edonio_error_code(int error_class, const char *text)
{
    char message[MPI_MAX_ERROR_STRING];

    snprintf(message, sizeof(message), "%s", text);
    return code_with_message(error_class, message);
}

int MPIO_Err_create_code(int lastcode, int fatal, const char fcname[], int line, int error_class,
                         const char generic_msg[], const char specific_msg[], ...)
{
    char message[MPI_MAX_ERROR_STRING];
    va_list args;

    (void)lastcode;
    (void)fatal;
    (void)line;
    va_start(args, specific_msg);
    if (specific_msg != NULL)
        format_message(message, sizeof(message), fcname, specific_msg, args, 1);
    else
        format_message(message, sizeof(message), fcname, generic_msg ? generic_msg : "**io", args,
                       0);
    va_end(args);
    return code_with_message(error_class, message);
}

/* Errors are fatal: say what failed, then abort the file's processes. */
static void abort_on_error(MPI_Comm comm, int error_code)
{
    char message[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (MPI_Error_string(error_code, message, &len) != MPI_SUCCESS)
        snprintf(message, sizeof(message), "error code %d", error_code);
    fprintf(stderr, "edonio: fatal I/O error: %s\n", message);
    fflush(stderr);
    MPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, 1);
}

int MPIO_Err_return_file(MPI_File mpi_fh, int error_code)
{
    MPI_Errhandler eh = ADIOI_DFLT_ERR_HANDLER;
    MPI_Comm comm = MPI_COMM_WORLD;

    if (mpi_fh != MPI_FILE_NULL) {
        ADIO_File fh = MPIO_File_resolve(mpi_fh);
        eh = fh->err_handler;
        comm = fh->comm;
        name_the_file(fh->filename, error_code);
    }
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT)
        abort_on_error(comm, error_code);
    else if (eh != MPI_ERRORS_RETURN && eh != MPI_ERRHANDLER_NULL)
        edonio_errhandler_invoke(mpi_fh, eh, &error_code);
    return error_code;
}

int MPIO_Err_return_comm(MPI_Comm mpi_comm, int error_code)
{
    MPI_Comm_call_errhandler(mpi_comm, error_code);
    return error_code;
}
