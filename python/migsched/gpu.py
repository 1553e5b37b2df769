"""GPU models: the built-in ones by name, or JSON model files (DESIGN.md's format)."""
import json
import os

from ._native import call_text, check, cstr, ffi, lib


class Profile:
    """One MIG profile of a model: name ("3g.20gb"), compute slices, memory, its size in
    memory slots and the slots an instance of it may start at."""

    def __init__(self, index, d):
        self.index = index
        self.name = d["name"]
        self.slices = d["slices"]
        self.memory_gb = d["memory_gb"]
        self.size_slots = d["size_slots"]
        self.starts = tuple(d["starts"])

    def slot_mask(self, start):
        """Bit i set for each memory slot an instance of this profile at `start` holds."""
        return ((1 << self.size_slots) - 1) << start

    def __repr__(self):
        return f"Profile({self.name!r}, slices={self.slices}, starts={self.starts})"


class GPU:
    """A GPU model: GPU("A100-40GB"), GPU("a100"), GPU("model.json") or
    GPU.from_json(text). Holds the geometry (slots, slices, sizes, profiles, partitions)
    and the reconfiguration times by compute size."""

    def __init__(self, name_or_path="A100-40GB"):
        out = ffi.new("ms_gpu_model **")
        check(lib.msc_gpu_lookup(cstr(os.fspath(name_or_path)), out))
        self._adopt(out[0])

    @classmethod
    def from_json(cls, text, source="<gpu>"):
        """A model from JSON text (a str, bytes or a dict)."""
        if isinstance(text, dict):
            text = json.dumps(text)
        data = text.encode() if isinstance(text, str) else bytes(text)
        out = ffi.new("ms_gpu_model **")
        check(lib.msc_gpu_parse_json(data, len(data), cstr(source), out))
        self = cls.__new__(cls)
        self._adopt(out[0])
        return self

    def _adopt(self, ptr):
        self._ptr = ffi.gc(ptr, lib.msc_gpu_free)
        d = json.loads(call_text(lib.msc_gpu_describe, self._ptr))
        self.name = d["name"]
        self.slots = d["slots"]
        self.slices = d["slices"]
        self.sizes = tuple(d["sizes"])
        self.profiles = tuple(Profile(i, p) for i, p in enumerate(d["profiles"]))
        self.partitions = tuple(d["partitions"])
        self.create_s = {int(k): v for k, v in d["create_s"].items()}
        self.destroy_s = {int(k): v for k, v in d["destroy_s"].items()}

    def profile(self, name):
        """The profile of that name (KeyError names the ones there are)."""
        for p in self.profiles:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no profile {name!r} ({', '.join(p.name for p in self.profiles)})")

    def __repr__(self):
        return f"GPU({self.name!r})"


def builtin_gpus():
    """The built-in models' names."""
    return [ffi.string(lib.msc_gpu_builtin_name(i)).decode() for i in range(lib.msc_gpu_builtin_count())]


def as_gpu(gpu):
    """A GPU from a GPU, a name or path, or a JSON model as a dict."""
    if isinstance(gpu, GPU):
        return gpu
    if isinstance(gpu, dict):
        return GPU.from_json(gpu)
    return GPU(gpu)
