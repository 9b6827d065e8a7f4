"""A new discipline in a few lines: a PI controller of the queueing delay, in the shape of PIE
(RFC 8033, section 4) without its burst allowance, auto-tuning of alpha and beta, and safeguards.
It shows the hooks a sojourn-time AQM uses: ``dequeue`` measures each packet's sojourn time,
``timer`` updates the drop probability every ``timer_interval_ns``, and ``enqueue`` drops (or
marks, for ECN-capable packets) with that probability, drawing from the queue's stream.

    pertlab dumbbell --queue py:delay_pi:DelayPI --bw 20Mbps --rtt 40ms --flows 10 --duration 20s

It keeps the queueing delay near ``target_ns`` where DropTail fills the buffer
(tests/python/test_python_aqm.py).
"""

NS_PER_SEC = 1_000_000_000


class DelayPI:
    #: QDELAY_REF: the queueing delay aimed at (RFC 8033 suggests 15 ms).
    target_ns = 15_000_000
    #: T_UPDATE: how often the probability is updated (RFC 8033: 15 ms).
    timer_interval_ns = 15_000_000
    #: Gains on the delay's distance from the target and on its change, per second (RFC 8033's
    #: alpha and beta, without the auto-tuning that scales them down at small probabilities).
    alpha = 0.125
    beta = 1.25

    def __init__(self):
        self.probability = 0.0  # read by the live state and the queue series
        self.qdelay_ns = 0  # the sojourn time of the last packet that left
        self.qdelay_old_ns = 0

    def enqueue(self, q, pkt):
        # RFC 8033 section 4.1: no early drop while the queue is nearly empty.
        if q.len_pkts <= 2 or self.probability <= 0.0:
            return "accept"
        if q.uniform() < self.probability:
            return "mark" if pkt.ecn_capable else "drop"
        return "accept"

    def dequeue(self, q, pkt):
        self.qdelay_ns = q.now - pkt.enqueued_at

    def timer(self, q):
        if q.len_pkts == 0:
            self.qdelay_ns = 0  # an empty queue delays nothing
        error = (self.qdelay_ns - self.target_ns) / NS_PER_SEC
        trend = (self.qdelay_ns - self.qdelay_old_ns) / NS_PER_SEC
        self.probability = min(max(self.probability + self.alpha * error + self.beta * trend, 0.0), 1.0)
        self.qdelay_old_ns = self.qdelay_ns
