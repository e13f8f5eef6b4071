/*
 * edonio test: memory datatypes that are or are not contiguous, written and read back.
 *
 * Outside MPICH, edonio decides whether a datatype is contiguous by decoding it with the public
 * MPI API (mpiio-glue/datatype.c). A wrong "contiguous" would write bytes out of type-map order,
 * so each type here is written with MPI_File_write_at, the file is compared with MPI_Pack of the
 * same buffer (the bytes in type-map order), and MPI_File_read_at with the type must rebuild
 * exactly what MPI_Unpack rebuilds. The named pair types (MPI_DOUBLE_INT and its kin) have padding
 * inside, so they are not contiguous either, alone, nested in derived types, or as a view.
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

/* Pair types hold padding: MPI_DOUBLE_INT is 12 bytes of data in an extent of 16. */
static MPI_Datatype contiguous_pairs(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t);
    return committed(t);
}

static MPI_Datatype vector_of_pairs(void)
{
    MPI_Datatype t;
    MPI_Type_vector(3, 2, 3, MPI_SHORT_INT, &t);
    return committed(t);
}

static MPI_Datatype struct_with_pair(void)
{
    int lens[2] = {1, 2};
    MPI_Aint disps[2] = {0, 16};
    MPI_Datatype types[2] = {MPI_INT, MPI_LONG_DOUBLE_INT}, t;
    MPI_Type_create_struct(2, lens, disps, types, &t);
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

static int is_named(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
    return combiner == MPI_COMBINER_NAMED;
}

/*
 * A pair type as the view's etype and filetype: the file then has a hole after each element
 * (bytes 12-15 of every 16 for MPI_DOUBLE_INT), which the write must leave alone.
 */
static int pair_view(MPI_File fh, MPI_Offset disp)
{
    struct {
        double v;
        int i;
    } out[4], back[4];
    unsigned char raw[64], fill[64];
    int errors = 0;

    memset(fill, 0xee, sizeof(fill));
    MPI_File_write_at(fh, disp, fill, sizeof(fill), MPI_BYTE, MPI_STATUS_IGNORE);
    memset(out, 0, sizeof(out));
    for (int k = 0; k < 4; k++)
        out[k].v = k + 0.5, out[k].i = 100 + k;
    MPI_File_set_view(fh, disp, MPI_DOUBLE_INT, MPI_DOUBLE_INT, "native", MPI_INFO_NULL);
    MPI_File_write_at(fh, 0, out, 4, MPI_DOUBLE_INT, MPI_STATUS_IGNORE);
    memset(back, 0, sizeof(back));
    MPI_File_read_at(fh, 0, back, 4, MPI_DOUBLE_INT, MPI_STATUS_IGNORE);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, disp, raw, sizeof(raw), MPI_BYTE, MPI_STATUS_IGNORE);
    for (int k = 0; k < 4; k++) {
        if (back[k].v != out[k].v || back[k].i != out[k].i) {
            fprintf(stderr, "pair_view: element %d read back wrong\n", k);
            errors++;
        }
        if (memcmp(raw + 16 * k, &out[k].v, 8) != 0 || memcmp(raw + 16 * k + 8, &out[k].i, 4) ||
            memcmp(raw + 16 * k + 12, fill, 4) != 0) {
            fprintf(stderr, "pair_view: element %d or the hole after it is wrong in the file\n", k);
            errors++;
        }
    }
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
        {"double_int", MPI_DOUBLE_INT, 4},
        {"float_int", MPI_FLOAT_INT, 5},
        {"long_int", MPI_LONG_INT, 3},
        {"short_int", MPI_SHORT_INT, 7},
        {"long_double_int", MPI_LONG_DOUBLE_INT, 2},
        {"2int", MPI_2INT, 3},
        {"contiguous_pairs", contiguous_pairs(), 2},
        {"vector_of_pairs", vector_of_pairs(), 2},
        {"struct_with_pair", struct_with_pair(), 3},
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
    MPI_File_set_size(fh, 0);
    for (int i = 0; i < ncases; i++) {
        /* Each rank its own region, each case (and pair_view, last) its own slot in it. */
        errors += run_case(fh, ((MPI_Offset)rank * (ncases + 1) + i) * BUF_BYTES, &cases[i]);
        if (!is_named(cases[i].type))
            MPI_Type_free(&cases[i].type);
    }
    errors += pair_view(fh, ((MPI_Offset)rank * (ncases + 1) + ncases) * BUF_BYTES);
    MPI_File_close(&fh);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return total != 0;
}
