"""pertlab.gym: Gymnasium's own checker passes, a seeded episode is reproducible, the agent's
actions are the agent flows' windows or pacing rates, and bad arguments name the field."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import pertlab
from pertlab.gym import FEATURES, QUEUE_FEATURES, CongestionEnv
from pertlab.scenario import ScenarioError


def small(**kw):
    args = dict(bw="10Mbps", rtt="40ms", flows=3, cc="agent:1,sack:2", queue="red", duration="4s")
    return pertlab.dumbbell(**{**args, **kw})


def test_gymnasium_env_checker_passes():
    env = gymnasium.make("pertlab/CongestionControl-v0").unwrapped
    check_env(env, skip_render_check=True)
    assert env.observation_space.shape == (1, len(FEATURES) + len(QUEUE_FEATURES))


def episode(env, seed, actions):
    obs, _ = env.reset(seed=seed)
    out, rewards = [obs], []
    for a in actions:
        obs, r, terminated, truncated, _ = env.step(a)
        out.append(obs)
        rewards.append(r)
        if terminated:
            break
    return np.stack(out), np.array(rewards), terminated


def test_a_seeded_episode_is_reproducible_and_ends_with_the_run():
    env = CongestionEnv(small(), step="200ms")
    actions = [np.array([a], dtype=np.float32) for a in np.random.default_rng(7).uniform(0.5, 2.0, 40)]
    o1, r1, end1 = episode(env, 3, actions)
    o2, r2, end2 = episode(env, 3, actions)
    assert np.array_equal(o1, o2) and np.array_equal(r1, r2)
    # 4 s in 200 ms steps: the reset's step and 19 more end the episode.
    assert end1 and end2 and len(r1) == 19
    o3, _, _ = episode(env, 4, actions)
    assert not np.array_equal(o1, o3), "another seed, another run"


def test_the_action_is_the_agent_flows_window():
    """A window of w segments carries at most w x 1460 x 8 / min RTT bit/s: the agent flow's
    throughput follows the window it is given (25, under the 33-packet BDP, then 2)."""
    col = {n: i for i, n in enumerate(FEATURES)}
    env = CongestionEnv(small(), step="200ms", action="cwnd", max_cwnd=500)
    env.reset(seed=1)
    rows = []
    for w in [25.0] * 8 + [2.0] * 8:
        obs, *_ = env.step(np.array([w], dtype=np.float32))
        rows.append(obs[0])
    rows = np.array(rows)
    assert (rows[:8, col["cwnd"]] == 25).all() and (rows[8:, col["cwnd"]] == 2).all()
    bound = lambda w: w * 1460 * 8 / (rows[-1, col["min_rtt_ms"]] / 1e3) / 1e6  # noqa: E731
    # Means over the steps after each change has settled (one step).
    big, little = rows[2:8, col["throughput_mbps"]].mean(), rows[10:, col["throughput_mbps"]].mean()
    assert little <= 1.05 * bound(2) and big <= 1.05 * bound(25), (big, little)
    assert big > 4 * little, (big, little)


def test_the_pacing_rate_action_sets_the_agent_flows_throughput():
    """With ``action="pacing_rate"`` the agent flow's segments leave at the rate it is given (its
    window held out of the way): 1, then 3 Mbit/s on a 10 Mbit/s path shared with two SACK flows
    carry each about the rate's payload share (1460 of each 1500 bytes), averaged over the steps
    after the change (a step may catch up an earlier one when a retransmission fills a hole)."""
    env = CongestionEnv(small(duration="6s"), step="250ms", action="pacing_rate")
    check_env(env, skip_render_check=True)
    assert (env.action_space.low[0], env.action_space.high[0]) == (pytest.approx(0.1), pytest.approx(10.0))
    env.reset(seed=1)
    col = {n: i for i, n in enumerate(FEATURES)}
    rows = np.array([env.step(np.array([r], dtype=np.float32))[0][0] for r in [1.0] * 11 + [3.0] * 12])
    slow, fast = rows[3:11, col["throughput_mbps"]].mean(), rows[14:, col["throughput_mbps"]].mean()
    for mean, rate in ((slow, 1.0), (fast, 3.0)):
        assert 0.85 * rate * 1460 / 1500 < mean < 1.1 * rate * 1460 / 1500, (slow, fast)
    assert (rows[:, col["cwnd"]] == 10_000).all(), "the window is held at max_cwnd"
    assert env.sim.flows()["pacing_rate_bps"].to_list() == [3_000_000, None, None]


def test_a_multiplier_scales_the_window_and_the_queue_is_observed():
    col = {n: i for i, n in enumerate(FEATURES + QUEUE_FEATURES)}
    env = CongestionEnv(small(), step="100ms", observe_queue="bottleneck")
    obs, _ = env.reset(seed=2)
    start = obs[0, col["cwnd"]]
    obs, reward, *_ = env.step(np.array([2.0], dtype=np.float32))
    assert obs[0, col["cwnd"]] in (2 * start, 1)  # doubled, or one segment after a timeout
    assert obs.shape == (1, len(FEATURES) + len(QUEUE_FEATURES)) and np.isfinite(reward)
    assert (obs >= 0).all()


def test_a_reward_function_gets_the_observation_and_info():
    seen = []
    env = CongestionEnv(small(), reward=lambda obs, info: seen.append((obs.shape, info["time_s"])) or 1.5)
    env.reset(seed=1)
    _, reward, *_ = env.step(env.action_space.sample())
    assert reward == 1.5 and seen == [((1, len(FEATURES)), pytest.approx(0.2))]


def test_bad_arguments_name_the_field():
    with pytest.raises(ScenarioError, match=r"^flows: no flow has cc kind 'agent'"):
        CongestionEnv(small(cc="sack"))
    with pytest.raises(ScenarioError, match=r"^action: got 'rate'; allowed: 'cwnd_multiplier', 'cwnd', 'pacing_rate'"):
        CongestionEnv(small(), action="rate")
    with pytest.raises(ScenarioError, match=r"^rate_range: got \('5Mbps', '1Mbps'\)"):
        CongestionEnv(small(), action="pacing_rate", rate_range=("5Mbps", "1Mbps"))
    with pytest.raises(ScenarioError, match=r"^step: must be longer than 0 s"):
        CongestionEnv(small(), step="0s")
    with pytest.raises(ScenarioError, match=r"^multiplier_range:"):
        CongestionEnv(small(), multiplier_range=(1.5, 2.0))
    with pytest.raises(ScenarioError, match=r"^observe_queue: no link named 'core'; links: .*bottleneck"):
        CongestionEnv(small(), observe_queue="core").reset()
    with pytest.raises(ScenarioError, match=r"^flow: flow 1's controller is reno"):
        sim = pertlab.Simulation(small())
        sim.set_cwnd(1, 10)
    with pytest.raises(ScenarioError, match=r"^cwnd: 0 is not a window"):
        pertlab.Simulation(small()).set_cwnd(0, 0)
    with pytest.raises(ScenarioError, match=r"^cwnd: 1099511627776 is not a window: a whole number of segments, 1 to 4294967295$"):
        pertlab.Simulation(small()).set_cwnd(0, 2**40)
    with pytest.raises(ScenarioError, match=r"^flow: flow 2's controller is reno, which sets its own window; only agent flows take a window or a pacing rate"):
        pertlab.Simulation(small()).set_pacing_rate(2, "1Mbps")
    with pytest.raises(ScenarioError, match=r"^rate: must be at least 1 bit/s"):
        pertlab.Simulation(small()).set_pacing_rate(0, 0)


def test_the_example_runs_episodes_of_a_simple_agent_and_plots_its_window_beside_renos(tmp_path, monkeypatch):
    """examples/gym_agent.py, shortened: each episode's agent window grows by two segments a step
    while the queueing delay is under the target (but where the sender's own rules set it: one
    segment after a timeout, ssthresh at the end of a recovery), Reno's is there beside it, and
    the plot is written."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "gym_agent.py"
    spec = importlib.util.spec_from_file_location("gym_agent", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    runs = example.main(episodes=2, duration="4s", out=tmp_path / "agent.png")
    assert (tmp_path / "agent.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [ep["seed"] for ep in runs] == [1, 2] and all(len(ep["t"]) == 39 for ep in runs)
    for ep in runs:
        steps = [(a, b) for a, b, d in zip(ep["agent_cwnd"], ep["agent_cwnd"][1:], ep["agent_delay_ms"]) if d < example.TARGET_MS]
        assert len(steps) > 20 and all(b <= a + 2 for a, b in steps)
        assert sum(b == a + 2 for a, b in steps) >= 0.8 * len(steps)
        assert ep["reno_cwnd"].max() > 10 and ep["agent_mbps"].mean() > 1
