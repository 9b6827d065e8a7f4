"""The predictor study's state machine and predictors on hand-made traces."""

import numpy as np
import polars as pl
import pytest

from pertlab.predictors import PREDICTORS, false_positive_queue, predict, score


def test_transitions_are_counted_on_a_hand_made_timeline():
    # Samples at t = 0..9 with high = A A B B A B B B A A; losses at 6.5 and 6.7 (one stay in C).
    t = np.arange(10, dtype=float)
    high = np.array([0, 0, 1, 1, 0, 1, 1, 0, 0, 0], dtype=bool)
    losses = np.array([6.5, 6.7, 8.5])
    # Timeline: A A B B A B B C C A A C A:
    #   B->A at 3->4 (a 5), B->C at 6->6.5 (a 2), C->A, A->C at 8->8.5 (a 4).
    s = score(t, high, losses)
    assert (s.predicted, s.missed, s.false_alarms) == (1, 1, 1)
    assert s.efficiency == 0.5 and s.false_positives == 0.5 and s.false_negatives == 0.5


def test_a_loss_at_the_time_of_a_sample_follows_it():
    t = np.array([0.0, 1.0, 2.0])
    high = np.array([False, True, False])
    s = score(t, high, np.array([1.0]))
    # A B C A: the loss at t = 1 comes after the high sample at t = 1: predicted, no false alarm.
    assert (s.predicted, s.missed, s.false_alarms) == (1, 0, 0)


def test_false_positive_queue_is_the_queue_where_high_ends_without_a_loss():
    trace = pl.DataFrame({"t_s": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "queue_pkts": [10, 60, 30, 80, 90, 5]})
    high = np.array([False, True, False, True, True, False])
    # B -> A at 1 -> 2 (no loss between): queue 60 / 100; at 4 -> 5 a loss at 4.5 intervenes.
    q = false_positive_queue(trace, high, np.array([4.5]), 100)
    assert q.tolist() == [0.6]


def _trace(ms, cwnd=None, dt=0.001):
    n = len(ms)
    return pl.DataFrame({"t_s": np.arange(n) * dt, "ms": np.asarray(ms, float), "cwnd": np.asarray(cwnd if cwnd is not None else [10] * n)})


def test_threshold_and_smoothed_predictors():
    ms = [60.0] * 1000 + [70.0] * 10 + [60.0] * 10
    tr = _trace(ms)
    inst = predict(tr, "rtt")
    assert inst[1000:1010].all() and not inst[:1000].any() and not inst[1010:].any()
    # EWMA 7/8 after 10 samples of 70: 70 - 10 (7/8)^10 = 67.37 > 65 (high); EWMA 0.99: 60.96 (low).
    assert predict(tr, "ewma_7_8")[1009] and not predict(tr, "srtt_0.99")[1009]
    # The 750-sample mean never leaves 60.13.
    assert not predict(tr, "ma750").any()


def test_dual_vegas_and_cim_rules():
    ms = [50.0, 100.0, 60.0, 80.0]
    tr = _trace(ms, cwnd=[10, 10, 10, 10])
    # DUAL: above (min + max) / 2 of the RTTs so far: 75 from the second sample on.
    assert predict(tr, "dual").tolist() == [False, True, False, True]
    # Vegas: 10 (1 - 50 / RTT) > 3: at 100 ms 5 (high), at 60 ms 1.67, at 80 ms 3.75 (high).
    assert predict(tr, "vegas").tolist() == [False, True, False, True]
    # CIM: mean of the last 20 above the mean of the last 100: rising RTTs are high.
    rising = _trace(np.linspace(50, 100, 300))
    assert predict(rising, "cim")[150:].all()


def test_card_and_tris_on_epochs():
    # Epochs of one RTT (100 ms): the window grows by 10 per epoch; the RTT stays flat for three
    # epochs, then grows: CARD's delay gradient turns positive, TRI-S's throughput gradient
    # falls to 0 (throughput W/D stops growing once D grows in proportion).
    per_epoch_rtt = [100.0, 100.0, 100.0, 200.0, 300.0]
    per_epoch_w = [10, 20, 30, 40, 50]
    rows = {"t_s": [], "ms": [], "cwnd": []}
    t_us = 0  # exact times: four samples per epoch, a quarter of its RTT apart
    for d, w in zip(per_epoch_rtt, per_epoch_w):
        for _ in range(4):
            rows["t_s"].append(t_us / 1e6)
            rows["ms"].append(d)
            rows["cwnd"].append(w)
            t_us += int(d * 1000 / 4)
    tr = pl.DataFrame(rows)
    card = predict(tr, "card")
    tris = predict(tr, "tris")
    # Epochs 0..4; verdicts of (1,2) apply in epoch 3, of (2,3) in 4: flat then rising delay.
    assert not card[:16].any() and card[16:].all()
    # Throughput 0.1, 0.2, 0.3, 0.2, 0.167 pkt/ms: NTG of (1,2) = 1, of (2,3) < 0.
    assert not tris[:16].any() and tris[16:].all()


def test_every_predictor_runs_and_unknown_names_are_refused():
    tr = _trace(np.r_[np.full(500, 60.0), np.linspace(60, 90, 500)], cwnd=np.arange(1000) % 40 + 2)
    for name in PREDICTORS:
        assert predict(tr, name).shape == (1000,)
    with pytest.raises(ValueError, match="unknown predictor"):
        predict(tr, "bbr")
