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
 * Limitation: a handler created from Fortran is called with C arguments.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "adio.h"
#include "adio_extern.h"
#include "glue.h"

struct handler {
    MPI_Errhandler handle;
    MPI_File_errhandler_function *fn;
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
    h->fn(&fh, error_code);
    return MPI_SUCCESS;
}

/* A file handle ROMIO made, or MPI_FILE_NULL. */
static int valid_file(MPI_File fh)
{
    return fh == MPI_FILE_NULL || MPIO_File_resolve(fh)->cookie == ADIOI_FILE_COOKIE;
}

int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    host_create_fn *host_create = (host_create_fn *)host_symbol("PMPI_File_create_errhandler");
    struct handler *h;
    int err;

    if (host_create == NULL)
        return MPI_ERR_INTERN;
    if (fn == NULL || errhandler == NULL)
        return MPI_ERR_ARG;
    h = malloc(sizeof(*h));
    if (h == NULL)
        return MPI_ERR_NO_MEM;
    err = host_create(fn, errhandler);
    if (err != MPI_SUCCESS) {
        free(h);
        return err;
    }
    h->handle = *errhandler;
    h->fn = fn;
    h->refs = 1;
    h->next = handlers;
    handlers = h;
    return MPI_SUCCESS;
}

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
