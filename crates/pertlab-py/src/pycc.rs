//! A congestion controller written in Python behind the core's
//! `CongestionControl` trait (Linux `struct tcp_congestion_ops`): each hook
//! the Python class defines is called where the sender calls the Rust one,
//! with the sender's `CcState` as a [`CcStateView`] whose attributes carry
//! the same names; what the hook writes to the windows flows back.
//!
//! Required hooks: `ssthresh(tp) -> int` and `cong_avoid(tp, acked)`.
//! Optional: `init(tp)`, `pkts_acked(tp, acked, rtt_ns)` (`rtt_ns` None
//! without a sample), `set_state(tp, state)`, `cwnd_event(tp, event)`,
//! `undo_cwnd(tp) -> int`, `ecn_ssthresh(tp) -> int` (default: `ssthresh`).
//! A hook the class lacks is not called (no cost). States and events are
//! Linux's names in lower case ("open", "recovery"; "loss", "tx_start").
//!
//! Left out: the hooks of the core's special controllers (XCP headers, JCC
//! probes, `in_ack_event`'s ECN window summary, telemetry).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::BoundObject;

use pertlab_sim::rng::{uniform, SimRng};
use pertlab_sim::tcp::cc::{AckSample, CaEvent, CaState, CcState, CongestionControl};

use crate::models::{hook, interned_name, window, Fault};

/// The sender state a Python controller reads and writes, named as the core's
/// `CcState` (windows in segments, times in ns). The windows (`snd_cwnd`,
/// `snd_cwnd_cnt`, `snd_ssthresh`, `snd_cwnd_clamp`) may be assigned; the
/// rest is read-only.
#[pyclass(name = "CcState", module = "pertlab._core")]
pub struct CcStateView {
    #[pyo3(get, set)]
    snd_cwnd: PyObject,
    #[pyo3(get, set)]
    snd_cwnd_cnt: PyObject,
    #[pyo3(get, set)]
    snd_ssthresh: PyObject,
    #[pyo3(get, set)]
    snd_cwnd_clamp: PyObject,
    #[pyo3(get)]
    snd_una: u32,
    #[pyo3(get)]
    snd_nxt: u32,
    #[pyo3(get)]
    packets_in_flight: u32,
    /// Smoothed RTT, ns (0 before the first sample).
    #[pyo3(get)]
    srtt: u64,
    #[pyo3(get)]
    ca_state: &'static str,
    /// Simulated time, ns.
    #[pyo3(get)]
    now: u64,
    #[pyo3(get)]
    mss: u32,
    /// Index of the flow in the scenario's `flows`.
    #[pyo3(get)]
    flow: u32,
    /// The flow's controller stream, during the hooks the core gives one.
    rng: Option<SimRng>,
}

#[pymethods]
impl CcStateView {
    /// A draw uniform in [0, 1) from the flow's controller stream (the draws
    /// of the core's controllers), in `cong_avoid` and `pkts_acked`.
    fn uniform(&mut self) -> PyResult<f64> {
        match &mut self.rng {
            Some(rng) => Ok(uniform(rng)),
            None => {
                Err(PyRuntimeError::new_err("tp.uniform() draws from the flow's stream in cong_avoid and pkts_acked only (the hooks the core hands a stream)"))
            }
        }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "CcState(flow={}, now={}, snd_cwnd={}, snd_ssthresh={}, snd_cwnd_cnt={}, ca_state={:?}, srtt={}, packets_in_flight={})",
            self.flow,
            self.now,
            self.snd_cwnd.bind(py),
            self.snd_ssthresh.bind(py),
            self.snd_cwnd_cnt.bind(py),
            self.ca_state,
            self.srtt,
            self.packets_in_flight
        )
    }
}

/// The hooks a Python controller defined, as bound methods.
struct Hooks {
    init: Option<PyObject>,
    ssthresh: PyObject,
    ecn_ssthresh: Option<PyObject>,
    cong_avoid: PyObject,
    pkts_acked: Option<PyObject>,
    set_state: Option<PyObject>,
    cwnd_event: Option<PyObject>,
    undo_cwnd: Option<PyObject>,
}

/// The hooks a controller must define, and those it may.
const REQUIRED: [&str; 2] = ["ssthresh", "cong_avoid"];
const OPTIONAL: &str = "init, pkts_acked, set_state, cwnd_event, undo_cwnd, ecn_ssthresh";

pub struct PyCc {
    name: &'static str,
    /// "flows[i] (py:module:Class)", for messages.
    who: String,
    state: Py<CcStateView>,
    hooks: Hooks,
    fault: Fault,
}

impl PyCc {
    /// The controller of flow `flow` from the instance `obj` of `target`'s class.
    pub fn new(py: Python<'_>, obj: PyObject, target: &str, flow: u32, fault: Fault) -> Result<PyCc, String> {
        let o = obj.bind(py);
        let required = |name: &str| {
            hook(o, name)
                .ok_or_else(|| format!("the class {target} has no method {name}; a controller defines {} (and may define {OPTIONAL})", REQUIRED.join(" and ")))
        };
        let hooks = Hooks {
            init: hook(o, "init"),
            ssthresh: required("ssthresh")?,
            ecn_ssthresh: hook(o, "ecn_ssthresh"),
            cong_avoid: required("cong_avoid")?,
            pkts_acked: hook(o, "pkts_acked"),
            set_state: hook(o, "set_state"),
            cwnd_event: hook(o, "cwnd_event"),
            undo_cwnd: hook(o, "undo_cwnd"),
        };
        let zero = || 0u32.into_pyobject(py).map(|v| v.into_any().unbind()).map_err(|e| e.to_string());
        let view = CcStateView {
            snd_cwnd: zero()?,
            snd_cwnd_cnt: zero()?,
            snd_ssthresh: zero()?,
            snd_cwnd_clamp: zero()?,
            snd_una: 0,
            snd_nxt: 0,
            packets_in_flight: 0,
            srtt: 0,
            ca_state: CaState::Open.name(),
            now: 0,
            mss: 0,
            flow,
            rng: None,
        };
        let state = Py::new(py, view).map_err(|e| e.to_string())?;
        let name = interned_name(target);
        Ok(PyCc { name, who: format!("flows[{flow}] ({name})"), state, hooks, fault })
    }

    /// Copy `tp` (and `rng`) into the view, call `f(view, *extra)`; the value
    /// it returned, or `None` when it raised (the run then stops).
    fn call<'py>(&self, py: Python<'py>, hook: &str, f: &PyObject, tp: &CcState, rng: Option<&SimRng>, extra: Vec<PyObject>) -> Option<Bound<'py, PyAny>> {
        {
            let mut v = self.state.borrow_mut(py);
            let int = |x: u32| x.into_pyobject(py).map(|v| v.into_any().unbind()).unwrap_or_else(|e| match e {});
            v.snd_cwnd = int(tp.snd_cwnd);
            v.snd_cwnd_cnt = int(tp.snd_cwnd_cnt);
            v.snd_ssthresh = int(tp.snd_ssthresh);
            v.snd_cwnd_clamp = int(tp.snd_cwnd_clamp);
            v.snd_una = tp.snd_una;
            v.snd_nxt = tp.snd_nxt;
            v.packets_in_flight = tp.packets_in_flight;
            v.srtt = tp.srtt;
            v.ca_state = tp.ca_state.name();
            v.now = tp.now;
            v.mss = tp.mss;
            v.rng = rng.cloned();
        }
        let mut args = Vec::with_capacity(1 + extra.len());
        args.push(self.state.clone_ref(py).into_any());
        args.extend(extra);
        let args = PyTuple::new(py, args).ok()?;
        match f.bind(py).call1(args) {
            Ok(v) => Some(v),
            Err(e) => {
                self.fault.fail(py, &self.who, hook, tp.now, "the hook raised an exception".into(), Some(e));
                None
            }
        }
    }

    /// Write the view's windows (and stream) back into `tp`, each checked;
    /// false, with the run stopped, when the hook set one that is not a window.
    fn store(&self, py: Python<'_>, hook: &str, tp: &mut CcState, rng: Option<&mut SimRng>) -> bool {
        let mut v = self.state.borrow_mut(py);
        if let (Some(rng), Some(drawn)) = (rng, v.rng.take()) {
            *rng = drawn;
        }
        let fields: [(&str, &PyObject, u32); 4] = [
            ("snd_cwnd", &v.snd_cwnd, 1),
            ("snd_cwnd_cnt", &v.snd_cwnd_cnt, 0),
            ("snd_ssthresh", &v.snd_ssthresh, 1),
            ("snd_cwnd_clamp", &v.snd_cwnd_clamp, 1),
        ];
        let mut values = [0u32; 4];
        for (slot, (field, obj, min)) in values.iter_mut().zip(fields) {
            match window(obj.bind(py), min) {
                Ok(x) => *slot = x,
                Err(what) => {
                    self.fault.fail(py, &self.who, hook, tp.now, format!("it set tp.{field} to {what}"), None);
                    return false;
                }
            }
        }
        [tp.snd_cwnd, tp.snd_cwnd_cnt, tp.snd_ssthresh, tp.snd_cwnd_clamp] = values;
        true
    }

    /// A hook that may change the state: call it, then store what it wrote.
    fn mutate(&self, hook: &str, f: &PyObject, tp: &mut CcState, rng: Option<&mut SimRng>, extra: impl FnOnce(Python<'_>) -> Vec<PyObject>) {
        Python::with_gil(|py| {
            let extra = extra(py);
            if self.call(py, hook, f, tp, rng.as_deref(), extra).is_some() {
                self.store(py, hook, tp, rng);
            }
        });
    }

    /// A hook that returns a window (`min` segments at least); `fallback` when it failed.
    fn returned(&self, hook: &str, f: &PyObject, tp: &CcState, min: u32, fallback: u32) -> u32 {
        Python::with_gil(|py| {
            let Some(value) = self.call(py, hook, f, tp, None, Vec::new()) else { return fallback };
            window(&value, min).unwrap_or_else(|what| {
                self.fault.fail(py, &self.who, hook, tp.now, format!("it returned {what}"), None);
                fallback
            })
        })
    }
}

fn obj<'py, T: IntoPyObject<'py>>(py: Python<'py>, x: T) -> PyObject {
    x.into_pyobject(py).map(|v| v.into_any().unbind()).unwrap_or_else(|_| py.None())
}

impl CongestionControl for PyCc {
    fn name(&self) -> &'static str {
        self.name
    }

    fn init(&mut self, tp: &mut CcState) {
        if let Some(f) = &self.hooks.init {
            self.mutate("init", f, tp, None, |_| Vec::new());
        }
    }

    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        self.returned("ssthresh", &self.hooks.ssthresh, tp, 1, tp.snd_ssthresh)
    }

    fn ecn_ssthresh(&mut self, tp: &CcState) -> u32 {
        let (hook, f) = match &self.hooks.ecn_ssthresh {
            Some(f) => ("ecn_ssthresh", f),
            None => ("ssthresh", &self.hooks.ssthresh),
        };
        self.returned(hook, f, tp, 1, tp.snd_ssthresh)
    }

    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, rng: &mut SimRng) {
        self.mutate("cong_avoid", &self.hooks.cong_avoid, tp, Some(rng), |py| vec![obj(py, acked)]);
    }

    fn pkts_acked(&mut self, tp: &mut CcState, sample: &AckSample, rng: &mut SimRng) {
        if let Some(f) = &self.hooks.pkts_acked {
            self.mutate("pkts_acked", f, tp, Some(rng), |py| vec![obj(py, sample.pkts_acked), obj(py, sample.rtt)]);
        }
    }

    fn set_state(&mut self, tp: &mut CcState, new_state: CaState) {
        if let Some(f) = &self.hooks.set_state {
            self.mutate("set_state", f, tp, None, |py| vec![obj(py, new_state.name())]);
        }
    }

    fn cwnd_event(&mut self, tp: &mut CcState, ev: CaEvent) {
        if let Some(f) = &self.hooks.cwnd_event {
            self.mutate("cwnd_event", f, tp, None, |py| vec![obj(py, ev.name())]);
        }
    }

    fn undo_cwnd(&mut self, tp: &CcState) -> u32 {
        match &self.hooks.undo_cwnd {
            Some(f) => self.returned("undo_cwnd", f, tp, 1, tp.snd_cwnd),
            None => tp.snd_cwnd,
        }
    }
}
