/*
 * edonio: plans of collective calls kept per handle and reused (ad_edonio_sched.h).
 *
 * A handle keeps a few plans (romio_edonio_schedules, 4 by default): a program's time step often
 * writes several variables, each with its own offset. They are looked up by a linear scan (a few
 * entries), and the least recently taken goes when a new one needs its room.
 */
#include <stdlib.h>

#include "ad_edonio_sched.h"
#include "adioi.h"

static int same_key(const struct edonio_sched_key *a, const struct edonio_sched_key *b)
{
    return a->writing == b->writing && a->individual == b->individual && a->at == b->at &&
           a->size == b->size;
}

struct edonio_sched *ADIOI_EDONIO_Sched_find(struct edonio_scheds *ss,
                                             const struct edonio_sched_key *key)
{
    for (int i = 0; i < ss->n; i++)
        if (same_key(&ss->s[i].key, key)) {
            ss->s[i].used = ++ss->clock;
            return &ss->s[i];
        }
    return NULL;
}

struct edonio_sched *ADIOI_EDONIO_Sched_keep(struct edonio_scheds *ss,
                                             const struct edonio_sched *plan)
{
    int at = ss->n;

    if (ss->max <= 0)
        return NULL;
    if (ss->s == NULL && (ss->s = calloc((size_t)ss->max, sizeof(*ss->s))) == NULL)
        return NULL;
    if (ss->n == ss->max) { /* the least recently taken goes */
        at = 0;
        for (int i = 1; i < ss->n; i++)
            if (ss->s[i].used < ss->s[at].used)
                at = i;
        ADIOI_Free(ss->s[at].off);
        ADIOI_EDONIO_Xlayout_free(ss->s[at].x);
    } else {
        ss->n++;
    }
    ss->s[at] = *plan;
    ss->s[at].used = ++ss->clock;
    ss->s[at].x = NULL;
    return &ss->s[at];
}

void ADIOI_EDONIO_Sched_drop(struct edonio_scheds *ss, int max)
{
    for (int i = 0; i < ss->n; i++) {
        ADIOI_Free(ss->s[i].off);
        ADIOI_EDONIO_Xlayout_free(ss->s[i].x);
    }
    free(ss->s);
    ss->s = NULL;
    ss->n = 0;
    ss->max = max;
}
