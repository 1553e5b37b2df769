"""The online simulator from Python: a first-fit policy written in Python gives the
simulator's own firstfit-dynamic run job for job, the built-in policies give the CLI's
bytes, and bad answers, exceptions and bad input come back as exceptions with the
library's messages."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import migsched
from conftest import SOURCE, cli, shared

ALIBABA = ("data", "alibaba-openb-2023", "openb_pod_list_default.csv")


def first_fit(state):
    """firstfit-dynamic in Python on the state alone: the first GPU with an idle instance
    of the job's profile (its lowest start), else the first GPU and start where one can be
    created (its slots hold no job, nothing being created is in the way)."""
    p = state.profile
    create = None
    for g in range(state.ngpus):
        busy, locked = int(state.job_slots[g]), int(state.locked_slots[g])
        for start in p.starts:
            mask = ((1 << p.size_slots) - 1) << start
            if busy & mask:
                continue
            if state.idle[g, start] == p.index:
                return g, start
            if create is None and not locked & mask:
                create = (g, start)
    return create


@pytest.fixture(scope="module")
def gpu():
    return migsched.GPU("A100-40GB")


@pytest.fixture(scope="module")
def alibaba(gpu):
    return migsched.OnlineWorkload.from_alibaba(shared(*ALIBABA), gpu)


def assert_same_jobs(a, b):
    assert np.array_equal(a.start, b.start)
    assert np.array_equal(a.end, b.end)
    assert np.array_equal(a.gpu, b.gpu)
    for key in ("events", "creations", "destructions", "mean_turnaround", "makespan"):
        assert getattr(a, key) == getattr(b, key), key


@pytest.mark.parametrize("gpus", [2, 8])
def test_python_first_fit_is_firstfit_dynamic_on_alibaba(alibaba, gpus):
    assert len(alibaba) > 5000 and alibaba.info["skipped"] > 0
    builtin = migsched.simulate(alibaba, policy="firstfit-dynamic", gpus=gpus, queue="fcfs-profile")
    python = migsched.simulate(alibaba, policy=first_fit, gpus=gpus, check=True)
    assert python.policy == "callback" and builtin.policy == "firstfit-dynamic"
    assert_same_jobs(builtin, python)
    assert builtin.creations > 100  # instances were made and unmade, not one layout kept


@pytest.mark.parametrize("queue", ["fcfs-profile", "fcfs"])
def test_python_first_fit_is_firstfit_dynamic_on_a_generated_trace(gpu, queue):
    mix = ",".join(f"{p.name}:1" for p in gpu.profiles)
    w = migsched.OnlineWorkload.generate(gpu, jobs=600, arrival_mean=6, mix=mix, seed=11)
    builtin = migsched.simulate(w, gpu, "firstfit-dynamic", gpus=5, queue=queue, kappa=0.1)
    python = migsched.simulate(w, gpu, first_fit, gpus=5, queue=queue, kappa=0.1)
    assert_same_jobs(builtin, python)
    assert len(set(python.gpu.tolist())) == 5
    assert python.mean_wait > 0  # jobs queued: the queue's order was exercised too


def test_frag_is_not_first_fit(gpu):
    """The comparison above can fail: another policy's run differs."""
    w = migsched.OnlineWorkload.generate(gpu, jobs=300, arrival_mean=5, seed=3)
    python = migsched.simulate(w, gpu, first_fit, gpus=3)
    frag = migsched.simulate(w, gpu, "frag", gpus=3, migration=False, queue="fcfs-profile")
    assert not np.array_equal(python.start, frag.start)


def test_the_state_is_the_simulators_view(gpu):
    seen = []

    def watching(state):
        for g in range(state.ngpus):
            busy = int(state.job_slots[g])
            assert busy & int(state.locked_slots[g]) == busy  # a held instance is locked
            assert bin(int(state.frag_slices[g])).count("1") == state.load[g]
            for k in range(gpu.slots):
                p = int(state.idle[g, k])
                if p >= 0:
                    assert not gpu.profiles[p].slot_mask(k) & busy
        assert state.arrival <= state.now and state.work > 0
        seen.append((state.now, int(state.load.sum()), int((state.idle >= 0).sum())))
        with pytest.raises(ValueError):
            state.load[0] = 1  # read-only views
        return first_fit(state)

    w = migsched.OnlineWorkload.generate(gpu, jobs=200, arrival_mean=8, seed=2)
    migsched.simulate(w, gpu, watching, gpus=2)
    assert len(seen) >= len(w)
    assert max(s[1] for s in seen) > 0 and max(s[2] for s in seen) > 0  # loads and idle instances shown


def cli_json(*args):
    return json.loads(cli("online", "simulate", *args, "--json"))


@pytest.mark.parametrize("policy", ["frag", "firstfit-dynamic", "owp"])
def test_jobs_csv_and_summary_are_the_clis(alibaba, gpu, tmp_path, policy):
    path = shared(*ALIBABA)
    theirs = tmp_path / "cli.csv"
    summary = cli_json("--gpu", gpu.name, "--gpus", 4, "--alibaba", path, "--limit", 800, "--policy", policy,
                       "--csv", theirs)
    w = migsched.OnlineWorkload.from_alibaba(path, gpu, limit=800)
    r = migsched.simulate(w, policy=policy, gpus=4)
    ours = tmp_path / "py.csv"
    r.write_jobs_csv(ours)
    assert ours.read_bytes() == theirs.read_bytes()
    for key, value in summary.items():
        assert r.summary[key] == value, key


def test_generated_workload_and_trace_are_the_clis(gpu, tmp_path):
    args = ["--gpu", gpu.name, "--gpus", 3, "--jobs", 250, "--arrival-mean", 12, "--mix", "1g.5gb:2,3g.20gb:1",
            "--service", "long", "--seed", 9]
    summary = cli_json(*args, "--csv", tmp_path / "cli.csv", "--save-trace", tmp_path / "cli_trace.csv")
    w = migsched.OnlineWorkload.generate(gpu, jobs=250, arrival_mean=12, mix="1g.5gb:2,3g.20gb:1", service="long",
                                         seed=9)
    r = migsched.simulate(w, gpus=3)
    r.write_jobs_csv(tmp_path / "py.csv")
    w.write_trace(tmp_path / "py_trace.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert (tmp_path / "py_trace.csv").read_bytes() == (tmp_path / "cli_trace.csv").read_bytes()
    assert r.summary == summary  # tpot_ms too: the CLI prints it for generated workloads
    again = migsched.OnlineWorkload.from_trace(tmp_path / "py_trace.csv", gpu)
    assert np.array_equal(again.arrival, w.arrival) and np.array_equal(again.profile, w.profile)


def test_per_job_arrays(alibaba):
    r = migsched.simulate(alibaba, policy="owp", gpus=8)
    assert len(r.start) == len(alibaba) == len(r.turnaround)
    assert np.all(r.wait >= 0) and np.allclose(r.turnaround, r.wait + r.execution)
    assert np.all(r.execution >= alibaba.work * (1 - 1e-9))
    assert r.gpu.min() >= 0 and r.gpu.max() == 7 and r.job_migrations.sum() == 0
    assert r.mean_wait == pytest.approx(r.wait.mean())
    assert r.p95_turnaround == pytest.approx(np.quantile(r.turnaround, 0.95))


def test_from_arrays_and_scaling(gpu):
    w = migsched.OnlineWorkload.from_arrays(gpu, [0, 1, 1, 5], ["1g.5gb", "3g.20gb", 0, "7g.40gb"], [10, 20, 5, 1],
                                            names=["a", None, "c", "d"])
    assert w.names == ["a", None, "c", "d"] and w.profile.tolist() == [0, 3, 0, 5]
    r = migsched.simulate(w, gpus=1, policy=first_fit)
    assert np.all(r.end > r.start)
    load = w.offered_load(1)
    assert w.at_load(load / 2, 1).offered_load(1) == pytest.approx(load / 2)
    assert w.scaled(2).arrival.tolist() == [0, 2, 2, 10]


def placing(answer, after=0):
    """First fit for the first `after` questions, then `answer` (a function of the state)."""
    asked = []

    def policy(state):
        asked.append(state.job)
        return first_fit(state) if len(asked) <= after else answer(state)

    return policy


@pytest.fixture(scope="module")
def small(gpu):
    return migsched.OnlineWorkload.parse(
        "arrival,profile,work\n0,1g.5gb,100\n1,1g.5gb,100\n2,3g.20gb,100\n", gpu, source="small.csv"
    )


@pytest.mark.parametrize("answer,after,pieces", [
    (lambda s: (2, 0), 0, ["job 0 (1g.5gb)", "GPU 2 is out of range", "0 to 1"]),
    (lambda s: (1, 1), 2, ["job 2 (3g.20gb)", "GPU 1 slot 1 is not a start 3g.20gb allows (0, 4)"]),
    (lambda s: (0, 0), 1, ["job 1", "GPU 0 slot 0 cannot take it: its slots hold a job"]),
])
def test_bad_answers_raise_the_simulators_message(small, answer, after, pieces):
    with pytest.raises(migsched.InvalidInput) as e:
        migsched.simulate(small, policy=placing(answer, after), gpus=2)
    for piece in pieces:
        assert piece in str(e.value)


def test_an_exception_in_the_policy_stops_the_run_and_comes_back(small):
    def broken(state):
        return 1 // 0

    with pytest.raises(migsched.Interrupted) as e:
        migsched.simulate(small, policy=placing(broken, after=1), gpus=2)
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    assert "job 1 (1g.5gb) at t=1 s: the policy stopped the simulation" in str(e.value)
    assert "ZeroDivisionError" in str(e.value)


@pytest.mark.parametrize("answer,cause", [(lambda s: "nope", ValueError), (lambda s: (0.5, 0), TypeError),
                                          (lambda s: (2**40, 0), OverflowError)])
def test_answers_python_cannot_pass_stop_the_run(small, answer, cause):
    with pytest.raises(migsched.Interrupted) as e:
        migsched.simulate(small, policy=placing(answer), gpus=2)
    assert isinstance(e.value.__cause__, cause)


def test_a_policy_that_never_places(small):
    with pytest.raises(migsched.Infeasible, match="3 of 3 jobs could never start"):
        migsched.simulate(small, policy=lambda s: None, gpus=2)


@pytest.mark.parametrize("options,piece", [({"migration": True}, "departure migration"),
                                           ({"queue": "reserve"}, "reserve queue"),
                                           ({"dynamic": False}, "static layout")])
def test_combinations_a_python_policy_cannot_run(small, options, piece):
    with pytest.raises(migsched.InvalidInput, match=piece):
        migsched.simulate(small, policy=first_fit, gpus=2, **options)


def test_bad_options(small):
    with pytest.raises(migsched.InvalidInput, match="unknown online option 'tua'"):
        migsched.simulate(small, tua=0.3)
    with pytest.raises(migsched.InvalidInput, match=r"tau must be a number in \[0, 1\], got '2'"):
        migsched.simulate(small, tau=2)
    with pytest.raises(migsched.InvalidInput, match="policy must be frag, firstfit-static"):
        migsched.simulate(small, policy="nope")
    with pytest.raises(migsched.InvalidInput, match="workload's jobs are of A100-40GB's profiles, not H100-80GB's"):
        migsched.simulate(small, "H100-80GB")


def test_bad_trace_input_names_file_and_line(gpu, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("arrival,profile,work\n0,1g.5gb,10\n3,2g.99gb,10\n")
    with pytest.raises(migsched.InvalidInput, match=f"{bad}:3: profile '2g.99gb' is not a profile of A100-40GB"):
        migsched.OnlineWorkload.from_trace(bad, gpu)
    with pytest.raises(migsched.InvalidInput, match="mine.csv:2: work 'x'"):
        migsched.OnlineWorkload.parse("arrival,profile,work\n0,1g.5gb,x\n", gpu, source="mine.csv")
    pods = tmp_path / "pods.csv"
    pods.write_text("name,num_gpu,gpu_milli,creation_time,deletion_time\np0,1,500,0,10\np1,one,500,0,10\n")
    with pytest.raises(migsched.InvalidInput, match=f"{pods}:3: num_gpu or gpu_milli is not a number"):
        migsched.OnlineWorkload.from_alibaba(pods, gpu)
    with pytest.raises(migsched.FileError, match="nothing.csv"):
        migsched.OnlineWorkload.from_trace(tmp_path / "nothing.csv", gpu)
    with pytest.raises(migsched.InvalidInput, match="job 2: arrival 1 comes before job 1's 4"):
        migsched.OnlineWorkload.from_arrays(gpu, [0, 4, 1], [0, 0, 0], [1, 1, 1])


def test_timeline_files(small, tmp_path):
    r = migsched.simulate(small, gpus=2, timeline=True)
    r.write_svg(tmp_path / "t.svg")
    r.write_timeline_csv(tmp_path / "t.csv")
    assert (tmp_path / "t.svg").read_text().lstrip().startswith(("<svg", "<?xml"))
    assert (tmp_path / "t.csv").read_text().startswith("t,fragmentation,instances,busy,queued")
    with pytest.raises(migsched.InvalidInput, match="kept no timeline"):
        migsched.simulate(small, gpus=2).write_svg(tmp_path / "u.svg")


def test_the_example_runs_and_draws(tmp_path):
    out = tmp_path / "policy.svg"
    example = os.path.join(SOURCE, "python", "examples", "online_policy.py")
    done = subprocess.run([sys.executable, example, "--pods", shared(*ALIBABA), "--gpus", "4", "--limit", "1500",
                           "--loads", "0.4,0.8", "--at", "0.8", "--out", str(out)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    for name in ("pack-frag (Python)", "frag", "firstfit-dynamic", "owp"):
        assert f"\n{name} " in done.stdout
    svg = out.read_text()
    assert svg.startswith("<?xml") and "<svg" in svg and svg.rstrip().endswith("</svg>")
    assert "pack-frag (Python)" in svg
