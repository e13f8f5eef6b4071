# The MPI compiler wrappers and launcher the project's scripts run (source it, do not run it).
#
# Debian installs each MPI's tools under names of their own (mpicc.mpich, mpiexec.mpich;
# mpicc.openmpi, mpirun.openmpi) and points the plain mpicc, mpifort and mpiexec at whichever MPI
# has the higher alternatives priority: installing Open MPI beside MPICH moves them. So the
# scripts name each MPI's own tools: MPICH's by default, Open MPI's with EDONIO_MPI=openmpi. Each
# is only a default, which the caller may override (MPICC=/opt/mpich/bin/mpicc ...); `make check`
# passes configure's MPICC, MPIFORT and MPIEXEC on to the tests.
#
# Open MPI refuses to run as root, and more processes than cores, unless told: the scripts (CI
# runs as root on 2 cores) tell it through its environment; doc/user-guide.md says what a user
# sets.
# shellcheck shell=bash
: "${EDONIO_MPI:=mpich}"
case $EDONIO_MPI in
    openmpi)
        : "${MPICC:=mpicc.openmpi}"
        : "${MPIFORT:=mpifort.openmpi}"
        : "${MPIEXEC:=mpirun.openmpi}"
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        export OMPI_MCA_rmaps_base_oversubscribe=1
        ;;
    *)
        : "${MPICC:=mpicc.mpich}"
        : "${MPIFORT:=mpifort.mpich}"
        : "${MPIEXEC:=mpiexec.mpich}"
        ;;
esac

# node_parts NODES PPN PROGRAM ARGS...: MPICH mpiexec's arguments after its options, in the array
# parts, for NODES simulated nodes of PPN processes each (with MPIR_CVAR_NUM_CLIQUES=NODES in the
# environment): one part a node, its processes given one EDONIO_TEST_NODE value (edonio's node;
# MPICH's cliques take consecutive ranks, so part k is clique k); perf/README.md, "Simulated nodes".
node_parts() {
    local nodes=$1 ppn=$2 k
    shift 2
    parts=()
    for ((k = 0; k < nodes; k++)); do
        [ "$k" -eq 0 ] || parts+=(:)
        parts+=(-n "$ppn" -env EDONIO_TEST_NODE "node$k" "$@")
    done
}
