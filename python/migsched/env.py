"""Paper 001's MIG scheduling environment in the shape of Gymnasium's API (without needing
Gymnasium): `Env`, one environment stepped a decision at a time, and `VectorEnv`, many
stepped in one C call whose observations and masks live in NumPy arrays the library writes
in place.

An episode places a workload's tasks on one GPU: action 0 advances the clock to the next
task end, 1..C reconfigures to one of the C canonical configurations, and
1 + C + j * slices + m runs the next task of batch class j on instance m. The reward is
minus the time a step took, in units of the episode's time scale, so the return is
-makespan / scale. Only the actions the mask allows may be taken; another is an
InvalidInput error with the library's message."""
import json

import numpy as np

from ._native import call_text, check, cstr, ffi, lib
from .gpu import as_gpu
from .schedule import Schedule
from .spaces import Box, Discrete, MultiDiscrete
from .workload import Workload, as_workload


SETTINGS = {
    "tasks": None,
    "presets": None,
    "n_batch": 14,
    "levels": 14,
    "encoding": "float",
    "direct_reconfig": True,
    "online": False,
    "async_reconfig": False,
    "longest_first": False,
    "soonest_placement": False,
    "keep_useless": False,
    "every_partition": False,
    "create_on_use": False,
    "task_classes": False,
}


def _settings_json(**given):
    """The library's settings object, under `migsched train`'s option names."""
    unknown = sorted(set(given) - set(SETTINGS))
    if unknown:
        raise TypeError(f"unknown setting {unknown[0]!r}; the settings are {', '.join(SETTINGS)}")
    settings = {**SETTINGS, **given}
    tasks, presets = settings["tasks"], settings["presets"]
    out = {
        "n-batch": int(settings["n_batch"]),
        "levels": int(settings["levels"]),
        "encoding": settings["encoding"],
        "no-direct": not settings["direct_reconfig"],
    }
    for switch in ("online", "async_reconfig", "longest_first", "soonest_placement", "keep_useless",
                   "every_partition", "create_on_use", "task_classes"):
        out[switch.replace("_", "-")] = bool(settings[switch])
    if presets is not None:
        out["preset"] = presets
    if tasks is not None:
        out["tasks"] = int(tasks)
    return json.dumps(out).encode()


class _Described:
    """What Env and VectorEnv share: the library's description, spaces and settings."""

    def _describe(self, fn, handle):
        self.spec = json.loads(call_text(fn, handle))
        self.obs_size = self.spec["obs_size"]
        self.num_actions = self.spec["num_actions"]
        self.single_observation_space = Box(
            self.spec["obs_low"], self.spec["obs_high"], (self.obs_size,), np.float32
        )
        self.single_action_space = Discrete(self.num_actions)


class Env(_Described):
    """One environment on `gpu` (a GPU, or its name or JSON file).

    Episodes run on `workload` when given (kept while the environment uses it), else on
    workloads the generator draws (`presets`, `tasks` per episode, default n_batch) from
    reset's seed; reset(options={"workload": w}) takes another one. The settings are those
    of `migsched train`: n_batch, levels, encoding ("float", "one-hot", "exact"),
    direct_reconfig (False: --no-direct), online, async_reconfig, longest_first,
    soonest_placement, keep_useless, every_partition (every partition its own configuration;
    with keep_useless, follow() carries a plan out as it is), create_on_use (an instance a
    reconfiguration adds is created when its first task is placed), task_classes (every task
    a class of its own)."""

    metadata = {"render_modes": []}

    def __init__(self, gpu, workload=None, **settings):
        self.gpu = as_gpu(gpu)
        self.workload = None if workload is None else as_workload(workload, self.gpu)
        config = _settings_json(**settings)
        out = ffi.new("msc_env **")
        check(lib.msc_env_new(self.gpu._ptr, config, out))
        self._ptr = ffi.gc(out[0], lib.msc_env_free)
        self._describe(lib.msc_env_describe, self._ptr)
        self.observation_space = self.single_observation_space
        self.action_space = self.single_action_space
        self._obs = np.zeros(self.obs_size, np.float32)
        self._mask = np.zeros(self.num_actions, np.uint8)
        self._obs_c = ffi.from_buffer("float[]", self._obs)
        self._mask_c = ffi.from_buffer("uint8_t[]", self._mask)
        self._reward = ffi.new("double *")
        self._done = ffi.new("int *")
        self._episode = None  # the workload of the episode going on (kept alive here)
        self._seeds = np.random.default_rng()  # reset(seed=None)'s seeds, until a seed is given

    def reset(self, seed=None, options=None):
        """Starts an episode: on options["workload"], the environment's workload, or one
        drawn from seed (None: the next of the stream the last seed started). Returns
        (observation, info)."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        w = (options or {}).get("workload", self.workload)
        if w is not None:
            w = as_workload(w, self.gpu)
            check(lib.msc_env_reset(self._ptr, w._ptr))
        else:
            episode_seed = seed if seed is not None else int(self._seeds.integers(2**63))
            check(lib.msc_env_reset_seed(self._ptr, episode_seed))
        self._episode = w
        lib.msc_env_observe(self._ptr, self._obs_c)
        return self._obs.copy(), {"scale": lib.msc_env_scale(self._ptr)}

    def step(self, action):
        """Takes an allowed action. Returns (observation, reward, terminated, truncated,
        info); info["makespan"] is the episode's makespan in seconds once terminated."""
        check(lib.msc_env_step(self._ptr, int(action), self._reward, self._done))
        lib.msc_env_observe(self._ptr, self._obs_c)
        done = bool(self._done[0])
        info = {"makespan": lib.msc_env_now(self._ptr)} if done else {}
        return self._obs.copy(), self._reward[0], done, False, info

    def action_masks(self):
        """The allowed actions as booleans (all False once the episode has ended)."""
        lib.msc_env_mask(self._ptr, self._mask_c)
        return self._mask.astype(bool)

    @property
    def now(self):
        """Seconds since the episode started."""
        return lib.msc_env_now(self._ptr)

    @property
    def makespan_bound(self):
        """A lower bound on the episode's makespan from this state on, whatever the
        actions."""
        return lib.msc_env_makespan_bound(self._ptr)

    @property
    def scale(self):
        """The seconds the top discretisation level stands for (the reward's unit)."""
        return lib.msc_env_scale(self._ptr)

    @property
    def steps(self):
        """Decisions taken in the episode (forced Advances not counted)."""
        return lib.msc_env_steps(self._ptr)

    @property
    def reconfigurations(self):
        """Reconfiguration actions taken in the episode."""
        return lib.msc_env_reconfigurations(self._ptr)

    @property
    def done(self):
        """Whether the episode has ended (or none has started)."""
        return bool(lib.msc_env_done(self._ptr))

    def episode_workload(self):
        """The episode's workload, as a Workload of its own (a copy)."""
        out = ffi.new("ms_workload **")
        check(lib.msc_env_workload(self._ptr, out))
        return Workload._wrap(out[0])

    def to_schedule(self, algorithm="rl"):
        """The episode so far (all of it once done) as a migsched Schedule."""
        out = ffi.new("ms_schedule **")
        check(lib.msc_env_to_schedule(self._ptr, cstr(algorithm), out))
        w = self._episode if self._episode is not None else self.episode_workload()
        return Schedule(out[0], w, self.gpu)

    def follow(self, schedule):
        """Starts carrying out a plan of this episode's workload (a Schedule on one GPU,
        e.g. FAR's) from the episode's start; follow_action() then gives the actions."""
        check(lib.msc_env_follow_start(self._ptr, schedule._ptr))

    def follow_action(self):
        """The action that carries the followed plan on from this state, or None where
        the plan is complete or cannot go on."""
        a = lib.msc_env_follow_action(self._ptr)
        return None if a < 0 else a

    def random_steps(self, steps, seed=0):
        """Plays `steps` uniformly random allowed actions inside the library (episodes
        generated from seed, the last one left going on) and returns (seconds, episodes
        ended): the environment's own speed."""
        seconds, episodes = ffi.new("double *"), ffi.new("long *")
        self._episode = None  # the episodes are generated ones
        check(lib.msc_env_random_steps(self._ptr, int(steps), int(seed), seconds, episodes))
        return seconds[0], episodes[0]

    def close(self):
        """Nothing to release before the object goes (Gymnasium's API)."""


class VectorEnv(_Described):
    """`num_envs` environments of one GPU and settings (Env's arguments: gpu, workload and
    the keyword settings), stepped in one call. Observations (num_envs x obs_size float32)
    and masks are NumPy arrays over the buffers the library writes: every step returns the same arrays, overwritten (copy what
    you keep). An environment whose episode ends is at once on its next one (its row of
    the observations is the new episode's start); infos["episode_return"] and
    infos["episode_makespan"] hold the ended episodes' figures where terminated is True.
    Every ended episode's schedule goes through the validator: `invalid_episodes` counts
    those it refused (always 0; another count is a bug)."""

    metadata = {"autoreset_mode": "same-step"}

    def __init__(self, num_envs, gpu, workload=None, **settings):
        config = _settings_json(**settings)
        self.gpu = as_gpu(gpu)
        self.workload = None if workload is None else as_workload(workload, self.gpu)
        self.num_envs = int(num_envs)
        out = ffi.new("msc_vec_env **")
        check(
            lib.msc_vec_env_new(
                self.gpu._ptr, config, self.num_envs,
                self.workload._ptr if self.workload is not None else ffi.NULL, out,
            )
        )
        self._ptr = ffi.gc(out[0], lib.msc_vec_env_free)
        self._describe(lib.msc_vec_env_describe, self._ptr)
        n = self.num_envs
        self.observation_space = Box(
            self.spec["obs_low"], self.spec["obs_high"], (n, self.obs_size), np.float32
        )
        self.action_space = MultiDiscrete([self.num_actions] * n)
        self.obs = np.zeros((n, self.obs_size), np.float32)
        self.masks = np.zeros((n, self.num_actions), np.uint8)
        self.rewards = np.zeros(n, np.float64)
        self._terminated = np.zeros(n, np.uint8)
        self.terminated = self._terminated.view(np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.episode_return = np.zeros(n, np.float64)
        self.episode_makespan = np.zeros(n, np.float64)
        self._actions = np.zeros(n, np.int32)
        self._sampled = np.zeros(n, np.int32)
        self._sampled_c = ffi.from_buffer("int32_t[]", self._sampled)
        self._c = [
            ffi.from_buffer("int32_t[]", self._actions),
            ffi.from_buffer("float[]", self.obs),
            ffi.from_buffer("uint8_t[]", self.masks),
            ffi.from_buffer("double[]", self.rewards),
            ffi.from_buffer("uint8_t[]", self._terminated),
            ffi.from_buffer("double[]", self.episode_return),
            ffi.from_buffer("double[]", self.episode_makespan),
        ]
        self._infos = {
            "episode_return": self.episode_return,
            "episode_makespan": self.episode_makespan,
            "_episode_return": self.terminated,
            "_episode_makespan": self.terminated,
        }
        self._seeds = np.random.default_rng()  # reset(seed=None)'s seeds, until a seed is given

    def reset(self, seed=None, options=None):
        """Starts every environment's first episode (environment i draws its workloads
        from its own stream of seed; None: a random seed). Returns (observations, infos);
        resets the counters."""
        if seed is None:
            seed = int(self._seeds.integers(2**63))
        check(lib.msc_vec_env_reset(self._ptr, int(seed), self._c[1], self._c[2]))
        self.rewards[:] = 0
        self.terminated[:] = False
        return self.obs, {}

    def step(self, actions):
        """actions[i] (allowed by masks[i]) in environment i. Returns (observations,
        rewards, terminated, truncated, infos), arrays the next step overwrites."""
        self._actions[:] = actions
        rc = lib.msc_vec_env_step(self._ptr, *self._c)
        if rc:
            check(rc)
        return self.obs, self.rewards, self.terminated, self.truncated, self._infos

    def sample_actions(self):
        """A uniformly random allowed action per environment (of the current masks), drawn
        in the library from a stream of the reset's seed: the random policy without a
        Python loop over the masks. Returns an int32 array the next call overwrites."""
        rc = lib.msc_vec_env_sample_actions(self._ptr, self._sampled_c)
        if rc:
            check(rc)
        return self._sampled

    def action_masks(self):
        """The allowed actions, num_envs x num_actions (1 = allowed; the array the library
        writes in place)."""
        return self.masks

    @property
    def episodes(self):
        """Episodes ended since the reset."""
        return lib.msc_vec_env_episodes(self._ptr)

    @property
    def invalid_episodes(self):
        """Ended episodes whose schedule the validator refused (0 unless there is a bug)."""
        return lib.msc_vec_env_invalid(self._ptr)

    @property
    def invalid_message(self):
        """The validator's first refusal ("" when none)."""
        return ffi.string(lib.msc_vec_env_invalid_message(self._ptr)).decode()

    @property
    def steps(self):
        """Environment steps since the reset (num_envs per step call)."""
        return lib.msc_vec_env_steps(self._ptr)

    def to_schedule(self, i, algorithm="rl"):
        """Environment i's episode so far as a migsched Schedule."""
        out = ffi.new("ms_schedule **")
        check(lib.msc_vec_env_to_schedule(self._ptr, int(i), out))
        return Schedule(out[0], self.episode_workload(i), self.gpu)

    def episode_workload(self, i):
        """The workload of environment i's episode (a copy)."""
        out = ffi.new("ms_workload **")
        check(lib.msc_vec_env_workload(self._ptr, int(i), out))
        return Workload._wrap(out[0])

    def random_steps(self, steps, seed=0):
        """Resets with seed and plays `steps` vector steps of uniformly random allowed
        actions inside the library; returns the seconds they took (the vector's own
        speed)."""
        seconds = ffi.new("double *")
        check(lib.msc_vec_env_random_steps(self._ptr, int(steps), int(seed), seconds))
        return seconds[0]

    def close(self):
        """Nothing to release before the object goes (Gymnasium's API)."""
