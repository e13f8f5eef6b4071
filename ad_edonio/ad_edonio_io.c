/*
 * edonio: contiguous reads and writes, the ADIO entry points.
 *
 * ROMIO's strided, collective and nonblocking paths all end here, so every byte of an edonio file
 * goes through the cache (ad_edonio_cache_io.c). The contract is ROMIO's (common/ad_write.c):
 * nothing to do for count 0, explicit offset or the individual file pointer, the pointer moved by
 * what was transferred, the byte count in the status.
 */
#include "ad_edonio.h"
#include "adioi.h"

static void transfer(ADIO_File fd, void *buf, int count, MPI_Datatype datatype, int file_ptr_type,
                     ADIO_Offset offset, ADIO_Status *status, int *error_code, int writing)
{
    static char myname[] = "ADIOI_EDONIO_IO";
    MPI_Count size;
    ADIO_Offset len, done = 0;
    int err;

    MPI_Type_size_x(datatype, &size);
    len = (ADIO_Offset)count * size;
    if (file_ptr_type == ADIO_INDIVIDUAL)
        offset = fd->fp_ind;
    if (writing) {
        err = ADIOI_EDONIO_Cache_write(fd, buf, offset, len);
        done = err ? 0 : len;
    } else {
        err = ADIOI_EDONIO_Cache_read(fd, buf, offset, len, &done);
    }
    fd->fp_sys_posn = -1; /* edonio does not move the system file pointer it would track */
    if (err) {
        *error_code = ADIOI_EDONIO_Err(myname, fd->filename, err);
        return;
    }
    if (file_ptr_type == ADIO_INDIVIDUAL)
        fd->fp_ind += done;
    MPIR_Status_set_bytes(status, datatype, done);
    *error_code = MPI_SUCCESS;
}

void ADIOI_EDONIO_ReadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                             int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                             int *error_code)
{
    if (edonio_state(fd)->access == EDONIO_ACCESS_NONE) {
        ADIOI_GEN_ReadContig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
        return;
    }
    transfer(fd, buf, count, datatype, file_ptr_type, offset, status, error_code, 0);
}

void ADIOI_EDONIO_WriteContig(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                              int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                              int *error_code)
{
    if (edonio_state(fd)->access == EDONIO_ACCESS_NONE) {
        ADIOI_GEN_WriteContig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
        return;
    }
    transfer(fd, (void *)buf, count, datatype, file_ptr_type, offset, status, error_code, 1);
}
