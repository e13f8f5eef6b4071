/*
 * edonio: what the driver supports, asked by ROMIO's generic code.
 */
#include "ad_edonio.h"
#include "adioi.h"

int ADIOI_EDONIO_Feature(ADIO_File fd, int flag)
{
    (void)fd;
    switch (flag) {
        case ADIO_LOCKS:
        case ADIO_SHARED_FP:
        case ADIO_ATOMIC_MODE:
        case ADIO_DATA_SIEVING_WRITES:
        case ADIO_UNLINK_AFTER_CLOSE:
        case ADIO_TWO_PHASE:
        case ADIO_SCALABLE_RESIZE:
        case ADIO_IMMEDIATELY_VISIBLE:
            return 1;
        case ADIO_SCALABLE_OPEN: /* every process opens: each one's cache needs the file */
        default:
            return 0;
    }
}
