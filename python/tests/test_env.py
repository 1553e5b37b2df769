"""The scheduling environment from Python: FAR's plan followed reproduces it task by task, the
vector environment validates every episode it ends and writes into the same arrays at
every step, its sampled actions are allowed, uniform and seeded, returns have Gymnasium's
shapes, masks are enforced with errors, and a seed gives the same episodes."""
import numpy as np
import pytest

import migsched

GPU = migsched.GPU("A100-40GB")
# The settings of the follower's earlier tests: reconfigurations that do not stop the clock,
# unrounded times and fine classes.
EXACT = dict(async_reconfig=True, encoding="exact", longest_first=True, soonest_placement=True, levels=250)
# Those under which a followed plan is carried out as it is: every partition its own
# configuration (the plan's placement, not a symmetric one), the 3g on slots 0-3 kept (no
# larger stand-in), each instance created when its first task is placed (none that the
# plan does not hold) and every task a class of its own (not one of equal levels).
AS_PLANNED = dict(async_reconfig=True, every_partition=True, keep_useless=True, create_on_use=True,
                  task_classes=True)
# Every preset on each GPU that takes it (the pathological ones need a 3g: not the A30).
PRESETS = ["POORSCALING", "MIXEDSCALING", "MIXSCALINGUNIFORM", "GOODSCALING", "MIXSCALINGEXTREME",
           "WIDETIMES", "NARROWTIMES", "PATHO4", "PATHO2", "PATHOMIX"]
CASES = [(g, p) for g in ("A100-40GB", "A30-24GB") for p in PRESETS
         if g == "A100-40GB" or not p.startswith("PATHO")]


def follow(env, w, plan):
    """Plays the episode that carries out plan on w; its final info."""
    env.reset(options={"workload": w})
    env.follow(plan)
    done, info = False, {}
    while not done:
        a = env.follow_action()
        assert a is not None, "the follower stopped before the end"
        assert env.action_masks()[a]
        _, _, done, _, info = env.step(a)
    assert env.follow_action() is None
    return info


@pytest.mark.parametrize("gpu,presets", CASES)
def test_following_fars_plan_reproduces_it(gpu, presets):
    """Each task starts at FAR's start on an instance of FAR's size and slot, so the
    makespans agree to 1e-9, on batches of 1..14 tasks; every episode validates."""
    g = migsched.GPU(gpu)
    env = migsched.Env(g, **AS_PLANNED)
    for n in range(1, 15):
        for seed in range(6):
            w = migsched.Workload.generate(g, n, presets=presets, seed=seed)
            far = migsched.schedule(w, g, algo="far")
            info = follow(env, w, far)
            assert info["makespan"] == pytest.approx(far.makespan, rel=1e-9)
            got = env.to_schedule("followed")
            assert migsched.validate(got) == []
            assert got.makespan == pytest.approx(far.makespan, rel=1e-9)
            slots = {i["id"]: (i["slices"], i["start_slot"]) for i in far.instances}
            planned = {t["index"]: (t["start"], slots[t["instance"]]) for t in far.tasks}
            placed = {i["id"]: (i["slices"], i["start_slot"]) for i in got.instances}
            for t in got.tasks:
                start, where = planned[t["index"]]
                assert t["start"] == pytest.approx(start, rel=1e-9, abs=1e-9)
                assert placed[t["instance"]] == where


def test_following_fars_plan_otherwise_is_allowed_and_valid():
    """Without those settings the follower stands larger instances in and takes the
    canonical placement: the makespan is near FAR's, often not equal, but every action it
    gives is allowed and the episode validates."""
    env = migsched.Env(GPU, **EXACT)
    differ = 0
    for presets in ("MIXEDSCALING,WIDETIMES", "GOODSCALING", "NARROWTIMES"):
        for seed in range(4):
            w = migsched.Workload.generate(GPU, 12, presets=presets, seed=seed)
            far = migsched.schedule(w, GPU, algo="far")
            info = follow(env, w, far)
            assert 0.8 < info["makespan"] / far.makespan < 1.7
            differ += abs(info["makespan"] / far.makespan - 1) > 1e-9
            assert migsched.validate(env.to_schedule()) == []
    assert differ > 0


def random_actions(masks, rng):
    """A uniformly random allowed action per row."""
    keys = rng.random(masks.shape) * masks
    return keys.argmax(axis=1)


def test_vector_env_validates_every_episode_it_ends():
    v = migsched.VectorEnv(16, GPU, tasks=8, n_batch=8)
    obs, _ = v.reset(seed=11)
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(600):
        obs, rewards, terminated, truncated, infos = v.step(random_actions(v.action_masks(), rng))
        seen += int(terminated.sum())
        ended = infos["episode_makespan"][terminated]
        assert np.all(ended > 0)
        assert np.all(infos["episode_return"][terminated] < 0)
        assert not truncated.any()
    assert seen >= 300
    assert v.episodes == seen
    assert v.invalid_episodes == 0, v.invalid_message
    assert v.invalid_message == ""
    assert v.steps == 16 * 600


def test_vector_env_writes_into_the_same_arrays():
    v = migsched.VectorEnv(8, GPU)
    obs0, _ = v.reset(seed=2)
    first = obs0.copy()
    rng = np.random.default_rng(0)
    masks0 = v.action_masks()
    obs1, rewards1, term1, _, infos1 = v.step(random_actions(masks0, rng))
    obs2, rewards2, term2, _, infos2 = v.step(random_actions(v.action_masks(), rng))
    assert obs0 is obs1 is obs2 and np.shares_memory(obs0, obs2)
    assert np.shares_memory(masks0, v.action_masks())
    assert rewards1 is rewards2 and term1 is term2 and infos1 is infos2
    assert not np.array_equal(first, obs2)  # written in place by the library
    assert obs2.dtype == np.float32 and obs2.shape == (8, v.obs_size)
    assert obs2.flags["C_CONTIGUOUS"]


def test_gymnasium_shaped_returns():
    env = migsched.Env(GPU, tasks=6)
    obs, info = env.reset(seed=3)
    assert isinstance(info, dict) and info["scale"] > 0
    assert obs.dtype == np.float32 and obs.shape == env.observation_space.shape
    assert env.observation_space.contains(obs)
    assert env.action_space.n == env.num_actions == env.spec["num_actions"]
    bound = env.makespan_bound
    total, done = 0.0, False
    rng = np.random.default_rng(4)
    while not done:
        a = env.action_space.sample(rng, mask=env.action_masks())
        assert env.action_space.contains(a)
        obs, reward, done, truncated, info = env.step(a)
        assert isinstance(reward, float) and isinstance(done, bool) and truncated is False
        assert env.observation_space.contains(obs)
        total += reward
    assert info["makespan"] == env.now >= bound * (1 - 1e-12)
    assert total == pytest.approx(-env.now / env.scale, rel=1e-9)
    assert not env.action_masks().any()
    s = env.to_schedule()
    assert s.makespan == pytest.approx(info["makespan"], rel=1e-12)
    assert migsched.validate(s) == []
    assert len(env.episode_workload()) == 6

    v = migsched.VectorEnv(3, GPU)
    obs, infos = v.reset(seed=0)
    assert obs.shape == v.observation_space.shape == (3, v.obs_size)
    assert v.action_space.shape == (3,)
    out = v.step(v.action_space.sample(1, mask=v.action_masks()))
    assert len(out) == 5
    assert out[1].shape == (3,) and out[2].dtype == np.bool_ and out[3].dtype == np.bool_


def test_masks_are_enforced_with_errors():
    env = migsched.Env(GPU)
    with pytest.raises(migsched.InvalidInput, match="reset first"):
        env.step(0)
    env.reset(seed=1)
    mask = env.action_masks()
    bad = int(np.flatnonzero(~mask)[0])
    with pytest.raises(migsched.InvalidInput, match=f"action {bad} is not allowed"):
        env.step(bad)
    with pytest.raises(migsched.InvalidInput, match="not allowed"):
        env.step(env.num_actions)
    env.step(int(np.flatnonzero(mask)[0]))  # still usable

    v = migsched.VectorEnv(4, GPU)
    v.reset(seed=1)
    before = v.obs.copy()
    actions = random_actions(v.action_masks(), np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(v.action_masks()[2] == 0)[0])
    with pytest.raises(migsched.InvalidInput, match="environment 2"):
        v.step(actions)
    assert np.array_equal(before, v.obs) and v.steps == 0


def test_vector_sample_actions_are_allowed_uniform_and_seeded():
    v = migsched.VectorEnv(6, GPU, tasks=8)
    with pytest.raises(migsched.InvalidInput, match="before reset"):
        v.sample_actions()

    def picks(seed):
        v.reset(seed=seed)
        out = []
        for _ in range(50):
            a = v.sample_actions()
            assert a.dtype == np.int32 and a.shape == (6,)
            assert v.action_masks()[np.arange(6), a].all()
            out.append(a.copy())
            v.step(a)
        return np.array(out)

    assert np.array_equal(picks(3), picks(3))
    assert not np.array_equal(picks(3), picks(4))
    assert v.invalid_episodes == 0 and v.episodes > 0
    # Without stepping, the masks stay: each allowed action of environment 0 about as often.
    allowed = np.flatnonzero(v.action_masks()[0])
    counts = np.bincount([v.sample_actions()[0] for _ in range(6000)], minlength=v.num_actions)
    assert set(np.flatnonzero(counts)) == set(allowed) and len(allowed) >= 2
    expected = 6000 / len(allowed)
    assert np.all(np.abs(counts[allowed] - expected) < expected / 4)


def play(v, seed, steps):
    """Observations and ended makespans of steps random steps from a reset with seed."""
    v.reset(seed=seed)
    rng = np.random.default_rng(5)
    trace = []
    for _ in range(steps):
        obs, _, term, _, infos = v.step(random_actions(v.action_masks(), rng))
        trace.append(obs.tobytes() + infos["episode_makespan"][term].tobytes())
    return trace


def test_a_seed_gives_the_same_episodes():
    a, b = migsched.VectorEnv(4, GPU), migsched.VectorEnv(4, GPU)
    assert play(a, 9, 200) == play(b, 9, 200)
    assert play(a, 9, 200) != play(a, 10, 200)

    e1, e2 = migsched.Env(GPU), migsched.Env(GPU)
    for e in (e1, e2):
        e.reset(seed=21)
    o1, _ = e1.reset()  # the next of seed 21's stream, for both
    o2, _ = e2.reset()
    assert np.array_equal(o1, o2)
    assert np.array_equal(e1.episode_workload().times, e2.episode_workload().times)


def test_a_fixed_workload_starts_every_episode_alike():
    w = migsched.Workload.generate(GPU, 5, seed=3)
    env = migsched.Env(GPU, w)
    first, _ = env.reset(seed=1)
    again, _ = env.reset(seed=2)
    assert np.array_equal(first, again)
    v = migsched.VectorEnv(2, GPU, w)
    obs, _ = v.reset(seed=0)
    assert np.array_equal(obs[0], first) and np.array_equal(obs[1], first)


def test_settings_by_their_names():
    env = migsched.Env(GPU, n_batch=8, levels=10, encoding="one-hot", direct_reconfig=False)
    assert env.spec["n_batch"] == 8 and env.spec["levels"] == 10 and env.spec["no_direct"]
    assert env.num_actions == 1 + env.spec["configurations"] + 8 * env.spec["slices"]
    assert env.spec["configurations"] == 13 and not env.spec["every_partition"]
    every = migsched.Env(GPU, every_partition=True, keep_useless=True, create_on_use=True,
                         async_reconfig=True, task_classes=True)
    assert every.spec["configurations"] == 19  # A100-40GB's partitions, none merged
    assert every.spec["every_partition"] and every.spec["create_on_use"] and every.spec["task_classes"]
    with pytest.raises(migsched.InvalidInput, match="create-on-use needs async-reconfig"):
        migsched.Env(GPU, create_on_use=True)  # direct reconfigurations that stop the clock
    with pytest.raises(migsched.InvalidInput, match="encoding"):
        migsched.Env(GPU, encoding="binary")
    with pytest.raises(migsched.InvalidInput, match="n-batch"):
        migsched.Env(GPU, n_batch=65)
    with pytest.raises(migsched.InvalidInput, match="unknown preset"):
        migsched.VectorEnv(2, GPU, presets="NOPE")
    with pytest.raises(migsched.InvalidInput, match="0 environments"):
        migsched.VectorEnv(0, GPU)
    with pytest.raises(TypeError):
        migsched.VectorEnv(2, GPU, n_batchs=3)
    with pytest.raises(migsched.InvalidInput, match="follow"):
        e = migsched.Env(GPU, tasks=20, n_batch=14)
        e.reset(seed=0)
        e.follow(migsched.schedule(e.episode_workload(), GPU, algo="far"))


def test_spaces():
    box = migsched.Box(-1, 1, (3, 2))
    x = box.sample(0)
    assert box.contains(x) and x.dtype == np.float32 and not box.contains(x + 3)
    d = migsched.Discrete(5)
    assert all(d.sample(s, mask=[0, 0, 1, 0, 1]) in (2, 4) for s in range(20))
    with pytest.raises(ValueError):
        d.sample(0, mask=[0] * 5)
    md = migsched.MultiDiscrete([3, 4])
    assert md.contains(md.sample(1)) and not md.contains(np.array([3, 0]))
