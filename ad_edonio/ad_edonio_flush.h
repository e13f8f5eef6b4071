/*
 * edonio: putting every dirty byte of a cache in the file (ad_edonio_flush.c).
 */
#ifndef AD_EDONIO_FLUSH_H_INCLUDED
#define AD_EDONIO_FLUSH_H_INCLUDED

#include "ad_edonio_cache.h"

/* What a flush leaves behind. */
enum edonio_flush_how {
    EDONIO_FLUSH_SYNC,  /* fsync, and forget clean blocks: the next read sees others' writes */
    EDONIO_FLUSH_CLOSE, /* the cache goes next: nothing more */
    EDONIO_FLUSH_EMPTY, /* forget clean blocks (atomic mode across nodes: nothing stays cached) */
    EDONIO_FLUSH_VISIBLE, /* as a sync without the fsync: what an MPI_Barrier across nodes needs
                           * (ad_edonio_visible.c) */
};

struct edonio_flush {
    MPI_Comm comm;           /* the cache's processes */
    struct edonio_stats *st; /* the calling handle's counters */
    ADIO_Offset budget;      /* bytes a process sends per round of the delivery */
    int groups;              /* romio_edonio_flush_groups */
    enum edonio_flush_how how;
    const char *myname;      /* for messages */
    int all_in;              /* a collective of the caller's has shown every process inside, so
                              * none still writes: the delivery needs no barrier first */
};

/* Collective over the cache's processes: an MPI error code, the same class on every process. */
int ADIOI_EDONIO_Flush_all(struct edonio_cache *c, const struct edonio_flush *f);
/* A one-process handle on a larger cache: what this process reaches, alone. */
int ADIOI_EDONIO_Flush_alone(struct edonio_cache *c, struct edonio_stats *st, int how,
                             const char *myname);

#endif /* AD_EDONIO_FLUSH_H_INCLUDED */
