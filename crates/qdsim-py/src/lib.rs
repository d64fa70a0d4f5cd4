//! `qdsim._core`: the Python binding of the simulation core, and nothing else.
//!
//! The surface is five functions: [`run`] (resolved run configuration as JSON in, results
//! as JSON out), [`catalog`] (algorithms and their parameters, for `qdsim list`),
//! [`stream_seed`] (the core's seed derivation, so Python derives repetition seeds the
//! same way), and [`check_qdisc`] / [`check_tcp`] (the core's range checks of one queue
//! discipline or one TCP configuration, so Python can name the experiment file's key). Errors become Python exceptions: a configuration value the core refuses
//! raises `ConfigError` (a `ValueError`) carrying `key`, `value` and `allowed`; anything
//! else the core could not finish raises `SimulationError`. A Rust panic never crosses
//! the boundary: it is caught and turned into `SimulationError` with its message.
//! The GIL is released while a run simulates, so threads can run points in parallel.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _core,
    ConfigError,
    PyValueError,
    "A run configuration value the core refuses; has .key, .value, .allowed."
);
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "The simulation core failed to finish a run (a bug: please report it)."
);

fn config_error(py: Python<'_>, e: qdsim_core::ConfigError) -> PyErr {
    let err = ConfigError::new_err(e.to_string());
    let v = err.value(py);
    // Attributes make the error usable programmatically (the CLI prints the key path).
    let _ = v.setattr("key", e.key);
    let _ = v.setattr("value", e.value);
    let _ = v.setattr("allowed", e.allowed);
    err
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs one simulation. Takes the resolved run configuration as JSON and returns the
/// results as JSON.
#[pyfunction]
fn run(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let cfg = qdsim_core::RunConfig::from_json(config_json).map_err(|e| config_error(py, e))?;
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(|| qdsim_core::run(&cfg))));
    match outcome {
        Ok(Err(e)) => Err(config_error(py, e)),
        Ok(Ok(results)) => serde_json::to_string(&results)
            .map_err(|e| SimulationError::new_err(format!("could not serialise results: {e}"))),
        Err(p) => Err(SimulationError::new_err(format!("simulation core failed: {}", panic_message(p)))),
    }
}

/// Returns the catalog of queue disciplines, congestion controls and traffic kinds with
/// their parameters and defaults, as JSON.
#[pyfunction]
fn catalog() -> PyResult<String> {
    serde_json::to_string(&qdsim_core::catalog()).map_err(|e| SimulationError::new_err(e.to_string()))
}

/// Checks one queue discipline's configuration (JSON of a `QdiscConfig`) as the core checks
/// it on a link of `rate_bps`; raises `ConfigError` whose key is the offending parameter's
/// core name.
#[pyfunction]
fn check_qdisc(py: Python<'_>, qdisc_json: &str, rate_bps: u64) -> PyResult<()> {
    let q: qdsim_core::qdisc::QdiscConfig = serde_json::from_str(qdisc_json).map_err(|e| {
        config_error(py, qdsim_core::ConfigError::new("qdisc", "(json)", format!("a valid queue discipline ({e})")))
    })?;
    q.on_link(rate_bps).validate().map_err(|e| config_error(py, e))
}

/// Checks one TCP configuration (JSON of a `TcpConfig`); raises `ConfigError` whose key is
/// the offending parameter's core name.
#[pyfunction]
fn check_tcp(py: Python<'_>, tcp_json: &str) -> PyResult<()> {
    let t: qdsim_core::tcp::TcpConfig = serde_json::from_str(tcp_json).map_err(|e| {
        config_error(py, qdsim_core::ConfigError::new("tcp", "(json)", format!("a valid TCP configuration ({e})")))
    })?;
    t.validate().map_err(|e| config_error(py, e))
}

/// Returns the seed of random stream `(name, index)` of a run seeded with `seed`.
#[pyfunction]
fn stream_seed(seed: u64, name: &str, index: u64) -> u64 {
    qdsim_core::rng::stream_seed(seed, name, index)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(stream_seed, m)?)?;
    m.add_function(wrap_pyfunction!(check_qdisc, m)?)?;
    m.add_function(wrap_pyfunction!(check_tcp, m)?)?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
