/*
 * edonio: is a datatype contiguous? Answered with the public MPI API.
 *
 * ROMIO asks this on every read and write to choose between the contiguous and the strided path.
 * MPICH answers from its internal datatype object; edonio decodes the type with
 * MPI_Type_get_envelope/MPI_Type_get_contents. "Contiguous" means that count copies of the type
 * are one run of bytes in type-map order, so a wrong "yes" would scramble data; where the answer
 * is not obvious the decoder says "no", which only costs ROMIO a trip through its strided code.
 * The answer for a derived type is kept in an attribute on the type, so each type is decoded once.
 * A named type is contiguous when its size is its extent: not so the pair types (MPI_DOUBLE_INT is
 * a double and an int in 16 bytes), which ROMIO then flattens through their layout (our patch 0007).
 *
 * ROMIO inside MPICH also asks MPICH whether a datatype is committed before it reads or writes
 * with it; MPIO_Datatype_iscommitted answers that here, as MPICH's own MPI-IO functions do.
 */
#include <stdlib.h>

#include "glue.h"

static int iscontig_keyval = MPI_KEYVAL_INVALID;
static int committed_keyval = MPI_KEYVAL_INVALID; /* present: the type is committed */

static int type_is_contig(MPI_Datatype type);

/* Size equals extent and true extent, and the data starts at the lower bound. */
static int dense(MPI_Datatype type)
{
    MPI_Count size, lb, extent, true_lb, true_extent;

    MPI_Type_size_x(type, &size);
    MPI_Type_get_extent_x(type, &lb, &extent);
    MPI_Type_get_true_extent_x(type, &true_lb, &true_extent);
    return size == extent && size == true_extent && lb == true_lb;
}

static MPI_Aint type_extent(MPI_Datatype type)
{
    MPI_Aint lb, extent;

    MPI_Type_get_extent(type, &lb, &extent);
    return extent;
}

/* Blocks of one old type, at byte displacements, each following the one before. */
static int blocks_follow(int count, const int *lens, const MPI_Aint *disps, MPI_Aint extent)
{
    for (int i = 1; i < count; i++)
        if (disps[i] != disps[i - 1] + lens[i - 1] * extent)
            return 0;
    return 1;
}

struct contents {
    int ni, na, nd, combiner;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
};

static int get_contents(MPI_Datatype type, struct contents *c)
{
    MPI_Type_get_envelope(type, &c->ni, &c->na, &c->nd, &c->combiner);
    c->ints = malloc((c->ni + 1) * sizeof(int));
    c->aints = malloc((c->na + 1) * sizeof(MPI_Aint));
    c->types = malloc((c->nd + 1) * sizeof(MPI_Datatype));
    if (!c->ints || !c->aints || !c->types)
        return 0;
    MPI_Type_get_contents(type, c->ni, c->na, c->nd, c->ints, c->aints, c->types);
    return 1;
}

static void free_contents(struct contents *c)
{
    for (int i = 0; i < c->nd; i++) {
        int ni, na, nd, combiner;
        MPI_Type_get_envelope(c->types[i], &ni, &na, &nd, &combiner);
        if (combiner != MPI_COMBINER_NAMED)
            MPI_Type_free(&c->types[i]);
    }
    free(c->ints);
    free(c->aints);
    free(c->types);
}

/* The blocks of an indexed or struct type as (length, byte displacement) pairs, in order. */
static int indexed_contig(const struct contents *c)
{
    int count = c->ints[0], ok = 1;
    int *lens = NULL;
    MPI_Aint *disps = malloc((count + 1) * sizeof(MPI_Aint)), extent;
    MPI_Datatype old = c->types[0];

    if (disps == NULL)
        return 0;
    lens = c->ints + 1;
    extent = type_extent(old);
    for (int i = 0; i < count; i++) {
        switch (c->combiner) {
            case MPI_COMBINER_INDEXED:
                disps[i] = (MPI_Aint)c->ints[count + 1 + i] * extent;
                break;
            case MPI_COMBINER_HINDEXED:
                disps[i] = c->aints[i];
                break;
            default: /* STRUCT: every block must be of one contiguous type of the same extent */
                disps[i] = c->aints[i];
                ok = ok && type_is_contig(c->types[i]) && type_extent(c->types[i]) == extent;
                break;
        }
    }
    ok = ok && type_is_contig(old) && blocks_follow(count, lens, disps, extent);
    free(disps);
    return ok;
}

static int decode_is_contig(MPI_Datatype type)
{
    struct contents c = {0};
    int ok = 0;

    if (!get_contents(type, &c))
        goto out;
    switch (c.combiner) {
        case MPI_COMBINER_DUP:
        case MPI_COMBINER_CONTIGUOUS:
        case MPI_COMBINER_RESIZED:
            ok = type_is_contig(c.types[0]);
            break;
        case MPI_COMBINER_VECTOR: /* count, blocklength, stride (in old extents) */
            ok = type_is_contig(c.types[0]) && (c.ints[0] <= 1 || c.ints[1] == c.ints[2]);
            break;
        case MPI_COMBINER_HVECTOR: /* stride in bytes */
            ok = type_is_contig(c.types[0]) &&
                 (c.ints[0] <= 1 || c.aints[0] == c.ints[1] * type_extent(c.types[0]));
            break;
        case MPI_COMBINER_INDEXED:
        case MPI_COMBINER_HINDEXED:
        case MPI_COMBINER_STRUCT:
            ok = c.ints[0] >= 1 && indexed_contig(&c);
            break;
        default: /* subarray, darray, indexed_block, ...: ROMIO's strided path copes */
            ok = 0;
            break;
    }
out:
    free_contents(&c);
    return ok;
}

/* Contiguous as a whole: dense, and its pieces in order. */
static int type_is_contig(MPI_Datatype type)
{
    int ni, na, nd, combiner;

    MPI_Count size;

    MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED)
        return dense(type);
    /* An empty type is contiguous, as MPICH says (ROMIO's flattening relies on it). */
    MPI_Type_size_x(type, &size);
    if (size == 0)
        return 1;
    return dense(type) && decode_is_contig(type);
}

static int cached_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    (void)type;
    (void)keyval;
    (void)extra;
    free(value);
    return MPI_SUCCESS;
}

void MPIR_Datatype_iscontig(MPI_Datatype datatype, int *flag)
{
    int ni, na, nd, combiner, found = 0;
    int *cached = NULL;

    MPI_Type_get_envelope(datatype, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED) {
        *flag = dense(datatype); /* not the pair types: MPI_DOUBLE_INT is 12 bytes in 16 */
        return;
    }
    if (iscontig_keyval == MPI_KEYVAL_INVALID)
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, cached_delete, &iscontig_keyval, NULL);
    MPI_Type_get_attr(datatype, iscontig_keyval, &cached, &found);
    if (found) {
        *flag = *cached;
        return;
    }
    *flag = type_is_contig(datatype);
    cached = malloc(sizeof(*cached));
    if (cached) {
        *cached = *flag;
        MPI_Type_set_attr(datatype, iscontig_keyval, cached);
    }
}

/*
 * MPI_SUCCESS when the type may be used for I/O: not MPI_DATATYPE_NULL, and committed. The public
 * API has no query for "committed", but MPI_Pack must refuse an uncommitted type whatever the
 * count, and packing zero elements touches no memory; it reports on a private communicator whose
 * errors return, so the program's error handlers never see the probe. A committed type stays
 * committed, so the answer for a derived type is kept with the contiguity answer.
 */
static MPI_Comm probe_comm = MPI_COMM_NULL;

static int probe_committed(MPI_Datatype type)
{
    char in = 0, out = 0;
    int position = 0;

    if (probe_comm == MPI_COMM_NULL) {
        MPI_Comm_dup(MPI_COMM_SELF, &probe_comm);
        MPI_Comm_set_errhandler(probe_comm, MPI_ERRORS_RETURN);
    }
    return MPI_Pack(&in, 0, type, &out, 0, &position, probe_comm) == MPI_SUCCESS;
}

int MPIO_Datatype_iscommitted(MPI_Datatype datatype)
{
    int ni, na, nd, combiner, found = 0;
    int *cached = NULL;

    if (datatype == MPI_DATATYPE_NULL)
        return edonio_error_code(MPI_ERR_TYPE, "Null datatype");
    MPI_Type_get_envelope(datatype, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED)
        return MPI_SUCCESS;
    if (committed_keyval == MPI_KEYVAL_INVALID)
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, cached_delete, &committed_keyval, NULL);
    MPI_Type_get_attr(datatype, committed_keyval, &cached, &found);
    if (found)
        return MPI_SUCCESS;
    if (!probe_committed(datatype))
        return edonio_error_code(MPI_ERR_TYPE,
                                 "Datatype has not been committed (call MPI_Type_commit first)");
    cached = malloc(sizeof(*cached));
    if (cached) {
        *cached = 1;
        MPI_Type_set_attr(datatype, committed_keyval, cached);
    }
    return MPI_SUCCESS;
}
