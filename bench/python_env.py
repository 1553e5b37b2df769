"""Steps per second of the scheduling environment through Python (migsched.Env and
migsched.VectorEnv with 64 environments) beside the C environment alone, all under one
action rule: a uniformly random allowed action, on generated episodes
(MIXEDSCALING,WIDETIMES, 14 tasks, A100-40GB, N = M = 14).

What is counted: one step is one decision of one environment. The C figures are loops
inside the library: one environment with mask, observation and step at each decision (as
bench_env's), and the vector environment stepped in C (which also validates every episode
it ends, as the Python vector does). The Python vector is an honest Python loop: at each
call it chooses the actions, then calls VectorEnv.step; its time includes the choice, made
either with NumPy from the masks or by VectorEnv.sample_actions (the library's draw), and
is also given inside VectorEnv.step alone (what the environment costs a caller whose
policy picks the actions; timed in runs of their own). Times are CPU seconds of this
process (time.process_time), which other load on the machine inflates less than wall
time; the measurements run interleaved in rounds and each ratio is taken within a round,
so the medians printed compare figures measured under the same load. Run by `make bench`:
    PYTHONPATH=python MIGSCHED_LIBRARY=build/libmigsched.so.0 /usr/bin/python3 bench/python_env.py
"""
import os
import statistics
import time

# NumPy's BLAS threads would spin beside the loops and count in the process's CPU time.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import migsched  # noqa: E402

GPU = "A100-40GB"
NUM_ENVS = 64
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))


def c_single(env, steps=300_000):
    t0 = time.process_time()
    env.random_steps(steps, seed=1)
    return steps / (time.process_time() - t0)


def c_vector(v, calls=4_000):
    t0 = time.process_time()
    v.random_steps(calls, seed=1)
    return calls * NUM_ENVS / (time.process_time() - t0)


def python_single(env, steps=60_000):
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    done = False
    t0 = time.process_time()
    for _ in range(steps):
        if done:
            env.reset()
        allowed = np.flatnonzero(env.action_masks())
        _, _, done, _, _ = env.step(int(allowed[rng.integers(allowed.size)]))
    return steps / (time.process_time() - t0)


def numpy_choice(v, rng):
    """A function giving a uniformly random allowed action per row of v's masks: the
    pick-th allowed entry of each row, pick uniform below the row's count of them."""
    allowed = v.action_masks().view(np.bool_).ravel()
    row_start = np.arange(v.num_envs + 1) * v.num_actions

    def choose():
        flat = allowed.nonzero()[0]  # the allowed entries, row after row
        bounds = flat.searchsorted(row_start)  # where each row's entries begin in flat
        first = bounds[:-1]
        pick = first + (rng.random(v.num_envs) * (bounds[1:] - first)).astype(np.intp)
        return flat.take(pick) - row_start[:-1]

    return choose


def python_vector(v, choice, calls=3_000):
    """Steps/s of a loop choosing the actions with choice() and stepping."""
    v.reset(seed=1)
    t0 = time.process_time()
    for _ in range(calls):
        v.step(choice())
    seconds = time.process_time() - t0
    assert v.invalid_episodes == 0, v.invalid_message
    return calls * NUM_ENVS / seconds


def python_vector_in_step(v, choice, calls=3_000):
    """Steps/s counting only the time inside VectorEnv.step (timed apart from
    python_vector, whose figure the timers would slow)."""
    v.reset(seed=1)
    in_step = 0.0
    for _ in range(calls):
        actions = choice()
        t1 = time.process_time()
        v.step(actions)
        in_step += time.process_time() - t1
    assert v.invalid_episodes == 0, v.invalid_message
    return calls * NUM_ENVS / in_step


def main():
    env = migsched.Env(GPU)
    vec = migsched.VectorEnv(NUM_ENVS, GPU)
    choose = numpy_choice(vec, np.random.default_rng(1))
    figures = {k: [] for k in ("c1", "cv", "p1", "pn", "pn_step", "ps", "ps_step")}
    ratios = {k: [] for k in ("pn", "pn_step", "ps", "ps_step", "cv")}
    for _ in range(ROUNDS):
        r = {"c1": c_single(env), "cv": c_vector(vec), "p1": python_single(env)}
        r["pn"], r["pn_step"] = python_vector(vec, choose), python_vector_in_step(vec, choose)
        r["ps"] = python_vector(vec, vec.sample_actions)
        r["ps_step"] = python_vector_in_step(vec, vec.sample_actions)
        for k, x in r.items():
            figures[k].append(x)
        for k in ratios:
            ratios[k].append(r[k] / r["c1"])
    med = {k: statistics.median(x) for k, x in figures.items()}
    rat = {k: statistics.median(x) for k, x in ratios.items()}
    print(f"env steps/s (one step = one decision of one environment), {GPU}, N=M=14, "
          "14-task MIXEDSCALING,WIDETIMES episodes, uniformly random allowed action; per "
          f"CPU second, single-threaded, median of {ROUNDS} interleaved rounds (ratios to the "
          "C environment within each round):")
    rows = [
        ("C environment alone (mask + observation + step)", "c1", None),
        (f"C vector environment, {NUM_ENVS} envs, stepped in C (validates each episode)",
         "cv", "cv"),
        ("Python Env (one step per call, NumPy choice)", "p1", None),
        (f"Python VectorEnv, {NUM_ENVS} envs, NumPy choice + step()", "pn", "pn"),
        ("  the same, time inside step() alone", "pn_step", "pn_step"),
        (f"Python VectorEnv, {NUM_ENVS} envs, sample_actions() + step()", "ps", "ps"),
        ("  the same, time inside step() alone", "ps_step", "ps_step"),
    ]
    for label, k, rk in rows:
        ratio = f"  {rat[rk]:.2f} x C env" if rk else ""
        print(f"  {label:<74} {med[k]:10.0f}{ratio}")
    print(f"  Python vector with the action choice / C environment alone: {rat['pn']:.2f} "
          f"(NumPy choice), {rat['ps']:.2f} (sample_actions); target >= 0.5")


if __name__ == "__main__":
    main()
