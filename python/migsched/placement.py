"""Placement policies written in Python for the online simulator: what a policy is shown
(PlacementState) and the C callback that asks it (one per run)."""
import operator

import numpy as np

from ._native import ffi

SLOTS = 8  # capi_online.h's MSC_ONLINE_SLOTS: idle[] entries per GPU

PLACED, WAIT, ABORT = 0, 1, 2


class PlacementState:
    """What a policy sees when a job may start: the time `now`, the job's index `job` into
    the workload, its `profile` (a Profile of `gpu`, the GPU model), `ngpus`, and per GPU g
    (NumPy arrays, read-only, valid during the call):

    job_slots[g]    memory slots of instances holding a job (bit i = slot i)
    frag_slots[g]   slots and compute slices the fragmentation cost counts as taken
    frag_slices[g]
    locked_slots[g] slots that cannot be destroyed now (held or being created)
    load[g]         busy compute slices
    idle[g, k]      profile index of an idle instance starting at slot k, -1 for none

    A policy returns (gpu, start) or None for the job to wait until something frees."""

    def __init__(self, gpu, workload):
        self.gpu = gpu
        self.workload = workload
        self.ngpus = 0
        self.now = 0.0
        self.job = -1
        self.profile = None
        self._arrival = workload.arrival
        self._work = workload.work
        self._ptrs = None

    @property
    def arrival(self):
        """The job's arrival time (s)."""
        return float(self._arrival[self.job])

    @property
    def work(self):
        """The job's work (s of execution alone)."""
        return float(self._work[self.job])

    def can_take(self, g, start):
        """Whether GPU g can take the job at `start` under the simulator's rule: a start its
        profile allows, its slots hold no job, and an idle instance of the profile is there
        or nothing locked is in the way (idle instances are destroyed)."""
        p = self.profile
        if start not in p.starts:
            return False
        mask = p.slot_mask(start)
        if int(self.job_slots[g]) & mask:
            return False
        return int(self.idle[g, start]) == p.index or not int(self.locked_slots[g]) & mask

    def _views(self, ngpus, job_slots, frag_slots, frag_slices, locked, load, idle):
        """NumPy views of the C arrays, made once: they keep their addresses for the run."""
        ptrs = tuple(int(ffi.cast("uintptr_t", p)) for p in (job_slots, locked, idle))
        if ptrs == self._ptrs:
            return
        self._ptrs = ptrs
        self.ngpus = ngpus

        def view(ptr, ctype, dtype, shape):
            a = np.frombuffer(ffi.buffer(ptr, ffi.sizeof(ctype) * int(np.prod(shape))), dtype=dtype)
            a = a.reshape(shape)
            a.flags.writeable = False
            return a

        self.job_slots = view(job_slots, "uint32_t", np.uint32, (ngpus,))
        self.frag_slots = view(frag_slots, "uint32_t", np.uint32, (ngpus,))
        self.frag_slices = view(frag_slices, "uint32_t", np.uint32, (ngpus,))
        self.locked_slots = view(locked, "uint32_t", np.uint32, (ngpus,))
        self.load = view(load, "int32_t", np.int32, (ngpus,))
        self.idle = view(idle, "int8_t", np.int8, (ngpus, SLOTS))

    def __repr__(self):
        name = self.profile.name if self.profile else None
        return f"PlacementState(now={self.now}, job={self.job}, profile={name!r}, ngpus={self.ngpus})"


class PolicyCallback:
    """The C callback (msc_online_place_fn) asking a Python policy; an exception the policy
    raises stops the run and is kept in `error` for the caller to raise."""

    def __init__(self, policy, gpu, workload):
        self.policy = policy
        self.state = PlacementState(gpu, workload)
        self.profiles = gpu.profiles
        self.error = None
        self.c = ffi.callback("msc_online_place_fn", self._place, error=ABORT)

    def _place(self, arg, now, job, profile, ngpus, job_slots, frag_slots, frag_slices, locked,
               load, idle, gpu_out, start_out):
        try:
            st = self.state
            st._views(ngpus, job_slots, frag_slots, frag_slices, locked, load, idle)
            st.now = now
            st.job = job
            st.profile = self.profiles[profile]
            answer = self.policy(st)
            if answer is None:
                return WAIT
            g, start = answer
            gpu_out[0] = operator.index(g)
            start_out[0] = operator.index(start)
            return PLACED
        except BaseException as e:  # noqa: B902 - whatever it is, the caller gets it back
            self.error = e
            return ABORT
