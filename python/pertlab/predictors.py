"""Congestion predictors on a per-packet RTT trace, and the state machine that
scores them (PERT paper, SIGCOMM 2007, Section 2, Figures 1 to 4).

A predictor turns the trace of one flow's RTT samples (and its window) into a
boolean per sample: congestion predicted ("high", state B) or not (state A).
Losses (state C) come from the trace too: the flow's own losses, or every drop
at the bottleneck queue. Along the merged timeline of samples and losses the
transitions of Figure 1 are counted:

- ``2``: B -> C, a loss that was predicted;
- ``4``: A -> C, a loss that was not (false negative);
- ``5``: B -> A, a prediction no loss followed (false positive).

Efficiency = #2 / (#2 + #5), false positives = #5 / (#2 + #5), false negatives
= #4 / (#2 + #4) (Section 2.3). Several losses in a row are one stay in C.

Predictors (Figure 3), with the parameters the paper states and, where it is
silent, the original papers' (docs/predictors.md):

- ``rtt``: the instantaneous per-ACK RTT above a fixed threshold (65 ms for the
  study's 60 ms path);
- ``ma750``: its moving average over 750 samples (the buffer size) above it;
- ``ewma_7_8`` / ``srtt_0.99``: EWMAs with history weight 7/8 and 0.99 above it;
- ``dual`` (Wang, Crowcroft 1992): RTT above (min + max) / 2 of the RTTs seen;
- ``vegas`` (Brakmo et al.): cwnd (1 - base RTT / RTT) above beta = 3 packets;
- ``card`` (Jain 1989): the normalized delay gradient of the last two RTT epochs
  (mean RTT and window per epoch) positive;
- ``tris`` (Wang, Crowcroft 1991): the normalized throughput gradient of the last
  two epochs below 1/2;
- ``cim`` (Martin, Nilsson, Rhee 2003): the moving average of the last 20 samples
  above that of the last 100.

Vegas, CARD, TRI-S and DUAL sample once per RTT in their protocols; here the
epoch-based ones (CARD, TRI-S) use one-RTT epochs of the trace and hold their
verdict through the next epoch, while DUAL and Vegas are evaluated per sample
with their rules (the paper's Section 2.4 remark on under-sampling is about the
protocols, not about this scoring).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

__all__ = ["PREDICTORS", "Scores", "predict", "score", "false_positive_queue", "epochs"]

#: Threshold of the RTT-based predictors in the study: 5 ms above the 60 ms path (Section 2.2).
DEFAULT_THRESHOLD_MS = 65.0
#: Vegas' beta (packets queued in the network), Brakmo et al.
VEGAS_BETA = 3.0
#: TRI-S: congestion when the normalized throughput gradient falls below 1/2 (Wang, Crowcroft 1991).
TRIS_NTG = 0.5
#: CIM: short and long moving averages (samples); our reading of Martin et al. 2003.
CIM_SHORT, CIM_LONG = 20, 100
#: The moving average of Section 2.4: 750 samples, the bottleneck buffer.
MA_SAMPLES = 750

PREDICTORS = ("vegas", "card", "tris", "dual", "cim", "rtt", "ma750", "ewma_7_8", "srtt_0.99")


def _moving_average(x: np.ndarray, n: int) -> np.ndarray:
    """Mean of the last ``n`` samples (fewer at the start)."""
    c = np.cumsum(np.insert(x, 0, 0.0))
    idx = np.arange(1, len(x) + 1)
    lo = np.maximum(idx - n, 0)
    return (c[idx] - c[lo]) / (idx - lo)


def _ewma(x: np.ndarray, weight: float) -> np.ndarray:
    """EWMA with history weight ``weight``, started at the first sample."""
    out = np.empty_like(x)
    acc = x[0] if len(x) else 0.0
    for i, v in enumerate(x):  # a recursive filter: a loop, ~1e6 samples per second
        acc = weight * acc + (1.0 - weight) * v
        out[i] = acc
    return out


def epochs(t: np.ndarray, rtt: np.ndarray) -> np.ndarray:
    """Epoch number of each sample: an epoch lasts one RTT (its first sample's)."""
    ep = np.empty(len(t), dtype=np.int64)
    k, end = -1, -np.inf
    for i in range(len(t)):
        if t[i] >= end - 1e-9:  # a nanosecond of slack for the float sum t + rtt
            k += 1
            end = t[i] + rtt[i] / 1e3
        ep[i] = k
    return ep


def _per_epoch(values: np.ndarray, ep: np.ndarray) -> np.ndarray:
    n = ep[-1] + 1 if len(ep) else 0
    return np.bincount(ep, weights=values, minlength=n) / np.maximum(np.bincount(ep, minlength=n), 1)


def predict(trace: pl.DataFrame, name: str, threshold_ms: float = DEFAULT_THRESHOLD_MS) -> np.ndarray:
    """Boolean "congestion predicted" per sample of ``trace`` (columns t_s, ms, cwnd), in time order."""
    rtt = trace["ms"].to_numpy().astype(float)
    cwnd = trace["cwnd"].to_numpy().astype(float)
    if name == "rtt":
        return rtt > threshold_ms
    if name == "ma750":
        return _moving_average(rtt, MA_SAMPLES) > threshold_ms
    if name == "ewma_7_8":
        return _ewma(rtt, 7 / 8) > threshold_ms
    if name == "srtt_0.99":
        return _ewma(rtt, 0.99) > threshold_ms
    if name == "dual":
        return rtt > (np.minimum.accumulate(rtt) + np.maximum.accumulate(rtt)) / 2
    if name == "vegas":
        base = np.minimum.accumulate(rtt)
        return cwnd * (1.0 - base / rtt) > VEGAS_BETA
    if name == "cim":
        return _moving_average(rtt, CIM_SHORT) > _moving_average(rtt, CIM_LONG)
    if name in ("card", "tris"):
        ep = epochs(trace["t_s"].to_numpy(), rtt)
        d, w = _per_epoch(rtt, ep), _per_epoch(cwnd, ep)
        dd, dw = np.diff(d), np.diff(w)
        with np.errstate(divide="ignore", invalid="ignore"):
            if name == "card":
                # Normalized delay gradient (D_i - D_i-1)/(D_i + D_i-1) x (W_i + W_i-1)/(W_i - W_i-1) > 0.
                verdict = (dd / (d[1:] + d[:-1])) * ((w[1:] + w[:-1]) / dw) > 0
            else:
                # NTG = (T_i - T_i-1)/(W_i - W_i-1) / (1 / base RTT), T = W / D; congestion below 1/2.
                tput = w / d
                base = np.minimum.accumulate(d)
                verdict = (np.diff(tput) / dw) * base[1:] < TRIS_NTG
        verdict = np.where(dw == 0, False, verdict)
        # The verdict of epochs (i-1, i) holds during epoch i + 1; nothing in the first two.
        per_epoch = np.concatenate([[False, False], verdict])[: len(d)]
        return per_epoch[ep]
    raise ValueError(f"unknown predictor {name!r}; known: {', '.join(PREDICTORS)}")


@dataclass(frozen=True)
class Scores:
    """Transition counts of Figure 1 and the three rates of Section 2.3."""

    predicted: int  # "2": B -> C
    missed: int  # "4": A -> C
    false_alarms: int  # "5": B -> A

    @property
    def efficiency(self) -> float:
        n = self.predicted + self.false_alarms
        return self.predicted / n if n else float("nan")

    @property
    def false_positives(self) -> float:
        n = self.predicted + self.false_alarms
        return self.false_alarms / n if n else float("nan")

    @property
    def false_negatives(self) -> float:
        n = self.predicted + self.missed
        return self.missed / n if n else float("nan")


def _timeline(t_samples: np.ndarray, high: np.ndarray, t_losses: np.ndarray) -> np.ndarray:
    """States along the merged timeline: 0 = A, 1 = B, 2 = C (a loss after samples of the same time)."""
    t = np.concatenate([t_samples, t_losses])
    state = np.concatenate([high.astype(np.int8), np.full(len(t_losses), 2, dtype=np.int8)])
    order = np.lexsort((state == 2, t))
    return state[order]


def score(t_samples: np.ndarray, high: np.ndarray, t_losses: np.ndarray) -> Scores:
    """Counts of transitions 2 (B -> C), 4 (A -> C) and 5 (B -> A) along the merged timeline."""
    s = _timeline(t_samples, high, t_losses)
    pairs = s[:-1].astype(np.int16) * 3 + s[1:]
    counts = np.bincount(pairs, minlength=9)
    return Scores(predicted=int(counts[1 * 3 + 2]), missed=int(counts[0 * 3 + 2]), false_alarms=int(counts[1 * 3 + 0]))


def false_positive_queue(trace: pl.DataFrame, high: np.ndarray, t_losses: np.ndarray, limit_pkts: int) -> np.ndarray:
    """Normalized bottleneck queue at the moments false positives occur (Figure 4): the
    queue at the last high sample before each B -> A transition not interrupted by a loss."""
    t = trace["t_s"].to_numpy()
    q = trace["queue_pkts"].to_numpy().astype(float)
    fp_at = np.flatnonzero(high[:-1] & ~high[1:])
    # A B -> A step of the samples is a "5" only if no loss lies between the two samples
    # (losses at the first sample's time come after it, as in the timeline).
    losses_between = np.searchsorted(t_losses, t[fp_at + 1], side="right") - np.searchsorted(t_losses, t[fp_at], side="left")
    return q[fp_at[losses_between == 0]] / max(limit_pkts, 1)
