/*
 * edonio: error handlers on files, with the public MPI API.
 *
 * In MPICH the file error-handler calls live in MPICH proper and reach into its ROMIO through
 * internal hooks, which would miss edonio's ROMIO. So edonio takes over the four
 * MPI_File_*_errhandler calls and MPI_Errhandler_free. A handler is still created by the host MPI
 * (found with dlsym(RTLD_NEXT), so it is a genuine MPI_Errhandler), and edonio remembers its
 * function and counts its references: the creator holds one, each file it is set on and each
 * MPI_File_get_errhandler result holds one, and the host object is freed when the last goes, as
 * the MPI standard asks. Files hold their reference in a short list (files with a handler of their
 * own are few).
 *
 * A handler created from Fortran (MPI_FILE_CREATE_ERRHANDLER, with mpif.h or `use mpi`) is called
 * as Fortran calls it: with the file's Fortran handle and the error code, both INTEGERs passed by
 * reference. The library exports the Fortran names of that one call, so that it is edonio that
 * creates the handler and knows its language, over either host: Open MPI's Fortran binding of it
 * calls an internal function, not PMPI_File_create_errhandler, and MPICH's marks the language in
 * MPICH's own object only. (mpi_f08's binding is not covered: its names are compiler-specific.)
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "adio.h"
#include "adio_extern.h"
#include "glue.h"

/* SUBROUTINE HANDLER(FILE, ERROR_CODE): INTEGER FILE, ERROR_CODE */
typedef void fortran_handler_fn(MPI_Fint *file, MPI_Fint *error_code);

struct handler {
    MPI_Errhandler handle;
    MPI_File_errhandler_function *fn; /* C, or NULL */
    fortran_handler_fn *ffn;          /* Fortran, or NULL */
    int refs;
    struct handler *next;
};

struct file_ref {
    MPI_File fh;
    MPI_Errhandler handle;
    struct file_ref *next;
};

static struct handler *handlers;
static struct file_ref *file_refs;
static MPI_Errhandler default_handle = MPI_ERRHANDLER_NULL; /* set on MPI_FILE_NULL */

typedef int host_create_fn(MPI_File_errhandler_function *, MPI_Errhandler *);
typedef int host_free_fn(MPI_Errhandler *);

static void *host_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static int is_predefined(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT;
}

static struct handler *find_handler(MPI_Errhandler eh)
{
    for (struct handler *h = handlers; h; h = h->next)
        if (h->handle == eh)
            return h;
    return NULL;
}

static void retain(MPI_Errhandler eh)
{
    struct handler *h = find_handler(eh);
    if (h)
        h->refs++;
}

/* Drop one reference; the host object goes with the last one. */
static int release(MPI_Errhandler eh)
{
    struct handler **p, *h;
    host_free_fn *host_free;
    MPI_Errhandler handle = eh;

    for (p = &handlers; *p && (*p)->handle != eh; p = &(*p)->next)
        ;
    h = *p;
    if (h == NULL || --h->refs > 0)
        return MPI_SUCCESS;
    *p = h->next;
    free(h);
    host_free = (host_free_fn *)host_symbol("PMPI_Errhandler_free");
    return host_free ? host_free(&handle) : MPI_ERR_INTERN;
}

/* Swap the reference a file holds for a new one. */
static void file_ref_set(MPI_File fh, MPI_Errhandler eh)
{
    struct file_ref **p, *r;

    for (p = &file_refs; *p && (*p)->fh != fh; p = &(*p)->next)
        ;
    r = *p;
    if (r) {
        release(r->handle);
        *p = r->next;
        free(r);
    }
    if (find_handler(eh) == NULL)
        return;
    r = malloc(sizeof(*r));
    if (r == NULL)
        return;
    retain(eh);
    r->fh = fh;
    r->handle = eh;
    r->next = file_refs;
    file_refs = r;
}

void edonio_errhandler_file_freed(MPI_File fh)
{
    file_ref_set(fh, MPI_ERRHANDLER_NULL);
}

int edonio_errhandler_invoke(MPI_File fh, MPI_Errhandler eh, int *error_code)
{
    struct handler *h = find_handler(eh);

    if (h == NULL)
        return MPI_ERR_ARG;
    if (h->ffn != NULL) {
        MPI_Fint file = MPI_File_c2f(fh), code = (MPI_Fint)*error_code;
        h->ffn(&file, &code);
        *error_code = (int)code;
    } else {
        h->fn(&fh, error_code);
    }
    return MPI_SUCCESS;
}

/* A file handle ROMIO made, or MPI_FILE_NULL. */
static int valid_file(MPI_File fh)
{
    return fh == MPI_FILE_NULL || MPIO_File_resolve(fh)->cookie == ADIOI_FILE_COOKIE;
}

/* The host's object of a Fortran handler: the host never calls it (edonio calls the handlers of
 * files), it only gives the handler a genuine MPI_Errhandler. */
static void fortran_placeholder(MPI_File *fh, int *error_code, ...)
{
    (void)fh;
    (void)error_code;
}

static int create(MPI_File_errhandler_function *fn, fortran_handler_fn *ffn,
                  MPI_Errhandler *errhandler)
{
    host_create_fn *host_create = (host_create_fn *)host_symbol("PMPI_File_create_errhandler");
    struct handler *h;
    int err;

    if (host_create == NULL)
        return MPI_ERR_INTERN;
    if ((fn == NULL && ffn == NULL) || errhandler == NULL)
        return MPI_ERR_ARG;
    h = malloc(sizeof(*h));
    if (h == NULL)
        return MPI_ERR_NO_MEM;
    err = host_create(fn ? fn : fortran_placeholder, errhandler);
    if (err != MPI_SUCCESS) {
        free(h);
        return err;
    }
    h->handle = *errhandler;
    h->fn = fn;
    h->ffn = ffn;
    h->refs = 1;
    h->next = handlers;
    handlers = h;
    return MPI_SUCCESS;
}

int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return create(fn, NULL, errhandler);
}

/* MPI_FILE_CREATE_ERRHANDLER(FUNCTION, ERRHANDLER, IERROR), under the names Fortran compilers
 * give it (gfortran: the lowercase one with one underscore). */
#define FORTRAN_CREATE(name)                                                                       \
    void name(fortran_handler_fn *fn, MPI_Fint *errhandler, MPI_Fint *ierr);                       \
    void name(fortran_handler_fn *fn, MPI_Fint *errhandler, MPI_Fint *ierr)                        \
    {                                                                                              \
        MPI_Errhandler eh = MPI_ERRHANDLER_NULL;                                                   \
        *ierr = (MPI_Fint)create(NULL, fn, &eh);                                                   \
        if (*ierr == MPI_SUCCESS)                                                                  \
            *errhandler = MPI_Errhandler_c2f(eh);                                                  \
    }
FORTRAN_CREATE(mpi_file_create_errhandler_)
FORTRAN_CREATE(mpi_file_create_errhandler__)
FORTRAN_CREATE(mpi_file_create_errhandler)
FORTRAN_CREATE(MPI_FILE_CREATE_ERRHANDLER)
FORTRAN_CREATE(pmpi_file_create_errhandler_)
FORTRAN_CREATE(pmpi_file_create_errhandler__)
FORTRAN_CREATE(pmpi_file_create_errhandler)
FORTRAN_CREATE(PMPI_FILE_CREATE_ERRHANDLER)

int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler errhandler)
{
    if (!valid_file(fh))
        return MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, "MPI_FILE_SET_ERRHANDLER",
                                    __LINE__, MPI_ERR_FILE, "**iobadfh", 0);
    if (!is_predefined(errhandler) && find_handler(errhandler) == NULL)
        return MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, "MPI_FILE_SET_ERRHANDLER",
                                    __LINE__, MPI_ERR_ARG, "**arg",
                                    "**arg not a file error handler");
    if (fh == MPI_FILE_NULL) {
        retain(errhandler);
        release(default_handle);
        default_handle = errhandler;
        ADIOI_DFLT_ERR_HANDLER = errhandler;
    } else {
        file_ref_set(fh, errhandler);
        MPIO_File_resolve(fh)->err_handler = errhandler;
    }
    return MPI_SUCCESS;
}

int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *errhandler)
{
    if (!valid_file(fh))
        return MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, "MPI_FILE_GET_ERRHANDLER",
                                    __LINE__, MPI_ERR_FILE, "**iobadfh", 0);
    if (errhandler == NULL)
        return MPI_ERR_ARG;
    *errhandler = fh == MPI_FILE_NULL ? ADIOI_DFLT_ERR_HANDLER : MPIO_File_resolve(fh)->err_handler;
    retain(*errhandler); /* the caller frees what it gets */
    return MPI_SUCCESS;
}

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    if (!valid_file(fh))
        return MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, "MPI_FILE_CALL_ERRHANDLER",
                                    __LINE__, MPI_ERR_FILE, "**iobadfh", 0);
    MPIO_Err_return_file(fh, errorcode);
    return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    host_free_fn *host_free;

    if (errhandler != NULL && find_handler(*errhandler) != NULL) {
        int err = release(*errhandler);
        *errhandler = MPI_ERRHANDLER_NULL;
        return err;
    }
    /* A predefined handler MPI_File_get_errhandler returned holds no host reference: Open MPI
     * counts references to its predefined objects too, and would free one at MPI_Finalize. */
    if (errhandler != NULL && is_predefined(*errhandler)) {
        *errhandler = MPI_ERRHANDLER_NULL;
        return MPI_SUCCESS;
    }
    host_free = (host_free_fn *)host_symbol("PMPI_Errhandler_free");
    return host_free ? host_free(errhandler) : MPI_ERR_INTERN;
}
