/*
 * edonio: the library's own public calls.
 */
#ifndef EDONIO_H_INCLUDED
#define EDONIO_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

/* The version of edonio, and of the ROMIO (from MPICH) it was built with. */
const char *edonio_version(void);
const char *edonio_romio_version(void);

#ifdef __cplusplus
}
#endif

#endif /* EDONIO_H_INCLUDED */
