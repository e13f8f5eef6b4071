/*
 * edonio: the cache object of a file (ad_edonio_cache.h): made collectively at open, shared by the
 * handles of the file on this process that it covers, rebuilt in place by MPI_File_set_info, taken
 * down when the last handle lets it go.
 *
 * Sharing. A handle opened on the cache's processes, or on this process alone (PnetCDF's second
 * handle on MPI_COMM_SELF), shares the cache when the cache was opened for writing (a read-only
 * cache has no sync to refresh it, so it stays its handle's). Otherwise it gets a cache of its
 * own, and MPI's rule for several handles applies between the two (MPI_File_sync between
 * conflicting accesses). When the processes that made the cache close it (the handle that made
 * it, on every process), every byte is written back and the cache is closed; handles still
 * sharing it go to the file system, which is then up to date.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ad_edonio_flush.h"
#include "adioi.h"
#include "glue.h"

static struct edonio_cache *caches; /* this process's, most recent first */

/* What each process contributes to the open's exchange of records (and to exchange_again). */
struct record {
    struct edonio_peer peer;   /* peer.err: errno of making its memory */
    struct edonio_hints hints; /* rank 0's are the cache's */
    int32_t open_class;        /* MPI error class of its open of the file, 0 when it worked */
    int32_t sharing;           /* it found a cache of the file to share */
    int32_t deferred;          /* it offers kept memory and made none (offer_memory) */
    uint64_t kept;             /* the id of memory it kept from a closed cache of the same
                                * processes (ADIOI_EDONIO_Node_kept), 0 when none */
    uint64_t machine;          /* ADIOI_EDONIO_Node_machine */
    int64_t cpus;              /* the processors it may run on (ADIOI_EDONIO_Node_cpus) */
    uint64_t cpu_mask;         /* which: a hash of its affinity mask */
    struct edonio_open_tag tag; /* rank 0's is the open's */
};

static struct edonio_cache *cache_new(MPI_Comm comm, int fd_sys, const char *filename,
                                      int writable, const struct edonio_hints *hints)
{
    struct edonio_cache *c = calloc(1, sizeof(*c));
    struct stat st;

    if (c == NULL)
        return NULL;
    c->hints = *hints;
    c->fd_sys = fd_sys;
    c->filename = strdup(filename);
    c->writable = writable;
    c->node.memfd = -1;
    c->refs = 1;
    if (fd_sys >= 0 && fstat(fd_sys, &st) == 0) {
        c->dev = st.st_dev;
        c->ino = st.st_ino;
    }
    MPI_Comm_group(comm, &c->group);
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->nprocs);
    return c;
}

static void cache_free(struct edonio_cache *c)
{
    ADIOI_EDONIO_Node_detach(c);
    free(c->fetch_buf);
    if (c->group != MPI_GROUP_NULL)
        MPI_Group_free(&c->group);
    free(c->filename);
    free(c);
}

/* How a collective step ended: the first process that failed, and how. */
struct outcome {
    int failed;     /* its rank, or -1 */
    int err;        /* its errno, or 0 */
    int open_class; /* or the class of its failed open */
    int sharing;    /* every process found the same cache to share */
    struct edonio_open_tag tag; /* rank 0's */
};

static struct outcome outcome_of(const struct record *all, int nprocs)
{
    struct outcome o = {-1, 0, 0, 1, all[0].tag};

    o.tag.same_name = 1;
    o.tag.stats_root = -1;
    for (int r = 0; r < nprocs; r++) {
        o.tag.same_name &= all[r].tag.name_hash == all[0].tag.name_hash;
        if (o.tag.stats_root < 0 && all[r].tag.stats_root >= 0)
            o.tag.stats_root = r;
        o.sharing &= all[r].sharing != 0;
        if (o.failed < 0 && (all[r].peer.err != 0 || all[r].open_class != 0)) {
            o.failed = r;
            o.err = all[r].peer.err;
            o.open_class = all[r].open_class;
        }
    }
    return o;
}

/* A key of the open's records and how many processes may share it. */
struct counted {
    uint64_t key;
    int64_t most; /* processes its key may have: the smallest of its records' */
};

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const struct counted *)a)->key, y = ((const struct counted *)b)->key;
    return (x > y) - (x < y);
}

enum counted_by {
    BY_NODE,   /* does some node have several of these processes? */
    BY_MACHINE /* do more of them share some processors than there are? */
};

/*
 * Does some key of the records occur more often than it may (the smallest 'most' of its
 * records)? By node: the node's key, once. By machine: the machine's key with the affinity mask's,
 * as often as the mask has processors: processes that may all run on the same processors (no
 * binding, a cpuset) crowd them when there are more of them; processes bound one per processor
 * have masks of their own and never do; two bound to one processor do. Processes whose masks
 * overlap without being equal are not counted together (a binding made by hand: such a job may
 * be crowded and not seen so; its waits are then MPI's blocking ones). Every process answers
 * alike from the same records: one that could not answer would make the others wait for a barrier
 * or a kind of collective it skips (ADIOI_EDONIO_Crowd_set), so it aborts. O(P log P).
 */
static int over(const struct record *all, int nprocs, enum counted_by by)
{
    struct counted *k = malloc((size_t)nprocs * sizeof(*k));
    int found = 0;

    if (k == NULL)
        MPI_Abort(MPI_COMM_WORLD, ENOMEM);
    for (int r = 0; r < nprocs; r++)
        k[r] = by == BY_NODE
                   ? (struct counted){all[r].peer.key, 1}
                   : (struct counted){ADIOI_EDONIO_Node_mix(all[r].machine, all[r].cpu_mask),
                                      all[r].cpus > 0 ? all[r].cpus : INT64_MAX};
    qsort(k, (size_t)nprocs, sizeof(*k), by_key);
    for (int r = 0, run = 0; r < nprocs && !found; r = run) {
        int64_t most = k[r].most;
        for (run = r; run < nprocs && k[run].key == k[r].key; run++)
            most = k[run].most < most ? k[run].most : most;
        found = run - r > most;
    }
    free(k);
    return found;
}

/* Did every process offer the same kept memory as this one? */
static int kept_by_all(const struct record *all, int nprocs, uint64_t mine)
{
    for (int r = 0; r < nprocs; r++)
        if (all[r].kept != mine)
            return 0;
    return mine != 0;
}

/* Did some process defer making its memory? */
static int deferred_by_any(const struct record *all, int nprocs)
{
    for (int r = 0; r < nprocs; r++)
        if (all[r].deferred)
            return 1;
    return 0;
}

/*
 * This process's part of the exchange: its memory, made now (ADIOI_EDONIO_Node_prepare), or,
 * when it offers memory kept from its last cache in the shape its own hints ask (as rank 0's
 * do in the usual case: a file opened again, another file of the same run), not made at all.
 * Making it costs a memfd, its size and a mapping (about 10 us) that the reuse then throws away.
 */
static void offer_memory(struct edonio_cache *c, struct record *mine, int may_reuse)
{
    mine->kept = may_reuse ? ADIOI_EDONIO_Node_kept(c) : 0;
    mine->deferred = mine->kept != 0 && ADIOI_EDONIO_Node_kept_shape(&c->hints);
    if (mine->deferred)
        ADIOI_EDONIO_Node_identify(c, &mine->peer);
    else
        mine->peer.err = ADIOI_EDONIO_Node_prepare(c, &mine->peer);
}

/*
 * When the kept memory does not serve after all and some process deferred making its memory:
 * those make it now, and every process exchanges its record again, so that every process knows
 * every other's memory and whether one failed to make it (collective, on every process alike:
 * the records of the first exchange say the same to all).
 */
static struct outcome exchange_again(struct edonio_cache *c, MPI_Comm comm, struct record *mine,
                                     struct record *all)
{
    if (mine->deferred) {
        struct edonio_hints agreed = c->hints;
        c->hints = mine->hints; /* its own, as every other process made its memory with */
        mine->peer.err = ADIOI_EDONIO_Node_prepare(c, &mine->peer);
        c->hints = agreed;
    }
    mine->deferred = 0;
    ADIOI_EDONIO_Allgather_open(mine, sizeof(*mine), all, comm);
    return outcome_of(all, c->nprocs);
}

/*
 * Collective: this process's memory (offer_memory), the exchange of records, then (unless every
 * process shares a cache already, or one failed) the segments and the node with rank 0's hints:
 * the memory kept from the processes' last cache when they all offer it and the shape is the
 * same (may_reuse: at open), else the memory made for the open (exchange_again when some
 * process deferred making it).
 */
static struct outcome attach(struct edonio_cache *c, MPI_Comm comm, int open_class, int sharing,
                             int may_reuse)
{
    struct record mine, *all = calloc((size_t)c->nprocs, sizeof(*all));
    struct edonio_peer *peers = calloc((size_t)c->nprocs, sizeof(*peers));
    struct outcome o;

    memset(&mine, 0, sizeof(mine));
    mine.hints = c->hints;
    /* auto decided here; rank 0's decision wins, as its hints do */
    ADIOI_EDONIO_Hints_resolve(&mine.hints, c->fd_sys);
    mine.open_class = open_class;
    mine.sharing = sharing;
    mine.machine = ADIOI_EDONIO_Node_machine();
    mine.cpus = ADIOI_EDONIO_Node_cpus(&mine.cpu_mask);
    const char *base = strrchr(c->filename, '/'); /* the shared-pointer file is named after it */
    mine.tag.name_hash = ADIOI_EDONIO_Node_hash_text(base ? base + 1 : c->filename);
    mine.tag.stats_root = ADIOI_EDONIO_Stats_wanted() ? c->rank : -1;
    if (c->rank == 0) {
        mine.tag.random = (uint32_t)ADIOI_EDONIO_Node_random();
        mine.tag.pid = (uint32_t)getpid();
    }
    if (all == NULL || peers == NULL)
        MPI_Abort(comm, ENOMEM); /* cannot take part in the exchange */
    if (open_class == 0 && !sharing)
        offer_memory(c, &mine, may_reuse);
    ADIOI_EDONIO_Allgather_open(&mine, sizeof(mine), all, comm);
    ADIOI_EDONIO_Crowd_set(comm, over(all, c->nprocs, BY_MACHINE));
    o = outcome_of(all, c->nprocs);
    if (o.failed < 0 && !o.sharing) {
        c->hints = c->asked = all[0].hints;
        c->id = all[0].peer.cookie;
        if (!ADIOI_EDONIO_Node_adopt(c, mine.kept != 0, kept_by_all(all, c->nprocs, mine.kept))) {
            if (deferred_by_any(all, c->nprocs)) {
                o = exchange_again(c, comm, &mine, all);
                if (o.failed >= 0)
                    goto out;
                c->id = all[0].peer.cookie; /* rank 0's, drawn anew if it had deferred */
            }
            for (int r = 0; r < c->nprocs; r++) {
                peers[r] = all[r].peer;
                c->nodes_apart |= all[r].peer.key != all[0].peer.key;
            }
            c->nodes_shared = over(all, c->nprocs, BY_NODE);
            ADIOI_EDONIO_Node_attach(c, peers);
        }
        ADIOI_EDONIO_Keeper_attach(c);
        c->fetch_buf = malloc((size_t)c->hints.block_size); /* NULL: allocated when needed */
    }
out:
    free(peers);
    free(all);
    return o;
}

/*
 * Collective, when some process failed: the error every process returns, of the failure's class;
 * the failing process returns its own, the others its message (one broadcast, only on failure).
 */
static int failure_code(const struct edonio_cache *c, MPI_Comm comm, struct outcome o, int my_code)
{
    char text[MPI_MAX_ERROR_STRING] = "", msg[MPI_MAX_ERROR_STRING + 64];
    int code = my_code, cls = o.open_class, len = 0;

    if (o.failed == c->rank && code == MPI_SUCCESS)
        code = ADIOI_EDONIO_Err("ADIOI_EDONIO_OPENCOLL", c->filename, o.err);
    if (o.failed == c->rank) {
        MPI_Error_string(code, text, &len);
        MPI_Error_class(code, &cls);
    }
    MPI_Bcast(text, sizeof(text), MPI_CHAR, o.failed, comm);
    MPI_Bcast(&cls, 1, MPI_INT, o.failed, comm);
    if (o.failed == c->rank)
        return code;
    text[sizeof(text) - 1] = '\0';
    snprintf(msg, sizeof(msg), "failed on process %d: %s", o.failed, text);
    return edonio_error_code(cls, msg);
}

int ADIOI_EDONIO_Cache_open(MPI_Comm comm, int open_code, int fd_sys, const char *filename,
                            int writable, const struct edonio_hints *hints,
                            struct edonio_cache *found, struct edonio_cache **cache,
                            struct edonio_open_tag *tag)
{
    struct edonio_cache *c = cache_new(comm, fd_sys, filename, writable, hints);
    int open_class = 0;
    struct outcome o;

    *cache = NULL;
    if (c == NULL)
        MPI_Abort(comm, ENOMEM);
    if (open_code != MPI_SUCCESS)
        MPI_Error_class(open_code, &open_class);
    o = attach(c, comm, open_class ? open_class : MPI_SUCCESS, found != NULL, 1);
    *tag = o.tag;
    if (o.failed >= 0) {
        int code = failure_code(c, comm, o, open_code);
        cache_free(c);
        return code;
    }
    if (o.sharing) {
        cache_free(c);
        found->refs++;
        *cache = found;
        return MPI_SUCCESS;
    }
    c->next = caches;
    caches = c;
    *cache = c;
    return MPI_SUCCESS;
}

struct edonio_cache *ADIOI_EDONIO_Cache_find(int fd_sys, MPI_Comm comm, int *same_group)
{
    struct edonio_cache *found = NULL;
    MPI_Group group;
    struct stat st;
    int size, same;

    if (caches == NULL || fstat(fd_sys, &st) != 0) /* none (its first open, or all closed) */
        return NULL;
    MPI_Comm_size(comm, &size);
    MPI_Comm_group(comm, &group);
    for (struct edonio_cache *c = caches; c != NULL && found == NULL; c = c->next) {
        /* A read-only cache is never shared: ROMIO refuses MPI_File_sync on a read-only handle,
         * so nothing ever refreshes its copies, which a handle opened later (after another
         * handle's close, say) is not allowed to see. */
        if (c->dev != st.st_dev || c->ino != st.st_ino || c->fd_sys < 0 || !c->writable)
            continue;
        MPI_Group_compare(c->group, group, &same);
        *same_group = same == MPI_IDENT;
        if (*same_group || size == 1)
            found = c;
    }
    MPI_Group_free(&group);
    return found;
}

static void unlink_cache(struct edonio_cache *c)
{
    struct edonio_cache **p;

    for (p = &caches; *p != NULL && *p != c; p = &(*p)->next)
        ;
    if (*p != NULL)
        *p = c->next;
}

void ADIOI_EDONIO_Cache_close(struct edonio_cache *c, int keep)
{
    unlink_cache(c);
    ADIOI_EDONIO_Keeper_detach(c);
    if (keep && c->hints.keep_memory)
        ADIOI_EDONIO_Node_keep(c);
    else
        ADIOI_EDONIO_Node_detach(c);
    c->fd_sys = -1;
}

void ADIOI_EDONIO_Cache_release(struct edonio_cache *c)
{
    if (--c->refs > 0)
        return;
    unlink_cache(c);
    cache_free(c);
}

int ADIOI_EDONIO_Cache_rebuild(struct edonio_cache *c, MPI_Comm comm, struct edonio_stats *st,
                               const struct edonio_hints *hints)
{
    static char myname[] = "ADIOI_EDONIO_SETINFO";
    struct edonio_flush f = {comm, st, 16LL << 20, 1, EDONIO_FLUSH_CLOSE, myname, 0};
    int code = ADIOI_EDONIO_Flush_all(c, &f);

    if (code != MPI_SUCCESS)
        return code; /* the dirty bytes stay, in the old shape */
    ADIOI_EDONIO_Keeper_detach(c);
    ADIOI_EDONIO_Node_detach(c);
    free(c->fetch_buf);
    c->fetch_buf = NULL;
    c->hints = *hints;
    c->nodes_apart = c->nodes_shared = 0;
    struct outcome o = attach(c, comm, 0, 0, 0);
    if (o.failed < 0)
        return MPI_SUCCESS;
    ADIOI_EDONIO_Cache_close(c, 0); /* no cache: its handles go to the file system */
    return failure_code(c, comm, o, MPI_SUCCESS);
}
