!     edonio: the NX environment for Fortran programs (include 'fnx.h').
!     Valid in fixed and free source form. Declares the NX functions
!     and constants an NX or EDONIO program uses; the do* functions
!     are declared by the program itself, as EDONIO's appendix does.
      integer mynode, numnodes
      external mynode, numnodes
      double precision dclock
      external dclock
      external gisum, gsync
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
