/*
 * edonio: independent reads and writes, the ADIO entry points.
 *
 * Contiguous requests go to the cache as they are; strided ones (any file view, any buffer type)
 * are flattened once and each extent goes to the cache, so every byte of a cached file goes
 * through it, and no data sieving reads and rewrites bytes the request does not cover (that would
 * write stale copies of other processes' bytes). The contract is ROMIO's (common/ad_write.c):
 * nothing to do for count 0, explicit offset or the individual file pointer, the pointer moved by
 * what was requested, the byte count in the status, fp_sys_posn forgotten.
 *
 * Before any block arithmetic, a write is checked to end within what an MPI_Offset holds and what
 * the file system can store (its maximum file size), so a write that could never reach the file
 * fails at the call, as ufs's would, and nothing of it is cached (doc/errors.md).
 */
#include <fcntl.h>

#include "ad_edonio_coll.h"
#include "adioi.h"

EDONIO_SYSCALL_PATH void transfer(ADIO_File fd, struct edonio_cache *c, void *buf, int count,
                                  MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                  ADIO_Status *status, int *error_code, int writing)
{
    static char myname[] = "ADIOI_EDONIO_IO";
    struct edonio_stats *st = &edonio_handle(fd)->stats;
    MPI_Count size;
    ADIO_Offset len, done = 0;
    int err;

    MPI_Type_size_x(datatype, &size);
    len = (ADIO_Offset)count * size;
    if (file_ptr_type == ADIO_INDIVIDUAL)
        offset = fd->fp_ind;
    fd->fp_sys_posn = -1; /* edonio does not move the system file pointer it would track */
    err = writing ? ADIOI_EDONIO_Cache_check(c, offset, len)
                  : ADIOI_EDONIO_Range_check(offset, len);
    if (err == 0 && writing) {
        c->wrote = 1;
        err = ADIOI_EDONIO_Cache_write(c, st, buf, offset, len, &done);
    } else if (err == 0) {
        err = ADIOI_EDONIO_Cache_read(c, st, buf, offset, len, &done);
    }
    if (err) {
        *error_code = ADIOI_EDONIO_Err(myname, fd->filename, err);
        return;
    }
    if (file_ptr_type == ADIO_INDIVIDUAL)
        fd->fp_ind += len;
    MPIR_Status_set_bytes(status, datatype, done);
    *error_code = MPI_SUCCESS;
}

void ADIOI_EDONIO_ReadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                             int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                             int *error_code)
{
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);

    if (c == NULL) {
        ADIOI_GEN_ReadContig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
        return;
    }
    transfer(fd, c, buf, count, datatype, file_ptr_type, offset, status, error_code, 0);
}

void ADIOI_EDONIO_WriteContig(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                              int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                              int *error_code)
{
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);

    if (c == NULL) {
        ADIOI_GEN_WriteContig(fd, buf, count, datatype, file_ptr_type, offset, status,
                              error_code);
        return;
    }
    transfer(fd, c, (void *)buf, count, datatype, file_ptr_type, offset, status, error_code, 1);
}

static void strided(ADIO_File fd, struct edonio_cache *c, void *buf, int count,
                    MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                    ADIO_Status *status, int *error_code, int writing)
{
    static char myname[] = "ADIOI_EDONIO_IO_STRIDED";
    struct edonio_stats *st = &edonio_handle(fd)->stats;
    struct edonio_req req;
    ADIO_Offset size;
    int err, locked = 0;

    ADIOI_EDONIO_Req_init(fd, &req, buf, count, datatype, file_ptr_type, offset);
    fd->fp_sys_posn = -1;
    err = req.bytes == 0 ? 0
          : writing      ? ADIOI_EDONIO_Cache_check(c, req.start, req.end - req.start)
                         : ADIOI_EDONIO_Range_check(req.start, req.end - req.start);
    if (err == 0 && fd->atomicity && req.bytes > 0) { /* as ROMIO's strided code does */
        err = ADIOI_EDONIO_Lock_range(fd->fd_sys, writing ? F_WRLCK : F_RDLCK, req.start,
                                      req.end - req.start);
        locked = err == 0;
    }
    if (err == 0 && writing)
        c->wrote = 1;
    if (err == 0)
        err = ADIOI_EDONIO_Req_independent(c, st, ADIOI_EDONIO_Coll_budget(fd), &req, writing);
    size = ADIOI_EDONIO_Size_get(c);
    if (locked)
        ADIOI_EDONIO_Lock_range(fd->fd_sys, F_UNLCK, req.start, req.end - req.start);
    if (err)
        *error_code = ADIOI_EDONIO_Err(myname, fd->filename, err);
    else
        MPIR_Status_set_bytes(status, datatype,
                              writing ? req.bytes : ADIOI_EDONIO_Req_bytes_before(&req, size));
    *error_code = err ? *error_code : MPI_SUCCESS;
    ADIOI_EDONIO_Req_free(&req);
}

void ADIOI_EDONIO_ReadStrided(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                              int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                              int *error_code)
{
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);

    if (c == NULL) {
        ADIOI_GEN_ReadStrided(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
        return;
    }
    strided(fd, c, buf, count, datatype, file_ptr_type, offset, status, error_code, 0);
}

void ADIOI_EDONIO_WriteStrided(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                               int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                               int *error_code)
{
    struct edonio_cache *c = ADIOI_EDONIO_Cache_of(fd);

    if (c == NULL) {
        ADIOI_GEN_WriteStrided(fd, buf, count, datatype, file_ptr_type, offset, status,
                               error_code);
        return;
    }
    strided(fd, c, (void *)buf, count, datatype, file_ptr_type, offset, status, error_code, 1);
}
