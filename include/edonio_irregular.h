/*
 * edonio_irregular.h: irregular collective I/O through indirection arrays (seed 002), over
 * MPI-IO. Library libedonio_irregular (link -ledonio_irregular); it calls only the MPI and
 * MPI-IO API, so it works on any ROMIO or OMPIO driver, and fastest on edonio.
 *
 * A process holds `count` elements of a global array of `global_count` elements, each
 * `element_size` bytes, in any order: element k of its buffer is global element indices[k].
 * A schedule, built once from the indices, says which process sends which element to which
 * process, and which file ranges each process writes; every later write or read with it moves
 * the data only. The file holds the global array in canonical order (element g at
 * disp + g * element_size), so a file written by P processes is read back by Q processes with
 * another distribution. doc/irregular.md is the manual: the file format of the compressed
 * arrays, the info keys, the errors, and an example program.
 *
 * Every call is collective over the schedule's communicator (edonio_ir_schedule_free too) and
 * returns MPI_SUCCESS or an MPI error code, the same class on every process; the message names
 * the call and the cause. Errors do not call an error handler. MPI_Error_string gives the
 * message where libedonio is loaded, or over Open MPI; edonio_ir_error_string gives it
 * everywhere (MPICH 4.0.2's own MPI_Error_string prints unrelated text for such codes).
 */
#ifndef EDONIO_IRREGULAR_H_INCLUDED
#define EDONIO_IRREGULAR_H_INCLUDED

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the compressed-array file format this library writes; it reads it and the
 * versions before it (1: chunks never shuffled). */
#define EDONIO_IR_FORMAT_VERSION 2

typedef struct edonio_ir_schedule_s *edonio_ir_schedule;
#define EDONIO_IR_SCHEDULE_NULL ((edonio_ir_schedule)0)

/*
 * Build a schedule over comm (duplicated; the schedule keeps its own). `indices` holds `count`
 * global indices in [0, global_count), in any order; an index may appear on several processes
 * and more than once on one (reads give every copy; writes keep the copy of the lowest rank,
 * and within a process its last). info keys (MPI_INFO_NULL: every default; unknown keys
 * ignored; an invalid value falls back to the default):
 *   edonio_ir_chunk_size   bytes of the global array one process handles at a time (the seed's
 *                          chunk; bounds the library's buffers), default 1048576, at least one
 *                          element, at most 268435456; rounded down to whole elements
 *   edonio_ir_align        compressed chunks start at multiples of it in the file, default 4096
 *   edonio_ir_zstd_level   zstd level of edonio_ir_zwrite, default 3
 *   edonio_ir_shuffle      edonio_ir_zwrite byte-shuffles chunks of elements of several bytes
 *                          before compressing them, true (default) or false (also enable,
 *                          disable, 1, 0, any case)
 * edonio_ir_schedule_get_info reports the effective values.
 */
int edonio_ir_schedule_create(MPI_Comm comm, MPI_Offset global_count, MPI_Offset element_size,
                              MPI_Offset count, const MPI_Offset indices[], MPI_Info info,
                              edonio_ir_schedule *sched);

/* Write (read) the process's `count` elements from (into) buf; fh is open on the group of the
 * schedule's communicator. Independent of fh's view: offsets are bytes from disp. A call that
 * writes (edonio_ir_write, edonio_ir_switch, edonio_ir_zwrite) ends with an MPI_Barrier on the
 * schedule's communicator: when it returns, every process sees what it wrote wherever a
 * barrier orders writes and reads, as on a POSIX file system under ufs, and on edonio (a
 * barrier over the file's processes hands their writes over). */
int edonio_ir_write(MPI_File fh, MPI_Offset disp, edonio_ir_schedule sched, const void *buf);
int edonio_ir_read(MPI_File fh, MPI_Offset disp, edonio_ir_schedule sched, void *buf);

/*
 * Software caching between two irregular loops (seed 002, section 3). From the schedule of the
 * first loop, build the schedule of the second (its own `count` and `indices`, same array and
 * info) together with what changes between them. Then edonio_ir_switch writes back only the
 * elements the second loop no longer references (from old_buf, laid out as the first loop's
 * buffer), copies the elements both loops reference from old_buf into new_buf, and reads only
 * the elements new to the second loop into new_buf. Elements kept in memory are written by a
 * later edonio_ir_write (or released by a later switch). The new schedule is a full schedule:
 * edonio_ir_write, edonio_ir_read and another update take it. Kept, released and new are
 * decided by each process for its own references: exact when each element has one holder at
 * a time, or when all copies of an element agree (a new element comes from the file, not from
 * another process's memory).
 */
int edonio_ir_schedule_update(edonio_ir_schedule old, MPI_Offset count, const MPI_Offset indices[],
                              edonio_ir_schedule *sched);
int edonio_ir_switch(MPI_File fh, MPI_Offset disp, edonio_ir_schedule sched, const void *old_buf,
                     void *new_buf);

/*
 * Chunked, compressed arrays (seed 002, section 4): the global array stored as zstd-compressed
 * chunks of edonio_ir_chunk_size bytes, each at a multiple of edonio_ir_align, with a chunk
 * index (format version EDONIO_IR_FORMAT_VERSION, doc/irregular.md). Elements no process
 * writes are zero. Reading decompresses only the chunks holding elements some process asks
 * for, and checks every chunk and the index: a corrupt or truncated file, or one of another
 * format version, is an error (MPI_ERR_IO; MPI_ERR_UNSUPPORTED_DATAREP for a version it does
 * not read: 0, or after EDONIO_IR_FORMAT_VERSION),
 * never garbage. The schedule of a reader must describe the same array (global count, element
 * size, chunk size) as the file's: edonio_ir_zinquire reads them.
 */
int edonio_ir_zwrite(MPI_File fh, MPI_Offset disp, edonio_ir_schedule sched, const void *buf);
int edonio_ir_zread(MPI_File fh, MPI_Offset disp, edonio_ir_schedule sched, void *buf);
/* The array a compressed file holds (any argument may be NULL). Not collective: the calling
 * process reads the header. */
int edonio_ir_zinquire(MPI_File fh, MPI_Offset disp, MPI_Offset *global_count,
                       MPI_Offset *element_size, MPI_Offset *chunk_size);

/* MPI_Error_string, knowing the library's messages. Not collective. */
int edonio_ir_error_string(int code, char *string, int *resultlen);

/* The effective info values of a schedule (a new MPI_Info the caller frees). Not collective. */
int edonio_ir_schedule_get_info(edonio_ir_schedule sched, MPI_Info *info);

/* What this process did through a schedule since it was built (sums over its calls).
 * Not collective. */
typedef struct edonio_ir_stats {
    MPI_Offset calls;         /* writes, reads and switches made with the schedule */
    MPI_Offset file_writes;   /* file write operations this process issued */
    MPI_Offset file_reads;    /* file read operations this process issued */
    MPI_Offset bytes_written; /* bytes it wrote to the file (compressed bytes for zwrite) */
    MPI_Offset bytes_read;    /* bytes it read from the file */
    MPI_Offset bytes_sent;    /* element bytes it sent to other processes */
} edonio_ir_stats;
int edonio_ir_schedule_stats(edonio_ir_schedule sched, edonio_ir_stats *stats);

/* Free a schedule and set *sched to EDONIO_IR_SCHEDULE_NULL. Collective. */
int edonio_ir_schedule_free(edonio_ir_schedule *sched);

#ifdef __cplusplus
}
#endif

#endif /* EDONIO_IRREGULAR_H_INCLUDED */
