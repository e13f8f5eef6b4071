! edonio test: a Fortran program's MPI-IO reaches edonio too (MPICH's and Open MPI's Fortran
! bindings call the C MPI_File_* functions that libedonio.so provides), and a file error handler
! made in Fortran is called as Fortran calls it: with the file's Fortran handle and the code.
!
!   t_fortran FILE edonio|ufs
program t_fortran
    use mpi
    implicit none
    external :: on_file_error
    integer :: calls, seen_file, seen_code
    common /handler_seen/ calls, seen_file, seen_code
    integer, parameter :: n = 1000
    integer :: ierr, rank, nprocs, fh, info, i, errors, total, eh, eh2, cls
    integer :: buf(n), back(n)
    integer(kind=MPI_OFFSET_KIND) :: off
    character(len=:), allocatable :: fname, expect
    character(len=MPI_MAX_INFO_VAL) :: value
    logical :: flag

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    call get_arg(1, fname)
    call get_arg(2, expect)
    errors = 0

    call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, &
                       fh, ierr)
    if (ierr /= MPI_SUCCESS) then
        print *, 'open failed'
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    do i = 1, n
        buf(i) = rank * n + i
    end do
    off = int(rank, MPI_OFFSET_KIND) * n * 4
    call MPI_File_write_at_all(fh, off, buf, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_File_read_at_all(fh, off, back, n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    do i = 1, n
        if (back(i) /= buf(i)) errors = errors + 1
    end do

    call MPI_File_get_info(fh, info, ierr)
    call MPI_Info_get(info, 'romio_edonio_version', MPI_MAX_INFO_VAL, value, flag, ierr)
    if (flag .neqv. (trim(expect) == 'edonio')) then
        print *, 'romio_edonio_version present: ', flag, ' expected driver: ', trim(expect)
        errors = errors + 1
    end if
    call MPI_Info_free(info, ierr)

    ! A handler made in Fortran: called by MPI_File_call_errhandler and by a failing call, with
    ! this file's handle and the code the call then returns.
    calls = 0
    call MPI_File_create_errhandler(on_file_error, eh, ierr)
    call MPI_File_set_errhandler(fh, eh, ierr)
    if (ierr /= MPI_SUCCESS) then
        print *, 'MPI_File_set_errhandler of a Fortran handler failed: ', ierr
        errors = errors + 1
    end if
    call MPI_File_get_errhandler(fh, eh2, ierr)
    if (eh2 /= eh) then
        print *, 'MPI_File_get_errhandler gave another handler'
        errors = errors + 1
    end if
    call MPI_Errhandler_free(eh2, ierr)
    call MPI_File_call_errhandler(fh, MPI_ERR_OTHER, ierr)
    call MPI_Error_class(seen_code, cls, ierr)
    if (calls /= 1 .or. seen_file /= fh .or. cls /= MPI_ERR_OTHER) then
        print *, 'call_errhandler: calls ', calls, ' file ', seen_file, ' of ', fh, ' class ', cls
        errors = errors + 1
    end if
    off = -1
    call MPI_File_read_at(fh, off, back, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_Error_class(seen_code, cls, ierr)
    if (calls /= 2 .or. seen_file /= fh .or. cls /= MPI_ERR_ARG) then
        print *, 'read_at(-1): calls ', calls, ' file ', seen_file, ' of ', fh, ' class ', cls
        errors = errors + 1
    end if
    call MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN, ierr)
    call MPI_Errhandler_free(eh, ierr)
    call MPI_File_close(fh, ierr)

    call MPI_Allreduce(errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (total == 0) then
            print '(a)', ' No Errors'
        else
            print '(a,i0,a)', ' Found ', total, ' errors'
        end if
    end if
    call MPI_Finalize(ierr)
    if (total /= 0) stop 1

contains

    include 'fortran_arg.inc'

end program t_fortran

! The file error handler: what it saw goes to a common block (no module, so no .mod file).
subroutine on_file_error(file, code)
    implicit none
    integer :: file, code
    integer :: calls, seen_file, seen_code
    common /handler_seen/ calls, seen_file, seen_code
    calls = calls + 1
    seen_file = file
    seen_code = code
end subroutine on_file_error
