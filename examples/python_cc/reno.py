"""Reno/NewReno AIMD (RFC 5681) written in Python, as Linux ``tcp_reno_*`` and the core's
``tcp/cc/reno.rs`` do it: slow start to ssthresh, then one segment per window of ACKed
segments (counted in ``snd_cwnd_cnt``, Linux ``tcp_cong_avoid_ai``); halve on loss.

Run it with ``pertlab run --cc py:reno:Reno`` from this directory (or with it on
``sys.path``); it gives the same bytes as ``--cc reno`` (tests/python/test_python_cc.py).
"""

#: Linux's floor on ssthresh after a reduction (``tcp_reno_ssthresh``): two segments.
MIN_SSTHRESH = 2


def slow_start(tp, acked):
    """Linux ``tcp_slow_start``: one segment per ACKed segment up to ssthresh; the ACKed
    segments left over for congestion avoidance."""
    cwnd = min(tp.snd_cwnd + acked, tp.snd_ssthresh)
    left = acked - min(cwnd - tp.snd_cwnd, acked)
    tp.snd_cwnd = min(cwnd, tp.snd_cwnd_clamp)
    return left


def cong_avoid_ai(tp, w, acked):
    """Linux ``tcp_cong_avoid_ai``: one segment per ``w`` ACKed segments."""
    w = max(w, 1)
    cwnd, cnt = tp.snd_cwnd, tp.snd_cwnd_cnt
    if cnt >= w:
        cnt = 0
        cwnd += 1
    cnt += acked
    if cnt >= w:
        delta = cnt // w
        cnt -= delta * w
        cwnd += delta
    tp.snd_cwnd = min(cwnd, tp.snd_cwnd_clamp)
    tp.snd_cwnd_cnt = cnt


def reno_cong_avoid(tp, acked):
    """Linux ``tcp_reno_cong_avoid``: slow start below ssthresh, then additive increase."""
    if tp.snd_cwnd < tp.snd_ssthresh:
        acked = slow_start(tp, acked)
        if acked == 0:
            return
    cong_avoid_ai(tp, tp.snd_cwnd, acked)


class Reno:
    """The controller: the two hooks every controller needs."""

    def ssthresh(self, tp):
        return max(tp.snd_cwnd >> 1, MIN_SSTHRESH)

    def cong_avoid(self, tp, acked):
        reno_cong_avoid(tp, acked)
