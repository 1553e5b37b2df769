/* far_internal.h: FAR's shared internals: the plan (task lists on repartitioning-tree
 * nodes, one tree per GPU and batch), the timing engine and the phases. */
#ifndef MIGSCHED_FAR_INTERNAL_H
#define MIGSCHED_FAR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/offline.h"

/* One tree node's tasks, in run order (LPT: decreasing time at the node's size). */
typedef struct far_list {
    int *task;
    int n, cap;
    double sum; /* total run time of the tasks at the node's size */
} far_list;

/* The tree of a GPU model, flattened: what every phase needs per node. */
typedef struct far_tree {
    int n;                       /* nodes; 0 is the root, ids in DFS preorder */
    int size[MS_MAX_TREE_NODES]; /* compute slices */
    int parent[MS_MAX_TREE_NODES];
    int depth[MS_MAX_TREE_NODES];
    int maxdepth;
    uint32_t slots[MS_MAX_TREE_NODES]; /* memory-slot mask */
    bool has_size[MS_MAX_SLICES + 1];  /* some node of this size exists */
    int order[2][MS_MAX_TREE_NODES];   /* by depth then id; [1]: deepest first (reversed) */
    /* Rules set by far_plan_set_rules (defaults: the paper's reading, preorder ties). */
    int rank[MS_MAX_TREE_NODES];    /* tie order of equal times in Algorithm 1 and the
                                       engine: preorder, or right branch first */
    int extra[MS_MAX_TREE_NODES];   /* a smaller size this node also runs (its tasks then
                                       take this node's time), 0 if none */
    int runs_on[MS_MAX_SLICES + 1]; /* per size: the larger size whose node also runs it */
} far_tree;

void far_tree_init(far_tree *t, const ms_gpu_model *gpu);

/* A plan: `ntrees` trees (batch-major, then GPU) of task lists. */
typedef struct far_plan {
    const ms_workload *w;
    const ms_gpu_model *gpu;
    far_tree tree;
    int gpus, batches;
    far_list *list; /* [(batch * gpus + g) * tree.n + node] */
    bool *reversed; /* per batch: leaves first (paper 000 4.2) */
} far_plan;

int far_plan_init(far_plan *p, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                  int batches);
/* Applies the options four_runs_three and tie_right_first to p's tree (docs/far.md). */
void far_plan_set_rules(far_plan *p, const ms_offline_options *opt);
void far_plan_free(far_plan *p);
static inline far_list *far_plan_list(far_plan *p, int batch, int g, int node)
{
    return &p->list[((size_t)batch * p->gpus + g) * p->tree.n + node];
}
static inline double far_time(const far_plan *p, int task, int node)
{
    return p->w->tasks[task].time[p->tree.size[node]];
}
int far_list_push(far_list *l, int task, double time);
/* The first position from lo whose time is below t, or at most t when at_most (the list's
 * times decrease: a binary search). */
int far_list_bound(const far_plan *p, const far_list *l, int node, double t, bool at_most, int lo);
/* Inserts keeping decreasing time order (after equal times). */
int far_list_insert_sorted(far_plan *p, far_list *l, int node, int task);
/* Inserts seq[0..k) into l with the very result (order and running sum) of k calls of
 * far_list_insert_sorted in seq order, in O((n + k) log k) rather than O(n k). */
int far_list_insert_seq(far_plan *p, far_list *l, int node, const int *seq, int k);
/* Position of task in l (binary search on its time, then among equal times), -1 if absent. */
int far_list_find(const far_plan *p, const far_list *l, int node, int task);
void far_list_remove_at(far_plan *p, far_list *l, int node, int pos);
/* Copies the lists of batch sb of src into batch db of dst (same model and GPUs). */
int far_plan_copy_batch(far_plan *dst, int db, const far_plan *src, int sb);
/* Appends batch 0 of the one-batch plan `one` (on a slice of p's workload starting at task
 * `first`) to batch b of p, with its reversal. */
int far_plan_put_batch(far_plan *p, int b, int first, far_plan *one);

/* Timing engine: turns a plan into instance and task times. Creation and destruction go
 * through one clock per GPU; an instance is created once every overlapping instance before
 * it (by tree order, and by batch) is destroyed. `barrier`: a batch starts no earlier than
 * the previous batch's last task end (trivial concatenation). From batch 0 the GPUs hold
 * e->initial: an instance of batch 0 with nothing before it on its slots that is at the
 * placement of an initial instance is that instance (no creation; its tasks start once it
 * is free); an initial instance the plan does not keep is destroyed, once free, right
 * before the first creation on its slots; one the plan never touches stays. */
typedef struct far_inst {
    int batch, gpu, node;
    int keeps; /* the initial instance it is (no creation), -1: none */
    int seq;   /* tie-break order (node id, reversed in reversed batches) */
    const far_list *list;
    int npred, pending;
    int pred[MS_MAX_SLOTS];
    bool has_succ;
    int cont, cont_by; /* same instance kept across batches: the one it continues,
                          the one continuing it (-1 if none) */
    double ready;      /* latest last-task end among predecessors */
    double create_start, create_end, task_start, end, destroy_start, destroy_end;
} far_inst;

typedef struct far_engine {
    int n, cap;
    far_inst *inst;
    int *order;             /* scratch: CSR fill pointers, emitted ids */
    int *succ_start, *succ; /* CSR successor lists */
    struct far_op *heap;
    int *held; /* per batch: instances waiting for the barrier */
    int held_cap;
    int b0;                    /* first batch of the last run */
    const ms_initial *initial; /* set by the caller: what the GPUs hold before batch 0
                                  (NULL: empty) */
    int ninit, init_cap;       /* the last run's view of it (far_engine.c) */
    struct far_init *init;
    double makespan;
} far_engine;

void far_engine_free(far_engine *e);
/* Runs the engine over batches [b0, b1) of p. `exact`: instance ends summed task by task
 * as the emitted schedule does (else from the lists' running sums, for speed). */
int far_engine_run(far_engine *e, const far_plan *p, int b0, int b1, bool barrier, bool exact);
/* The engine's result as a schedule (instances in engine order, tasks normalised). */
int far_engine_emit(const far_engine *e, const far_plan *p, ms_schedule *s);

/* Phases 1 and 2 (far_alloc.c, far_place.c): the allocation family and Algorithm 1. All
 * buffers are kept between calls and grown only when n grows. Tasks are positions
 * 0..n-1 standing for workload tasks first..first+n-1. */
typedef struct far_group {
    int *task;        /* LPT order: decreasing time, then input order */
    double *time;     /* time of task[i] at the group's size (read in order, not from
                         the workload's scattered tasks) */
    double *up;       /* ... and at the larger size whose node also runs this group
                         (tree.runs_on, four_runs_three); unset when there is none */
    int head, n, cap; /* live entries are task[head .. head + n) */
    double sum;       /* total time of the live entries */
} far_group;
/* A group's arrays hold FAR_GROUP_CAP(cap) entries for at most cap live ones: room to
 * insert on either side of them (far_alloc.c, regroup). */
#define FAR_GROUP_CAP(cap) (2 * (cap))

/* What the last run of Algorithm 1 (far_place) saw, so that the next allocations of the
 * family, which change a few tasks, can be cut without running it again (docs/far.md). */
typedef struct far_trace {
    int events, cap;              /* loop iterations recorded; 0: nothing usable */
    double *bound;                /* per iteration: max so far of the lower bound checked
                                     there, minus the allocation's total area */
    double *end;                  /* per iteration: max so far of the task ends it placed */
    int *look[MS_MAX_SLICES + 1]; /* per size: the iteration that first looked at each
                                     position of the group (the head is position 0) */
    int nlook[MS_MAX_SLICES + 1], lookcap[MS_MAX_SLICES + 1];
    int changed[MS_MAX_SLICES + 1]; /* per size: first group position changed since the run
                                       (INT_MAX: none) */
    double sum0[MS_MAX_SLICES + 1]; /* per size: the group's total time at the run */
    double coef[MS_MAX_SLICES + 1]; /* per size: how fast the recorded idle-ahead terms
                                       fall as that total falls (0: none recorded) */
    double rise[MS_MAX_SLICES + 1]; /* ... and as it rises */
} far_trace;

typedef struct far_lpt_entry {
    double time;
    int task;
} far_lpt_entry;
/* Sorts e[0..n) by decreasing time, equal times keeping their order (stable), using tmp
 * (n entries) as scratch (far_sort.c). */
void far_sort_lpt(far_lpt_entry *e, far_lpt_entry *tmp, int n);

typedef struct far_search {
    const ms_workload *w;
    const far_tree *tree;
    const ms_gpu_model *gpu;
    int gpus, first, n, cap;
    unsigned char *alloc; /* current size per task */
    int *heap;            /* max-heap of tasks by (time, -index): the longest */
    far_group group[MS_MAX_SLICES + 1];
    int *order, *best_order;      /* Algorithm 1 output: tasks in placement order */
    int *node_of, *best_node_of;  /* ... and the key gpu * MS_MAX_TREE_NODES + node of
                                     each, by placement position */
    int *pos;                     /* heap position per task */
    far_lpt_entry *lpt, *lpt_tmp; /* scratch of a group's sort */
    far_trace trace;
} far_search;

far_search *far_search_new(void);
void far_search_free(far_search *s);
/* Fills batch b of p (tasks first..first+n-1) with the task lists of the best allocation
 * of paper 000's family, or (whole_gpu) of "every task on the whole GPU"; the latter fails
 * with MS_EINFEASIBLE when a task cannot run on the whole GPU. */
int far_search_run(far_search *s, far_plan *p, int b, int first, int n, bool whole_gpu,
                   int *allocations, int *evaluated, ms_error *err);
/* A lower bound on the whole-GPU allocation's makespan (INFINITY when infeasible). */
double far_whole_gpu_bound(const far_plan *p, int first, int n);
/* Algorithm 1 on the current allocation (total area `area`); gives up (returns INFINITY)
 * as soon as the makespan cannot stay below `cutoff`. Fills s->node_of and s->order, and
 * records s->trace. */
double far_place(far_search *s, double area, double cutoff);
/* True when s->trace proves that far_place on the current allocation would give up under
 * `cutoff` (the run agrees with the recorded one up to the first look at a changed group
 * position). Moving a task between groups must go through far_trace_changed. */
bool far_place_gives_up(const far_search *s, double area, double cutoff);
void far_trace_changed(far_trace *t, int size, int position);
void far_trace_free(far_trace *t);
static inline double far_search_time(const far_search *s, int i, int size)
{
    return s->w->tasks[s->first + i].time[size];
}

/* Phase 3: Algorithm 2 on batch b of p. Returns the final makespan of that batch alone. */
typedef struct far_refine_stats {
    int moves, swaps, iterations;
} far_refine_stats;
int far_refine_run(far_plan *p, int b, far_engine *e, const ms_offline_options *opt,
                   far_refine_stats *st);

/* What refinement and overlap look at: per instance key ((batch - b0) * gpus + gpu) *
 * tree.n + node the last task end (-1 if unused), per GPU memory slot the latest end of an
 * instance holding it (0 if none), and the makespan of batches [b0, b1). */
typedef struct far_view {
    double *end, *slot_end;
    double makespan;
} far_view;
int far_view_init(far_view *rv, const far_plan *p, int nbatches);
void far_view_free(far_view *rv);
int far_view_update(far_view *rv, far_engine *e, far_plan *p, int b0, int b1);
/* I^a: among keys base + g * tree.n + v, the other instance of key's size whose slices are
 * released first (ties: lower GPU, then lower node id); -1 if none. */
int far_alternative(const far_view *rv, const far_tree *t, int gpus, int base, int key,
                    double *end);
/* The task of l (times decreasing) shorter than margin and closest to margin / 2 (ties:
 * the longer); -1 if none. */
int far_pick_move(const far_plan *p, const far_list *l, int node, double margin);
/* Tasks k of li and j of la with 0 < t_k - t_j < margin, t_k - t_j closest to margin / 2
 * (ties: first k, then the longer t_j). */
bool far_pick_swap(const far_plan *p, const far_list *li, const far_list *la, int node,
                   double margin, int *pk, int *pj);
int far_do_swap(far_plan *p, far_list *li, far_list *la, int node, int k, int j);

/* Multi-batch concatenation (paper 000 section 4) over an already scheduled plan. */
int far_concat_run(far_plan *p, far_engine *e, const ms_offline_options *opt, ms_schedule *s,
                   ms_error *err);

#endif
