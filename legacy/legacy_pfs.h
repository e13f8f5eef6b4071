/*
 * edonio: the PFS-style API's internals (pfs_modes.c, pfs.c, pfs_async.c).
 */
#ifndef LEGACY_PFS_H_INCLUDED
#define LEGACY_PFS_H_INCLUDED

#include "legacy.h"

int legacy_pfs_mode_valid(int mode);
/* M_SYNC and M_GLOBAL: every node takes part in every read and write. */
int legacy_pfs_mode_collective(int mode);
/* The pointer of the current mode, or -1. */
ADIO_Offset legacy_pfs_pointer(struct legacy_file *f);
int legacy_pfs_set_pointer(struct legacy_file *f, ADIO_Offset off);
/* Collective mode change (setiomode, gopen). 0 or -1 on every node. */
int legacy_pfs_change_mode(struct legacy_file *f, int mode);
/* Independent modes: the offset of an n-byte request, the pointer moved past it. */
ADIO_Offset legacy_pfs_claim(struct legacy_file *f, size_t n);
/* Blocking read or write in the current mode: bytes moved or -1 and errno. */
ssize_t legacy_pfs_transfer(struct legacy_file *f, void *buf, size_t n, int writing);

#endif /* LEGACY_PFS_H_INCLUDED */
