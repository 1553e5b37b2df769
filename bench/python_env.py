"""Steps per second of the scheduling environment through Python (migsched.Env and
migsched.VectorEnv with 64 environments) beside the C environment alone, all under one
action rule: a uniformly random allowed action, on generated episodes
(MIXEDSCALING,WIDETIMES, 14 tasks, A100-40GB, N = M = 14). The C figures are loops inside
the library: one environment with mask, observation and step at each decision (as
bench_env's), and the vector environment itself (which also validates every episode it
ends). The Python vector is timed in all (the NumPy action choice included) and inside
VectorEnv.step alone (what the environment costs a caller whose policy picks the
actions). Times are CPU seconds of this process (time.process_time), which other load on the
machine does not inflate as it does wall time. Run by `make bench`:
    PYTHONPATH=python MIGSCHED_LIBRARY=build/libmigsched.so.0 /usr/bin/python3 bench/python_env.py
"""
import os
import time

# NumPy's BLAS threads would spin beside the loops and count in the process's CPU time.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import migsched  # noqa: E402

GPU = "A100-40GB"
NUM_ENVS = 64


def best_of(runs, fn):
    """The best steps/s of `runs` runs of fn (returning steps, CPU seconds)."""
    return max(steps / seconds for steps, seconds in (fn() for _ in range(runs)))


def python_single(steps=100_000):
    env = migsched.Env(GPU)
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    done = False
    t0 = time.process_time()
    for _ in range(steps):
        if done:
            env.reset()
        allowed = np.flatnonzero(env.action_masks())
        _, _, done, _, _ = env.step(int(allowed[rng.integers(allowed.size)]))
    return steps, time.process_time() - t0


def python_vector(calls=3_000):
    """(steps, CPU seconds in all, CPU seconds inside VectorEnv.step alone)."""
    v = migsched.VectorEnv(NUM_ENVS, GPU)
    rng = np.random.default_rng(1)
    keys = np.empty((NUM_ENVS, v.num_actions), np.float32)
    v.reset(seed=1)
    masks = v.action_masks()
    in_step = 0.0
    t0 = time.process_time()
    for _ in range(calls):
        # Uniform among the allowed: the largest of independent uniform keys.
        rng.random(out=keys, dtype=np.float32)
        np.multiply(keys, masks, out=keys)
        actions = keys.argmax(axis=1)
        t1 = time.process_time()
        v.step(actions)
        in_step += time.process_time() - t1
    seconds = time.process_time() - t0
    assert v.invalid_episodes == 0, v.invalid_message
    return calls * NUM_ENVS, seconds, in_step


def c_single(steps=400_000):
    env = migsched.Env(GPU)
    t0 = time.process_time()
    env.random_steps(steps, seed=1)
    return steps, time.process_time() - t0


def c_vector(calls=6_000):
    v = migsched.VectorEnv(NUM_ENVS, GPU)
    t0 = time.process_time()
    v.random_steps(calls, seed=1)
    return calls * NUM_ENVS, time.process_time() - t0


def main():
    c1 = best_of(3, c_single)
    cv = best_of(3, c_vector)
    p1 = best_of(3, python_single)
    runs = [python_vector() for _ in range(3)]
    pv = max(steps / seconds for steps, seconds, _ in runs)
    pv_env = max(steps / in_step for steps, _, in_step in runs)
    print(f"env steps/s, {GPU}, N=M=14, 14-task MIXEDSCALING,WIDETIMES episodes, uniformly "
          "random allowed action (per CPU second, best of 3):")
    print(f"  C environment alone (mask + observation + step):     {c1:10.0f}")
    print(f"  C vector environment, {NUM_ENVS} envs, stepped in C:      {cv:10.0f}")
    print(f"  Python Env (one step per call):                      {p1:10.0f}")
    print(f"  Python VectorEnv, {NUM_ENVS} envs, with the NumPy choice:  {pv:10.0f}")
    print(f"  Python VectorEnv, {NUM_ENVS} envs, inside step() alone:    {pv_env:10.0f}")
    print(f"  ratio Python vector / C environment: {pv / c1:.2f} with the choice, "
          f"{pv_env / c1:.2f} inside step(); / C vector environment: {pv / cv:.2f}, "
          f"{pv_env / cv:.2f}")


if __name__ == "__main__":
    main()
