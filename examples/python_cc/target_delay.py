"""A new controller in a few lines: Reno's growth, plus a delay-based decrease.

Each flow keeps the smallest RTT it has seen as its propagation delay; when the smoothed
RTT exceeds it by more than ``target_ns`` of queueing delay, the window shrinks by
``beta`` at most once per smoothed RTT (the idea of TCP Vegas, FAST and PERT: respond to
queueing before the buffer overflows). Losses halve the window as Reno does.

``pertlab run --cc py:target_delay:TargetDelay:2,reno:2`` from this directory runs two
of these flows beside two Reno flows (docs/python-cc.md).
"""

from reno import MIN_SSTHRESH, reno_cong_avoid


class TargetDelay:
    #: Queueing delay above which the window shrinks, ns.
    target_ns = 5_000_000
    #: Fraction of the window one decrease removes.
    beta = 0.125

    def __init__(self):
        self.min_rtt_ns = None  # smallest RTT sample so far
        self.next_cut_ns = 0  # no decrease before this time (one per RTT)

    def pkts_acked(self, tp, acked, rtt_ns):
        if rtt_ns is not None and (self.min_rtt_ns is None or rtt_ns < self.min_rtt_ns):
            self.min_rtt_ns = rtt_ns

    def ssthresh(self, tp):
        return max(tp.snd_cwnd >> 1, MIN_SSTHRESH)

    def cong_avoid(self, tp, acked):
        queueing = tp.srtt - self.min_rtt_ns if self.min_rtt_ns is not None and tp.srtt else 0
        if queueing > self.target_ns and tp.now >= self.next_cut_ns:
            tp.snd_cwnd = max(int(tp.snd_cwnd * (1 - self.beta)), MIN_SSTHRESH)
            tp.snd_ssthresh = tp.snd_cwnd
            self.next_cut_ns = tp.now + tp.srtt
            return
        reno_cong_avoid(tp, acked)
