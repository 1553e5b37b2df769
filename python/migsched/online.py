"""The online simulator (paper 002): jobs arriving over time on a node of MIG GPUs, placed
by a built-in policy (`migsched online simulate --policy`) or by a Python function."""
import json
import os

import numpy as np

from ._native import call_text, check, cstr, ffi, lib
from .errors import Interrupted
from .gpu import as_gpu
from .placement import PolicyCallback

POLICIES = ("frag", "firstfit-static", "firstfit-dynamic", "owp", "elasticbatch")


def _out():
    return ffi.new("msc_online_workload **")


class OnlineWorkload:
    """Jobs with an arrival time (s), a profile of the GPU model and work (s of execution
    alone), in arrival order. Made by from_trace, parse, from_alibaba, generate or
    from_arrays; `gpu` is the model the profiles belong to."""

    def __init__(self, ptr, gpu):
        self._ptr = ffi.gc(ptr, lib.msc_online_workload_free)
        self.gpu = gpu
        n = lib.msc_online_workload_size(self._ptr)
        self.arrival = np.empty(n, dtype=np.float64)
        self.profile = np.empty(n, dtype=np.intc)
        self.work = np.empty(n, dtype=np.float64)
        lib.msc_online_workload_jobs(
            self._ptr, ffi.from_buffer("double[]", self.arrival), ffi.from_buffer("int[]", self.profile),
            ffi.from_buffer("double[]", self.work),
        )
        for a in (self.arrival, self.profile, self.work):
            a.flags.writeable = False
        self.info = json.loads(call_text(lib.msc_online_workload_describe, self._ptr))

    @classmethod
    def from_trace(cls, path, gpu):
        """A trace CSV (`arrival,profile,work[,name]`, `online simulate --trace`)."""
        gpu = as_gpu(gpu)
        out = _out()
        check(lib.msc_online_trace_read(cstr(os.fspath(path)), gpu._ptr, out))
        return cls(out[0], gpu)

    @classmethod
    def parse(cls, text, gpu, source="<trace>"):
        """Trace CSV text."""
        gpu = as_gpu(gpu)
        data = text.encode() if isinstance(text, str) else bytes(text)
        out = _out()
        check(lib.msc_online_trace_parse(data, len(data), cstr(source), gpu._ptr, out))
        return cls(out[0], gpu)

    @classmethod
    def from_alibaba(cls, path, gpu, limit=0):
        """The Alibaba cluster-trace-gpu-v2023 pod list (`--alibaba`): one-GPU pods, the
        first `limit` of them when limit > 0; info counts the pods left out."""
        gpu = as_gpu(gpu)
        out = _out()
        check(lib.msc_online_alibaba_read(cstr(os.fspath(path)), gpu._ptr, int(limit), out))
        return cls(out[0], gpu)

    @classmethod
    def generate(cls, gpu, jobs=200, arrival_mean=25.0, mix=None, service="normal",
                 service_times="profile", service_median=None, service_sigma=None, seed=0):
        """The generator's draw, as `online simulate --jobs --arrival-mean --mix --service
        --service-times --seed` makes it (mix "1g.5gb:2,3g.20gb:1"; None: the default;
        service_median and service_sigma None: 150 s and 0.6)."""
        gpu = as_gpu(gpu)
        out = _out()
        check(lib.msc_online_generate(
            gpu._ptr, int(jobs), float(arrival_mean), cstr(mix), cstr(service), cstr(service_times),
            -1.0 if service_median is None else float(service_median),
            -1.0 if service_sigma is None else float(service_sigma), int(seed), out,
        ))
        return cls(out[0], gpu)

    @classmethod
    def from_arrays(cls, gpu, arrival, profile, work, names=None):
        """Jobs from sequences of equal length: arrivals (not decreasing), profiles (names
        or indices of gpu's profiles) and work; names optional."""
        gpu = as_gpu(gpu)
        arrival = np.ascontiguousarray(arrival, dtype=np.float64)
        work = np.ascontiguousarray(work, dtype=np.float64)
        profile = np.ascontiguousarray(
            [gpu.profile(p).index if isinstance(p, str) else p for p in profile], dtype=np.intc
        )
        n = len(arrival)
        if not (arrival.ndim == 1 and profile.shape == (n,) and work.shape == (n,)):
            raise ValueError(f"arrival, profile and work must be 1-D of one length, got {arrival.shape}, "
                             f"{profile.shape}, {work.shape}")
        keep = []
        c_names = ffi.NULL
        if names is not None:
            if len(names) != n:
                raise ValueError(f"{len(names)} names for {n} jobs")
            keep = [ffi.new("char[]", str(s).encode()) if s is not None else ffi.NULL for s in names]
            c_names = ffi.new("const char *[]", keep)
        out = _out()
        check(lib.msc_online_workload_from_arrays(
            gpu._ptr, n, ffi.from_buffer("double[]", arrival), ffi.from_buffer("int[]", profile),
            ffi.from_buffer("double[]", work), c_names, out,
        ))
        return cls(out[0], gpu)

    def __len__(self):
        return len(self.arrival)

    def __getitem__(self, jobs):
        """The jobs of a slice (w[100:]) as a workload of their own, arrivals as they were."""
        if not isinstance(jobs, slice):
            raise TypeError(f"an OnlineWorkload is sliced (w[a:b]), not indexed by {type(jobs).__name__}")
        return OnlineWorkload.from_arrays(self.gpu, self.arrival[jobs], self.profile[jobs], self.work[jobs],
                                          names=self.names[jobs])

    @property
    def names(self):
        """Each job's name (None where it has none)."""
        out = []
        for i in range(len(self)):
            p = lib.msc_online_workload_job_name(self._ptr, i)
            out.append(ffi.string(p).decode() if p != ffi.NULL else None)
        return out

    def offered_load(self, gpus):
        """Compute-slice seconds of work over `gpus` GPUs' slices times the arrivals' span."""
        load = ffi.new("double *")
        check(lib.msc_online_workload_load(self._ptr, int(gpus), load))
        return load[0]

    def scaled(self, factor):
        """A copy whose arrivals lie `factor` times as far from the first one."""
        out = _out()
        check(lib.msc_online_workload_scaled(self._ptr, float(factor), out))
        return OnlineWorkload(out[0], self.gpu)

    def at_load(self, load, gpus):
        """A copy with the arrivals time-scaled so that the offered load on `gpus` GPUs is
        `load`."""
        return self.scaled(self.offered_load(gpus) / float(load))

    def write_trace(self, path):
        """The trace CSV (`--save-trace`)."""
        check(lib.msc_online_trace_write(self._ptr, cstr(os.fspath(path))))

    def __repr__(self):
        return f"OnlineWorkload({len(self)} jobs, {self.gpu.name})"


def _value(v):
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)


def _config(policy, gpus, options):
    out = ffi.new("msc_online_config **")
    check(lib.msc_online_config_new(out))
    cfg = ffi.gc(out[0], lib.msc_online_config_free)
    settings = {"gpus": gpus}
    if callable(policy):  # a Python policy places with neither migration nor the reservation
        settings.update({"migration": False, "queue": "fcfs-profile"})
    else:
        settings["policy"] = policy
    settings.update({k.replace("_", "-"): v for k, v in options.items()})
    for key, value in settings.items():
        check(lib.msc_online_config_set(cfg, cstr(key), cstr(_value(value))))
    return cfg


def simulate(workload, gpu=None, policy="frag", gpus=1, **options):
    """Runs the workload on `gpus` GPUs of gpu (None: the workload's model) and returns an
    OnlineResult. policy: a built-in name (POLICIES) or a function of a PlacementState
    returning (gpu, start) or None (wait); a Python policy runs with dynamic
    partitioning, migration off and queue fcfs-profile unless told otherwise. options:
    `online simulate`'s by name, "-" written "_" (tau, kappa, migration, balance, dynamic,
    migration_cost, migration_rule, queue, reserve_after, layout, check, timeline).
    A bad answer of the policy raises InvalidInput with the simulator's message; an
    exception it raises becomes Interrupted, raised from it."""
    gpu = workload.gpu if gpu is None else as_gpu(gpu)
    cfg = _config(policy, gpus, options)
    cb = PolicyCallback(policy, gpu, workload) if callable(policy) else None
    out = ffi.new("msc_online_result **")
    rc = lib.msc_online_simulate(workload._ptr, gpu._ptr, cfg, cb.c if cb else ffi.NULL, ffi.NULL, out)
    if cb is not None and cb.error is not None:
        message = ffi.string(lib.msc_last_error()).decode(errors="replace")
        if not isinstance(cb.error, Exception):  # KeyboardInterrupt, SystemExit: as they are
            raise cb.error
        raise Interrupted(f"{message}: {type(cb.error).__name__}: {cb.error}") from cb.error
    check(rc)
    return OnlineResult(out[0], workload, json.loads(call_text(lib.msc_online_config_describe, cfg)))


class OnlineResult:
    """A run's summary (the attributes `online simulate --json` prints: mean_wait,
    mean_execution, mean_turnaround, p95_turnaround, max_wait, makespan, migrations,
    reconfigurations, creations, destructions, mean_fragmentation, events, tpot_ms, ...;
    all in `summary`) and per-job NumPy arrays: start, end, wait, execution, turnaround,
    gpu (the GPU each job finished on) and job_migrations."""

    def __init__(self, ptr, workload, config):
        self._ptr = ffi.gc(ptr, lib.msc_online_result_free)
        self.workload = workload
        self.config = config
        self.summary = json.loads(call_text(lib.msc_online_result_summary, self._ptr))
        for key, value in self.summary.items():
            setattr(self, key, value)
        n = lib.msc_online_result_size(self._ptr)
        self.start = np.empty(n, dtype=np.float64)
        self.end = np.empty(n, dtype=np.float64)
        self.gpu = np.empty(n, dtype=np.intc)
        self.job_migrations = np.empty(n, dtype=np.intc)
        lib.msc_online_result_jobs(
            self._ptr, ffi.from_buffer("double[]", self.start), ffi.from_buffer("double[]", self.end),
            ffi.from_buffer("int[]", self.gpu), ffi.from_buffer("int[]", self.job_migrations),
        )
        self.wait = self.start - workload.arrival
        self.execution = self.end - self.start
        self.turnaround = self.end - workload.arrival

    def write_jobs_csv(self, path):
        """The per-job CSV `online simulate --csv` writes."""
        check(lib.msc_online_write_jobs_csv(self._ptr, self.workload._ptr, cstr(os.fspath(path))))

    def write_timeline_csv(self, path):
        """The timeline CSV (`--timeline`; the run needs timeline=True)."""
        check(lib.msc_online_write_timeline_csv(self._ptr, cstr(os.fspath(path))))

    def write_svg(self, path, title=None):
        """Fragmentation, instances and desired/actual instances over time (`--plot`; the
        run needs timeline=True)."""
        check(lib.msc_online_write_svg(self._ptr, cstr(title), cstr(os.fspath(path))))

    def __repr__(self):
        return (f"OnlineResult({self.policy}, {len(self.start)} jobs, mean turnaround "
                f"{self.mean_turnaround:.3f} s)")
