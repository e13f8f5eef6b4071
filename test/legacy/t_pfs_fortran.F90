! edonio: the PFS-style API from Fortran as NX Fortran programs call it (legacy/pfs_fortran.c):
! gopen on a unit number, iomode, setiomode, cread, cwrite, iread, iwrite, iowait, iodone,
! lseek, eseek, lsize, esize and close, through fnx.h's macros (#include, preprocessed).
!   t_pfs_fortran DIR   -> DIR/pfsf.dat, " No Errors"
!
! The file, P nodes: [0, 256P) M_RECORD, node r's 64 integers r*1000+i at 256r;
! [256P, 768P) M_ASYNC iwrite, node r's 128 integers r*1000+500+i at 256P+512r;
! then M_SYNC, node order, node r's r+1 integers r*1000+900+i.
program t_pfs_fortran
    implicit none
#include "fnx.h"
    integer, parameter :: u = 16
    integer :: me, np, errs, i, r, n, id, tries, buf(128), got(128), all
    integer(kind=8) :: e8, s8
    character(len=:), allocatable :: dir, name

    errs = 0
    me = mynode()
    np = numnodes()
    call get_arg(1, dir)
    name = dir // '/pfsf.dat'

    ! M_RECORD: one 256-byte record per node, in node order
    call gopen(u, name, M_RECORD)
    if (iomode(u) /= M_RECORD) call bad('iomode after gopen')
    buf(1:64) = [(me * 1000 + i, i = 1, 64)]
    call cwrite(u, buf, 256)
    if (lseek(u, 0, SEEK_CUR) /= 256 * np) call bad('M_RECORD pointer')

    ! M_ASYNC: a pointer per node; iwrite then iowait
    call setiomode(u, M_ASYNC)
    if (iomode(u) /= M_ASYNC) call bad('iomode after setiomode')
    if (lseek(u, 256 * np + 512 * me, SEEK_SET) /= 256 * np + 512 * me) call bad('lseek')
    buf = [(me * 1000 + 500 + i, i = 1, 128)]
    id = iwrite(u, buf, 512)
    call iowait(id)
    call gsync()

    ! lsize and esize: the file at least this long (what M_SYNC then writes)
    all = np * (np + 1) / 2 * 4
    n = lsize(u, 768 * np + all, SIZE_SET)
    if (n < 768 * np + all) call bad('lsize')
    s8 = esize(u, 0_8, SIZE_CUR)
    if (s8 < 768_8 * np) call bad('esize')

    ! M_SYNC: node order, variable lengths, from 768P
    call setiomode(u, M_SYNC)
    e8 = eseek(u, 768_8 * np, SEEK_SET)
    if (e8 /= 768_8 * np) call bad('eseek')
    buf = [(me * 1000 + 900 + i, i = 1, 128)]
    call cwrite(u, buf, 4 * (me + 1))
    if (lseek(u, 0, SEEK_CUR) /= 768 * np + all) call bad('M_SYNC pointer')
    close(u)

    ! read back in M_UNIX: every record with cread, this node's M_ASYNC part with iread/iodone
    call gopen(u, name, M_UNIX)
    do r = 0, np - 1
        call cread(u, got, 256)
        if (any(got(1:64) /= [(r * 1000 + i, i = 1, 64)])) call bad('M_RECORD data')
    end do
    if (lseek(u, 512 * me, SEEK_CUR) /= 256 * np + 512 * me) call bad('lseek SEEK_CUR')
    got = 0
    id = iread(u, got, 512)
    tries = 0
    do while (iodone(id) == 0)
        tries = tries + 1
    end do
    if (any(got /= [(me * 1000 + 500 + i, i = 1, 128)])) call bad('M_ASYNC data')
    ! the M_SYNC part: node r's r+1 integers after the lower nodes' ones
    n = 768 * np
    do r = 0, np - 1
        e8 = eseek(u, int(n, 8), SEEK_SET)
        got = 0
        call cread(u, got, 4 * (r + 1))
        if (any(got(1:r + 1) /= [(r * 1000 + 900 + i, i = 1, r + 1)])) call bad('M_SYNC data')
        n = n + 4 * (r + 1)
    end do
    if (lseek(u, 0, SEEK_CUR) /= 768 * np + all) call bad('pointer after cread')
    ! a read at the end of file stops there (0 bytes, the pointer stays)
    call cread(u, got, 4)
    if (lseek(u, 0, SEEK_CUR) /= 768 * np + all) call bad('cread at end of file')
    close(u)

    ! M_GLOBAL: every node reads the same first record
    call gopen(u, name, M_GLOBAL)
    got = 0
    call cread(u, got, 256)
    if (any(got(1:64) /= [(i, i = 1, 64)])) call bad('M_GLOBAL data')
    if (lseek(u, 0, SEEK_CUR) /= 256) call bad('M_GLOBAL pointer')
    close(u)

    call say_errors()

contains

    include 'fortran_arg.inc'
    include 'fortran_errs.inc'

end program t_pfs_fortran
