"""A small masked PPO agent trained on migsched.VectorEnv, then evaluated against FAR and
a random policy on held-out generated workloads (p_opt: percent above paper 001's lower
bound, lower is better). Needs PyTorch (Debian: apt-get install python3-torch).

    PYTHONPATH=python MIGSCHED_LIBRARY=build/libmigsched.so.0 \\
        /usr/bin/python3 python/examples/train_ppo.py --minutes 5

The policy and value share a 256x256 trunk; illegal actions get -inf logits, so the
policy only ever samples allowed ones. The entropy bonus and the learning rate fall
linearly to 0 over the time given. Rewards are the environment's (minus the time each
step took, in the episode's scale), undiscounted."""
import argparse
import time

import numpy as np
import torch
from torch import nn

import migsched


class Agent(nn.Module):
    """Masked categorical policy and value on a shared trunk."""

    def __init__(self, obs_size, num_actions, hidden=256):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
        )
        self.pi = nn.Linear(hidden, num_actions)
        self.v = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.pi.weight, 0.01)
        nn.init.zeros_(self.pi.bias)

    def forward(self, obs, mask):
        h = self.trunk(obs)
        logits = self.pi(h).masked_fill(~mask, float("-inf"))
        return torch.distributions.Categorical(logits=logits), self.v(h).squeeze(-1)


def train(args):
    v = migsched.VectorEnv(args.envs, args.gpu, presets=args.presets, tasks=args.tasks)
    agent = Agent(v.obs_size, v.num_actions)
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr)
    obs_np, _ = v.reset(seed=args.seed)
    masks_np = v.action_masks()
    T, N = args.rollout, args.envs
    buf_obs = torch.zeros(T, N, v.obs_size)
    buf_mask = torch.zeros(T, N, v.num_actions, dtype=torch.bool)
    buf_act = torch.zeros(T, N, dtype=torch.long)
    buf_logp = torch.zeros(T, N)
    buf_val = torch.zeros(T + 1, N)
    buf_rew = torch.zeros(T, N)
    buf_done = torch.zeros(T, N)
    t_start = time.time()
    t_end = t_start + 60 * args.minutes
    update, makespans = 0, []
    while time.time() < t_end:
        # The entropy bonus and the learning rate fall linearly to 0 over the run.
        left = max(0.0, (t_end - time.time()) / (t_end - t_start))
        for g in opt.param_groups:
            g["lr"] = args.lr * left
        ent = args.ent * left
        with torch.no_grad():
            for t in range(T):
                obs = torch.from_numpy(obs_np.copy())
                mask = torch.from_numpy(masks_np.astype(bool))
                dist, value = agent(obs, mask)
                a = dist.sample()
                buf_obs[t], buf_mask[t], buf_act[t] = obs, mask, a
                buf_logp[t], buf_val[t] = dist.log_prob(a), value
                _, rew, term, _, infos = v.step(a.numpy())
                buf_rew[t] = torch.from_numpy(rew.copy())
                buf_done[t] = torch.from_numpy(term.astype(np.float32))
                makespans.extend(infos["episode_makespan"][term].tolist())
            _, buf_val[T] = agent(
                torch.from_numpy(obs_np.copy()), torch.from_numpy(masks_np.astype(bool))
            )
            # GAE (lambda) without discount; an ended episode's next state is the new one's.
            adv = torch.zeros(T, N)
            last = torch.zeros(N)
            for t in reversed(range(T)):
                live = 1.0 - buf_done[t]
                delta = buf_rew[t] + buf_val[t + 1] * live - buf_val[t]
                last = delta + args.lam * live * last
                adv[t] = last
            ret = adv + buf_val[:T]
        b_obs, b_mask = buf_obs.reshape(T * N, -1), buf_mask.reshape(T * N, -1)
        b_act, b_logp = buf_act.reshape(-1), buf_logp.reshape(-1)
        b_adv, b_ret = adv.reshape(-1), ret.reshape(-1)
        for _ in range(args.epochs):
            for idx in torch.randperm(T * N).split(args.minibatch):
                dist, value = agent(b_obs[idx], b_mask[idx])
                ratio = (dist.log_prob(b_act[idx]) - b_logp[idx]).exp()
                a_n = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                pg = -torch.min(ratio * a_n, ratio.clamp(1 - args.clip, 1 + args.clip) * a_n)
                loss = pg.mean() + 0.5 * (value - b_ret[idx]).pow(2).mean()
                loss = loss - ent * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        update += 1
        if update % args.log_every == 0 and makespans:
            print(f"update {update:4d}  steps {v.steps:8d}  episodes {v.episodes:6d}  "
                  f"mean makespan (last {len(makespans)}) {np.mean(makespans):7.1f} s", flush=True)
            makespans = []
    assert v.invalid_episodes == 0, v.invalid_message
    print(f"trained {v.steps} steps, {v.episodes} episodes (all valid) in {args.minutes} min")
    return agent


def play(env, w, choose):
    """The makespan of one episode on w, actions from choose(obs, mask)."""
    obs, _ = env.reset(options={"workload": w})
    done = False
    while not done:
        obs, _, done, _, info = env.step(choose(obs, env.action_masks()))
    return info["makespan"]


def evaluate(agent, args):
    env = migsched.Env(args.gpu)
    rng = np.random.default_rng(0)

    def greedy(obs, mask):
        with torch.no_grad():
            dist, _ = agent(torch.from_numpy(obs)[None], torch.from_numpy(mask)[None])
        return int(dist.logits.argmax())

    def uniform(obs, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    rows = []
    for k in range(args.eval):
        w = migsched.Workload.generate(args.gpu, args.tasks, presets=args.presets, seed=10_000 + k)
        bound = migsched.bounds(w, args.gpu)["l_bound_paper"]
        far = migsched.schedule(w, args.gpu, algo="far").makespan
        rows.append((play(env, w, greedy), far, play(env, w, uniform), bound))
    mk = np.array(rows)
    p_opt = (mk[:, :3] / mk[:, 3:4] - 1) * 100
    print(f"held-out: {args.eval} workloads of {args.tasks} tasks ({args.presets}, seeds 10000..)")
    for i, name in enumerate(["PPO (greedy)", "FAR", "random"]):
        print(f"  {name:13s} mean makespan {mk[:, i].mean():7.1f} s   mean p_opt {p_opt[:, i].mean():6.2f} %")
    print(f"  PPO <= FAR on {np.mean(mk[:, 0] <= mk[:, 1] * (1 + 1e-9)) * 100:.0f} % of workloads; "
          f"mean PPO / FAR {np.mean(mk[:, 0] / mk[:, 1]):.3f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpu", default="A100-40GB")
    p.add_argument("--presets", default="MIXEDSCALING,WIDETIMES")
    p.add_argument("--tasks", type=int, default=14)
    p.add_argument("--envs", type=int, default=32)
    p.add_argument("--rollout", type=int, default=64)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatch", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--lam", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent", type=float, default=0.01)
    p.add_argument("--minutes", type=float, default=5)
    p.add_argument("--eval", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--log-every", type=int, default=10)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    agent = train(args)
    evaluate(agent, args)


if __name__ == "__main__":
    main()
