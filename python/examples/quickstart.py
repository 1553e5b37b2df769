"""Plans the bundled Rodinia sample (eight kernels measured on an A30) with migsched from
Python: the search scheduler against FAR and the baselines, the lower bounds, the
validator, and a drawing of the plan (docs/python.md's worked example).

    make python && PYTHONPATH=python python3 python/examples/quickstart.py [OUT.svg]
"""
import os
import sys

import migsched

here = os.path.dirname(os.path.abspath(__file__))
sample = os.path.join(here, "..", "..", "data", "rodinia_a30_8tasks.csv")

gpu = migsched.GPU("A30-24GB")
work = migsched.Workload.read(sample, gpu)
print(f"{len(work)} tasks on {gpu.name}: {', '.join(work.names)}")

plan = migsched.schedule(work, gpu, algo="search", seed=1)
print(f"search: makespan {plan.makespan:.3f} s, {plan.metrics['reconfigurations']} reconfiguration(s), "
      f"valid: {plan.validate() == []}")
for inst in plan.instances:
    tasks = [work.names[t["index"]] for t in plan.tasks if t["instance"] == inst["id"]]
    print(f"  {inst['profile']:>8} at slot {inst['start_slot']}: {', '.join(tasks)}")

b = migsched.bounds(work, gpu)
print(f"lower bound l_bound {b['l_bound']:.3f} s: search is within "
      f"{(plan.makespan / b['l_bound'] - 1) * 100:.1f} %")

print(f"{'algorithm':<12} {'makespan':>9} {'p_opt %':>8}")
for row in migsched.compare(work, gpu, seed=1):
    print(f"{row['algorithm']:<12} {row['makespan']:>9.3f} {row['p_opt']:>8.2f}")

out = sys.argv[1] if len(sys.argv) > 1 else "quickstart.svg"
with open(out, "w") as f:
    f.write(plan.plot_svg())
print(f"plan drawn in {out}")
