"""RED (Floyd and Jacobson 1993) written in Python, as the core's ``queue/red.rs`` does it with
ns-3's ``RedQueueDisc`` semantics (packet mode): an EWMA of the queue on every arrival, with ns-2's
idle-time decay; a drop probability rising from 0 at ``min_th`` to ``max_p`` at ``max_th`` (and to
1 at ``2 max_th`` with ``gentle``); drops spaced out by ``count``; ECN marks instead of early
drops with ``use_ecn``. The defaults are ns-3's, as in the core.

Run it with ``pertlab dumbbell --queue py:red:Red`` from this directory (or with it on
``sys.path``); it gives the same bytes as ``--queue red`` with the same parameters
(tests/python/test_python_aqm.py). Parameters are class attributes: subclass to change them
(``RedEcn`` below). Left out: byte mode, adaptive ``max_p`` (ARED and its kin).

The mean packet size (what the idle-time decay counts) is, unless a subclass sets
``mean_pkt_size``, the size of the first TCP data packet the queue sees: the flows' packet
size, which is what the builders (``pertlab dumbbell``, :func:`pertlab.dumbbell`) give the
core's RED as its ``mean_pkt_size``; ns-3's 500 bytes until a data packet has arrived. A
scenario file whose RED sets another ``mean_pkt_size`` (or leaves ns-3's 500) is matched by a
subclass setting the same.
"""

#: ns-3 ``MinTh``, packets.
MIN_TH = 5.0
#: Unset ``max_th`` is 3 x min_th (the ARED paper; ns-2 ``maxthresh_ 0``).
MAX_TH_FACTOR = 3.0
#: ns-3 ``QW`` (Floyd and Jacobson use 0.002).
Q_W = 0.002
#: ns-3 ``LInterm``: max_p = 1/50.
L_INTERM = 50.0
#: ns-3 ``MeanPktSize``, bytes: the packet the idle-time decay counts when ``idle_pkt_size`` is 0,
#: until the first TCP data packet gives the flows' size.
MEAN_PKT_SIZE = 500
NS_PER_SEC = 1_000_000_000


def tx_time(size, rate_bps):
    """Nanoseconds to send ``size`` bytes at ``rate_bps``, rounded up (the core's ``time::tx_time``)."""
    return -(-size * 8 * NS_PER_SEC // rate_bps)


def spaced_probability(p_b, count, wait):
    """``p_a`` from ``p_b`` and the arrivals since the last drop (Floyd and Jacobson, section 7;
    with ``wait``, ns's gentler spacing)."""
    cp = count * p_b
    if wait:
        p = 0.0 if cp < 1.0 else p_b / (2.0 - cp) if cp < 2.0 else 1.0
    else:
        p = p_b / (1.0 - cp) if cp < 1.0 else 1.0
    return min(p, 1.0)


def draw(q, p):
    """True with probability ``p``, drawing from the queue's stream only when the outcome is uncertain."""
    if p <= 0.0:
        return False
    if p >= 1.0:
        return True
    return q.uniform() < p


def overflows(q, pkt):
    """Whether the buffer will refuse ``pkt`` for lack of room (after an "accept" or a "mark")."""
    if q.limit_pkts is not None:
        return q.len_pkts >= q.limit_pkts
    return q.len_bytes + pkt.size > q.limit_bytes


class Red:
    """The discipline: ``enqueue`` decides, ``dequeue`` notes when the link goes idle."""

    min_th = MIN_TH
    max_th = MAX_TH_FACTOR * MIN_TH
    q_w = Q_W
    l_interm = L_INTERM
    gentle = True
    wait = True
    use_ecn = False
    use_hard_drop = True
    mean_pkt_size = None  # the first TCP data packet's size (as the builders give the core's RED)
    idle_pkt_size = 0

    def __init__(self):
        self.max_p = 1.0 / max(self.l_interm, 1.0)
        self.average = 0.0  # the EWMA of the queue, packets (read by the series as RED's avg)
        self.count = 0  # arrivals since the last drop (ns ``count``)
        self.old = False  # the previous arrival already found avg >= min_th (ns ``old``)
        self.idle_since = 0  # ns starts idle at time 0

    @property
    def probability(self):
        """``p_b`` at the current average: 0 below min_th, max_p at max_th, 1 where every arrival is dropped."""
        avg, lo, hi = self.average, self.min_th, self.max_th
        if avg < lo:
            p = 0.0
        elif avg < hi:
            p = self.max_p * ((avg - lo) / (hi - lo))
        elif self.gentle:
            p = self.max_p + (1.0 - self.max_p) * (avg - hi) / hi
        else:
            p = 1.0
        return min(max(p, 0.0), 1.0)

    def idle_packets(self, q):
        """Packets of ``idle_pkt_size`` the link could have sent since it went idle (ns ``m``)."""
        if self.idle_since is None:
            return 0
        idle_ns = max(q.now - self.idle_since, 0)
        self.idle_since = None
        size = self.idle_pkt_size or self.mean_pkt_size or MEAN_PKT_SIZE
        return min(idle_ns * q.link_rate_bps // (8 * size * NS_PER_SEC), 2**64 - 1)

    def decide(self, q, length):
        """ns-2's drop logic: "none", "early" or "forced"."""
        if self.average < self.min_th or length <= 1:
            self.old = False
            return "none"
        if self.average >= (2.0 * self.max_th if self.gentle else self.max_th):
            return "forced"
        if not self.old:
            self.old = True
            self.count = 1
            return "none"
        if draw(q, spaced_probability(self.probability, float(self.count), self.wait)):
            self.count = 0
            return "early"
        return "none"

    def enqueue(self, q, pkt):
        if self.mean_pkt_size is None and pkt.kind == "data":
            self.mean_pkt_size = pkt.size
        m = self.idle_packets(q)
        keep = 1.0 - self.q_w
        decay = keep if m == 0 else keep ** (float(m) + 1.0)
        self.average = self.average * decay + self.q_w * float(q.len_pkts)
        self.count += 1
        signal = self.decide(q, q.len_pkts)
        can_mark = self.use_ecn and pkt.ecn_capable
        if signal == "early" and not can_mark:
            return "drop"
        if signal == "forced" and not (can_mark and not self.use_hard_drop):
            self.count = 0  # ns-2 restarts the count after a forced drop
            return "drop"
        if overflows(q, pkt):
            self.count = 0  # the buffer will drop it: a forced drop to ns-2
        return "accept" if signal == "none" else "mark"

    def dequeue(self, q, pkt):
        if q.len_pkts == 0:
            # The link idles once this packet is on the wire.
            self.idle_since = q.now + tx_time(pkt.size, q.link_rate_bps)


class RedEcn(Red):
    """RED marking ECN-capable packets instead of dropping them early (ns-3 ``UseEcn``)."""

    use_ecn = True
