"""Planning: the offline algorithms, plans (migsched-schedule/1), the validator, metrics,
lower bounds and comparisons, as `migsched schedule`, `validate`, `bounds` and `compare`."""
import json
import os

from ._native import call_text, check, cstr, ffi, lib
from .gpu import as_gpu
from .workload import as_workload


class Schedule:
    """A plan of a workload on `gpus` GPUs of a model: instances (with creation and
    destruction times), tasks (instance, start, end) and the algorithm's statistics.
    Made by schedule() or Schedule.read()."""

    def __init__(self, ptr, workload, gpu, initial="empty"):
        self._ptr = ffi.gc(ptr, lib.msc_schedule_free)
        self.workload = workload
        self.gpu = gpu
        self.initial = initial
        plan = json.loads(self.to_json(timings=True))
        self.algorithm = plan["algorithm"]
        self.gpus = plan["gpus"]
        self.instances = plan["instances"]
        self.tasks = plan["tasks"]
        self.metrics = json.loads(call_text(lib.msc_schedule_metrics, self._ptr, workload._ptr))
        self.stats = self.metrics.pop("stats")

    @classmethod
    def read(cls, path, workload, gpu=None, initial="empty"):
        """A plan file (JSON) of workload; gpu None: the model the file names."""
        with open(os.fspath(path), "rb") as f:
            return cls.parse(f.read(), workload, gpu, initial, source=os.fspath(path))

    @classmethod
    def parse(cls, text, workload, gpu=None, initial="empty", source="<schedule>"):
        data = text.encode() if isinstance(text, str) else bytes(text)
        g = as_gpu(gpu) if gpu is not None else None
        out = ffi.new("ms_schedule **")
        check(lib.msc_schedule_parse_json(data, len(data), cstr(source), g._ptr if g else ffi.NULL, out))
        plan_gpu = g if g is not None else as_gpu(json.loads(data)["gpu_model"])
        return cls(out[0], as_workload(workload, plan_gpu), plan_gpu, initial)

    @property
    def makespan(self):
        return self.metrics["makespan"]

    def to_json(self, timings=False):
        """The plan as `migsched schedule --json` writes it (timings: keep the
        measured durations, as --timings)."""
        return call_text(lib.msc_schedule_to_json, self._ptr, self.workload._ptr, int(bool(timings)))

    def plot_svg(self, title=None):
        """The plan drawn as SVG, as `migsched plot` draws it."""
        return call_text(lib.msc_schedule_svg, self._ptr, self.workload._ptr, cstr(title))

    def validate(self, initial=None):
        """The validator's violations ([] when valid): dicts with rule and message."""
        return validate(self, initial=initial)

    def __repr__(self):
        return f"Schedule({self.algorithm!r}, {len(self.tasks)} tasks, makespan={self.makespan:.6g})"


def schedule(workload, gpu, algo="search", budget_ms=None, initial="empty", seed=0, gpus=1,
             batch=0, threads=1, model=None, concat=None, timings=True):
    """Plans workload on `gpus` GPUs of gpu with algorithm algo (algorithms() lists them),
    as `migsched schedule` does: budget_ms the search's (and optimal's) budget, None their
    default (10 ms for search, no limit for optimal); initial what the GPUs hold ("empty",
    "4-3", ...); batch tasks per batch (0: one); threads search's; model the policy file of
    "rl" (or a starting plan of search); concat how batches are joined. The plan has passed
    the validator. timings=False drops the measured durations from its statistics."""
    gpu = as_gpu(gpu)
    w = as_workload(workload, gpu)
    out = ffi.new("ms_schedule **")
    check(
        lib.msc_schedule(
            w._ptr, gpu._ptr, int(gpus), cstr(algo), int(batch), int(seed),
            float(budget_ms or 0), int(threads), cstr(initial), cstr(model and os.fspath(model)),
            cstr(concat), out,
        )
    )
    s = Schedule(out[0], w, gpu, initial)
    if not timings:
        s.stats = {k: v for k, v in s.stats.items() if not k.endswith("_seconds")}
    return s


def algorithms():
    """The offline algorithms: [{"name", "summary"}]."""
    return json.loads(call_text(lib.msc_algorithms))


def validate(plan, workload=None, gpu=None, initial=None):
    """The validator's violations of a Schedule (or a plan file with its workload), []
    when valid; initial: what the GPUs held before the plan (default the plan's own)."""
    if not isinstance(plan, Schedule):
        plan = Schedule.read(plan, workload, gpu)
    if initial is None:
        initial = plan.initial
    return json.loads(call_text(lib.msc_schedule_validate, plan._ptr, plan.workload._ptr, cstr(initial)))


def bounds(workload, gpu, gpus=1, initial="empty"):
    """Makespan lower bounds {"baseline", "l_bound", "l_bound_paper"}, as `migsched bounds`."""
    gpu = as_gpu(gpu)
    w = as_workload(workload, gpu)
    return json.loads(call_text(lib.msc_bounds, w._ptr, gpu._ptr, int(gpus), cstr(initial)))


def compare(workload, gpu, algos=("far", "search", "miso", "fixpartbest", "nomig"), gpus=1,
            initial="empty", seed=0, budget_ms=None):
    """Every algorithm of algos on the same workload: one dict per algorithm with its
    makespan, rho, p_opt, reconfigurations, utilization and compute time (s)."""
    gpu = as_gpu(gpu)
    w = as_workload(workload, gpu)
    rows = []
    for algo in algos:
        s = schedule(w, gpu, algo=algo, gpus=gpus, initial=initial, seed=seed, budget_ms=budget_ms)
        m = s.metrics
        rows.append({"algorithm": algo, "makespan": m["makespan"], "rho": m["rho"], "p_opt": m["p_opt"],
                     "reconfigurations": m["reconfigurations"], "utilization": m["utilization"],
                     "compute_seconds": s.stats.get("compute_seconds")})
    return rows
