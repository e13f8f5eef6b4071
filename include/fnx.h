!     edonio: the NX environment for Fortran programs. Valid in fixed
!     and free source form. Declares the NX functions and constants an
!     NX or EDONIO program uses; the do* functions are declared by the
!     program itself, as the EDONIO appendix does.
!
!     Two ways to include it:
!       include 'fnx.h'      Fortran include, no preprocessing: gfortran
!                            warns "Illegal preprocessor directive" for
!                            the two define lines below (harmless), and
!                            the NX names lseek and close are not mapped.
!       #include "fnx.h"     with -cpp (a .F file): also maps NX Fortran
!                            lseek to nxlseek and the statement close(u)
!                            on a gopen unit to "call nxclose(u)", as the
!                            library cannot export Fortran lseek or close
!                            under those names. Lower case only (cpp is
!                            case-sensitive): write CLOSE (upper case) to
!                            close a unit opened with a Fortran OPEN.
#define lseek nxlseek
#define close(u) call nxclose(u)
      integer mynode, numnodes
      external mynode, numnodes
      double precision dclock
      external dclock
      external gisum, gsync
!     NX file calls (PFS-style API, doc/legacy-pfs.md); the subroutines
!     gopen, setiomode, cread, cwrite and iowait need no declaration.
      integer iomode, iread, iwrite, iodone, lseek, lsize
      external iomode, iread, iwrite, iodone, lseek, lsize
      integer*8 eseek, esize
      external eseek, esize
      integer SEEK_SET, SEEK_CUR, SEEK_END
      parameter (SEEK_SET = 0)
      parameter (SEEK_CUR = 1)
      parameter (SEEK_END = 2)
      integer SIZE_SET, SIZE_CUR, SIZE_END
      parameter (SIZE_SET = 0)
      parameter (SIZE_CUR = 1)
      parameter (SIZE_END = 2)
      integer M_UNIX, M_LOG, M_SYNC, M_RECORD, M_GLOBAL, M_ASYNC
      parameter (M_UNIX = 0)
      parameter (M_LOG = 1)
      parameter (M_SYNC = 2)
      parameter (M_RECORD = 3)
      parameter (M_GLOBAL = 4)
      parameter (M_ASYNC = 5)
