/*
 * One fresh job's first open (creating), its close and a read-only reopen, at 2 ranks: the slowest
 * rank's times in microseconds, one line per job. first_open.txt: 15 jobs of each driver, in turn:
 *   for i in $(seq 15); do for fs in ufs edonio; do rm -f /tmp/f.$fs
 *     LD_PRELOAD=libedonio.so mpiexec -n 2 ./first_open $fs:/tmp/f.$fs $fs; done; done
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc,char**argv){MPI_Init(&argc,&argv);int r;MPI_Comm_rank(MPI_COMM_WORLD,&r);MPI_File f;
MPI_Barrier(MPI_COMM_WORLD);double t0=MPI_Wtime();
MPI_File_open(MPI_COMM_WORLD,argv[1],MPI_MODE_CREATE|MPI_MODE_WRONLY,MPI_INFO_NULL,&f);double t1=MPI_Wtime()-t0;
MPI_Barrier(MPI_COMM_WORLD);t0=MPI_Wtime();MPI_File_close(&f);double t2=MPI_Wtime()-t0;
MPI_Barrier(MPI_COMM_WORLD);t0=MPI_Wtime();
MPI_File_open(MPI_COMM_WORLD,argv[1],MPI_MODE_RDONLY,MPI_INFO_NULL,&f);double t3=MPI_Wtime()-t0;
MPI_File_close(&f);
double l[3]={t1,t2,t3},m[3];MPI_Reduce(l,m,3,MPI_DOUBLE,MPI_MAX,0,MPI_COMM_WORLD);
if(!r)printf("%s %.0f %.0f %.0f\n",argv[2],m[0]*1e6,m[1]*1e6,m[2]*1e6);MPI_Finalize();}
