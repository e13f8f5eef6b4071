! edonio: the do* Fortran names not used by example.F (doeseek, doesize, doflush, docheck,
! docsiz, dolsize, doread past end of file).   t_do_fortran FILE   -> " No Errors"
program t_do_fortran
    implicit none
    include 'fnx.h'
    integer doopen, doread, dowrite, dolseek
    external doopen, doread, dowrite, dolseek
    integer :: fd, myid, nproc, errs, iwork, buf(256), back(256), i, n
    integer(kind=8) :: loff, lpos, lsz
    character(len=:), allocatable :: path

    errs = 0
    myid = mynode()
    nproc = numnodes()
    call donio(myid, nproc)
    call get_arg(1, path)
    call docsiz(32, 128)
    fd = doopen(path//char(0), 2, 420)
    if (fd < 0) errs = errs + 1
    do i = 1, 256
        buf(i) = myid * 1000 + i
    end do
    n = dolseek(fd, myid * 1024, SEEK_SET)
    if (n /= myid * 1024) errs = errs + 1
    if (dowrite(fd, buf, 1024) /= 1024) errs = errs + 1
    call dolsize(fd, 1024 * nproc)
    lsz = 1024 * nproc
    call doesize(fd, lsz)
    call doflush(fd)
    call docheck()
    ! doeseek: 64-bit position, here the last rank's block
    loff = 1024_8 * (nproc - 1)
    call doeseek(fd, loff, SEEK_SET, lpos)
    if (lpos /= loff) errs = errs + 1
    if (doread(fd, back, 1024) /= 1024) errs = errs + 1
    if (back(1) /= (nproc - 1) * 1000 + 1) errs = errs + 1
    ! past the end: -1
    if (doread(fd, back, 4) /= -1) errs = errs + 1
    loff = 0
    call doeseek(fd, loff, SEEK_END, lpos)
    if (lpos /= 1024_8 * nproc) errs = errs + 1
    call doclose(fd)
    call gisum(errs, 1, iwork)
    call dogsync()
    if (myid == 0) then
        if (errs == 0) then
            print '(a)', ' No Errors'
        else
            print '(a,i0,a)', ' Found ', errs, ' errors'
        end if
    end if

contains

    include 'fortran_arg.inc'

end program t_do_fortran
