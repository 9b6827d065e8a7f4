"""A Gymnasium environment: a learning agent sets the congestion window of some flows of a scenario.

>>> import gymnasium, pertlab.gym                                   # doctest: +SKIP
>>> env = gymnasium.make("pertlab/CongestionControl-v0")            # 1 agent flow beside 4 SACK flows
>>> env = pertlab.gym.CongestionEnv(pertlab.dumbbell(cc="agent:1,sack:9", queue="red"), step="100ms")
>>> obs, info = env.reset(seed=1)                                   # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())  # doctest: +SKIP

The flows whose controller is ``agent`` (:class:`pertlab.scenario.Agent`: a window set from
outside, no growth or reduction of its own; a timeout still sets one segment) are the agent's;
every other flow runs its own controller. Each step applies the action to the agent flows'
windows (:meth:`pertlab.Simulation.set_cwnd`), then advances the simulation by ``step`` of
simulated time; the episode ends with the scenario's duration (``terminated``; a step after it
is an error until :meth:`reset`). This is the shape of ns3-gym's time-based TCP environment.

**Observation**: a ``float32`` array of shape ``(agent flows, len(FEATURES))``, one row per agent
flow in the scenario's order, columns :data:`FEATURES` (over the step just taken where the name
says "step"); with ``observe_queue``, the queue's :data:`QUEUE_FEATURES` are appended to every row.

**Action**: ``"cwnd_multiplier"`` (default): one factor per agent flow in ``multiplier_range``,
the new window ``round(cwnd x factor)``; ``"cwnd"``: the window itself, 1 to ``max_cwnd``;
``"pacing_rate"``: the flow's pacing rate in Mbit/s, in ``rate_range`` (default 1 % of the
capacity to the capacity): consecutive segments leave one segment's transmission time at that
rate apart (:meth:`pertlab.Simulation.set_pacing_rate`), and the window is held at ``max_cwnd``
each step (after a timeout too) so that the rate, not the window, limits the flow.

**Reward** (default, per step, the mean over agent flows): ``throughput / capacity -
delay_weight x queueing_delay / min_rtt - loss_weight x retransmissions / segments sent``, with
the capacity the lowest link rate of the scenario (a dumbbell's bottleneck); or ``reward(obs,
info)``, any callable returning a float.

Left out: RTT-long steps (steps are fixed simulated intervals).
"""

from __future__ import annotations

import numbers
from pathlib import Path
from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces

from .arguments import check_kinds
from .runner import as_scenario
from .scenario import U32_MAX, Scenario, ScenarioError
from .simulation import Simulation
from .units import U64_MAX, parse_rate, parse_time

__all__ = ["CongestionEnv", "ACTIONS", "FEATURES", "QUEUE_FEATURES", "capacity"]

#: Columns of the observation, per agent flow.
FEATURES = (
    "cwnd",  # segments, after the step
    "throughput_mbps",  # payload acknowledged during the step
    "srtt_ms",  # RFC 6298's SRTT
    "min_rtt_ms",  # smallest RTT sample so far
    "queueing_delay_ms",  # srtt - min RTT, at least 0
    "retransmits_step",  # segments retransmitted during the step
    "ecn_marks_step",  # ECN marks echoed during the step
    "in_flight",  # RFC 6675's pipe, segments
)
#: What the constructor's arguments that are not quantities accept (:func:`pertlab.arguments.check_kinds`).
ENV_KINDS = {
    "multiplier_range": ("numbers", "(low, high) factors of the window"),
    "max_cwnd": ("int", "segments"),
    "rate_range": ("list?", "(low, high) rates, e.g. ('1Mbps', '20Mbps')"),
    "observe_queue": ("str?", "a link's name, e.g. 'bottleneck'"),
    "reward": ("callable?", "reward(obs, info) returning a float"),
    "delay_weight": ("finite", "the weight of the queueing delay in the default reward"),
    "loss_weight": ("finite", "the weight of retransmissions in the default reward"),
}
#: The kinds of action (see the module doc).
ACTIONS = ("cwnd_multiplier", "cwnd", "pacing_rate")
#: Columns appended with ``observe_queue``: that queue's length now and its drops and marks in the step.
QUEUE_FEATURES = ("queue_packets", "queue_drops_step", "queue_marks_step")


class CongestionEnv(gymnasium.Env):
    """``scenario`` (a :class:`~pertlab.scenario.Scenario`, mapping or TOML/JSON path) with at least
    one ``agent`` flow; see the module doc for the spaces and the reward.

    ``step``: simulated time per step ("100ms"). ``action``: one of :data:`ACTIONS`, with
    ``multiplier_range``, ``max_cwnd`` or ``rate_range`` (rates, e.g. ``("1Mbps", "20Mbps")``)
    bounding it. ``observe_queue``: a link name whose first
    queue (its ``a -> b`` direction; for a dumbbell's ``bottleneck`` r0 -> r1) joins the
    observation. ``seed`` at :meth:`reset` replaces the scenario's seed; without one, the first
    episode runs the scenario's own seed and later ones draw theirs from the environment's generator.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        scenario: Scenario | dict[str, Any] | str | Path,
        *,
        step: str | float = "100ms",
        action: str = "cwnd_multiplier",
        multiplier_range: tuple[float, float] = (0.5, 2.0),
        max_cwnd: int = 10_000,
        rate_range: tuple[str | float, str | float] | None = None,
        observe_queue: str | None = None,
        reward: Callable[[np.ndarray, dict[str, Any]], float] | None = None,
        delay_weight: float = 0.5,
        loss_weight: float = 1.0,
    ):
        check_kinds(locals(), ENV_KINDS)
        for name, pair in (("multiplier_range", multiplier_range), ("rate_range", rate_range)):
            if pair is not None and len(pair) != 2:
                raise ScenarioError([(name, f"must be a pair (low, high), got {pair!r}")])
        self.scenario = as_scenario(scenario)
        self.agents = [i for i, f in enumerate(self.scenario.flows) if f.cc.kind == "agent"]
        if not self.agents:
            raise ScenarioError([("flows", "no flow has cc kind 'agent'; give the agent's flows cc = \"agent\" (e.g. dumbbell(cc=\"agent:1,sack:9\"))")])
        self.step_ns = parse_time(step, "step")
        if self.step_ns <= 0:
            raise ScenarioError([("step", "must be longer than 0 s")])
        if action not in ACTIONS:
            raise ScenarioError([("action", f"got {action!r}; allowed: {', '.join(map(repr, ACTIONS))}")])
        low, high = multiplier_range
        if not 0 < low <= 1 <= high:
            raise ScenarioError([("multiplier_range", f"got {multiplier_range!r}; needs 0 < low <= 1 <= high")])
        if not 1 <= max_cwnd <= U32_MAX:
            raise ScenarioError([("max_cwnd", f"got {max_cwnd!r}; a whole number of segments, at least 1 and at most {U32_MAX}")])
        self.action_kind, self.max_cwnd = action, max_cwnd
        self.capacity_bps = capacity(self.scenario)
        rates = (self.capacity_bps / 100, self.capacity_bps) if rate_range is None else tuple(parse_rate(r, "rate_range") for r in rate_range)
        if not 0 < rates[0] <= rates[1]:
            raise ScenarioError([("rate_range", f"got {rate_range!r}; needs 0 < low <= high")])
        self.observe_queue, self.reward_fn = observe_queue, reward
        self.delay_weight, self.loss_weight = delay_weight, loss_weight
        n, width = len(self.agents), len(FEATURES) + (len(QUEUE_FEATURES) if observe_queue else 0)
        self.observation_space = spaces.Box(0.0, np.inf, shape=(n, width), dtype=np.float32)
        if action == "cwnd":
            self.action_space = spaces.Box(1.0, float(max_cwnd), shape=(n,), dtype=np.float32)
        elif action == "pacing_rate":
            self.action_space = spaces.Box(float(rates[0] / 1e6), float(rates[1] / 1e6), shape=(n,), dtype=np.float32)
        else:
            self.action_space = spaces.Box(float(low), float(high), shape=(n,), dtype=np.float32)
        self.sim: Simulation | None = None
        self._over = False  # the episode reached the run's end
        self._episodes = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed <= U64_MAX):
            raise ScenarioError([("seed", f"must be None or an integer from 0 to {U64_MAX} (the run's seed), got {seed!r}")])
        super().reset(seed=seed)
        if seed is not None:
            run_seed = seed
        elif self._episodes == 0:
            run_seed = self.scenario.seed
        else:
            run_seed = int(self.np_random.integers(0, 2**63))
        self._episodes += 1
        self.sim = Simulation(self.scenario.model_copy(update={"seed": run_seed}))
        self._over = False
        state = self.sim.state()
        self._queue_index = self._find_queue(state)
        self._last = state
        self.sim.run_until(self.step_ns / 1e9)
        obs, info = self._observe()
        return obs, info

    def step(self, action):
        if self.sim is None:
            raise RuntimeError("call reset() before step()")
        if self._over:
            raise RuntimeError(f"the episode is over (terminated at the run's end, {self.sim.now:g} s); call reset() to start another")
        action = self._action(action)
        flows = self._last["flows"]
        low, high = self.action_space.low, self.action_space.high
        for k, i in enumerate(self.agents):
            if self.action_kind == "pacing_rate":
                self.sim.set_pacing_rate(i, max(1, round(float(np.clip(action[k], low[k], high[k])) * 1e6)))
                self.sim.set_cwnd(i, self.max_cwnd)
                continue
            if self.action_kind == "cwnd":
                cwnd = action[k]
            else:
                cwnd = flows[i]["cwnd"] * float(np.clip(action[k], low[k], high[k]))
            self.sim.set_cwnd(i, int(np.clip(round(cwnd), 1, self.max_cwnd)))
        over = self._over = self.sim.run_until(self.sim.now + self.step_ns / 1e9)
        obs, info = self._observe()
        reward = self._reward(obs, info) if self.reward_fn else self._default_reward(obs, info)
        return obs, reward, over, False, info

    def _action(self, action: Any) -> np.ndarray:
        """``action`` as one finite number per agent flow (out-of-range values are clipped to the
        action space later); anything else is an error naming ``action``."""
        n = len(self.agents)
        try:
            values = np.asarray(action, dtype=np.float64)
        except (TypeError, ValueError):
            values = None
        if values is None or values.size != n or not np.all(np.isfinite(values)):
            raise ScenarioError([("action", f"must be {n} finite number{'s' if n > 1 else ''} (one per agent flow, {self.action_kind}), got {action!r}")])
        return values.reshape(n)

    def _reward(self, obs: np.ndarray, info: dict[str, Any]) -> float:
        """The value of the ``reward`` callable, which must be a real number."""
        value = self.reward_fn(obs, info)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"reward: the callable must return a number, it returned {value!r}")
        return float(value)

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        assert self.sim is not None
        state = self.sim.state()
        before, step_s = self._last, (state["now_ns"] - self._last["now_ns"]) / 1e9
        rows = []
        for i in self.agents:
            f, b = state["flows"][i], before["flows"][i]
            srtt, min_rtt = f["srtt_ns"] / 1e6, f["min_rtt_ns"] / 1e6
            row = [
                f["cwnd"],
                (f["bytes_acked"] - b["bytes_acked"]) * 8 / step_s / 1e6 if step_s > 0 else 0.0,
                srtt,
                min_rtt,
                max(0.0, srtt - min_rtt) if f["srtt_ns"] and f["min_rtt_ns"] else 0.0,
                f["retransmits"] - b["retransmits"],
                f["ecn_marks"] - b["ecn_marks"],
                f["in_flight"],
            ]
            if self._queue_index is not None:
                q, qb = state["queues"][self._queue_index], before["queues"][self._queue_index]
                row += [q["length_packets"], q["drops"] - qb["drops"], q["marks"] - qb["marks"]]
            rows.append(row)
        info = {
            "time_s": state["now_ns"] / 1e9,
            "segments_sent_step": [state["flows"][i]["segments_sent"] - before["flows"][i]["segments_sent"] for i in self.agents],
            "flows": state["flows"],
        }
        self._last = state
        return np.asarray(rows, dtype=np.float32), info

    def _default_reward(self, obs: np.ndarray, info: dict[str, Any]) -> float:
        col = {name: j for j, name in enumerate(FEATURES)}
        total = 0.0
        for k, sent in enumerate(info["segments_sent_step"]):
            row = obs[k]
            throughput = row[col["throughput_mbps"]] * 1e6 / self.capacity_bps
            delay = row[col["queueing_delay_ms"]] / row[col["min_rtt_ms"]] if row[col["min_rtt_ms"]] > 0 else 0.0
            loss = row[col["retransmits_step"]] / sent if sent else 0.0
            total += throughput - self.delay_weight * delay - self.loss_weight * loss
        return float(total / len(info["segments_sent_step"]))

    def _find_queue(self, state: dict[str, Any]) -> int | None:
        if self.observe_queue is None:
            return None
        for j, q in enumerate(state["queues"]):
            if q["link"] == self.observe_queue:
                return j
        names = ", ".join(dict.fromkeys(q["link"] for q in state["queues"]))
        raise ScenarioError([("observe_queue", f"no link named {self.observe_queue!r}; links: {names}")])


def capacity(scenario: Scenario) -> int:
    """The lowest link rate of ``scenario``, bit/s (a dumbbell's bottleneck, unless an access link is slower)."""
    rates = [link.rate for link in scenario.links]
    if scenario.dumbbell is not None:
        rates += [scenario.dumbbell.bottleneck_rate, scenario.dumbbell.access_rate]
    return min(rates)


def _default_env(**kwargs: Any) -> CongestionEnv:
    """``pertlab/CongestionControl-v0``: one agent flow beside four SACK flows on a 20 Mbit/s,
    40 ms dumbbell with a BDP of RED, 30 s episodes, 100 ms steps, the bottleneck observed."""
    from .builders import dumbbell

    scenario = dumbbell(bw="20Mbps", rtt="40ms", flows=5, cc="agent:1,sack:4", queue="red", duration="30s")
    return CongestionEnv(scenario, **{"observe_queue": "bottleneck", **kwargs})


gymnasium.register(id="pertlab/CongestionControl-v0", entry_point=_default_env)
