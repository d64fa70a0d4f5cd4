//! `qdsim._core`: the Python binding of the simulation core, and nothing else.
//!
//! The surface is seven functions: [`run`] (resolved run configuration as JSON in, results
//! as JSON out, with the sampled time series beside them as binary columns and the flows'
//! and links' rows as Arrow columns; under a memory
//! budget, reporting progress, stoppable by Ctrl-C), [`catalog`] (algorithms and their parameters, for `qdsim list`),
//! [`stream_seed`] (the core's seed derivation, so Python derives repetition seeds the
//! same way), [`check_qdisc`] / [`check_tcp`] (the core's range checks of one queue
//! discipline or one TCP configuration, so Python can name the experiment file's key), and
//! [`parquet::write_parquet`] / [`parquet::write_parquet_stream`] (the results tables as
//! Parquet files, from the core's columns and Python's lists, or from a pyarrow table). Errors become Python exceptions: a configuration value the core refuses
//! raises `ConfigError` (a `ValueError`) carrying `key`, `value` and `allowed`; anything
//! else the core could not finish raises `SimulationError`. A Rust panic never crosses
//! the boundary: it is caught and turned into `SimulationError` with its message; a run over
//! its memory budget raises `BudgetError`, a `SimulationError` naming what grew.
//! The GIL is released while a run simulates, so threads can run points in parallel; it is
//! taken back briefly every [`TICK`] to let Python handle signals and report progress.
//! `SOURCE_DIGEST` is the SHA-256 of the sources that decide results (`build.rs`).

use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use qdsim_core::results::{FlowResult, LinkResult, QdiscSeries, Series};
use qdsim_core::sim::{Progress, RunError, Stop, Watch};

mod parquet;

/// The core's memory comes from mimalloc, not the C library's allocator: mimalloc asks the
/// kernel for transparent huge pages (`madvise(MADV_HUGEPAGE)`, which kernels set to `madvise`
/// grant only on request), and a network of 10⁴ flows — hundreds of MB of links, rings and
/// histograms touched in no order — then costs far fewer TLB misses: 0.82 of the CPU at 10⁴
/// flows, the same at 100 (docs/performance.md, "Huge pages"). Only the Rust side's
/// allocations: Python's own and the buffers handed to it (copied into `bytes`) are not
/// affected.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

create_exception!(
    _core,
    BudgetError,
    SimulationError,
    "A run went over its memory budget; has .what (the largest growing part), .detail, .used and .limit (bytes), .at_s."
);

/// How often a run takes the GIL back to let Python handle signals (Ctrl-C) and to report
/// progress: often enough that Ctrl-C ends a run at once, rarely enough to cost nothing.
const TICK: Duration = Duration::from_millis(100);

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

/// Returns `values` as little-endian bytes, `N` per value.
fn le_bytes<T: Copy, const N: usize>(values: &[T], to_le: fn(T) -> [u8; N]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * N);
    for &v in values {
        out.extend_from_slice(&to_le(v));
    }
    out
}

/// One binary column: its name, its NumPy dtype and its values as little-endian bytes.
type Column = (&'static str, &'static str, Vec<u8>);

/// Moves the queue and TCP series (and the qdisc series and the packet record, if recorded) out of `series` into `{kind: {column: (dtype, bytes)}}`,
/// each column its NumPy dtype and its values as little-endian bytes: a sampled run can
/// have 10⁷ rows, which as JSON cost gigabytes and most of the run's time to parse. The
/// TCP event log (a text column, few rows) stays in the JSON.
fn take_series_columns<'py>(py: Python<'py>, series: &mut Series) -> PyResult<Bound<'py, PyDict>> {
    let queue = std::mem::take(&mut series.queue);
    let tcp = std::mem::take(&mut series.tcp);
    let in_timeout: Vec<u8> = tcp.in_timeout.iter().map(|&b| u8::from(b)).collect();
    let mut queue_columns = vec![
        ("t", "<f8", le_bytes(&queue.t, f64::to_le_bytes)),
        ("link", "<u4", le_bytes(&queue.link, u32::to_le_bytes)),
        ("pkts", "<u8", le_bytes(&queue.pkts, u64::to_le_bytes)),
        ("bytes", "<u8", le_bytes(&queue.bytes, u64::to_le_bytes)),
        ("drops", "<u8", le_bytes(&queue.drops, u64::to_le_bytes)),
        ("overflow_drops", "<u8", le_bytes(&queue.overflow_drops, u64::to_le_bytes)),
        // None (nothing left the queue in the interval) as NaN, which Python reads as null.
        (
            "sojourn_s",
            "<f8",
            le_bytes(&queue.sojourn_s.iter().map(|v| v.unwrap_or(f64::NAN)).collect::<Vec<_>>(), f64::to_le_bytes),
        ),
    ];
    // Only when recorded (`sampling.tx_bytes`): other runs hand over the columns they always did.
    if !queue.tx_bytes.is_empty() {
        queue_columns.push(("tx_bytes", "<u8", le_bytes(&queue.tx_bytes, u64::to_le_bytes)));
    }
    let kinds: [(&str, Vec<Column>); 2] = [
        ("queue", queue_columns),
        (
            "tcp",
            vec![
                ("t", "<f8", le_bytes(&tcp.t, f64::to_le_bytes)),
                ("flow", "<u4", le_bytes(&tcp.flow, u32::to_le_bytes)),
                ("cwnd", "<u4", le_bytes(&tcp.cwnd, u32::to_le_bytes)),
                ("ssthresh", "<u4", le_bytes(&tcp.ssthresh, u32::to_le_bytes)),
                ("srtt_s", "<f8", le_bytes(&tcp.srtt_s, f64::to_le_bytes)),
                ("inflight_bytes", "<u8", le_bytes(&tcp.inflight_bytes, u64::to_le_bytes)),
                ("in_timeout", "|b1", in_timeout),
            ],
        ),
    ];
    let out = PyDict::new(py);
    for (kind, columns) in kinds {
        let table = PyDict::new(py);
        for (name, dtype, bytes) in columns {
            table.set_item(name, (dtype, PyBytes::new(py, &bytes)))?;
        }
        out.set_item(kind, table)?;
    }
    // Only when recorded: runs without it hand over exactly the columns they always did.
    if !series.qdisc.is_empty() {
        out.set_item("qdisc", qdisc_columns(py, std::mem::take(&mut series.qdisc))?)?;
    }
    if !series.packets.is_empty() {
        let p = std::mem::take(&mut series.packets);
        let lost: Vec<u8> = p.lost.iter().map(|&b| u8::from(b)).collect();
        let table = PyDict::new(py);
        for (name, dtype, bytes) in [
            ("t", "<f8", le_bytes(&p.t, f64::to_le_bytes)),
            ("flow", "<u4", le_bytes(&p.flow, u32::to_le_bytes)),
            ("size_bytes", "<u4", le_bytes(&p.size_bytes, u32::to_le_bytes)),
            ("lost", "|b1", lost),
        ] {
            table.set_item(name, (dtype, PyBytes::new(py, &bytes)))?;
        }
        out.set_item("packets", table)?;
    }
    Ok(out)
}

/// Returns the flows' and links' rows as `{"flows": {field: column}, "links": {...}}`, each
/// column `(arrow_type, rows, nulls, validity, buffers)` in Arrow's layout
/// ([`qdsim_core::arrow`]; `validity` None when no row is null), for `pyarrow.Array.from_buffers`:
/// as JSON, 4·10⁵ links' rows were seconds of parsing and of taking them apart again.
fn take_row_columns<'py>(py: Python<'py>, results: &mut qdsim_core::RunResults) -> PyResult<Bound<'py, PyDict>> {
    let flows = FlowResult::to_arrow(&std::mem::take(&mut results.flows));
    let links = LinkResult::to_arrow(&std::mem::take(&mut results.links));
    let out = PyDict::new(py);
    for (kind, columns) in [("flows", flows), ("links", links)] {
        let table = PyDict::new(py);
        for (name, c) in columns {
            let validity = (c.null_count > 0).then(|| PyBytes::new(py, &c.validity));
            let buffers: Vec<_> = c.buffers.iter().map(|b| PyBytes::new(py, b)).collect();
            table.set_item(name, (c.arrow_type, c.len, c.null_count, validity, buffers))?;
        }
        out.set_item(kind, table)?;
    }
    Ok(out)
}

fn budget_error(py: Python<'_>, e: &qdsim_core::sim::BudgetExceeded) -> PyErr {
    let err = BudgetError::new_err(e.to_string());
    let v = err.value(py);
    let _ = v.setattr("what", e.largest.what);
    let _ = v.setattr("detail", e.largest.detail.as_str());
    let _ = v.setattr("used", e.bytes);
    let _ = v.setattr("limit", e.limit);
    let _ = v.setattr("at_s", e.at.as_secs_f64());
    let _ = v.setattr("before_build", e.before_build);
    err
}

/// Returns the qdisc-internals series as binary columns; the variable names as NumPy
/// fixed-width unicode (`<U<n>`: UTF-32LE code points, zero-padded to the longest name), so
/// `numpy.frombuffer` reads them like the numeric columns.
fn qdisc_columns<'py>(py: Python<'py>, s: QdiscSeries) -> PyResult<Bound<'py, PyDict>> {
    let width = s.var.iter().map(|v| v.chars().count()).max().unwrap_or(1).max(1);
    let mut names = Vec::with_capacity(s.var.len() * width * 4);
    for v in &s.var {
        let n = v.chars().count();
        for c in v.chars().chain(std::iter::repeat_n('\0', width - n)) {
            names.extend_from_slice(&(c as u32).to_le_bytes());
        }
    }
    let table = PyDict::new(py);
    for (name, dtype, bytes) in [
        ("t", "<f8".to_string(), le_bytes(&s.t, f64::to_le_bytes)),
        ("link", "<u4".to_string(), le_bytes(&s.link, u32::to_le_bytes)),
        ("var", format!("<U{width}"), names),
        ("class", "<i8".to_string(), le_bytes(&s.class, i64::to_le_bytes)),
        ("value", "<f8".to_string(), le_bytes(&s.value, f64::to_le_bytes)),
    ] {
        table.set_item(name, (dtype, PyBytes::new(py, &bytes)))?;
    }
    Ok(table)
}

/// Runs one simulation. Takes the resolved run configuration as JSON and returns the
/// results as JSON, with the queue and TCP time series moved out of it into binary columns
/// (see [`take_series_columns`]) and the flows' and links' rows into Arrow columns (see
/// [`take_row_columns`]).
///
/// `memory_limit` bounds the bytes the growing parts of the run hold (none: no bound);
/// `progress(now_s, end_s, events, memory_bytes)` is called about every [`TICK`] of wall
/// time. An exception it raises, or a signal's (KeyboardInterrupt), stops the run and
/// propagates.
#[pyfunction]
#[pyo3(signature = (config_json, memory_limit=None, progress=None))]
fn run<'py>(
    py: Python<'py>,
    config_json: &str,
    memory_limit: Option<u64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    // Checked once, by the run (`run_watched`).
    let cfg = qdsim_core::RunConfig::parse_json(config_json).map_err(|e| config_error(py, e))?;
    let watch = Watch { memory_limit_bytes: memory_limit.unwrap_or(u64::MAX), ..Watch::default() };
    let mut raised: Option<PyErr> = None;
    let mut last = Instant::now();
    let mut on_check = |p: &Progress| {
        if last.elapsed() < TICK {
            return ControlFlow::Continue(());
        }
        last = Instant::now();
        let checked = Python::attach(|py| -> PyResult<()> {
            py.check_signals()?;
            if let Some(callback) = &progress {
                callback.call1(py, (p.now.as_secs_f64(), p.end.as_secs_f64(), p.events, p.memory_bytes))?;
            }
            Ok(())
        });
        match checked {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                raised = Some(e);
                ControlFlow::Break(())
            }
        }
    };
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(|| qdsim_core::run_watched(cfg, watch, &mut on_check))));
    match outcome {
        Ok(Err(RunError::Config(e))) => Err(config_error(py, e)),
        Ok(Err(RunError::Stopped(Stop::Budget(e)))) => Err(budget_error(py, &e)),
        Ok(Err(RunError::Stopped(Stop::Interrupted))) => {
            Err(raised.take().unwrap_or_else(|| SimulationError::new_err("the run was stopped")))
        }
        Ok(Ok(mut results)) => {
            let columns = take_series_columns(py, &mut results.series)?;
            let rows = take_row_columns(py, &mut results)?;
            let text = serde_json::to_string(&results)
                .map_err(|e| SimulationError::new_err(format!("could not serialise results: {e}")))?;
            Ok((text, columns, rows))
        }
        Err(p) => Err(SimulationError::new_err(format!("simulation core failed: {}", panic_message(p)))),
    }
}

/// Returns the catalog of queue disciplines, congestion controls, traffic kinds and TCP
/// options with their parameters and defaults, as JSON.
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

/// Returns the file name of link `link`'s packet capture (of its dropped packets with
/// `drops`), as the core writes it into `pcap.dir`.
#[pyfunction]
fn pcap_file_name(link: &str, drops: bool) -> String {
    qdsim_core::pcap::PcapConfig::file_name(link, drops)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(stream_seed, m)?)?;
    m.add_function(wrap_pyfunction!(check_qdisc, m)?)?;
    m.add_function(wrap_pyfunction!(check_tcp, m)?)?;
    m.add_function(wrap_pyfunction!(pcap_file_name, m)?)?;
    m.add_function(wrap_pyfunction!(parquet::write_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(parquet::write_parquet_stream, m)?)?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("BudgetError", m.py().get_type::<BudgetError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SOURCE_DIGEST", env!("QDSIM_SOURCE_DIGEST"))?;
    m.add("BUILD", env!("QDSIM_BUILD"))?;
    Ok(())
}
