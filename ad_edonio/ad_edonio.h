/*
 * edonio: the ADIO driver's private declarations.
 *
 * Everything edonio keeps about an open file hangs off fd->fs_ptr as a struct edonio_file; ROMIO's
 * own file structure is left as it is.
 */
#ifndef AD_EDONIO_H_INCLUDED
#define AD_EDONIO_H_INCLUDED

#include "adio.h"

#define EDONIO_VERSION_KEY       "romio_edonio_version"
#define EDONIO_ROMIO_VERSION_KEY "romio_edonio_romio_version"

/* What edonio did to one open file on one process (summed over processes at close). */
struct edonio_stats {
    long long fs_reads;       /* read operations issued to the file system */
    long long fs_writes;      /* write operations issued to the file system */
    long long fs_read_bytes;  /* bytes those reads asked for */
    long long fs_write_bytes; /* bytes those writes asked for */
};

/* Per-process state of one open edonio file (fd->fs_ptr). */
struct edonio_file {
    int rank;                  /* this process in fd->comm */
    int nprocs;                /* processes that opened the file */
    struct edonio_stats stats; /* counters for EDONIO_STATS and MPI_File_get_info */
};

static inline struct edonio_file *edonio_state(ADIO_File fd)
{
    return (struct edonio_file *)fd->fs_ptr;
}

/* Operations table entries (ad_edonio_*.c). */
void ADIOI_EDONIO_Open(ADIO_File fd, int *error_code);
void ADIOI_EDONIO_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code);
void ADIOI_EDONIO_Close(ADIO_File fd, int *error_code);
void ADIOI_EDONIO_ReadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                             int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                             int *error_code);
void ADIOI_EDONIO_WriteContig(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                              int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                              int *error_code);
void ADIOI_EDONIO_SetInfo(ADIO_File fd, MPI_Info users_info, int *error_code);
int ADIOI_EDONIO_Feature(ADIO_File fd, int flag);

/* Helpers (ad_edonio_common.c, ad_edonio_stats.c). */
int ADIOI_EDONIO_Err(const char *myname, const char *filename, int my_errno);
void ADIOI_EDONIO_Agree(MPI_Comm comm, int *error_code);
void ADIOI_EDONIO_Stats_report(ADIO_File fd);

#endif /* AD_EDONIO_H_INCLUDED */
