//! A queue discipline written in Python behind the core's `QueueDiscipline`
//! trait (docs/python-aqm.md): the output queue keeps the buffer, the limit
//! and the counters, and asks the Python class, per arriving packet, whether
//! to accept, drop or mark it, as it asks the core's own disciplines.
//!
//! Hooks: `enqueue(q, pkt)` **required**, returning "accept", "drop" or
//! "mark" (CE, for an ECN-capable packet); `dequeue(q, pkt)` when a packet
//! leaves the buffer for the link, returning None (or "accept"), "drop" or
//! "mark" (sojourn-time AQMs: `q.now - pkt.enqueued_at`); `timer(q)` every
//! `timer_interval_ns` when the class sets it. `q` is the queue's state
//! ([`QueueStateView`]), `pkt` the packet's ([`PacketView`]); both are valid
//! during the call. The attributes `probability`, `average` and `max_p`, when
//! the object has them, are the discipline's own variables in the live state
//! and the queue series (the RED family's names).
//!
//! Timers run as the core's PI and PIE run theirs (`queue::periodic`): the
//! instants `k x timer_interval_ns` are caught up at the queue's next packet
//! event (arrival or departure), each with `q.now` the instant and the queue
//! as it stood then (a queue changes only at packet events), before the
//! event's own hook. No engine event is added, so the event count of a run is
//! that of the same run with a Rust discipline.
//!
//! Left out: draws at `dequeue` and `timer` (the core hands its disciplines
//! the queue's stream at arrivals only); the multi-class kinds' schedulers;
//! the packet's other header fields (XCP, JCC).

use pyo3::exceptions::{PyAttributeError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString, PyTuple};

use pertlab_sim::external::QueueSite;
use pertlab_sim::packet::{Ecn, Packet, PacketKind};
use pertlab_sim::queue::periodic::MIN_PERIOD_NS;
use pertlab_sim::queue::{DropKind, QueueDiscipline, QueueLimit, QueueView, Verdict};
use pertlab_sim::rng::{uniform, SimRng};
use pertlab_sim::time::SimTime;

use crate::models::{hook, interned_name, Fault};

/// The queue a Python discipline decides for, as it stands at the hook's
/// time: lengths (before the arriving packet in `enqueue`, after the leaving
/// one in `dequeue`), the buffer's capacity, the link's rate, the time.
#[pyclass(name = "QueueState", module = "pertlab._core")]
pub struct QueueStateView {
    /// Simulated time of the hook, ns.
    #[pyo3(get)]
    now: u64,
    #[pyo3(get)]
    len_pkts: u32,
    #[pyo3(get)]
    len_bytes: u64,
    /// The buffer's capacity: in packets, or in bytes (the other is None).
    #[pyo3(get)]
    limit_pkts: Option<u32>,
    #[pyo3(get)]
    limit_bytes: Option<u64>,
    /// Rate of the link the queue feeds, bit/s (a run in steps may change it).
    #[pyo3(get)]
    link_rate_bps: u64,
    /// The link's name and the direction, "a->b" with its ends' names.
    #[pyo3(get)]
    link: String,
    #[pyo3(get)]
    direction: String,
    /// The queue's stream, during `enqueue` (the stream the core's RED draws from).
    rng: Option<SimRng>,
}

#[pymethods]
impl QueueStateView {
    /// A draw uniform in [0, 1) from the queue's stream (the draws of the
    /// core's disciplines), in `enqueue`.
    fn uniform(&mut self) -> PyResult<f64> {
        match &mut self.rng {
            Some(rng) => Ok(uniform(rng)),
            None => Err(PyRuntimeError::new_err("q.uniform() draws from the queue's stream in enqueue only (the hook the core hands a stream)")),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "QueueState(link={:?}, direction={:?}, now={}, len_pkts={}, len_bytes={}, limit_pkts={:?}, limit_bytes={:?}, link_rate_bps={})",
            self.link, self.direction, self.now, self.len_pkts, self.len_bytes, self.limit_pkts, self.limit_bytes, self.link_rate_bps
        )
    }
}

/// The packet a Python discipline decides about.
#[pyclass(name = "Packet", module = "pertlab._core")]
pub struct PacketView {
    /// Bytes on the wire.
    #[pyo3(get)]
    size: u32,
    /// ECT or CE: a "mark" is allowed.
    #[pyo3(get)]
    ecn_capable: bool,
    /// Already marked Congestion Experienced (by an earlier queue).
    #[pyo3(get)]
    ce: bool,
    /// "data", "ack" or "udp".
    #[pyo3(get)]
    kind: &'static str,
    /// The TCP flow's index in `flows` (or past them for web transfers), or the UDP source's in `udp`.
    #[pyo3(get)]
    flow: u32,
    /// When it entered this queue, ns (in `dequeue`; the time of the hook in `enqueue`).
    #[pyo3(get)]
    enqueued_at: u64,
}

#[pymethods]
impl PacketView {
    fn __repr__(&self) -> String {
        format!(
            "Packet(kind={:?}, flow={}, size={}, ecn_capable={}, ce={}, enqueued_at={})",
            self.kind, self.flow, self.size, self.ecn_capable, self.ce, self.enqueued_at
        )
    }
}

/// The hooks a Python discipline defined, as bound methods.
struct Hooks {
    enqueue: PyObject,
    dequeue: Option<PyObject>,
    timer: Option<PyObject>,
}

/// What a hook returned, as the queue applies it.
#[derive(Clone, Copy)]
enum Decision {
    Accept,
    Drop,
    Mark,
}

/// The values a hook may return, for messages.
const DECISIONS: &str = "'accept', 'drop' or 'mark'";

pub struct PyQueue {
    name: &'static str,
    /// "queue LINK FROM->TO (FIELD, py:module:Class)", for messages.
    who: String,
    obj: PyObject,
    state: Py<QueueStateView>,
    packet: Py<PacketView>,
    hooks: Hooks,
    /// The timer's period and its next instant, when the class asks for one.
    timer: Option<(SimTime, SimTime)>,
    /// Time of the last hook, for the messages of the attribute reads.
    now: SimTime,
    fault: Fault,
}

impl PyQueue {
    /// The discipline of the queue at `site` from the instance `obj` of `target`'s class.
    pub fn new(py: Python<'_>, obj: PyObject, target: &str, site: &QueueSite, fault: Fault) -> Result<PyQueue, String> {
        let o = obj.bind(py);
        let enqueue = hook(o, "enqueue").ok_or_else(|| {
            format!("the class {target} has no method enqueue; a queue discipline defines enqueue (and may define dequeue, and timer with timer_interval_ns)")
        })?;
        let timer = timer_period(o, target)?;
        let (limit_pkts, limit_bytes) = match site.limit {
            QueueLimit::Packets(p) => (Some(p), None),
            QueueLimit::Bytes(b) => (None, Some(b)),
        };
        let state = QueueStateView {
            now: 0,
            len_pkts: 0,
            len_bytes: 0,
            limit_pkts,
            limit_bytes,
            link_rate_bps: site.rate_bps,
            link: site.link.clone(),
            direction: format!("{}->{}", site.from, site.to),
            rng: None,
        };
        let packet = PacketView { size: 0, ecn_capable: false, ce: false, kind: "data", flow: 0, enqueued_at: 0 };
        let name = interned_name(target);
        Ok(PyQueue {
            name,
            who: format!("queue {} {}->{} ({}, {name})", site.link, site.from, site.to, site.field),
            hooks: Hooks { enqueue, dequeue: hook(o, "dequeue"), timer: timer.and_then(|_| hook(o, "timer")) },
            timer: timer.map(|period| (period, period)),
            state: Py::new(py, state).map_err(|e| e.to_string())?,
            packet: Py::new(py, packet).map_err(|e| e.to_string())?,
            obj,
            now: 0,
            fault,
        })
    }

    /// Copy the queue's state into the view.
    fn set_state(&self, py: Python<'_>, view: &QueueView, now: SimTime, rng: Option<&SimRng>) {
        let mut q = self.state.borrow_mut(py);
        q.now = now;
        q.len_pkts = view.len_pkts;
        q.len_bytes = view.len_bytes;
        q.link_rate_bps = view.link_rate_bps;
        q.rng = rng.cloned();
    }

    /// Copy the packet into the view; it entered the queue at `enqueued_at`.
    fn set_packet(&self, py: Python<'_>, pkt: &Packet, enqueued_at: SimTime) {
        let mut p = self.packet.borrow_mut(py);
        p.size = pkt.size;
        p.ecn_capable = matches!(pkt.ecn, Ecn::Ect | Ecn::Ce);
        p.ce = pkt.ecn == Ecn::Ce;
        p.kind = match pkt.kind {
            PacketKind::Data => "data",
            PacketKind::Ack => "ack",
            PacketKind::Udp => "udp",
        };
        p.flow = pkt.flow;
        p.enqueued_at = enqueued_at;
    }

    /// Call `f(q, *extra)`; its value, or `None` when it raised (the run then stops).
    fn call<'py>(&self, py: Python<'py>, hook: &str, f: &PyObject, now: SimTime, with_packet: bool) -> Option<Bound<'py, PyAny>> {
        let q = self.state.clone_ref(py).into_any();
        let args = if with_packet { PyTuple::new(py, [q, self.packet.clone_ref(py).into_any()]) } else { PyTuple::new(py, [q]) };
        match f.bind(py).call1(args.ok()?) {
            Ok(v) => Some(v),
            Err(e) => {
                self.fault.fail(py, &self.who, hook, now, "the hook raised an exception".into(), Some(e));
                None
            }
        }
    }

    /// Run the timer instants due by `now` with the queue `view` (as it stood
    /// since the last packet event); false when one failed.
    fn catch_up(&mut self, py: Python<'_>, view: &QueueView, now: SimTime) -> bool {
        let (Some((period, mut next)), Some(f)) = (self.timer, &self.hooks.timer) else { return true };
        let mut ok = true;
        while ok && next <= now {
            self.set_state(py, view, next, None);
            ok = self.call(py, "timer", f, next, false).is_some();
            next = next.saturating_add(period);
        }
        self.timer = Some((period, next));
        ok
    }

    /// `value` as a decision of `hook` about the packet in the view; `None`
    /// (the run stopped, naming the hook and the value) when it is not one.
    fn decision(&self, py: Python<'_>, hook: &str, value: &Bound<'_, PyAny>, none_accepts: bool, now: SimTime) -> Option<Decision> {
        let decision = match value.downcast::<PyString>().ok().and_then(|s| s.to_str().ok()) {
            Some("accept") => Some(Decision::Accept),
            Some("drop") => Some(Decision::Drop),
            Some("mark") => Some(Decision::Mark),
            _ if none_accepts && value.is_none() => Some(Decision::Accept),
            _ => None,
        };
        let what = match decision {
            Some(Decision::Mark) if !self.packet.borrow(py).ecn_capable => {
                "it returned 'mark' for a packet that is not ECN-capable (pkt.ecn_capable is False); return 'drop' for those".to_string()
            }
            Some(d) => return Some(d),
            None => {
                let shown = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
                let type_name = value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
                let allowed = if none_accepts { format!("None, {DECISIONS}") } else { DECISIONS.to_string() };
                format!("it returned {shown} (a {type_name}); {hook} returns {allowed}")
            }
        };
        self.fault.fail(py, &self.who, hook, now, what, None);
        None
    }

    /// A number attribute of the object (`probability`, `average`, `max_p`),
    /// if it has one; a value that is not a finite number stops the run, and so
    /// does a probability (`probability`, `max_p`) outside [0, 1].
    fn attribute(&self, name: &str) -> Option<f64> {
        Python::with_gil(|py| {
            let value = match self.obj.bind(py).getattr(name) {
                Ok(v) if v.is_none() => return None,
                Ok(v) => v,
                Err(e) if e.is_instance_of::<PyAttributeError>(py) => return None,
                Err(e) => {
                    self.fault.fail(py, &self.who, name, self.now, format!("reading the attribute {name} raised an exception"), Some(e));
                    return None;
                }
            };
            if value.is_instance_of::<PyFloat>() || (value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>()) {
                if let Ok(x) = value.extract::<f64>() {
                    let probability = matches!(name, "probability" | "max_p");
                    if x.is_finite() && (!probability || (0.0..=1.0).contains(&x)) {
                        return Some(x);
                    }
                }
            }
            let shown = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
            let allowed = if matches!(name, "probability" | "max_p") { "a number in [0, 1] (or None)" } else { "a finite number (or None)" };
            self.fault.fail(py, &self.who, name, self.now, format!("the attribute {name} is {shown}; it must be {allowed}"), None);
            None
        })
    }
}

/// The queue's verdict on `pkt` for a hook's decision (none: the run stops, the packet passes).
fn apply(decision: Option<Decision>, pkt: &mut Packet) -> Verdict {
    match decision {
        Some(Decision::Drop) => Verdict::Drop(DropKind::Early),
        Some(Decision::Mark) => {
            pkt.ecn = Ecn::Ce;
            Verdict::Pass
        }
        Some(Decision::Accept) | None => Verdict::Pass,
    }
}

/// The period of the class's timer, ns, when it defines one: `timer` and
/// `timer_interval_ns` (an int of at least 1 ms, the least period of the
/// core's timers) together, or neither.
fn timer_period(o: &Bound<'_, PyAny>, target: &str) -> Result<Option<SimTime>, String> {
    let interval = o.getattr("timer_interval_ns").ok().filter(|v| !v.is_none());
    match (hook(o, "timer"), interval) {
        (None, None) => Ok(None),
        (Some(_), None) => Err(format!("the class {target} defines timer but no timer_interval_ns (the period, ns)")),
        (None, Some(_)) => Err(format!("the class {target} sets timer_interval_ns but defines no method timer")),
        (Some(_), Some(v)) => match v.extract::<u64>() {
            Ok(p) if p >= MIN_PERIOD_NS && v.is_instance_of::<PyInt>() => Ok(Some(p)),
            _ => Err(format!(
                "{target}.timer_interval_ns is {}; it must be an int of at least {MIN_PERIOD_NS} (1 ms, the least period of the core's timers)",
                v.repr().map(|r| r.to_string()).unwrap_or_default()
            )),
        },
    }
}

impl QueueDiscipline for PyQueue {
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_arrival(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        self.now = now;
        Python::with_gil(|py| {
            if !self.catch_up(py, view, now) {
                return Verdict::Pass;
            }
            self.set_state(py, view, now, Some(rng));
            self.set_packet(py, pkt, now);
            let value = self.call(py, "enqueue", &self.hooks.enqueue, now, true);
            if let Some(drawn) = self.state.borrow_mut(py).rng.take() {
                *rng = drawn;
            }
            let Some(value) = value else { return Verdict::Pass };
            apply(self.decision(py, "enqueue", &value, false, now), pkt)
        })
    }

    fn on_departure(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime) -> Verdict {
        if self.hooks.dequeue.is_none() && self.timer.is_none() {
            return Verdict::Pass;
        }
        self.now = now;
        Python::with_gil(|py| {
            // The timer instants saw the queue with this packet still in it.
            let before = QueueView { len_pkts: view.len_pkts + 1, len_bytes: view.len_bytes + u64::from(pkt.size), ..*view };
            if !self.catch_up(py, &before, now) {
                return Verdict::Pass;
            }
            let Some(f) = &self.hooks.dequeue else { return Verdict::Pass };
            self.set_state(py, view, now, None);
            self.set_packet(py, pkt, pkt.enq_ts);
            let Some(value) = self.call(py, "dequeue", f, now, true) else { return Verdict::Pass };
            apply(self.decision(py, "dequeue", &value, true, now), pkt)
        })
    }

    fn probability(&self) -> f64 {
        self.attribute("probability").unwrap_or(0.0)
    }

    fn average(&self) -> Option<f64> {
        self.attribute("average")
    }

    fn max_p(&self) -> Option<f64> {
        self.attribute("max_p")
    }
}
