"""Workloads: tasks with a time per compute size, from Python lists, NumPy arrays, the CSV
and JSON files `migsched` reads, or the generator's presets."""
import math
import os

import numpy as np

from ._native import call_text, check, cstr, ffi, lib
from .gpu import as_gpu

MAX_SLICES = 8


class Workload:
    """An ordered list of tasks; task i has a name and times[i, s - 1] seconds on an
    instance of s compute slices (inf: cannot run there)."""

    def __init__(self, tasks=(), gpu=None):
        """tasks: records {"name": ..., "times": {size: seconds}, "command": ...} or
        (name, {size: seconds}) pairs. With a gpu, each task is checked against it."""
        out = ffi.new("ms_workload **")
        check(lib.msc_workload_new(out))
        self._adopt(out[0])
        for k, t in enumerate(tasks):
            if isinstance(t, dict):
                self.add(t.get("name", f"task{k}"), t["times"], t.get("command"))
            else:
                name, times = t
                self.add(name, times)
        if gpu is not None:
            self.check(gpu)

    def _adopt(self, ptr):
        self._ptr = ffi.gc(ptr, lib.msc_workload_free)

    @classmethod
    def _wrap(cls, ptr):
        self = cls.__new__(cls)
        self._adopt(ptr)
        return self

    def add(self, name, times, command=None):
        """Appends a task; times is {size: seconds} or a sequence by size 1, 2, ..."""
        row = [math.inf] * MAX_SLICES
        items = times.items() if isinstance(times, dict) else enumerate(times, start=1)
        for size, t in items:
            size = int(size)
            if not 1 <= size <= MAX_SLICES:
                raise ValueError(f"task {name!r}: size {size} is not 1 to {MAX_SLICES}")
            row[size - 1] = float(t)
        check(lib.msc_workload_add(self._ptr, cstr(name), ffi.new("double[]", row), cstr(command)))

    @classmethod
    def from_array(cls, times, gpu, names=None):
        """An (n, k) array of seconds whose columns are the GPU's compute sizes in order
        (k = len(gpu.sizes)), or sizes 1..8 (k = 8); inf or nan where a task cannot run."""
        gpu = as_gpu(gpu)
        a = np.asarray(times, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] not in (len(gpu.sizes), MAX_SLICES):
            raise ValueError(
                f"times has shape {a.shape}: give (n, {len(gpu.sizes)}) for {gpu.name}'s sizes "
                f"{list(gpu.sizes)} or (n, {MAX_SLICES}) for sizes 1..{MAX_SLICES}"
            )
        sizes = gpu.sizes if a.shape[1] == len(gpu.sizes) else range(1, MAX_SLICES + 1)
        w = cls()
        for i, row in enumerate(a):
            name = names[i] if names is not None else f"task{i}"
            w.add(name, {s: (math.inf if math.isnan(t) else t) for s, t in zip(sizes, row)})
        w.check(gpu)
        return w

    @classmethod
    def read(cls, path, gpu=None):
        """A CSV or JSON workload file, checked against gpu when given."""
        out = ffi.new("ms_workload **")
        g = as_gpu(gpu)._ptr if gpu is not None else ffi.NULL
        check(lib.msc_workload_read(cstr(os.fspath(path)), g, out))
        return cls._wrap(out[0])

    @classmethod
    def parse(cls, text, gpu=None, source="<workload>"):
        """CSV or JSON text (JSON when it starts with '{')."""
        data = text.encode() if isinstance(text, str) else bytes(text)
        out = ffi.new("ms_workload **")
        g = as_gpu(gpu)._ptr if gpu is not None else ffi.NULL
        check(lib.msc_workload_parse(data, len(data), cstr(source), g, out))
        return cls._wrap(out[0])

    @classmethod
    def generate(cls, gpu, n, presets=None, seed=0):
        """n tasks of the generator's presets ("MIXEDSCALING,WIDETIMES"), as
        `migsched generate --seed` draws them."""
        out = ffi.new("ms_workload **")
        check(lib.msc_workload_generate(as_gpu(gpu)._ptr, cstr(presets), int(n), int(seed), out))
        return cls._wrap(out[0])

    def __len__(self):
        return lib.msc_workload_size(self._ptr)

    @property
    def names(self):
        return [ffi.string(lib.msc_workload_task_name(self._ptr, i)).decode() for i in range(len(self))]

    @property
    def times(self):
        """An (n, 8) array: times[i, s - 1] on s slices."""
        a = np.empty((len(self), MAX_SLICES), dtype=np.float64)
        lib.msc_workload_times(self._ptr, ffi.from_buffer("double[]", a))
        return a

    def check(self, gpu):
        """Every task can run on some size of the GPU, and only sizes it has are given."""
        check(lib.msc_workload_check(self._ptr, as_gpu(gpu)._ptr))

    def to_csv(self, gpu):
        return call_text(lib.msc_workload_write, self._ptr, as_gpu(gpu)._ptr, b"csv")

    def to_json(self, gpu):
        return call_text(lib.msc_workload_write, self._ptr, as_gpu(gpu)._ptr, b"json")

    def __repr__(self):
        return f"Workload({len(self)} tasks)"


def preset_names():
    """The generator's presets."""
    return ffi.string(lib.msc_workload_preset_names()).decode().split(",")


def as_workload(workload, gpu):
    """A Workload from a Workload, a file path, an array of times (columns: the GPU's
    sizes) or a list of task records, checked against gpu."""
    if isinstance(workload, Workload):
        workload.check(gpu)
        return workload
    if isinstance(workload, (str, os.PathLike)):
        return Workload.read(workload, gpu)
    if isinstance(workload, np.ndarray) or (
        isinstance(workload, (list, tuple)) and workload and not isinstance(workload[0], (dict, tuple))
    ):
        return Workload.from_array(workload, gpu)
    return Workload(workload, gpu)
