/*
 * edonio: the operations table that registers the driver with ROMIO.
 *
 * Contiguous and strided reads and writes go through the cache (ad_edonio_io.c; no data sieving:
 * it would rewrite bytes a request does not cover), collective ones through the blocks' owners
 * (ad_edonio_io_coll.c), and MPI atomic mode is enforced the way romio_edonio_atomicity says
 * (ad_edonio_atomic.c). Entries that edonio does not override use ROMIO's generic code, which
 * reaches the file through these.
 */
#include "ad_edonio.h"
#include "adioi.h"

struct ADIOI_Fns_struct ADIO_EDONIO_operations = {
    ADIOI_EDONIO_Open,          /* Open */
    ADIOI_EDONIO_OpenColl,      /* OpenColl */
    ADIOI_EDONIO_ReadContig,    /* ReadContig */
    ADIOI_EDONIO_WriteContig,   /* WriteContig */
    ADIOI_EDONIO_ReadStridedColl,  /* ReadStridedColl */
    ADIOI_EDONIO_WriteStridedColl, /* WriteStridedColl */
    ADIOI_GEN_SeekIndividual,   /* SeekIndividual */
    ADIOI_EDONIO_Fcntl,         /* Fcntl */
    ADIOI_EDONIO_SetInfo,       /* SetInfo */
    ADIOI_EDONIO_ReadStrided,   /* ReadStrided */
    ADIOI_EDONIO_WriteStrided,  /* WriteStrided */
    ADIOI_EDONIO_Close,         /* Close */
    ADIOI_FAKE_IreadContig,     /* IreadContig: completes at once, through ReadContig */
    ADIOI_FAKE_IwriteContig,    /* IwriteContig: completes at once, through WriteContig */
    ADIOI_FAKE_IODone,          /* ReadDone */
    ADIOI_FAKE_IODone,          /* WriteDone */
    ADIOI_FAKE_IOComplete,      /* ReadComplete */
    ADIOI_FAKE_IOComplete,      /* WriteComplete */
    ADIOI_FAKE_IreadStrided,    /* IreadStrided */
    ADIOI_FAKE_IwriteStrided,   /* IwriteStrided */
    ADIOI_EDONIO_Flush,         /* Flush */
    ADIOI_EDONIO_Resize,        /* Resize */
    ADIOI_GEN_Delete,           /* Delete */
    ADIOI_EDONIO_Feature,       /* Feature */
    "EDONIO: block cache in the aggregate memory of the processes",
    ADIOI_EDONIO_IreadStridedColl,  /* IreadStridedColl */
    ADIOI_EDONIO_IwriteStridedColl, /* IwriteStridedColl */
    ADIOI_GEN_SetLock               /* SetLock */
};
