"""Planning from Python against the command line: the same input and seed give the same
plan bytes; the validator, bounds, metrics and errors behave as the CLI's."""
import json
import math

import numpy as np
import pytest

import migsched
from conftest import cli, data

SAMPLE = data("rodinia_a30_8tasks.csv")


@pytest.mark.parametrize("algo", ["far", "far-norefine", "search", "miso", "miso-eager", "fixpartbest", "nomig"])
def test_same_plan_bytes_as_the_cli_on_the_sample(algo):
    s = migsched.schedule(SAMPLE, "A30-24GB", algo=algo, seed=5)
    want = cli("schedule", SAMPLE, "--gpu", "A30-24GB", "--algo", algo, "--seed", 5, "--json")
    assert s.to_json().encode() == want


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_plan_bytes_as_the_cli_on_generated_workloads(tmp_path, seed):
    path = tmp_path / "w.csv"
    path.write_bytes(cli("generate", "--gpu", "A100-40GB", "--n", 30, "--preset", "MIXEDSCALING,WIDETIMES", "--seed", seed))
    w = migsched.Workload.generate("A100-40GB", 30, presets="MIXEDSCALING,WIDETIMES", seed=seed)
    assert w.to_csv("A100-40GB").encode() == path.read_bytes()
    for algo, extra in [("search", ["--time-budget", "5"]), ("far", ["--batch", "10", "--concat", "overlap"])]:
        want = cli("schedule", path, "--gpu", "A100-40GB", "--gpus", 2, "--algo", algo, "--seed", seed,
                   "--initial", "4-3", *extra, "--json")
        kw = {"budget_ms": 5} if algo == "search" else {"batch": 10, "concat": "overlap"}
        s = migsched.schedule(w, "A100-40GB", algo=algo, gpus=2, seed=seed, initial="4-3", **kw)
        assert s.to_json().encode() == want
        assert s.validate() == []


def test_bounds_and_metrics_match_the_cli():
    b = migsched.bounds(SAMPLE, "A30-24GB")
    want = json.loads(cli("bounds", SAMPLE, "--gpu", "A30-24GB", "--json"))
    for k in ("baseline", "l_bound", "l_bound_paper"):
        assert b[k] == want[k]
    s = migsched.schedule(SAMPLE, "A30-24GB", algo="far")
    plan = json.loads(s.to_json())
    assert s.makespan == plan["makespan"]
    assert s.metrics["baseline"] == b["baseline"]
    assert s.makespan >= b["l_bound"]


def test_the_validator_finds_a_tampered_plan(tmp_path):
    s = migsched.schedule(SAMPLE, "A30-24GB", algo="far")
    plan = json.loads(s.to_json())
    plan["tasks"][0]["end"] += 1.0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(plan))
    bad = migsched.validate(str(path), workload=SAMPLE)
    assert bad and bad[0]["rule"] == "task-duration"
    # the CLI says the same
    done = __import__("subprocess").run([__import__("conftest").CLI, "validate", str(path), "--workload", SAMPLE],
                                        capture_output=True)
    assert done.returncode == 1 and b"task-duration" in done.stdout + done.stderr
    # a plan from a different starting layout is refused by the initial-layout rule
    assert any(v["rule"] == "initial-layout" for v in s.validate(initial="4"))


def test_workloads_from_lists_arrays_and_records_plan_alike():
    gpu = migsched.GPU("A30-24GB")
    base = migsched.Workload.read(SAMPLE, gpu)
    t = base.times
    cols = [s - 1 for s in gpu.sizes]
    from_array = migsched.Workload.from_array(t[:, cols], gpu, names=base.names)
    from_records = migsched.Workload(
        [{"name": n, "times": {s: row[s - 1] for s in gpu.sizes}} for n, row in zip(base.names, t)], gpu
    )
    from_lists = migsched.Workload.from_array(t[:, cols].tolist(), gpu, names=base.names)
    want = migsched.schedule(base, gpu, algo="far").to_json()
    for w in (from_array, from_records, from_lists):
        assert np.array_equal(w.times, t)
        assert migsched.schedule(w, gpu, algo="far").to_json() == want
    assert migsched.Workload.parse(base.to_json(gpu), gpu).to_csv(gpu) == base.to_csv(gpu)


def test_plot_svg_draws_every_task():
    s = migsched.schedule(SAMPLE, "A30-24GB", algo="far")
    svg = s.plot_svg(title="far on the sample")
    assert svg.startswith("<?xml") and "far on the sample" in svg
    for name in s.workload.names:
        assert name in svg


def test_gpu_models():
    assert "A100-40GB" in migsched.builtin_gpus()
    g = migsched.GPU("a100")
    assert g.name == "A100-40GB" and g.slices == 7 and 7 in g.sizes
    p = g.profile("3g.20gb")
    assert p.slices == 3 and p.starts == (0, 4) and p.slot_mask(4) == 0b11110000
    with pytest.raises(migsched.InvalidInput, match="nosuchgpu"):
        migsched.GPU("nosuchgpu")
    with pytest.raises(migsched.InvalidInput, match="my.json"):
        migsched.GPU.from_json('{"name": "x"', source="my.json")


def test_errors_carry_the_c_message():
    with pytest.raises(migsched.InvalidInput, match=r"w\.csv:2"):
        migsched.Workload.parse("name,1,2,4\nx,1,abc,3\n", "A30-24GB", source="w.csv")
    with pytest.raises(migsched.InvalidInput, match="not known"):
        migsched.schedule(SAMPLE, "A30-24GB", algo="nosuch")
    with pytest.raises(migsched.InvalidInput, match="time on 2 slices"):
        migsched.Workload([("t", {1: 1.0, 2: -1.0})])
    with pytest.raises(migsched.InvalidInput, match="no size has a finite time"):
        migsched.Workload([("t", {1: math.inf})])
    with pytest.raises(migsched.FileError):
        migsched.Workload.read("/nonexistent/w.csv")
    with pytest.raises(migsched.InvalidInput):  # a 3-slice time on a GPU without that size
        migsched.Workload([("t", {3: 1.0})], gpu="A30-24GB")


def test_compare_ranks_search_at_least_as_good_as_far():
    rows = {r["algorithm"]: r for r in migsched.compare(SAMPLE, "A30-24GB")}
    assert set(rows) == {"far", "search", "miso", "fixpartbest", "nomig"}
    assert rows["search"]["makespan"] <= rows["far"]["makespan"]
    assert all(r["p_opt"] >= 0 for r in rows.values())
