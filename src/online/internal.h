/* internal.h: the online module's private types: fragmentation table, min-tree, and the
 * simulator state shared by its files (sim_core, expected, place, queue, migrate, sim,
 * layout, check). */
#ifndef MIGSCHED_ONLINE_INTERNAL_H
#define MIGSCHED_ONLINE_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "migsched/online.h"

/* F(g) by (free slot mask, number of free compute slices): F depends on nothing else. */
struct ms_online_frag_table {
    double f[1 << MS_MAX_SLOTS][MS_MAX_SLICES + 1];
};
typedef struct ms_online_frag_table msi_frag_table;

void msi_frag_table_init(msi_frag_table *t, const ms_gpu_model *m);

/* F values are means of small rationals: compare them with a tolerance. */
static inline bool msi_frag_less(double a, double b) { return a < b - 1e-9; }
static inline bool msi_frag_equal(double a, double b) { return fabs(a - b) <= 1e-9; }

/* Leftmost-minimum tree over n slots of 64-bit keys (UINT64_MAX = absent). */
typedef struct msi_mintree {
    int n;         /* leaves, a power of two */
    uint64_t *key; /* 2n: key[1] is the root, leaves at n..2n-1 */
} msi_mintree;

int msi_mintree_init(msi_mintree *t, int n);
void msi_mintree_free(msi_mintree *t);
void msi_mintree_set(msi_mintree *t, int i, uint64_t key);
/* Leftmost index holding the minimum, -1 when every key is absent. */
int msi_mintree_argmin(const msi_mintree *t);
uint64_t msi_mintree_get(const msi_mintree *t, int i);

#define MSI_NONE UINT64_MAX

enum { MSI_I_NONE = 0, MSI_I_CREATING = 1, MSI_I_READY = 2 };

typedef struct msi_inst {
    int8_t profile; /* -1: no instance starts at this slot */
    int8_t state;
    int job; /* job holding (or reserved for) it, -1 if idle */
    double ready_at;
} msi_inst;

typedef struct msi_gpu {
    msi_inst inst[MS_MAX_SLOTS]; /* by start slot */
    uint32_t used;               /* slots of every instance */
    uint32_t lock;               /* slots that cannot be destroyed now: held or being created */
    uint32_t jobslots;           /* slots of instances holding a job now */
    uint32_t keepslots;          /* ... once pending migrations end (what F is measured on) */
    uint32_t keepslices;
    int load;     /* committed busy compute slices (migrating job on its target) */
    int nrunning; /* jobs executing here (contention) */
    int ninst, nbusy;
    double reconf_free; /* the GPU runs one creation/destruction at a time */
    double frag;
} msi_gpu;

enum { MSI_J_PENDING = 0, MSI_J_QUEUED, MSI_J_STARTING, MSI_J_RUNNING, MSI_J_DONE };

typedef struct msi_job {
    double remaining, rate, last;
    int gpu, tgpu; /* executing GPU; migration target (-1 none) */
    int8_t slot, tslot, state;
    uint32_t version;   /* bumps when the finish time changes */
    uint32_t mversion;  /* bumps when a migration starts or is called off */
    int next;           /* FIFO link while queued */
    uint64_t claim_seq; /* decision that last gave it an instance (msi_sim.claims) */
    double admit_slack; /* admitted onto a reserved GPU: how long before the reserved
                         * slots free it was expected to end (-INFINITY: not admitted) */
    double placed;      /* when it was given an instance (a queued job: after its wait) */
} msi_job;

/* Kinds in the order events of equal time run: instances become ready before jobs leave,
 * jobs leave before newcomers look for room. */
enum { MSI_EV_RECONF_END = 0, MSI_EV_FINISH, MSI_EV_MIG_END, MSI_EV_START, MSI_EV_ARRIVAL };

typedef struct msi_event {
    double t;
    uint64_t seq;
    int kind, id, slot;
    uint32_t version;
} msi_event;

typedef struct msi_sim {
    const ms_gpu_model *m;
    const ms_online_workload *w;
    ms_online_config c;
    ms_online_result *r;
    msi_frag_table *ft;
    int G, S;
    msi_gpu *gpu;
    msi_job *job;
    /* candidate placement per (gpu, profile), and trees choosing the GPU */
    int8_t *cand_start; /* G * nprofiles */
    msi_mintree place[MS_MAX_PROFILES];
    msi_mintree source[MS_MAX_PROFILES]; /* migration sources: most loaded first */
    int qhead[MS_MAX_PROFILES], qtail[MS_MAX_PROFILES], queued;
    msi_event *heap;
    int nheap, capheap;
    uint64_t seq;
    double now, frag_area, last_t;
    int64_t frag_sum; /* sum of F(g) in units of 1e-12: exact updates */
    int next_arrival, done, instances, busy;
    int in_node[MS_MAX_PROFILES]; /* jobs arrived and not done, by profile */
    bool static_layout;
    bool own_ft;   /* ft is freed with the state (not shared between nodes) */
    bool fed;      /* jobs come by msi_sim_admit (a node of the cluster), not from w's arrivals */
    int cap_jobs;  /* room in job[] and the result's per-job arrays */
    bool checking; /* the invariant check after each event, and the whole state every */
    long check_every; /*   check_every events (0: at the end only) */
    int failed;       /* MS_ENOMEM once an allocation failed, or the placement callback's
                       * failure (MS_EINVAL, MS_EINTR) */
    uint64_t claims;  /* instance claims so far (placements, migrations) */
    /* the aging reservation (queue.c): one queued job holds slots of one GPU */
    int resv_job, resv_gpu; /* -1: none */
    uint32_t resv_mask;     /* the slots it waits for */
    uint64_t resv_since;    /* claims made before it was taken */
    /* GPUs the current event changed, for the incremental check (check.c) */
    int *dirty, ndirty;
    uint8_t *is_dirty;
    struct msi_custom *custom; /* with a placement callback, NULL otherwise */
} msi_sim;

/* What a placement callback (place_custom.c) needs beside the state: its failure's message
 * and the views it is shown, one per GPU (kept apart: a cluster holds a state per node). */
typedef struct msi_custom {
    ms_error err;
    ms_online_gpu_view views[];
} msi_custom;

/* sim_core.c: the primitives below placement, queue and migration */
/* Room for one more element in the array *arr_ptr (n used of *cap, `size` bytes each),
 * doubling from `first`; false (the array kept as it was) when out of memory. */
bool msi_reserve(void *arr_ptr, int n, int *cap, size_t size, int first);
void msi_push(msi_sim *s, double t, int kind, int id, int slot, uint32_t version);
/* The earliest event, taken off the heap (which holds at least one). */
msi_event msi_pop(msi_sim *s);
/* Recomputes a GPU's masks and counters from its instances. */
void msi_recount(msi_sim *s, int g);
double msi_system_frag(const msi_sim *s);
void msi_rerate(msi_sim *s, int g);
/* expected.c */
/* Job j's expected end from its known work alone (contention is not foreseen): its work
 * left from now, or all of it from its instance's readiness when it has not started. */
double msi_expected_end(const msi_sim *s, int j);
double msi_slots_free_at(const msi_sim *s, int g, uint32_t mask);
/* place.c */
/* A GPU's instances changed: its counters, F, the system's tallies and its placement keys
 * follow (and it is marked for the incremental check). */
void msi_gpu_changed(msi_sim *s, int g);
void msi_update_keys(msi_sim *s, int g);
bool msi_lazy(const msi_sim *s, int g);
void msi_claim(msi_sim *s, int g, int start, int profile, int j, double *ready);
/* When an instance of `profile` at (g, start) could run a job if claimed now. */
double msi_claim_ready(const msi_sim *s, int g, int start, int profile);
bool msi_try_place(msi_sim *s, int j);
/* Gives job j (g, start) now: claims the instance and starts the job once it is ready. */
void msi_place_at(msi_sim *s, int j, int g, int start);
/* The simulator's state of g as the placement decision sees it, and its rule. */
void msi_view(const msi_sim *s, int g, ms_online_gpu_view *v, ms_online_rule *r);
double msi_frag_with(const msi_sim *s, int g, uint32_t add_slots, uint32_t add_slices,
                     uint32_t drop_slots, uint32_t drop_slices);
bool msi_target_ok(const msi_sim *s, int g, int profile, int start);
/* Whether job j, not the reserved one, may take (g, start) on the reserved GPU, outside the
 * reserved slots: only when it is expected to end before they free (recorded in j for the
 * check). */
bool msi_resv_admit(msi_sim *s, int j, int g, int start);
/* place_custom.c */
/* msi_try_place with the caller's placement callback choosing; false when it lets the job
 * wait, or when it failed (s->failed then says how). */
bool msi_try_place_custom(msi_sim *s, int j);
/* queue.c: the queue disciplines and the aging reservation */
void msi_on_arrival_queue(msi_sim *s, int j);
void msi_dispatch_queue(msi_sim *s);
/* migrate.c */
void msi_on_departure(msi_sim *s, int g);
void msi_migration_end(msi_sim *s, int j);
/* layout.c */
/* A workload the simulators take: at least one job, each of a profile of m, with work >= 0,
 * in arrival order (trace.c). */
int msi_workload_check(const ms_gpu_model *m, const ms_online_workload *w, ms_error *err);
int msi_build_layout(const ms_gpu_model *m, const ms_online_workload *w, const ms_online_config *c,
                     int layout, ms_partition *out, ms_error *err);
/* sim.c: the state and its events (layout: per-GPU static instances, NULL for dynamic).
 * A fed simulator (fed true, the node of a cluster) starts with no job: the caller appends
 * job j to w and hands it over with msi_sim_admit at time t, and grows nothing else.
 * shared_ft: an F table the caller keeps for several simulators (NULL: one of its own). */
int msi_sim_init(msi_sim *s, const ms_gpu_model *m, const ms_online_workload *w,
                 const ms_online_config *c, const ms_partition *layout, bool fed,
                 msi_frag_table *shared_ft, ms_online_result *r);
void msi_sim_free(msi_sim *s);
/* Runs the earliest event (the heap holds one); *finished: the job it ended, else -1. */
int msi_sim_step(msi_sim *s, int *finished, ms_error *err);
int msi_sim_admit(msi_sim *s, int j, double t, ms_error *err);
/* After the last event: every job done, and the whole state checked when checking. */
int msi_sim_finish(msi_sim *s, ms_error *err);
/* One run of w's jobs at their arrivals. */
int msi_run(const ms_gpu_model *m, const ms_online_workload *w, const ms_online_config *c,
            const ms_partition *layout, ms_online_result *r, ms_error *err);
/* check.c: the whole state, or only what the last event changed (its job, dirty GPUs) */
int msi_check(const msi_sim *s, ms_error *err);
int msi_check_event(const msi_sim *s, int job, ms_error *err);

#endif
