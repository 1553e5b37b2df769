"""A placement policy written in Python for migsched's online simulator, evaluated on the
Alibaba GPU-sharing sample against the built-in frag, firstfit-dynamic and owp (best fit)
policies: a table at one offered load and a plot of each policy's mean turnaround, relative
to firstfit-dynamic's, against offered load (the sample's arrivals time-scaled to each load).

The policy, "pack-frag": reuse an idle instance of the job's profile when one is free
(no creation time); otherwise, or among several, take the GPU left with the fewest free
compute slices (packing keeps whole GPUs free for the sample's many 7g jobs), and on that
GPU the start that leaves the lowest fragmentation cost F(g) (paper 002's measure,
computed here in Python from the GPU model). Every policy runs with the fcfs-profile queue;
frag keeps its departure migration.

    make python && PYTHONPATH=python python3 python/examples/online_policy.py \
        [--pods FILE] [--gpus 8] [--limit 0] [--loads 0.3,0.5,0.7,0.9] [--at 0.7] [--out FILE.svg]
"""
import argparse
import os

import numpy as np

import migsched

here = os.path.dirname(os.path.abspath(__file__))
PODS = os.path.join(here, "..", "..", "..", "shared", "data", "alibaba-openb-2023", "openb_pod_list_default.csv")


def frag_table(gpu):
    """F(g) by (free memory slots mask, free compute slices): the mean over profiles that
    would fit by counts (ideal > 0) of 1 - valid / ideal, valid counting the placements
    that fit at once."""
    table = {}
    for free in range(1 << gpu.slots):
        for slices in range(gpu.slices + 1):
            terms = []
            for p in gpu.profiles:
                ideal = min(slices // p.slices, bin(free).count("1") // p.size_slots)
                if ideal <= 0:
                    continue
                valid, left = 0, free
                for start in p.starts:
                    mask = p.slot_mask(start)
                    if left & mask == mask:
                        valid += 1
                        left &= ~mask
                terms.append(1 - valid / ideal)
            table[free, slices] = sum(terms) / len(terms) if terms else 0.0
    return table


class PackFrag:
    """The policy: called with a migsched.PlacementState, returns (gpu, start) or None."""

    def __init__(self, gpu):
        self.gpu = gpu
        self.table = frag_table(gpu)
        self.all_slots = (1 << gpu.slots) - 1
        # per profile: (start, slot mask, compute slice mask) of each start it allows, the
        # slices as the simulator counts them (from the start, cut at the GPU's slices)
        all_slices = (1 << gpu.slices) - 1
        self.starts = [[(s, p.slot_mask(s), ((1 << p.slices) - 1) << s & all_slices) for s in p.starts]
                       for p in gpu.profiles]

    def __call__(self, state):
        p = state.profile
        jobs = state.job_slots.tolist()
        locked = state.locked_slots.tolist()
        fslots = state.frag_slots.tolist()
        fslices = state.frag_slices.tolist()
        load = state.load.tolist()
        idle = state.idle.tolist()
        best, best_key = None, None
        for g in range(state.ngpus):
            for start, mask, smask in self.starts[p.index]:
                if jobs[g] & mask:
                    continue
                reuse = idle[g][start] == p.index
                if not reuse and locked[g] & mask:
                    continue
                free = ~(fslots[g] | mask) & self.all_slots
                taken = bin(fslices[g] | smask).count("1")
                f = self.table[free, self.gpu.slices - taken]
                key = (not reuse, self.gpu.slices - load[g] - p.slices, round(f, 9))
                if best_key is None or key < best_key:
                    best, best_key = (g, start), key
        return best


def burst(pods):
    """The sample's pods after its lead-in: about 20 of them trickle in over the first three
    quarters of its span, the rest arrive in the last quarter, so the offered load over the
    whole span would say little about the load the node sees."""
    first = int(np.searchsorted(pods.arrival, 0.75 * pods.arrival[-1]))
    return pods[first:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pods", default=PODS, help="the Alibaba pod list (openb_pod_list_default.csv)")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--limit", type=int, default=0, help="the first N one-GPU pods (0: all)")
    ap.add_argument("--loads", default="0.3,0.5,0.7,0.9", help="offered loads of the plot")
    ap.add_argument("--at", type=float, default=0.7, help="the offered load of the table")
    ap.add_argument("--out", default="online_policy.svg")
    args = ap.parse_args()
    loads = [float(x) for x in args.loads.split(",")]

    gpu = migsched.GPU("A100-40GB")
    pods = burst(migsched.OnlineWorkload.from_alibaba(args.pods, gpu, limit=args.limit))
    print(f"{len(pods)} one-GPU pods of the Alibaba sample on {args.gpus} x {gpu.name}, "
          f"offered load {pods.offered_load(args.gpus):.2f} as recorded; queue fcfs-profile")
    policies = [("pack-frag (Python)", PackFrag(gpu)), ("frag", "frag"), ("firstfit-dynamic", "firstfit-dynamic"),
                ("owp", "owp")]

    def run(load, policy):
        return migsched.simulate(pods.at_load(load, args.gpus), policy=policy, gpus=args.gpus, queue="fcfs-profile")

    print(f"\nat offered load {args.at:g} (hours; makespan in days):")
    print(f"{'policy':<20} {'mean wait':>10} {'mean turnaround':>16} {'p95 turnaround':>15} {'makespan':>9}")
    for name, policy in policies:
        r = run(args.at, policy)
        print(f"{name:<20} {r.mean_wait / 3600:>10.3f} {r.mean_turnaround / 3600:>16.3f} "
              f"{r.p95_turnaround / 3600:>15.3f} {r.makespan / 86400:>9.3f}")

    turnaround = {name: [run(load, policy).mean_turnaround for load in loads] for name, policy in policies}
    base = turnaround["firstfit-dynamic"]
    series = [(name, loads, [t / b for t, b in zip(ts, base)]) for name, ts in turnaround.items()]
    with open(args.out, "w") as f:
        f.write(migsched.chart_svg(series, title=f"Alibaba sample on {args.gpus} x {gpu.name}",
                                   xlabel="offered load", ylabel="mean turnaround / firstfit-dynamic's"))
    print(f"\nmean turnaround against offered load ({args.loads}), relative to firstfit-dynamic, "
          f"drawn in {args.out}")


if __name__ == "__main__":
    main()
