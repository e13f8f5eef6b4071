/*
 * edonio: PIOFS logical views as MPI derived datatypes (doc/legacy-piofs.md has the picture).
 *
 * The file is a grid: BSU k (bytes [k*bsu, (k+1)*bsu)) is in row k / cells, column k % cells.
 * Row r belongs to vertical group (r / Vbs) % Vn, cell c to horizontal group (c / Hbs) % Hn;
 * subfile v*Hn + h is their intersection, row-major. The pattern repeats every Vbs*Vn rows, so
 * the filetype is one such period: an indexed type of the subfile's runs of cells in its Vbs rows,
 * resized to the period's extent. ADIO_Set_view installs it; ADIO_ReadStrided/WriteStrided use it.
 */
#include <errno.h>
#include <stdlib.h>

#include "edonio_piofs.h"
#include "legacy.h"
#include "adioi.h"

int legacy_piofs_set_view(struct legacy_file *f, const struct piofs_change_view *cv);

static int view_valid(const struct legacy_file *f, const struct piofs_change_view *cv)
{
    if (cv->Vbs < 1 || cv->Vn < 1 || cv->Hbs < 1 || cv->Hn < 1 || cv->flags != 0)
        return 0;
    if (cv->subfile < 0 || cv->subfile >= cv->Vn * cv->Hn)
        return 0;
    /* A subfile with no cells in a row is empty: not a view. */
    return (long long)(cv->subfile % cv->Hn) * cv->Hbs < f->cells;
}

/* The filetype of one period of the subfile (committed), or MPI_DATATYPE_NULL. */
static MPI_Datatype view_type(const struct legacy_file *f, const struct piofs_change_view *cv)
{
    int v = cv->subfile / cv->Hn, h = cv->subfile % cv->Hn, n = 0;
    long long row = f->bsu * f->cells;
    int *lens = malloc(sizeof(int) * (size_t)f->cells * (size_t)cv->Vbs);
    MPI_Aint *disps = malloc(sizeof(MPI_Aint) * (size_t)f->cells * (size_t)cv->Vbs);
    MPI_Datatype runs, type = MPI_DATATYPE_NULL;

    if (lens == NULL || disps == NULL)
        goto out;
    for (int r = v * cv->Vbs; r < (v + 1) * cv->Vbs; r++) {
        for (int c = 0; c < f->cells; c++) {
            if ((c / cv->Hbs) % cv->Hn != h)
                continue;
            MPI_Aint at = (MPI_Aint)(r * row + c * f->bsu);
            if (n > 0 && disps[n - 1] + lens[n - 1] == at) /* adjacent cells: one run */
                lens[n - 1] += (int)f->bsu;
            else {
                disps[n] = at;
                lens[n++] = (int)f->bsu;
            }
        }
    }
    MPI_Type_create_hindexed(n, lens, disps, MPI_BYTE, &runs);
    MPI_Type_create_resized(runs, 0, (MPI_Aint)(row * cv->Vbs * cv->Vn), &type);
    MPI_Type_free(&runs);
    MPI_Type_commit(&type);
  out:
    free(lens);
    free(disps);
    return type;
}

int legacy_piofs_set_view(struct legacy_file *f, const struct piofs_change_view *cv)
{
    MPI_Datatype type = MPI_BYTE;
    int err = MPI_SUCCESS, whole;

    if (!view_valid(f, cv) || f->bsu > (1 << 30)) {
        errno = EINVAL;
        return -1;
    }
    whole = cv->Vn == 1 && cv->Hn == 1; /* every subfile of a 1x1 grid is the whole file */
    if (!whole && (type = view_type(f, cv)) == MPI_DATATYPE_NULL) {
        errno = ENOMEM;
        return -1;
    }
    ADIO_Set_view(f->fd, 0, MPI_BYTE, type, MPI_INFO_NULL, &err); /* keeps its own copy */
    if (!whole)
        MPI_Type_free(&type);
    if (err != MPI_SUCCESS)
        return legacy_errno(err), -1;
    f->view.active = !whole;
    f->pos = 0;
    return 0;
}
