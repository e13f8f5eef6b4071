/*
 * edonio test: memory datatypes that are or are not contiguous, written and read back.
 *
 * Outside MPICH, edonio decides whether a datatype is contiguous by decoding it with the public
 * MPI API (mpiio-glue/datatype.c). A wrong "contiguous" would write bytes out of type-map order,
 * so each type here is written with MPI_File_write_at, the file is compared with MPI_Pack of the
 * same buffer (the bytes in type-map order), and MPI_File_read_at with the type must rebuild
 * exactly what MPI_Unpack rebuilds.
 *
 *   t_types FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BUF_BYTES = 4096 };

struct typecase {
    const char *name;
    MPI_Datatype type;
    int count;
};

static MPI_Datatype committed(MPI_Datatype t)
{
    MPI_Type_commit(&t);
    return t;
}

static MPI_Datatype swapped_hindexed(void)
{
    int lens[2] = {4, 4};
    MPI_Aint disps[2] = {4, 0}; /* dense, but second block first: not contiguous */
    MPI_Datatype t;
    MPI_Type_create_hindexed(2, lens, disps, MPI_BYTE, &t);
    return committed(t);
}

static MPI_Datatype dense_vector(void)
{
    MPI_Datatype t;
    MPI_Type_vector(4, 2, 2, MPI_INT, &t); /* stride == blocklength: contiguous */
    return committed(t);
}

static MPI_Datatype strided_vector(void)
{
    MPI_Datatype t;
    MPI_Type_vector(4, 2, 3, MPI_INT, &t);
    return committed(t);
}

static MPI_Datatype dense_struct(void)
{
    int lens[2] = {1, 2}; /* 8 + 2 * 4 bytes: no padding */
    MPI_Aint disps[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT}, t;
    MPI_Type_create_struct(2, lens, disps, types, &t);
    return committed(t);
}

static MPI_Datatype swapped_struct(void)
{
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {8, 0};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE}, t;
    MPI_Type_create_struct(2, lens, disps, types, &t);
    return committed(t);
}

static MPI_Datatype padded_resized(void)
{
    MPI_Datatype t;
    MPI_Type_create_resized(MPI_INT, 0, 12, &t); /* holes between copies */
    return committed(t);
}

static MPI_Datatype subarray(void)
{
    int sizes[2] = {8, 8}, sub[2] = {4, 8}, starts[2] = {2, 0}; /* full rows: dense inside */
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
    return committed(t);
}

static MPI_Datatype dup_contiguous(void)
{
    MPI_Datatype c, t;
    MPI_Type_contiguous(5, MPI_SHORT, &c);
    MPI_Type_dup(c, &t);
    MPI_Type_free(&c);
    return committed(t);
}

static int run_case(MPI_File fh, MPI_Offset off, const struct typecase *tc)
{
    unsigned char *buf = malloc(BUF_BYTES), *packed = malloc(BUF_BYTES);
    unsigned char *file = malloc(BUF_BYTES), *back = calloc(1, BUF_BYTES);
    unsigned char *want = calloc(1, BUF_BYTES);
    int size, pos = 0, errors = 0;

    for (int i = 0; i < BUF_BYTES; i++)
        buf[i] = (unsigned char)(i * 13 + 1);
    MPI_Pack(buf, tc->count, tc->type, packed, BUF_BYTES, &pos, MPI_COMM_SELF);
    size = pos;
    MPI_File_write_at(fh, off, buf, tc->count, tc->type, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, off, file, size, MPI_BYTE, MPI_STATUS_IGNORE);
    if (memcmp(file, packed, size) != 0) {
        fprintf(stderr, "%s: file bytes are not in type-map order\n", tc->name);
        errors++;
    }
    MPI_File_read_at(fh, off, back, tc->count, tc->type, MPI_STATUS_IGNORE);
    pos = 0;
    MPI_Unpack(packed, size, &pos, want, tc->count, tc->type, MPI_COMM_SELF);
    if (memcmp(back, want, BUF_BYTES) != 0) {
        fprintf(stderr, "%s: read back with the type differs from MPI_Unpack\n", tc->name);
        errors++;
    }
    free(buf), free(packed), free(file), free(back), free(want);
    return errors;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct typecase cases[] = {
        {"swapped_hindexed", swapped_hindexed(), 3},
        {"dense_vector", dense_vector(), 5},
        {"strided_vector", strided_vector(), 2},
        {"dense_struct", dense_struct(), 4},
        {"swapped_struct", swapped_struct(), 3},
        {"padded_resized", padded_resized(), 7},
        {"subarray", subarray(), 1},
        {"dup_contiguous", dup_contiguous(), 9},
    };
    int ncases = sizeof(cases) / sizeof(cases[0]);
    int rank, errors = 0, total;
    MPI_File fh;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 2) {
        fprintf(stderr, "usage: t_types FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    for (int i = 0; i < ncases; i++) {
        /* Each rank its own region, each case its own slot in it. */
        errors += run_case(fh, ((MPI_Offset)rank * ncases + i) * BUF_BYTES, &cases[i]);
        MPI_Type_free(&cases[i].type);
    }
    MPI_File_close(&fh);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return total != 0;
}
