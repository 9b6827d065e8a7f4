//! Python bindings of the simulator core: JSON scenario in, JSON results out.
//!
//! Kept thin on purpose: the Python package (`pertlab`) validates scenarios with
//! pydantic, converts units, and turns the columnar results into polars frames.
//! The core validates again, so a bad scenario raises `ValueError` whose message
//! starts with the field path (`links[0].rate_bps: must be ...`).

mod models;
mod pycc;
mod pyqueue;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use models::{ModelError, PyModels};

use pertlab_sim::world::{MemoryLimit, World};
use pertlab_sim::Scenario;

/// Bytes each recorded value (a cell of a time series or trace) costs once the
/// results leave the core: a Python float in a list (24 + 8 bytes) and its
/// polars column (8 bytes). The JSON text between them (about 16 bytes a
/// value, in Rust then in a Python str) is alive while the core's own copy
/// (8 to 16 bytes a value, counted by the core) is freed or the Python objects
/// are not all built yet. Checked against measured peak memory in
/// tests/python/test_core_robust.py.
const BYTES_PER_RECORDED_VALUE: u64 = 40;

/// The memory limit of a call from Python: `memory_limit` bytes (none when not given).
fn limit(memory_limit: Option<u64>) -> MemoryLimit {
    MemoryLimit { bytes: memory_limit.unwrap_or(u64::MAX), per_recorded_value: BYTES_PER_RECORDED_VALUE }
}

fn parse(scenario_json: &str) -> PyResult<Scenario> {
    let scenario = Scenario::from_json(scenario_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    scenario.validate().map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(scenario)
}

/// Check a scenario (JSON text) without running it: its fields, its network,
/// and its memory estimate against `memory_limit` bytes (none when not given);
/// raises ValueError naming the field. Returns the `queue_warnings` a run of it
/// will carry (queues whose discipline can never act on their buffer).
#[pyfunction]
#[pyo3(signature = (scenario_json, memory_limit=None))]
fn validate_json(scenario_json: &str, memory_limit: Option<u64>) -> PyResult<Vec<String>> {
    let scenario = parse(scenario_json)?;
    let world = World::build_within(&scenario, limit(memory_limit)).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(world.queue_warnings())
}

/// The memory a run of the scenario (JSON text) needs, with what its recorded
/// values cost once returned to Python, as JSON text: `{"total": bytes,
/// "complete": bool, "recorded_values": n, "parts": [{"field", "what",
/// "bytes", "advice"}]}`.
/// The second stage (windows, buffers; it builds the network) is estimated
/// only when the first stage alone is within `memory_limit` bytes (`complete`).
#[pyfunction]
#[pyo3(signature = (scenario_json, memory_limit=None))]
fn memory_estimate_json(scenario_json: &str, memory_limit: Option<u64>) -> PyResult<String> {
    let scenario = parse(scenario_json)?;
    let estimate = World::memory_estimate(&scenario, limit(memory_limit)).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let json = serde_json::json!({
        "total": estimate.total(), "complete": estimate.complete, "recorded_values": estimate.recorded_values, "parts": estimate.parts
    });
    Ok(json.to_string())
}

/// Bytes one long TCP flow takes in the core at least, the largest over the
/// controllers: its state, the core's copy of its spec, its snapshots and
/// result row (not its window, nor its hosts and their routes). A builder can
/// refuse `flows x bytes_per_flow() > memory_limit` before building anything.
#[pyfunction]
fn bytes_per_flow() -> u64 {
    pertlab_sim::world::memory::max_bytes_per_flow()
}

/// Run a scenario (JSON text) and return the results as JSON text.
///
/// `progress`, if given, is called with the simulated time in seconds once per
/// simulated second and at least every `PROGRESS_EVENTS` (65 536) events; if it
/// returns False (or raises, e.g. KeyboardInterrupt) the run stops there and the
/// results computed so far are returned with `"interrupted": true`. Ctrl-C is
/// checked at the same points, with or without a callback.
///
/// `memory_limit` (bytes): refuse the run, with a ValueError naming the field
/// responsible, when its memory estimate is larger (no limit when not given).
///
/// `models`: the classes of the scenario's Python models, `{target: class}`.
/// When the code of one fails, the run stops after that event and `ModelError`
/// is raised (the Python traceback, the simulated time and the flow in its
/// message), with the results up to there as JSON text in its `results_json`.
#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None, memory_limit=None, models=None))]
fn run_json(
    py: Python<'_>,
    scenario_json: &str,
    progress: Option<PyObject>,
    memory_limit: Option<u64>,
    models: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let scenario = parse(scenario_json)?;
    let models = PyModels::new(models)?;
    let mut world = World::build_with(&scenario, limit(memory_limit), &models).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let started = std::time::Instant::now();
    let pending_error = drive(py, &mut world, scenario.duration_ns, progress.as_ref(), models.any());
    world.finish();
    let mut results = world.into_results();
    results.wall_seconds = started.elapsed().as_secs_f64();
    let json = serde_json::to_string(&results).map_err(|e| PyValueError::new_err(e.to_string()))?;
    if let Some(e) = models.fault.take() {
        e.value(py).setattr("results_json", json)?;
        return Err(e);
    }
    if let Some(e) = pending_error {
        // An interrupt stops the run but keeps what was computed: the caller gets
        // the partial results flagged as interrupted, and the error is reported
        // only if the callback failed for another reason.
        if !e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
            return Err(e);
        }
    }
    Ok(json)
}

/// Run `world` up to `until`, taking the GIL at each progress point to check
/// for Ctrl-C and call `progress`; the error that stopped the run, if any.
/// The GIL is released during the run unless `python_models` (their hooks
/// then take it back cheaply, by re-entry, on every call).
fn drive(py: Python<'_>, world: &mut World, until: u64, progress: Option<&PyObject>, python_models: bool) -> Option<PyErr> {
    let mut pending_error: Option<PyErr> = None;
    let mut callback = |sim_ns: u64| {
        Python::with_gil(|py| {
            if let Err(e) = py.check_signals() {
                pending_error = Some(e);
                return false;
            }
            let Some(cb) = progress else { return true };
            match cb.call1(py, (sim_ns as f64 / 1e9,)) {
                Ok(v) => !matches!(v.extract::<bool>(py), Ok(false)),
                Err(e) => {
                    pending_error = Some(e);
                    false
                }
            }
        })
    };
    if python_models {
        world.run_until(until, &mut callback);
    } else {
        py.allow_threads(|| world.run_until(until, &mut callback));
    }
    pending_error
}

/// A run taken in steps (`pertlab.Simulation` wraps it): build, `run_until`,
/// read `live_json`, change a link's rate or delay, a flow's start or sending,
/// a controller's parameter or an agent flow's window or pacing rate between steps,
/// and `results_json` at the end. Only the thread that built it may use it.
#[pyclass(unsendable)]
struct Simulation {
    /// `None` once the results have been taken.
    world: Option<World>,
    duration_ns: u64,
    /// Wall time spent inside `run_until`.
    wall_seconds: f64,
    /// The scenario's Python models.
    models: PyModels,
}

impl Simulation {
    fn world(&mut self) -> PyResult<&mut World> {
        self.world.as_mut().ok_or_else(|| PyRuntimeError::new_err("the results of this simulation were taken; build a new one to run again"))
    }
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (scenario_json, memory_limit=None, models=None))]
    fn new(scenario_json: &str, memory_limit: Option<u64>, models: Option<&Bound<'_, PyDict>>) -> PyResult<Simulation> {
        let scenario = parse(scenario_json)?;
        let models = PyModels::new(models)?;
        let world = World::build_with(&scenario, limit(memory_limit), &models).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Simulation { world: Some(world), duration_ns: scenario.duration_ns, wall_seconds: 0.0, models })
    }

    /// Process every event due at or before `until_ns` (at most the run's
    /// duration); True when the run is over (its end reached, or interrupted).
    /// A Ctrl-C, an exception from `progress` or a failure of a Python model
    /// (`ModelError`) stops the run where it stands and is raised; the results
    /// computed so far stay available.
    #[pyo3(signature = (until_ns, progress=None))]
    fn run_until(&mut self, py: Python<'_>, until_ns: u64, progress: Option<PyObject>) -> PyResult<bool> {
        let started = std::time::Instant::now();
        let duration_ns = self.duration_ns;
        let python_models = self.models.any();
        let world = self.world()?;
        let pending_error = drive(py, world, until_ns, progress.as_ref(), python_models);
        let over = world.now() >= duration_ns || world.interrupted();
        // A model's failure comes first: it is what stopped the run.
        let pending_error = self.models.fault.take().or(pending_error);
        self.wall_seconds += started.elapsed().as_secs_f64();
        pending_error.map_or(Ok(over), Err)
    }

    /// The simulated time reached, ns.
    fn now_ns(&mut self) -> PyResult<u64> {
        Ok(self.world()?.now())
    }

    /// Every long flow's and every queue's state now, as JSON text
    /// (`{"now_ns", "events", "flows": [...], "queues": [...]}`).
    fn live_json(&mut self) -> PyResult<String> {
        serde_json::to_string(&self.world()?.live()).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// From its next packet, every direction of link `link` sends at `rate_bps`.
    fn set_link_rate(&mut self, link: &str, rate_bps: u64) -> PyResult<()> {
        self.world()?.set_link_rate(link, rate_bps).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// From the next packet it finishes sending, every direction of link
    /// `link` gives its packets the propagation delay `delay_ns` (those on the
    /// wire keep theirs; none overtakes another).
    fn set_link_delay(&mut self, link: &str, delay_ns: u64) -> PyResult<()> {
        self.world()?.set_link_delay(link, delay_ns).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Long flow `flow` (an agent's) paces its segments at `rate_bps` from now on.
    fn set_pacing_rate(&mut self, flow: u32, rate_bps: u64) -> PyResult<()> {
        self.world()?.set_pacing_rate(flow, rate_bps).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Long flow `flow`'s application stops now (`resume` false) or has data again.
    fn set_flow_sending(&mut self, flow: u32, resume: bool) -> PyResult<()> {
        self.world()?.set_flow_sending(flow, resume).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Long flow `flow`'s window becomes `cwnd` segments (its controller must be `agent`).
    fn set_cwnd(&mut self, flow: u32, cwnd: u32) -> PyResult<()> {
        self.world()?.set_cwnd(flow, cwnd).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Long flow `flow`, not started yet, starts now.
    fn start_flow(&mut self, flow: u32) -> PyResult<()> {
        self.world()?.start_flow(flow).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Field `field` of long flow `flow`'s controller becomes `value_json` (JSON
    /// text of a value in the core's units), from the controller's next hook.
    fn set_cc_param(&mut self, flow: u32, field: &str, value_json: &str) -> PyResult<()> {
        let value = serde_json::from_str(value_json).map_err(|e| PyValueError::new_err(format!("flows[{flow}].cc.{field}: {e}")))?;
        self.world()?.set_cc_param(flow, field, value).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// End the run where it stands and return its results as JSON text (the
    /// window's snapshots not taken yet are taken now, as for an interrupted run).
    fn results_json(&mut self) -> PyResult<String> {
        let mut world = self.world.take().ok_or_else(|| PyRuntimeError::new_err("the results of this simulation were taken already"))?;
        let interrupted = world.now() < self.duration_ns;
        world.finish();
        let mut results = world.into_results();
        results.interrupted |= interrupted;
        results.wall_seconds = self.wall_seconds;
        serde_json::to_string(&results).map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

/// Jain's fairness index of `xs`, the core's one definition (also used for testbed runs);
/// None for an empty or all-zero `xs`.
#[pyfunction]
fn jain_index(xs: Vec<f64>) -> Option<f64> {
    pertlab_sim::stats::jain_index(&xs)
}

/// A live video stream's playout (Qian 2011, III.A), the core's one definition (also used for
/// testbed streams): segment `i` generated at `start_ns + i * interval_ns` and delivered in
/// order at `deliveries_ns[i]`, played `startup_delay_ns` after its generation; at `end_ns`,
/// `(packets, late, late_fraction, success)` as the simulator's `video_*` results count them
/// (the last two None when no segment is counted).
#[pyfunction]
fn video_playout(
    start_ns: u64,
    interval_ns: u64,
    startup_delay_ns: u64,
    deliveries_ns: Vec<u64>,
    end_ns: u64,
) -> PyResult<(u64, u64, Option<f64>, Option<bool>)> {
    if interval_ns == 0 {
        return Err(PyValueError::new_err("interval_ns: must be positive, got 0"));
    }
    if deliveries_ns.windows(2).any(|w| w[1] < w[0]) {
        return Err(PyValueError::new_err("deliveries_ns: in-order deliveries cannot go back in time"));
    }
    let n = u32::try_from(deliveries_ns.len()).map_err(|_| PyValueError::new_err("deliveries_ns: at most 2^32 - 1 segments"))?;
    let mut playout = pertlab_sim::traffic::video::Playout::new(start_ns, interval_ns, vec![startup_delay_ns]);
    for (i, &t) in (0..n).zip(&deliveries_ns) {
        playout.deliver(t, i, i + 1);
    }
    let r = playout.result(end_ns, n);
    Ok((r.packets, r.late, r.late_fraction, r.success()))
}

/// The controller parameters a run in steps may change (`tcp::cc::LIVE_PARAMS`), by kind, in
/// the scenario files' names (`t_min`, not the wire's `t_min_ns`).
#[pyfunction]
fn live_params() -> Vec<(&'static str, Vec<&'static str>)> {
    pertlab_sim::tcp::cc::LIVE_PARAMS.iter().map(|&(kind, fields)| (kind, fields.iter().map(|f| pertlab_sim::tcp::cc::people_name(f)).collect())).collect()
}

/// Version of the core.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    m.add_function(wrap_pyfunction!(video_playout, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(memory_estimate_json, m)?)?;
    m.add_function(wrap_pyfunction!(bytes_per_flow, m)?)?;
    m.add_function(wrap_pyfunction!(live_params, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_class::<Simulation>()?;
    m.add_class::<pycc::CcStateView>()?;
    m.add_class::<pyqueue::QueueStateView>()?;
    m.add_class::<pyqueue::PacketView>()?;
    m.add("ModelError", m.py().get_type::<ModelError>())?;
    Ok(())
}
