"""A few episodes of a simple agent in pertlab's Gymnasium environment, its window beside Reno's.

One agent flow and one Reno flow share a 20 Mbit/s, 40 ms dumbbell with RED at the bottleneck
(``pertlab/CongestionControl-v0``'s path). Every 100 ms the agent reads its observation and sets
its window (``action="cwnd"``): two segments more while the queueing delay (srtt - min RTT) is
under ``TARGET_MS``, a fifth less above: a delay-based AIMD in a few lines, not a learned policy.
It does not respond to losses: RED's drops end in timeouts that put its window back to one
segment (the drops in the plot), which a learned policy would learn to avoid. Each episode runs with
its own seed; the script prints each episode's return and the flows' mean throughput, and
plots the last episode's two windows over time (``gym_agent.png``).

    .venv/bin/python examples/gym_agent.py [--episodes 3] [--duration 20s] [--out gym_agent.png]

Swap ``policy`` for a learning agent (the environment is a ``gymnasium.Env``; any library that
takes one will do) and keep the rest.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import pertlab
from pertlab.gym import FEATURES, CongestionEnv

#: The queueing delay the agent aims under, ms.
TARGET_MS = 10.0
COL = {name: i for i, name in enumerate(FEATURES)}


def policy(obs: np.ndarray) -> np.ndarray:
    """A window per agent flow: grow while the queue is short, shrink when it is not."""
    cwnd, delay = obs[:, COL["cwnd"]], obs[:, COL["queueing_delay_ms"]]
    return np.where(delay < TARGET_MS, cwnd + 2, np.maximum(1, 0.8 * cwnd)).astype(np.float32)


def episode(env: CongestionEnv, seed: int) -> dict:
    """One episode: the agent's and the Reno flow's window, throughput and queueing delay per step."""
    obs, info = env.reset(seed=seed)
    rows, total = [], 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(policy(obs))
        total += reward
        agent, reno = info["flows"][0], info["flows"][1]
        rows.append((info["time_s"], agent["cwnd"], reno["cwnd"], obs[0, COL["throughput_mbps"]], obs[0, COL["queueing_delay_ms"]]))
        if terminated or truncated:
            break
    t, agent_cwnd, reno_cwnd, mbps, delay = map(np.array, zip(*rows))
    return {"seed": seed, "return": total, "t": t, "agent_cwnd": agent_cwnd, "reno_cwnd": reno_cwnd, "agent_mbps": mbps, "agent_delay_ms": delay}


def plot(ep: dict, out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.5))
    ax.plot(ep["t"], ep["agent_cwnd"], label=f"agent (delay target {TARGET_MS:g} ms)")
    ax.plot(ep["t"], ep["reno_cwnd"], label="Reno")
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title(f"Episode with seed {ep['seed']}: 20 Mbit/s, 40 ms, RED")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def main(episodes: int = 3, duration: str = "20s", out: Path = Path("gym_agent.png")) -> list[dict]:
    scenario = pertlab.dumbbell(bw="20Mbps", rtt="40ms", flows=2, cc="agent:1,reno:1", queue="red", duration=duration)
    env = CongestionEnv(scenario, step="100ms", action="cwnd", max_cwnd=1000)
    runs = [episode(env, seed) for seed in range(1, episodes + 1)]
    for ep in runs:
        print(
            f"seed {ep['seed']}: return {ep['return']:7.2f}, agent {ep['agent_mbps'].mean():5.2f} Mbit/s at "
            f"{ep['agent_delay_ms'].mean():5.2f} ms of queueing; mean windows agent {ep['agent_cwnd'].mean():6.1f}, Reno {ep['reno_cwnd'].mean():6.1f}"
        )
    print(f"wrote {plot(runs[-1], out)}")
    return runs


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--duration", default="20s")
    parser.add_argument("--out", type=Path, default=Path("gym_agent.png"))
    args = parser.parse_args()
    main(args.episodes, args.duration, args.out)
