/*
 * edonio: MPI_File handles for ROMIO.
 *
 * An MPI_File is ROMIO's file structure itself (MPICH's mpi.h declares it so; over Open MPI,
 * mpiio-glue/openmpi.h makes it so). Fortran handles are
 * indices into ROMIO's table ADIOI_Ftable, which ROMIO's close clears; a file keeps its index
 * (fortran_handle), and freed slots are reused, so a long run that opens and closes many files
 * from Fortran does not grow the table without bound.
 */
#include "adio.h"
#include "adio_extern.h"
#include "glue.h"

enum { FTABLE_GROW = 1024 };

MPI_File MPIO_File_create(int size)
{
    edonio_error_codes_init(); /* before an open's error codes pass between processes */
    /* ROMIO frees a half-opened file with ADIOI_Free, so allocate with ROMIO's allocator. */
    return (MPI_File)ADIOI_Calloc(size, 1);
}

/* Over Open MPI, MPI_FILE_NULL is an address of Open MPI's, not 0 (mpiio-glue/openmpi.h). */
ADIO_File MPIO_File_resolve(MPI_File mpi_fh)
{
    return mpi_fh == MPI_FILE_NULL ? NULL : mpi_fh;
}

void MPIO_File_free(MPI_File *mpi_fh)
{
    edonio_errhandler_file_freed(*mpi_fh);
    ADIOI_Free(*mpi_fh);
    *mpi_fh = MPI_FILE_NULL;
}

MPI_File MPIO_File_f2c(MPI_Fint fh)
{
    if (fh <= 0 || fh > ADIOI_Ftable_ptr || ADIOI_Ftable == NULL)
        return MPI_FILE_NULL;
    return ADIOI_Ftable[fh];
}

/* A free slot of ADIOI_Ftable (slot 0 stays unused: it is MPI_FILE_NULL in Fortran). */
static int ftable_slot(void)
{
    int i;

    for (i = 1; i <= ADIOI_Ftable_ptr; i++)
        if (ADIOI_Ftable[i] == MPI_FILE_NULL)
            return i;
    if (ADIOI_Ftable_ptr + 1 >= ADIOI_Ftable_max) {
        int max = ADIOI_Ftable_max + FTABLE_GROW;
        ADIO_File *table = ADIOI_Realloc(ADIOI_Ftable, max * sizeof(*table));
        if (table == NULL)
            return 0;
        for (i = ADIOI_Ftable_max; i < max; i++)
            table[i] = MPI_FILE_NULL;
        ADIOI_Ftable = table;
        ADIOI_Ftable_max = max;
    }
    return ++ADIOI_Ftable_ptr;
}

MPI_Fint MPIO_File_c2f(MPI_File fh)
{
    int slot;

    if (fh == MPI_FILE_NULL || fh->cookie != ADIOI_FILE_COOKIE)
        return (MPI_Fint)0;
    if (fh->fortran_handle > 0)
        return (MPI_Fint)fh->fortran_handle;
    if (ADIOI_Ftable == NULL)
        ADIOI_Ftable_ptr = ADIOI_Ftable_max = 0;
    slot = ftable_slot();
    if (slot == 0)
        return (MPI_Fint)0;
    ADIOI_Ftable[slot] = fh;
    fh->fortran_handle = slot;
    return (MPI_Fint)slot;
}
