//! Python bindings of the simulator core: JSON scenario in, JSON results out.
//!
//! Kept thin on purpose: the Python package (`pertlab`) validates scenarios with
//! pydantic, converts units, and turns the columnar results into polars frames.
//! The core validates again, so a bad scenario raises `ValueError` whose message
//! starts with the field path (`links[0].rate_bps: must be ...`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pertlab_sim::world::World;
use pertlab_sim::Scenario;

fn parse(scenario_json: &str) -> PyResult<Scenario> {
    let scenario = Scenario::from_json(scenario_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    scenario.validate().map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(scenario)
}

/// Check a scenario (JSON text) without running it; raises ValueError naming the field.
#[pyfunction]
fn validate_json(scenario_json: &str) -> PyResult<()> {
    let scenario = parse(scenario_json)?;
    World::build(&scenario).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(())
}

/// Run a scenario (JSON text) and return the results as JSON text.
///
/// `progress`, if given, is called with the simulated time in seconds once per
/// simulated second and at least every `PROGRESS_EVENTS` (65 536) events; if it
/// returns False (or raises, e.g. KeyboardInterrupt) the run stops there and the
/// results computed so far are returned with `"interrupted": true`. Ctrl-C is
/// checked at the same points, with or without a callback.
#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None))]
fn run_json(py: Python<'_>, scenario_json: &str, progress: Option<PyObject>) -> PyResult<String> {
    let scenario = parse(scenario_json)?;
    let mut world = World::build(&scenario).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let started = std::time::Instant::now();
    let mut pending_error: Option<PyErr> = None;
    py.allow_threads(|| {
        world.run(&mut |sim_ns| {
            Python::with_gil(|py| {
                if let Err(e) = py.check_signals() {
                    pending_error = Some(e);
                    return false;
                }
                let Some(cb) = &progress else { return true };
                match cb.call1(py, (sim_ns as f64 / 1e9,)) {
                    Ok(v) => !matches!(v.extract::<bool>(py), Ok(false)),
                    Err(e) => {
                        pending_error = Some(e);
                        false
                    }
                }
            })
        });
    });
    let mut results = world.results();
    results.wall_seconds = started.elapsed().as_secs_f64();
    if let Some(e) = pending_error {
        // An interrupt stops the run but keeps what was computed: the caller gets
        // the partial results flagged as interrupted, and the error is reported
        // only if the callback failed for another reason.
        if !e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
            return Err(e);
        }
    }
    serde_json::to_string(&results).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Jain's fairness index of `xs`, the core's one definition (also used for testbed runs).
#[pyfunction]
fn jain_index(xs: Vec<f64>) -> f64 {
    pertlab_sim::stats::jain_index(&xs)
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
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
