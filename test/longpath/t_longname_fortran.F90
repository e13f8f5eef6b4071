! edonio: long file names from Fortran. The do* and PFS-style calls take the names their C
! counterparts take, MPI_File_open (MPICH's Fortran binding) too, and a name the system cannot
! take is an error that says so. DIR is a directory with a path of about 3000 characters.
!   t_longname_fortran DIR        -> " No Errors"; doopen's two messages on standard error
!   t_longname_fortran DIR abort  -> gopen of a name with a 256-byte part: the job aborts with
!                                    "gopen: File name too long"
!
! doopen: DIR/do.dat, and "DIR/blank  " (blanks before the NUL belong to the name: run.sh looks
! for that file); gopen in M_LOG (ROMIO's shared pointer) on a 250-byte file name; MPI_File_open
! and MPI_File_write_ordered on another; doopen of a 256-byte part and of 5000 bytes: -1.
program t_longname_fortran
    use mpi
    implicit none
#include "fnx.h"
    integer doopen, doread, dowrite, dolseek
    external doopen, doread, dowrite, dolseek
    integer, parameter :: u = 16
    integer :: me, np, errs, ierr, fd, fh, v, i, n
    integer, allocatable :: all(:)
    integer(kind=MPI_OFFSET_KIND) :: pos
    character(len=:), allocatable :: dir, mode, name

    call MPI_Init(ierr)
    errs = 0
    me = mynode()
    np = numnodes()
    allocate (all(np))
    call get_arg(1, dir)
    mode = ''
    if (command_argument_count() > 1) call get_arg(2, mode)
    call donio(me, np)
    v = 1000 + me

    if (mode == 'abort') then
        call gopen(u, dir // '/' // repeat('z', 256), M_UNIX)
        print '(a)', ' No Errors (not aborted)'
        call MPI_Finalize(ierr)
        stop
    end if

    ! doopen: the whole name, however long
    name = dir // '/do.dat'
    fd = doopen(name // char(0), 2, 420)
    if (fd < 0) call bad('doopen of a long path')
    if (dolseek(fd, 4 * me, SEEK_SET) /= 4 * me) call bad('dolseek')
    if (dowrite(fd, v, 4) /= 4) call bad('dowrite')
    call doclose(fd)
    fd = doopen(name // char(0), 0, 420)
    if (doread(fd, all, 4 * np) /= 4 * np) call bad('doread')
    if (any(all /= [(1000 + i, i = 0, np - 1)])) call bad('do.dat data')
    call doclose(fd)
    fd = doopen(dir // '/blank  ' // char(0), 2, 420)
    if (fd < 0) call bad('doopen of a name that ends in blanks')
    call doclose(fd)

    ! gopen on a 250-byte name, M_LOG: ROMIO's shared file pointer, each node's value once
    name = dir // '/' // repeat('g', 250)
    call gopen(u, name, M_LOG)
    call cwrite(u, v, 4)
    close(u)
    call gopen(u, name, M_UNIX)
    all = 0
    call cread(u, all, 4 * np)
    do i = 0, np - 1
        if (count(all == 1000 + i) /= 1) call bad('M_LOG data')
    end do
    close(u)

    ! MPI_File_open through MPICH's Fortran binding, and the shared pointer
    name = dir // '/' // repeat('m', 250)
    call MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, &
                       fh, ierr)
    if (ierr /= MPI_SUCCESS) call bad('MPI_File_open of a long path')
    call MPI_File_write_ordered(fh, v, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_File_get_position_shared(fh, pos, ierr)
    if (ierr /= MPI_SUCCESS .or. pos /= 4 * np) call bad('MPI_File_write_ordered')
    call MPI_File_read_at_all(fh, 0_MPI_OFFSET_KIND, all, np, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    if (any(all /= [(1000 + i, i = 0, np - 1)])) call bad('MPI-IO data')
    call MPI_File_close(fh, ierr)

    ! names that cannot be opened: -1, and doopen says why on standard error
    if (doopen(dir // '/' // repeat('z', 256) // char(0), 2, 420) /= -1) call bad('256-byte part')
    name = dir
    do while (len(name) < 5000)
        name = name // '/zzzzzzzzz'
    end do
    n = doopen(name // char(0), 2, 420)
    if (n /= -1) call bad('5000-byte name')

    call say_errors()
    call MPI_Finalize(ierr)

contains

    include 'fortran_arg.inc'
    include 'fortran_errs.inc'

end program t_longname_fortran
