/*
 * edonio test: bad input at every MPI-IO entry point, while a file written at the start stays open.
 *
 * Each case makes one call with one bad argument (or bad state) and reports the MPI error class it
 * got. Collective cases are called by every rank, and every rank must get the same class. The run
 * script runs this program under the stock MPICH library (the reference: the classes MPICH's own
 * MPI-IO gives; over Open MPI, OMPIO, with its departures listed below the table), under edonio's
 * library with ROMIO's ufs driver, and under edonio, on one node and on simulated nodes, and
 * compares the classes case by case (run.sh). The program itself checks:
 *   - every rank of a collective call gets the same class;
 *   - with BADINPUT_NAMES_FILE=1 (edonio's library), the message of an error on a file names it;
 *   - nothing is lost: a 1 MiB file written before the bad calls and kept open through them is
 *     intact, byte for byte, after close; and the hint cases' files read back what was written.
 *
 *   t_badinput DIR      prints "case <group>/<name> <CLASS>" per case (rank 0), then the summary
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { KEEP_BYTES = 1 << 20, PATH_BYTES = 4096 };

struct ctx {
    int rank, nprocs;
    char dir[PATH_BYTES];
    char keep_name[PATH_BYTES]; /* written at the start, open throughout */
    char ro_name[PATH_BYTES];   /* an existing file, opened read-only */
    char scratch[PATH_BYTES];   /* a file a case may create and delete */
    MPI_File keep;
    MPI_Datatype uncommitted;  /* built, never committed */
    MPI_Datatype decreasing;   /* a filetype whose displacements go down */
    const char *file;          /* the file the current case's error should name, or NULL */
    char file_buf[PATH_BYTES]; /* a copy of it: cases build names in arrays of their own */
    int names_file;            /* BADINPUT_NAMES_FILE=1 */
    int on_stock;              /* BADINPUT_STOCK=1: the stock MPICH library runs this */
    int on_ompio;              /* BADINPUT_OMPIO=1: Open MPI's own MPI-IO (OMPIO) runs this */
    int errors;
};

typedef int (*case_fn)(struct ctx *);

struct bad_case {
    const char *name; /* group/name */
    case_fn fn;
    int expect; /* the class: the stock MPICH library's, or the standard's where it has none */
    const char *stock; /* NULL, or why the stock MPICH library cannot run it (then skipped there) */
    int mode;          /* enum handle_mode, for op */
    int (*op)(MPI_File);
};

static unsigned char pattern(MPI_Offset off)
{
    return (unsigned char)(off * 7 + (off >> 11) + 3);
}

static void path(char *dst, const struct ctx *c, const char *leaf)
{
    if (snprintf(dst, PATH_BYTES, "%s/%s", c->dir, leaf) >= PATH_BYTES) {
        fprintf(stderr, "t_badinput: directory name too long\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* ------------------------------------------------------------------ helpers for the cases */

static int open_file(struct ctx *c, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    snprintf(c->file_buf, sizeof(c->file_buf), "%s", name);
    c->file = c->file_buf;
    return MPI_File_open(MPI_COMM_WORLD, name, amode, info, fh);
}

/* An open that should fail: if it works, close the file again so the program goes on. */
static int open_fails(struct ctx *c, const char *name, int amode)
{
    MPI_File fh = MPI_FILE_NULL;
    int err = open_file(c, name, amode, MPI_INFO_NULL, &fh);
    if (err == MPI_SUCCESS)
        MPI_File_close(&fh);
    return err;
}

static char one_byte[16];

/* ------------------------------------------------------------------ open */

static int open_missing(struct ctx *c)
{
    char name[PATH_BYTES];
    path(name, c, "no-such-file");
    return open_fails(c, name, MPI_MODE_RDONLY);
}

static int open_missing_dir(struct ctx *c)
{
    char name[PATH_BYTES];
    path(name, c, "no-such-dir/file");
    return open_fails(c, name, MPI_MODE_CREATE | MPI_MODE_RDWR);
}

static int open_rdonly_rdwr(struct ctx *c)
{
    return open_fails(c, c->scratch, MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_CREATE);
}

static int open_no_access(struct ctx *c)
{
    return open_fails(c, c->scratch, MPI_MODE_CREATE);
}

static int open_rdonly_create(struct ctx *c)
{
    return open_fails(c, c->scratch, MPI_MODE_RDONLY | MPI_MODE_CREATE);
}

static int open_rdonly_excl(struct ctx *c)
{
    return open_fails(c, c->ro_name, MPI_MODE_RDONLY | MPI_MODE_EXCL);
}

static int open_rdwr_sequential(struct ctx *c)
{
    return open_fails(c, c->scratch, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL);
}

static int open_excl_exists(struct ctx *c)
{
    return open_fails(c, c->ro_name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL);
}

static int open_directory(struct ctx *c)
{
    return open_fails(c, c->dir, MPI_MODE_RDWR);
}

static int open_name_too_long(struct ctx *c)
{
    static char name[PATH_BYTES];
    int n = snprintf(name, sizeof(name), "%s/", c->dir);
    memset(name + n, 'x', 600); /* one component longer than NAME_MAX */
    name[n + 600] = '\0';
    return open_fails(c, name, MPI_MODE_RDWR | MPI_MODE_CREATE);
}

static int open_empty_name(struct ctx *c)
{
    return open_fails(c, "", MPI_MODE_RDWR | MPI_MODE_CREATE);
}

static int open_comm_null(struct ctx *c)
{
    MPI_File fh = MPI_FILE_NULL;
    c->file = NULL;
    int err = MPI_File_open(MPI_COMM_NULL, c->scratch, MPI_MODE_RDWR | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh);
    if (err == MPI_SUCCESS)
        MPI_File_close(&fh);
    return err;
}

static int open_amode_differs(struct ctx *c)
{
    int amode = c->rank == 0 ? MPI_MODE_RDWR : MPI_MODE_RDONLY;
    return open_fails(c, c->ro_name, amode);
}

static int open_bad_amode_bits(struct ctx *c)
{
    return open_fails(c, c->scratch, MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_CREATE);
}

static int delete_missing(struct ctx *c)
{
    char name[PATH_BYTES];
    int err = MPI_SUCCESS;
    path(name, c, "no-such-file-to-delete");
    c->file = NULL;
    if (c->rank == 0)
        err = MPI_File_delete(name, MPI_INFO_NULL);
    MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return err == MPI_SUCCESS ? MPI_SUCCESS : err;
}

/* ------------------------------------------------------------------ data calls on the kept file */

static int on_keep(struct ctx *c)
{
    c->file = c->keep_name;
    return 0;
}

/* An independent write_at (writing) or read_at of one_byte on the kept file. */
static int at_keep(struct ctx *c, int writing, MPI_Offset off, int count, MPI_Datatype type)
{
    on_keep(c);
    return writing ? MPI_File_write_at(c->keep, off, one_byte, count, type, MPI_STATUS_IGNORE)
                   : MPI_File_read_at(c->keep, off, one_byte, count, type, MPI_STATUS_IGNORE);
}

static int write_negative_count(struct ctx *c)
{
    return at_keep(c, 1, 0, -1, MPI_BYTE);
}

static int read_negative_count(struct ctx *c)
{
    return at_keep(c, 0, 0, -1, MPI_BYTE);
}

static int write_negative_offset(struct ctx *c)
{
    return at_keep(c, 1, -1, 1, MPI_BYTE);
}

static int read_negative_offset(struct ctx *c)
{
    return at_keep(c, 0, -1, 1, MPI_BYTE);
}

static int write_type_null(struct ctx *c)
{
    return at_keep(c, 1, 0, 1, MPI_DATATYPE_NULL);
}

static int read_type_null(struct ctx *c)
{
    return at_keep(c, 0, 0, 1, MPI_DATATYPE_NULL);
}

static int write_uncommitted(struct ctx *c)
{
    return at_keep(c, 1, 0, 1, c->uncommitted);
}

static int read_uncommitted(struct ctx *c)
{
    return at_keep(c, 0, 0, 1, c->uncommitted);
}

static int write_ptr_uncommitted(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write(c->keep, one_byte, 1, c->uncommitted, MPI_STATUS_IGNORE);
}

static int iwrite_uncommitted(struct ctx *c)
{
    MPI_Request req = MPI_REQUEST_NULL;
    on_keep(c);
    int err = MPI_File_iwrite_at(c->keep, 0, one_byte, 1, c->uncommitted, &req);
    if (err == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    return err;
}

static int iread_negative_offset(struct ctx *c)
{
    MPI_Request req = MPI_REQUEST_NULL;
    on_keep(c);
    int err = MPI_File_iread_at(c->keep, -5, one_byte, 1, MPI_BYTE, &req);
    if (err == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    return err;
}

static int write_all_uncommitted(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write_at_all(c->keep, 0, one_byte, 1, c->uncommitted, MPI_STATUS_IGNORE);
}

static int read_all_type_null(struct ctx *c)
{
    on_keep(c);
    return MPI_File_read_at_all(c->keep, 0, one_byte, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE);
}

static int write_all_negative_count(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write_at_all(c->keep, 0, one_byte, -3, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int write_all_negative_offset(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write_at_all(c->keep, -8, one_byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int read_shared_negative_count(struct ctx *c)
{
    on_keep(c);
    return MPI_File_read_shared(c->keep, one_byte, -1, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int write_shared_type_null(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write_shared(c->keep, one_byte, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE);
}

static int write_ordered_uncommitted(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write_ordered(c->keep, one_byte, 1, c->uncommitted, MPI_STATUS_IGNORE);
}

static int write_all_begin_twice(struct ctx *c)
{
    on_keep(c);
    MPI_Offset off = (MPI_Offset)KEEP_BYTES + c->rank;
    one_byte[0] = pattern(off);
    MPI_File_write_at_all_begin(c->keep, off, one_byte, 1, MPI_BYTE);
    int err = MPI_File_write_at_all_begin(c->keep, off, one_byte, 1, MPI_BYTE);
    MPI_File_write_at_all_end(c->keep, one_byte, MPI_STATUS_IGNORE);
    return err;
}

static int write_all_end_alone(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write_all_end(c->keep, one_byte, MPI_STATUS_IGNORE);
}

static int seek_bad_whence(struct ctx *c)
{
    on_keep(c);
    return MPI_File_seek(c->keep, 0, 12345);
}

static int seek_negative(struct ctx *c)
{
    on_keep(c);
    return MPI_File_seek(c->keep, -100, MPI_SEEK_SET);
}

static int seek_shared_bad_whence(struct ctx *c)
{
    on_keep(c);
    return MPI_File_seek_shared(c->keep, 0, 999);
}

static int byte_offset_negative(struct ctx *c)
{
    MPI_Offset disp;
    on_keep(c);
    return MPI_File_get_byte_offset(c->keep, -1, &disp);
}

static int type_extent_null(struct ctx *c)
{
    MPI_Aint extent;
    on_keep(c);
    return MPI_File_get_type_extent(c->keep, MPI_DATATYPE_NULL, &extent);
}

/* Offsets the file can never hold: the class ufs gives, at the call, and nothing cached. */
static int write_offset_overflows(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write_at(c->keep, INT64_MAX - 2, one_byte, 16, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int write_offset_too_far(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write_at(c->keep, (MPI_Offset)1 << 50, one_byte, 16, MPI_BYTE,
                             MPI_STATUS_IGNORE);
}

static int write_all_offset_too_far(struct ctx *c)
{
    on_keep(c);
    return MPI_File_write_at_all(c->keep, ((MPI_Offset)1 << 50) + c->rank * 16, one_byte, 16,
                                 MPI_BYTE, MPI_STATUS_IGNORE);
}

static int read_offset_overflows(struct ctx *c)
{
    on_keep(c);
    return MPI_File_read_at(c->keep, INT64_MAX - 2, one_byte, 16, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int read_offset_too_far(struct ctx *c)
{
    on_keep(c);
    return MPI_File_read_at(c->keep, (MPI_Offset)1 << 50, one_byte, 16, MPI_BYTE,
                            MPI_STATUS_IGNORE);
}

static int write_file_null(struct ctx *c)
{
    c->file = NULL;
    return MPI_File_write_at(MPI_FILE_NULL, 0, one_byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int read_file_null(struct ctx *c)
{
    c->file = NULL;
    return MPI_File_read(MPI_FILE_NULL, one_byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int size_file_null(struct ctx *c)
{
    MPI_Offset size;
    c->file = NULL;
    return MPI_File_get_size(MPI_FILE_NULL, &size);
}

static int close_file_null(struct ctx *c)
{
    MPI_File fh = MPI_FILE_NULL;
    c->file = NULL;
    return MPI_File_close(&fh);
}

static int info_file_null(struct ctx *c)
{
    MPI_Info info;
    c->file = NULL;
    return MPI_File_get_info(MPI_FILE_NULL, &info);
}

static int view_file_null(struct ctx *c)
{
    MPI_Offset disp;
    MPI_Datatype e, f;
    char rep[MPI_MAX_DATAREP_STRING];
    c->file = NULL;
    return MPI_File_get_view(MPI_FILE_NULL, &disp, &e, &f, rep);
}

static int sync_file_null(struct ctx *c)
{
    c->file = NULL;
    return MPI_File_sync(MPI_FILE_NULL);
}

/* ------------------------------------------------------------------ views */

static int view_etype_null(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_view(c->keep, 0, MPI_DATATYPE_NULL, MPI_BYTE, "native", MPI_INFO_NULL);
}

static int view_filetype_uncommitted(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_view(c->keep, 0, MPI_BYTE, c->uncommitted, "native", MPI_INFO_NULL);
}

static int view_negative_disp(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_view(c->keep, -64, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
}

static int view_bad_datarep(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_view(c->keep, 0, MPI_BYTE, MPI_BYTE, "no-such-rep", MPI_INFO_NULL);
}

static int view_not_multiple(struct ctx *c)
{
    MPI_Datatype t;
    on_keep(c);
    MPI_Type_contiguous(3, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    int err = MPI_File_set_view(c->keep, 0, MPI_INT, t, "native", MPI_INFO_NULL);
    MPI_Type_free(&t);
    return err;
}

static int view_disp_current(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_view(c->keep, MPI_DISPLACEMENT_CURRENT, MPI_BYTE, MPI_BYTE, "native",
                             MPI_INFO_NULL);
}

static int view_decreasing(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_view(c->keep, 0, MPI_BYTE, c->decreasing, "native", MPI_INFO_NULL);
}

/* After the bad views: back to bytes (must work). */
static int view_restore(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_view(c->keep, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
}

/* ------------------------------------------------------------------ sizes, modes, state */

static int set_size_negative(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_size(c->keep, -1);
}

static int set_size_differs(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_size(c->keep, KEEP_BYTES * 2 + c->rank);
}

static int preallocate_negative(struct ctx *c)
{
    on_keep(c);
    return MPI_File_preallocate(c->keep, -10);
}

static int atomicity_differs(struct ctx *c)
{
    on_keep(c);
    return MPI_File_set_atomicity(c->keep, c->rank == 0);
}

/* The handles the mode cases work on: MODE_RDONLY an existing file, the others a scratch file. */
enum handle_mode { NO_HANDLE, READ_ONLY, WRITE_ONLY, SEQUENTIAL };

/* Open a handle in 'mode', do op on it, close it: op's error. */
static int on_handle(struct ctx *c, enum handle_mode mode, int (*op)(MPI_File))
{
    static const int amodes[] = {0, MPI_MODE_RDONLY, MPI_MODE_WRONLY | MPI_MODE_CREATE,
                                 MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL};
    const char *name = mode == READ_ONLY ? c->ro_name : c->scratch;
    MPI_File fh;
    int err = open_file(c, name, amodes[mode], MPI_INFO_NULL, &fh);

    if (err != MPI_SUCCESS) {
        fprintf(stderr, "opening %s (access mode %d) failed\n", name, amodes[mode]);
        c->errors++;
        return err;
    }
    err = op(fh);
    MPI_File_close(&fh);
    c->file = name;
    return err;
}

static int op_write(MPI_File fh)
{
    return MPI_File_write_at(fh, 0, one_byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int op_write_all(MPI_File fh)
{
    return MPI_File_write_at_all(fh, 0, one_byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int op_set_size(MPI_File fh)
{
    return MPI_File_set_size(fh, 10);
}

static int op_preallocate(MPI_File fh)
{
    return MPI_File_preallocate(fh, 1 << 20);
}

static int op_iwrite(MPI_File fh)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int err = MPI_File_iwrite_at(fh, 0, one_byte, 1, MPI_BYTE, &req);
    if (err == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    return err;
}

static int op_read(MPI_File fh)
{
    return MPI_File_read_at(fh, 0, one_byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int op_read_all(MPI_File fh)
{
    return MPI_File_read_all(fh, one_byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}

static int op_iread(MPI_File fh)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int err = MPI_File_iread(fh, one_byte, 1, MPI_BYTE, &req);
    if (err == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    return err;
}

static int op_seek(MPI_File fh)
{
    return MPI_File_seek(fh, 0, MPI_SEEK_SET);
}

static int op_get_position(MPI_File fh)
{
    MPI_Offset pos;
    return MPI_File_get_position(fh, &pos);
}

static int op_write_individual(MPI_File fh)
{
    return MPI_File_write(fh, one_byte, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}

/* ------------------------------------------------------------------ hints: accepted, with the
 * documented value in effect, and the file works */

static int with_hint(struct ctx *c, const char *key, const char *value, int differ)
{
    MPI_Info info;
    MPI_File fh;
    char name[PATH_BYTES], leaf[128], v[64];
    unsigned char out[4096], back[4096];

    snprintf(leaf, sizeof(leaf), "hint-%s", key);
    path(name, c, leaf);
    MPI_Info_create(&info);
    if (differ && c->rank > 0) {
        snprintf(v, sizeof(v), "%s%d", value, c->rank);
        MPI_Info_set(info, key, v);
    } else {
        MPI_Info_set(info, key, value);
    }
    int err = open_file(c, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    if (err != MPI_SUCCESS)
        return err;
    for (int i = 0; i < (int)sizeof(out); i++)
        out[i] = (unsigned char)(i + c->rank);
    MPI_Offset off = (MPI_Offset)c->rank * 100003;
    int werr = MPI_File_write_at(fh, off, out, sizeof(out), MPI_BYTE, MPI_STATUS_IGNORE);
    int cerr = MPI_File_close(&fh);
    if (werr != MPI_SUCCESS || cerr != MPI_SUCCESS) {
        fprintf(stderr, "hint %s=%s: write or close failed\n", key, value);
        c->errors++;
        return werr != MPI_SUCCESS ? werr : cerr;
    }
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_read_at(fh, off, back, sizeof(back), MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    if (memcmp(out, back, sizeof(out)) != 0) {
        fprintf(stderr, "hint %s=%s: data read back differs\n", key, value);
        c->errors++;
    }
    if (c->rank == 0)
        MPI_File_delete(name, MPI_INFO_NULL);
    return MPI_SUCCESS;
}

#define HINT_CASE(fn, key, value, differ)                                                          \
    static int fn(struct ctx *c)                                                                   \
    {                                                                                              \
        return with_hint(c, key, value, differ);                                                   \
    }

HINT_CASE(hint_block_zero, "romio_edonio_block_size", "0", 0)
HINT_CASE(hint_block_odd, "romio_edonio_block_size", "3", 0)
HINT_CASE(hint_block_negative, "romio_edonio_block_size", "-65536", 0)
HINT_CASE(hint_block_text, "romio_edonio_block_size", "big", 0)
HINT_CASE(hint_block_huge, "romio_edonio_block_size", "1099511627776", 0)
HINT_CASE(hint_block_differs, "romio_edonio_block_size", "1638", 1)
HINT_CASE(hint_cache_negative, "romio_edonio_cache_size", "-5", 0)
HINT_CASE(hint_cache_huge, "romio_edonio_cache_size", "1099511627776", 0)
HINT_CASE(hint_cache_64g, "romio_edonio_cache_size", "68719476736", 0)
HINT_CASE(hint_remote_huge, "romio_edonio_remote_cache_size", "1099511627776", 0)
HINT_CASE(hint_atomicity_bogus, "romio_edonio_atomicity", "sometimes", 0)
HINT_CASE(hint_preload_maybe, "romio_edonio_preload", "maybe", 0)
HINT_CASE(hint_flush_groups_zero, "romio_edonio_flush_groups", "0", 0)
HINT_CASE(hint_cb_buffer_text, "cb_buffer_size", "lots", 0)
HINT_CASE(hint_unknown_key, "romio_edonio_no_such_hint", "1", 0)

/* ------------------------------------------------------------------ the table */

static const struct bad_case cases[] = {
    {"open/missing", open_missing, MPI_ERR_NO_SUCH_FILE, NULL, NO_HANDLE, NULL},
    {"open/missing-dir", open_missing_dir, MPI_ERR_NO_SUCH_FILE, NULL, NO_HANDLE, NULL},
    {"open/rdonly+rdwr", open_rdonly_rdwr, MPI_ERR_AMODE, NULL, NO_HANDLE, NULL},
    {"open/no-access-mode", open_no_access, MPI_ERR_AMODE, NULL, NO_HANDLE, NULL},
    {"open/rdonly+create", open_rdonly_create, MPI_ERR_AMODE, NULL, NO_HANDLE, NULL},
    {"open/rdonly+excl", open_rdonly_excl, MPI_ERR_AMODE, NULL, NO_HANDLE, NULL},
    {"open/rdwr+sequential", open_rdwr_sequential, MPI_ERR_AMODE, NULL, NO_HANDLE, NULL},
    {"open/excl-exists", open_excl_exists, MPI_ERR_FILE_EXISTS, NULL, NO_HANDLE, NULL},
    {"open/directory", open_directory, MPI_ERR_BAD_FILE, NULL, NO_HANDLE, NULL},
    {"open/name-too-long", open_name_too_long, MPI_ERR_BAD_FILE, NULL, NO_HANDLE, NULL},
    {"open/empty-name", open_empty_name, MPI_ERR_NO_SUCH_FILE, NULL, NO_HANDLE, NULL},
    {"open/comm-null", open_comm_null, MPI_ERR_COMM, NULL, NO_HANDLE, NULL},
    {"open/amode-differs", open_amode_differs, MPI_ERR_NOT_SAME, NULL, NO_HANDLE, NULL},
    {"open/wronly+rdwr", open_bad_amode_bits, MPI_ERR_AMODE, NULL, NO_HANDLE, NULL},
    {"open/delete-missing", delete_missing, MPI_ERR_NO_SUCH_FILE, NULL, NO_HANDLE, NULL},
    {"data/write-negative-count", write_negative_count, MPI_ERR_COUNT, NULL, NO_HANDLE, NULL},
    {"data/read-negative-count", read_negative_count, MPI_ERR_COUNT, NULL, NO_HANDLE, NULL},
    {"data/write-negative-offset", write_negative_offset, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"data/read-negative-offset", read_negative_offset, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"data/write-type-null", write_type_null, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"data/read-type-null", read_type_null, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"data/write-uncommitted", write_uncommitted, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"data/read-uncommitted", read_uncommitted, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"data/write-ptr-uncommitted", write_ptr_uncommitted, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"data/iwrite-uncommitted", iwrite_uncommitted, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"data/iread-negative-offset", iread_negative_offset, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"data/write-all-uncommitted", write_all_uncommitted, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"data/read-all-type-null", read_all_type_null, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"data/write-all-negative-count", write_all_negative_count, MPI_ERR_COUNT, NULL, NO_HANDLE,
     NULL},
    {"data/write-all-negative-offset", write_all_negative_offset, MPI_ERR_ARG, NULL, NO_HANDLE,
     NULL},
    {"data/read-shared-negative-count", read_shared_negative_count, MPI_ERR_COUNT, NULL, NO_HANDLE,
     NULL},
    {"data/write-shared-type-null", write_shared_type_null, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"data/write-ordered-uncommitted", write_ordered_uncommitted, MPI_ERR_TYPE, NULL, NO_HANDLE,
     NULL},
    {"data/write-all-begin-twice", write_all_begin_twice, MPI_ERR_IO, NULL, NO_HANDLE, NULL},
    {"data/write-all-end-alone", write_all_end_alone, MPI_ERR_IO, NULL, NO_HANDLE, NULL},
    {"data/seek-bad-whence", seek_bad_whence, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"data/seek-negative", seek_negative, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"data/seek-shared-bad-whence", seek_shared_bad_whence, MPI_ERR_ARG,
     "ROMIO 4.0.2 checks whence on rank 0 only; the other ranks wait in MPI_Bcast forever",
     NO_HANDLE, NULL},
    {"data/byte-offset-negative", byte_offset_negative, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"data/type-extent-null", type_extent_null, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"offset/write-overflows", write_offset_overflows, MPI_ERR_IO, NULL, NO_HANDLE, NULL},
    {"offset/write-too-far", write_offset_too_far, MPI_ERR_IO, NULL, NO_HANDLE, NULL},
    {"offset/write-all-too-far", write_all_offset_too_far, MPI_ERR_IO, NULL, NO_HANDLE, NULL},
    {"offset/read-overflows", read_offset_overflows, MPI_ERR_IO, NULL, NO_HANDLE, NULL},
    {"offset/read-too-far", read_offset_too_far, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"handle/write-file-null", write_file_null, MPI_ERR_FILE, NULL, NO_HANDLE, NULL},
    {"handle/read-file-null", read_file_null, MPI_ERR_FILE, NULL, NO_HANDLE, NULL},
    {"handle/size-file-null", size_file_null, MPI_ERR_FILE, NULL, NO_HANDLE, NULL},
    {"handle/close-file-null", close_file_null, MPI_ERR_FILE, NULL, NO_HANDLE, NULL},
    {"handle/info-file-null", info_file_null, MPI_ERR_FILE, NULL, NO_HANDLE, NULL},
    {"handle/view-file-null", view_file_null, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"handle/sync-file-null", sync_file_null, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"view/etype-null", view_etype_null, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"view/filetype-uncommitted", view_filetype_uncommitted, MPI_ERR_TYPE, NULL, NO_HANDLE, NULL},
    {"view/negative-disp", view_negative_disp, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"view/bad-datarep", view_bad_datarep, MPI_ERR_UNSUPPORTED_DATAREP, NULL, NO_HANDLE, NULL},
    {"view/not-multiple-of-etype", view_not_multiple, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"view/disp-current", view_disp_current, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"view/decreasing", view_decreasing, MPI_ERR_IO, NULL, NO_HANDLE, NULL},
    {"view/restore", view_restore, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"size/set-size-negative", set_size_negative, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"size/set-size-differs", set_size_differs, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"size/preallocate-negative", preallocate_negative, MPI_ERR_ARG, NULL, NO_HANDLE, NULL},
    {"size/atomicity-differs", atomicity_differs, MPI_ERR_ARG,
     "ROMIO 4.0.2 compares with rank 0 flag only: rank 0 returns success", NO_HANDLE, NULL},
    {"mode/rdonly-write", NULL, MPI_ERR_READ_ONLY, NULL, READ_ONLY, op_write},
    {"mode/rdonly-write-all", NULL, MPI_ERR_READ_ONLY, NULL, READ_ONLY, op_write_all},
    {"mode/rdonly-set-size", NULL, MPI_ERR_READ_ONLY, NULL, READ_ONLY, op_set_size},
    {"mode/rdonly-preallocate", NULL, MPI_ERR_READ_ONLY,
     "ROMIO 4.0.2 preallocates on rank 0 alone: only rank 0 fails, with MPI_ERR_IO", READ_ONLY,
     op_preallocate},
    {"mode/rdonly-iwrite", NULL, MPI_ERR_READ_ONLY, NULL, READ_ONLY, op_iwrite},
    {"mode/wronly-read", NULL, MPI_ERR_ACCESS, NULL, WRITE_ONLY, op_read},
    {"mode/wronly-read-all", NULL, MPI_ERR_ACCESS, NULL, WRITE_ONLY, op_read_all},
    {"mode/wronly-iread", NULL, MPI_ERR_ACCESS, NULL, WRITE_ONLY, op_iread},
    {"mode/sequential-write-at", NULL, MPI_ERR_UNSUPPORTED_OPERATION, NULL, SEQUENTIAL, op_write},
    {"mode/sequential-write-at-all", NULL, MPI_ERR_UNSUPPORTED_OPERATION, NULL, SEQUENTIAL,
     op_write_all},
    {"mode/sequential-seek", NULL, MPI_ERR_UNSUPPORTED_OPERATION, NULL, SEQUENTIAL, op_seek},
    {"mode/sequential-get-position", NULL, MPI_SUCCESS, NULL, SEQUENTIAL, op_get_position},
    {"mode/sequential-write", NULL, MPI_ERR_UNSUPPORTED_OPERATION, NULL, SEQUENTIAL,
     op_write_individual},
    {"mode/sequential-set-size", NULL, MPI_ERR_UNSUPPORTED_OPERATION, NULL, SEQUENTIAL,
     op_set_size},
    {"hints/block-size-0", hint_block_zero, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/block-size-3", hint_block_odd, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/block-size-negative", hint_block_negative, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/block-size-text", hint_block_text, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/block-size-1TiB", hint_block_huge, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/block-size-differs", hint_block_differs, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/cache-size-negative", hint_cache_negative, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/cache-size-1TiB", hint_cache_huge, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/cache-size-64GiB", hint_cache_64g, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/remote-cache-size-1TiB", hint_remote_huge, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/atomicity-bogus", hint_atomicity_bogus, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/preload-maybe", hint_preload_maybe, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/flush-groups-0", hint_flush_groups_zero, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/cb-buffer-size-text", hint_cb_buffer_text, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
    {"hints/unknown-key", hint_unknown_key, MPI_SUCCESS, NULL, NO_HANDLE, NULL},
};

/*
 * Where Open MPI's own MPI-IO (OMPIO, Open MPI 4.1) departs from the class above. Under Open MPI
 * the run script runs this program on OMPIO first (BADINPUT_OMPIO=1): every case not listed here
 * must give the class of the table, so OMPIO is the reference wherever it follows the standard; a
 * case listed with a class must give that class (so a change in OMPIO is noticed), and one listed
 * with SKIP_ON_OMPIO is not run there, and one with RANKS_DIFFER_ON_OMPIO must give the ranks
 * different classes. edonio's library, over either MPI, gives the table's class.
 */
enum { SKIP_ON_OMPIO = -1, RANKS_DIFFER_ON_OMPIO = -2 };

static const struct {
    const char *name;
    int cls;
    const char *why;
} ompio_departs[] = {
    {"open/name-too-long", SKIP_ON_OMPIO,
     "its sharedfp components sprintf the name into a fixed buffer: the process aborts"},
    {"open/amode-differs", MPI_SUCCESS, "it does not compare the access modes of the ranks"},
    {"data/write-negative-offset", MPI_SUCCESS,
     "it passes the offset to pwritev, prints its EINVAL and returns success"},
    {"data/read-negative-offset", MPI_SUCCESS,
     "it passes the offset to preadv, prints its EINVAL and returns success"},
    {"data/iread-negative-offset", SKIP_ON_OMPIO,
     "the failed request's error handler dereferences NULL: the process crashes"},
    {"data/write-all-negative-offset", MPI_SUCCESS,
     "it passes the offset to pwritev, prints its EINVAL and returns success"},
    {"data/write-all-begin-twice", MPI_ERR_REQUEST, "the standard names no class"},
    {"data/write-all-end-alone", MPI_SUCCESS, "it does not check that a split call began"},
    {"data/seek-negative", MPI_ERR_OTHER, "the standard's MPI_ERR_ARG would say more"},
    {"data/byte-offset-negative", MPI_ERR_ARG,
     "it checks the offset, which ROMIO does not: OMPIO's class is the better one"},
    {"offset/write-overflows", MPI_SUCCESS, "pwritev's EFBIG or EINVAL is printed, not returned"},
    {"offset/write-too-far", MPI_SUCCESS, "pwritev's EFBIG is printed, not returned"},
    {"offset/write-all-too-far", MPI_SUCCESS, "pwritev's EFBIG is printed, not returned"},
    {"offset/read-overflows", MPI_SUCCESS, "preadv's EINVAL is printed, not returned"},
    {"handle/info-file-null", MPI_ERR_COMM, "the standard's class is MPI_ERR_FILE"},
    {"handle/view-file-null", MPI_ERR_FILE,
     "it checks the handle, which ROMIO does not: OMPIO's class is the standard's"},
    {"handle/sync-file-null", MPI_ERR_FILE, "OMPIO's class is the standard's; ROMIO's is not"},
    {"view/etype-null", MPI_ERR_TYPE, "the standard names no class: both are fair"},
    {"view/negative-disp", MPI_SUCCESS, "it does not check the displacement"},
    {"view/disp-current", MPI_ERR_DISP, "the standard names no class: both are fair"},
    {"view/decreasing", MPI_ERR_TYPE, "the standard names no class: OMPIO's says more"},
    {"size/set-size-negative", MPI_ERR_OTHER, "the standard's MPI_ERR_ARG would say more"},
    {"size/set-size-differs", SKIP_ON_OMPIO, "the ranks' sizes are not compared: the job hangs"},
    {"size/preallocate-negative", MPI_SUCCESS, "it does not check the size"},
    {"size/atomicity-differs", RANKS_DIFFER_ON_OMPIO,
     "the ranks are not compared: one rank gets success, another MPI_ERR_OTHER"},
    {"mode/rdonly-set-size", MPI_ERR_OTHER, "ftruncate's EBADF or EINVAL comes back as OTHER"},
    {"mode/sequential-write-at", MPI_SUCCESS, "it does not check MPI_MODE_SEQUENTIAL"},
    {"mode/sequential-write-at-all", MPI_SUCCESS, "it does not check MPI_MODE_SEQUENTIAL"},
    {"mode/sequential-seek", MPI_SUCCESS, "it does not check MPI_MODE_SEQUENTIAL"},
    {"mode/sequential-write", MPI_SUCCESS, "it does not check MPI_MODE_SEQUENTIAL"},
    {"mode/sequential-set-size", MPI_SUCCESS, "it does not check MPI_MODE_SEQUENTIAL"},
};

/* ------------------------------------------------------------------ reporting */

static const char *class_name(int cls)
{
    static const struct {
        int cls;
        const char *name;
    } names[] = {
        {MPI_SUCCESS, "MPI_SUCCESS"},
        {MPI_ERR_ACCESS, "MPI_ERR_ACCESS"},
        {MPI_ERR_AMODE, "MPI_ERR_AMODE"},
        {MPI_ERR_ARG, "MPI_ERR_ARG"},
        {MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE"},
        {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
        {MPI_ERR_COMM, "MPI_ERR_COMM"},
        {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
        {MPI_ERR_DISP, "MPI_ERR_DISP"},
        {MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP"},
        {MPI_ERR_FILE, "MPI_ERR_FILE"},
        {MPI_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS"},
        {MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE"},
        {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE"},
        {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
        {MPI_ERR_IO, "MPI_ERR_IO"},
        {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM"},
        {MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE"},
        {MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE"},
        {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME"},
        {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
        {MPI_ERR_QUOTA, "MPI_ERR_QUOTA"},
        {MPI_ERR_READ_ONLY, "MPI_ERR_READ_ONLY"},
        {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
        {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
        {MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP"},
        {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION"},
    };
    static char other[32];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].cls == cls)
            return names[i].name;
    snprintf(other, sizeof(other), "class-%d", cls);
    return other;
}

static void run_case(struct ctx *c, const struct bad_case *bc)
{
    int cls = MPI_SUCCESS, lo, hi, expect = bc->expect;

    c->file = NULL;
    if (c->on_stock && bc->stock != NULL) {
        if (c->rank == 0)
            printf("case %s SKIP (stock MPICH: %s)\n", bc->name, bc->stock);
        return;
    }
    for (size_t i = 0; c->on_ompio && i < sizeof(ompio_departs) / sizeof(ompio_departs[0]); i++) {
        if (strcmp(ompio_departs[i].name, bc->name) != 0)
            continue;
        if (ompio_departs[i].cls == SKIP_ON_OMPIO) {
            if (c->rank == 0)
                printf("case %s SKIP (OMPIO: %s)\n", bc->name, ompio_departs[i].why);
            return;
        }
        expect = ompio_departs[i].cls;
        if (c->rank == 0)
            printf("case %s OMPIO departs: %s\n", bc->name, ompio_departs[i].why);
    }
    int err = bc->fn ? bc->fn(c) : on_handle(c, bc->mode, bc->op);
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    MPI_Allreduce(&cls, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (expect == RANKS_DIFFER_ON_OMPIO) {
        if (lo == hi && c->rank == 0) {
            fprintf(stderr, "%s: every rank got %s, not different classes\n", bc->name,
                    class_name(hi));
            c->errors++;
        }
    } else if (lo != hi && c->rank == 0) {
        fprintf(stderr, "%s: ranks got different classes (%s and %s)\n", bc->name, class_name(lo),
                class_name(hi));
        c->errors++;
    } else if (hi != expect && c->rank == 0) {
        fprintf(stderr, "%s: got %s, expected %s\n", bc->name, class_name(hi), class_name(expect));
        c->errors++;
    }
    if (err != MPI_SUCCESS && c->names_file && c->file != NULL) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        const char *leaf = strrchr(c->file, '/');
        char start[65];
        MPI_Error_string(err, text, &len);
        /* the start of its last component: a long name may be cut at MPI_MAX_ERROR_STRING */
        snprintf(start, sizeof(start), "%s", leaf ? leaf + 1 : c->file);
        if (strstr(text, start) == NULL) {
            fprintf(stderr, "%s: the message does not name the file: %s\n", bc->name, text);
            c->errors++;
        }
    }
    if (c->rank == 0)
        printf("case %s %s\n", bc->name, class_name(hi));
}

/* ------------------------------------------------------------------ the kept file */

static void write_keep(struct ctx *c)
{
    int per = KEEP_BYTES / c->nprocs;
    unsigned char *buf = malloc(KEEP_BYTES);
    MPI_Offset start = (MPI_Offset)per * c->rank;
    int len = c->rank == c->nprocs - 1 ? KEEP_BYTES - per * c->rank : per;

    for (int i = 0; i < len; i++)
        buf[i] = pattern(start + i);
    /* small pieces, so that they sit in the cache when the bad calls come */
    for (int done = 0; done < len; done += 1000) {
        int n = len - done < 1000 ? len - done : 1000;
        MPI_File_write_at(c->keep, start + done, buf + done, n, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    free(buf);
}

static void check_keep(struct ctx *c)
{
    MPI_File fh;
    MPI_Offset size = 0;
    unsigned char *buf = malloc(KEEP_BYTES + 64);
    MPI_Status st;
    int got = 0;

    MPI_File_open(MPI_COMM_WORLD, c->keep_name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_get_size(fh, &size);
    MPI_File_read_at(fh, 0, buf, KEEP_BYTES, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &got);
    MPI_File_close(&fh);
    if (got != KEEP_BYTES) {
        fprintf(stderr, "kept file: read %d bytes of %d\n", got, KEEP_BYTES);
        c->errors++;
    }
    for (int i = 0; i < got; i++)
        if (buf[i] != pattern(i)) {
            fprintf(stderr, "kept file: byte %d is %d, not %d\n", i, buf[i], pattern(i));
            c->errors++;
            break;
        }
    /* Nothing the rejected calls asked for reached it: no write past 2^40 grew it. */
    if (size > ((MPI_Offset)1 << 40)) {
        fprintf(stderr, "kept file: size %lld after rejected writes\n", (long long)size);
        c->errors++;
    }
    free(buf);
}

static void make_types(struct ctx *c)
{
    int lens[2] = {4, 4};
    MPI_Aint disps[2] = {8, 0};
    MPI_Type_contiguous(4, MPI_INT, &c->uncommitted);
    MPI_Type_create_hindexed(2, lens, disps, MPI_BYTE, &c->decreasing);
    MPI_Type_commit(&c->decreasing);
}

int main(int argc, char **argv)
{
    struct ctx c = {0};
    int total, ncases = (int)(sizeof(cases) / sizeof(cases[0]));

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nprocs);
    if (argc != 2 || strlen(argv[1]) >= PATH_BYTES - 700) {
        if (c.rank == 0)
            fprintf(stderr, "usage: t_badinput DIR (shorter than %d bytes)\n", PATH_BYTES - 700);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    c.names_file = getenv("BADINPUT_NAMES_FILE") && atoi(getenv("BADINPUT_NAMES_FILE"));
    c.on_stock = getenv("BADINPUT_STOCK") && atoi(getenv("BADINPUT_STOCK"));
    c.on_ompio = getenv("BADINPUT_OMPIO") && atoi(getenv("BADINPUT_OMPIO"));
    snprintf(c.dir, sizeof(c.dir), "%s", argv[1]);
    path(c.keep_name, &c, "kept");
    path(c.ro_name, &c, "readonly");
    path(c.scratch, &c, "scratch");
    make_types(&c);

    MPI_File_open(MPI_COMM_WORLD, c.ro_name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                  &c.keep);
    MPI_File_write_at_all(c.keep, c.rank, "r", 1, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_close(&c.keep);
    if (MPI_File_open(MPI_COMM_WORLD, c.keep_name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &c.keep) != MPI_SUCCESS) {
        fprintf(stderr, "cannot open %s\n", c.keep_name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_size(c.keep, 0);
    write_keep(&c);

    for (int i = 0; i < ncases; i++)
        run_case(&c, &cases[i]);

    if (MPI_File_close(&c.keep) != MPI_SUCCESS) {
        fprintf(stderr, "closing the kept file failed\n");
        c.errors++;
    }
    check_keep(&c);
    MPI_Type_free(&c.uncommitted);
    MPI_Type_free(&c.decreasing);
    MPI_Allreduce(&c.errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (c.rank == 0)
        printf(total == 0 ? " No Errors (%d cases)\n" : " Found %d errors\n",
               total == 0 ? ncases : total);
    MPI_Finalize();
    return total != 0;
}
