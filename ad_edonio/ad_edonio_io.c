/*
 * edonio: contiguous reads and writes.
 *
 * All of ROMIO's generic paths (strided, collective, data sieving, nonblocking) reach the file
 * system through these two entry points, so counting here counts every file-system operation.
 */
#include "ad_edonio.h"
#include "adioi.h"

static ADIO_Offset request_bytes(int count, MPI_Datatype datatype)
{
    MPI_Count size;

    MPI_Type_size_x(datatype, &size);
    return (ADIO_Offset)count * size;
}

void ADIOI_EDONIO_ReadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                             int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                             int *error_code)
{
    struct edonio_file *ef = edonio_state(fd);

    ADIOI_GEN_ReadContig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    if (ef != NULL && count > 0) {
        ef->stats.fs_reads++;
        ef->stats.fs_read_bytes += request_bytes(count, datatype);
    }
}

void ADIOI_EDONIO_WriteContig(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                              int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                              int *error_code)
{
    struct edonio_file *ef = edonio_state(fd);

    ADIOI_GEN_WriteContig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    if (ef != NULL && count > 0) {
        ef->stats.fs_writes++;
        ef->stats.fs_write_bytes += request_bytes(count, datatype);
    }
}
