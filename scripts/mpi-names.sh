# The MPI compiler wrappers and launcher the project's scripts run (source it, do not run it).
#
# Debian installs each MPI's tools under names of their own (mpicc.mpich, mpiexec.mpich;
# mpicc.openmpi, mpirun.openmpi) and points the plain mpicc, mpifort and mpiexec at whichever MPI
# has the higher alternatives priority: installing Open MPI beside MPICH moves them. edonio is
# built over MPICH, so its scripts name MPICH's tools; each is only a default, which the caller
# may override (MPICC=/opt/mpich/bin/mpicc MPIEXEC=/opt/mpich/bin/mpiexec ...); `make check`
# passes configure's MPICC, MPIFORT and MPIEXEC on to the tests.
# shellcheck shell=bash
: "${MPICC:=mpicc.mpich}"
: "${MPIFORT:=mpifort.mpich}"
: "${MPIEXEC:=mpiexec.mpich}"
