//! Models written in Python, run inside the core (docs/python-cc.md,
//! docs/python-aqm.md): the classes a scenario names (`{"kind": "py",
//! "target": "module:Class"}`, as a flow's controller or a queue's discipline),
//! resolved by the Python front and handed over as `{target: class}`, and
//! what the models of one run share: the first failure of user code and the
//! flag that stops the run after the event where it happened.
//!
//! The hooks run in the simulator's thread holding the GIL: a run with Python
//! models does not release it (`drive` in lib.rs), so each hook call takes
//! the GIL by a cheap re-entry. A run without them keeps the core's path.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt};

use pertlab_sim::external::{Extensions, Halt, QueueSite};
use pertlab_sim::queue::QueueDiscipline;
use pertlab_sim::tcp::cc::CongestionControl;
use pertlab_sim::time::SimTime;

use crate::pycc::PyCc;
use crate::pyqueue::PyQueue;

pyo3::create_exception!(_core, ModelError, pyo3::exceptions::PyRuntimeError, "Code of a model written in Python failed during a run.");

/// The first failure of the run's Python models, and the flag that stops it.
#[derive(Clone, Default)]
pub struct Fault {
    pub halt: Halt,
    error: Arc<Mutex<Option<PyErr>>>,
}

impl Fault {
    /// Record a failure of `who` in hook `hook` at simulated time `now`
    /// (the first one only) and stop the run. `cause`, if any, is the
    /// exception the user's code raised; its traceback goes into the message.
    pub fn fail(&self, py: Python<'_>, who: &str, hook: &str, now: SimTime, what: String, cause: Option<PyErr>) {
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            let trace = cause.as_ref().map(|e| format!("\n{}", traceback(py, e))).unwrap_or_default();
            let err = ModelError::new_err(format!("{who}, hook {hook}, at simulated time {:.9} s: {what}{trace}", now as f64 / 1e9));
            if let Some(c) = cause {
                err.set_cause(py, Some(c));
            }
            *slot = Some(err);
        }
        self.halt.store(true, Ordering::Relaxed);
    }

    /// The failure that stopped the run, if any (taken: reported once).
    pub fn take(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The Python traceback of `e`, as `traceback.format_exception` prints it.
fn traceback(py: Python<'_>, e: &PyErr) -> String {
    let formatted = py
        .import("traceback")
        .and_then(|tb| tb.call_method1("format_exception", (e.get_type(py), e.value(py), e.traceback(py))))
        .and_then(|lines| lines.extract::<Vec<String>>());
    match formatted {
        Ok(lines) => lines.concat().trim_end().to_string(),
        Err(_) => e.to_string(),
    }
}

/// The classes of a run's Python models, by target.
pub struct PyModels {
    classes: HashMap<String, Py<PyAny>>,
    pub fault: Fault,
}

impl PyModels {
    /// From the front's `{target: class}` (none: an empty set).
    pub fn new(classes: Option<&Bound<'_, PyDict>>) -> PyResult<PyModels> {
        let mut map = HashMap::new();
        if let Some(d) = classes {
            for (k, v) in d.iter() {
                map.insert(k.extract::<String>()?, v.unbind());
            }
        }
        Ok(PyModels { classes: map, fault: Fault::default() })
    }

    /// Whether the run has Python code in it (then the GIL stays held).
    pub fn any(&self) -> bool {
        !self.classes.is_empty()
    }

    /// A new instance of the class of `target`.
    pub fn instance(&self, py: Python<'_>, target: &str) -> Result<Py<PyAny>, String> {
        let class = self
            .classes
            .get(target)
            .ok_or_else(|| format!("no Python class was supplied for {target:?} (the front resolves every \"py\" target before a run)"))?;
        class.call0(py).map_err(|e| format!("{target}() failed: {}", traceback(py, &e)))
    }
}

impl Extensions for PyModels {
    fn congestion_control(&self, target: &str, flow: u32) -> Result<Box<dyn CongestionControl>, String> {
        Python::with_gil(|py| {
            let obj = self.instance(py, target)?;
            PyCc::new(py, obj, target, flow, self.fault.clone()).map(|cc| Box::new(cc) as Box<dyn CongestionControl>)
        })
    }

    fn queue_discipline(&self, target: &str, site: &QueueSite) -> Result<Box<dyn QueueDiscipline>, String> {
        Python::with_gil(|py| {
            let obj = self.instance(py, target)?;
            PyQueue::new(py, obj, target, site, self.fault.clone()).map(|q| Box::new(q) as Box<dyn QueueDiscipline>)
        })
    }

    fn halt(&self) -> Option<Halt> {
        self.any().then(|| self.fault.halt.clone())
    }
}

/// `py:target`, as a `&'static str` (the core's model names are): each distinct name is stored once.
pub fn interned_name(target: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let name = format!("py:{target}");
    if let Some(n) = names.get(name.as_str()) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    names.insert(leaked);
    leaked
}

/// `value` as a window of at least `min` segments: a Python int (not a bool,
/// not a float) in `min..=u32::MAX`; otherwise what is wrong with it.
pub fn window(value: &Bound<'_, PyAny>, min: u32) -> Result<u32, String> {
    let shown = || value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        let type_name = value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(format!("{} (a {type_name}); a window is an integer number of segments", shown()));
    }
    match value.extract::<i64>() {
        Ok(v) if v >= i64::from(min) && v <= i64::from(u32::MAX) => Ok(v as u32),
        _ => Err(format!("{}; a window is an integer number of segments in [{min}, {}]", shown(), u32::MAX)),
    }
}

/// Whether the Python object has a callable attribute `name`.
pub fn hook(obj: &Bound<'_, PyAny>, name: &str) -> Option<Py<PyAny>> {
    obj.getattr(name).ok().filter(|m| m.is_callable()).map(Bound::unbind)
}
