#!/usr/bin/env bash
# edonio's legacy APIs on ADIO (legacy/, doc/legacy-*.md): the EDONIO do_* API from C and Fortran,
# EDONIO's appendix program (example.F, typed in from the report) in both its branches (EDONIO's
# do* calls, and NX's with -DUSE_NX: the PFS-style API for Fortran), the PFS-style API from C and
# Fortran and the PIOFS-style API. Every program runs at 1 to 4 processes, on
# ROMIO_FSTYPE_FORCE=ufs: and edonio:, and the files the PFS, PIOFS and appendix programs write on
# the two must be identical (the appendix's NX branch must also write the EDONIO branch's bytes).
# The programs are linked with -ledonio before the MPI library; with EDONIO_SANITIZER_RUNTIME set
# (test/run-all.sh's sanitizer run) that runtime is preloaded, as test/lib.sh's edonio_preload does.
# The Fortran programs' files lie in a directory with a path of 600 characters or more
# (test/lib.sh's deep_dir): their names must reach the library whole.
#
#   test/legacy/run.sh --builddir DIR [--workdir DIR]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

mpi_test_setup "$@"
deep=$(deep_dir "$data")

build() {
    local cflags=(-std=c11 -O1 -g -Wall -Wextra -Werror -I"$inc") t
    local link=(-L"$libdir" -ledonio -Wl,-rpath,"$libdir")
    for t in t_do t_pfs t_piofs; do
        "$MPICC" "${cflags[@]}" -o "$bin/$t" "$here/$t.c" "${link[@]}"
    done
    gcc -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC -o "$bin/fault.so" \
        "$here/../edonio/fault.c" -ldl
    # t_do_fortran has the manual's plain include 'fnx.h': gfortran warns about fnx.h's two
    # #define lines (only cpp's #include "fnx.h" sees them); shown only if the build fails.
    "$MPIFORT" -O1 -g -ffree-form -I"$inc" -I"$here/.." -o "$bin/t_do_fortran" \
        "$here/t_do_fortran.f90" "${link[@]}" 2>"$work/t_do_fortran.build.log" ||
        { cat "$work/t_do_fortran.build.log"; exit 1; }
    "$MPIFORT" -O1 -g -cpp -Wall -I"$inc" -I"$here/.." -o "$bin/t_pfs_fortran" \
        "$here/t_pfs_fortran.F90" \
        "${link[@]}"
    "$MPIFORT" -O1 -g -cpp -ffixed-line-length-none -I"$inc" -o "$bin/example" "$here/example.F" \
        "${link[@]}"
    "$MPIFORT" -O1 -g -cpp -ffixed-line-length-none -DUSE_NX -I"$inc" -o "$bin/example_nx" \
        "$here/example.F" "${link[@]}"
}

pre=()
[ -n "${EDONIO_SANITIZER_RUNTIME:-}" ] && pre=(LD_PRELOAD="$EDONIO_SANITIZER_RUNTIME")

# same NAME FILE_UFS FILE_EDONIO: one line on whether the two file systems wrote the same bytes.
same() {
    if [ -f "$2" ] && cmp -s "$2" "$3"; then
        pass "$1"
    else
        fail "$1" "$(cmp "$2" "$3" 2>&1 | head -n 1)"
    fi
}

test_do() {
    local np fs
    for np in 1 2 3 4; do
        for fs in ufs edonio; do
            run_mpi "legacy/do fs=$fs np=$np" "$work/do-$fs-$np.log" "$np" "${pre[@]}" \
                ROMIO_FSTYPE_FORCE=$fs: -- "$bin/t_do" "$data/do-$fs-$np"
        done
    done
    # do_preload's error (it returns nothing: errno on every process), reads failing on demand.
    run_mpi "legacy/do preload-fails np=2" "$work/do-preload-fails.log" 2 \
        LD_PRELOAD="${EDONIO_SANITIZER_RUNTIME:+$EDONIO_SANITIZER_RUNTIME }$bin/fault.so" \
        ROMIO_FSTYPE_FORCE=edonio: -- "$bin/t_do" "$data/do-preload-fails"
    for fs in ufs edonio; do
        run_mpi "legacy/do-fortran fs=$fs np=2" "$work/dof-$fs.log" 2 "${pre[@]}" \
            ROMIO_FSTYPE_FORCE=$fs: -- "$bin/t_do_fortran" "$deep/dof-$fs"
    done
}

# The appendix program reads nex ney nez, the cache sizes and the preload flag on stdin, and
# checks what it reads back itself (stop '** ERROR **' otherwise). Its EDONIO branch (example,
# ex.bin) and its NX branch (example_nx: gopen, lseek, cwrite, cread, close on unit 16, M_ASYNC;
# nxex.bin) must write the same bytes, on ufs and on edonio.
test_example() {
    local np=$1 fs dir log prog file variant
    for variant in example example_nx; do
        prog=$variant file=ex.bin
        [ "$variant" = example_nx ] && file=nxex.bin
        for fs in ufs edonio; do
            dir="$deep/$variant-$fs-$np"
            log="$work/$variant-$fs-$np.log"
            mkdir -p "$dir"
            rm -f "$dir/$file"
            if (cd "$dir" && printf '9 5 12\n64 256\n1\n' |
                env "${pre[@]}" ROMIO_FSTYPE_FORCE=$fs: timeout 120 "$MPIEXEC" -n "$np" \
                    "$bin/$prog") >"$log" 2>&1 &&
                grep -q 'close for read takes' "$log" && ! grep -q 'ERROR' "$log" &&
                [ "$(stat -c %s "$dir/$file")" -eq $((9 * 5 * 12 * 32)) ]; then
                pass "legacy/$variant fs=$fs np=$np"
            else
                fail "legacy/$variant fs=$fs np=$np" "$(failure_lines "$log"); log $log"
            fi
        done
        same "legacy/$variant-same-file np=$np" "$deep/$variant-ufs-$np/$file" \
            "$deep/$variant-edonio-$np/$file"
    done
    for fs in ufs edonio; do
        same "legacy/example-nx-same-as-edonio fs=$fs np=$np" "$deep/example-$fs-$np/ex.bin" \
            "$deep/example_nx-$fs-$np/nxex.bin"
    done
}

# The PFS-style API for Fortran (NX Fortran's calls on a unit number) on both file systems.
test_pfs_fortran() {
    local np=$1 fs
    for fs in ufs edonio; do
        rm -rf "$deep/pfsf-$fs-$np"
        mkdir -p "$deep/pfsf-$fs-$np"
        run_mpi "legacy/pfs-fortran fs=$fs np=$np" "$work/pfsf-$fs-$np.log" "$np" "${pre[@]}" \
            ROMIO_FSTYPE_FORCE=$fs: -- "$bin/t_pfs_fortran" "$deep/pfsf-$fs-$np"
    done
    same "legacy/pfs-fortran-same-file np=$np" "$deep/pfsf-ufs-$np/pfsf.dat" \
        "$deep/pfsf-edonio-$np/pfsf.dat"
}

# A PFS or PIOFS program on both file systems, then the files compared.
test_both() {
    local api=$1 np=$2 file=$3 fs
    for fs in ufs edonio; do
        rm -rf "$data/$api-$fs-$np"
        mkdir -p "$data/$api-$fs-$np"
        run_mpi "legacy/$api fs=$fs np=$np" "$work/$api-$fs-$np.log" "$np" "${pre[@]}" \
            ROMIO_FSTYPE_FORCE=$fs: -- "$bin/t_$api" "$data/$api-$fs-$np"
    done
    same "legacy/$api-same-file np=$np" "$data/$api-ufs-$np/$file" "$data/$api-edonio-$np/$file"
}

# NX's plain forms abort the job on error (cread on a bad descriptor here).
test_pfs_abort() {
    mkdir -p "$data/pfs-abort"
    run_mpi_abort "legacy/pfs-plain-form-aborts np=2" "$work/pfs-abort.log" 2 \
        'cread: Bad file descriptor' "${pre[@]}" ROMIO_FSTYPE_FORCE=ufs: -- \
        "$bin/t_pfs" "$data/pfs-abort" abort
}

build
test_do
for np in 1 3; do
    test_example "$np"
    test_pfs_fortran "$np"
done
for np in 1 2 3 4; do
    test_both pfs "$np" pfs.dat
    test_both piofs "$np" piofs.dat
done
test_pfs_abort
summary
