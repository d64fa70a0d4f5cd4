//! The catalog's vocabulary: how every algorithm and option an experiment can select
//! describes its parameters — name, unit, default and help, one entry per parameter, written
//! once beside the parameters' `Default` (and checked against it by each module's tests).
//!
//! `qdsim list` prints the catalog, and the Python package derives from it how an
//! experiment file's keys become the core's fields. The **unit contract** for qdisc
//! parameters: a parameter `name` with unit `time` is the core's field `name_ns`, `pkts` →
//! `name_pkts`, `bytes` → `name_bytes`, `bit/s` → `name_bps`, `pkts|bytes` → `name_pkts` or
//! `name_bytes` (whichever unit the experiment file's value is in); any other unit (`bool`,
//! `int`, `float`, `list` (of whole numbers), `bools` (a list of booleans), `name`) keeps
//! the name. TCP options name their field explicitly
//! ([`TcpOptionInfo::field`]): their experiment-file names (`packet_size`, `rwnd`) are older
//! than the rule.
//!
//! This module holds the types and [`core_value`], which reads a value as the catalog renders
//! it (`"200ms"`, `"6MiB"`, `"true"`) in the core's unit; the crate root's `catalog()`
//! assembles the entries of `qdisc`, `tcp` and `traffic`, so that none of them imports another
//! for its description.

use serde::Serialize;
use serde_json::Value;

/// Everything that can be selected by name in an experiment, with parameters and defaults.
#[derive(Debug, Clone, Serialize)]
pub struct Catalog {
    /// Queue disciplines.
    pub qdiscs: Vec<AlgorithmInfo>,
    /// Congestion controls.
    pub cc: Vec<CcInfo>,
    /// Traffic kinds.
    pub traffic: Vec<AlgorithmInfo>,
    /// The options of a TCP connection (a flow group's `tcp = {...}`).
    pub tcp: Vec<TcpOptionInfo>,
    /// Every reason a link's results count drops under (`drops_by_reason`): the qdiscs'
    /// reasons, then the wire's losses. The results tables have one column per reason.
    pub drop_reasons: Vec<&'static str>,
    /// Every reason a link's results count ECN marks under (`marks_by_reason`); the results
    /// tables have one column per reason.
    pub mark_reasons: Vec<&'static str>,
    /// The TCP profiles (a flow group's `tcp = { profile = "..." }`), the default first.
    pub tcp_profiles: Vec<TcpProfileInfo>,
    /// The keys that do something only under a value of another key of their table
    /// ([`KeyUse`]): a file that sets one where it would do nothing is refused.
    pub key_uses: Vec<KeyUse>,
    /// The columns of the results tables the core's rows fill, by table (`flows`, `groups`,
    /// `links`, the `series_*` tables), from the result structs ([`crate::columns`]).
    pub result_columns: std::collections::BTreeMap<&'static str, Vec<crate::columns::Column>>,
}

/// A key that has an effect only while another key of the same table takes one of some
/// values — `t_d` only with `buffer = "drop_on_dequeue"` — declared beside the parameters
/// that read it, so that an experiment file setting the key where it would do nothing is
/// refused instead of silently ignored (the Python side checks it with the file's values).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyUse {
    /// The table: `qdisc.<kind>`, `traffic.<kind>`, or `tcp` (a flow group's `tcp = {...}`,
    /// whose `when` may also be the group's `cc`).
    pub table: String,
    /// The key.
    pub key: &'static str,
    /// Only this value of `key` depends on `when` (`hystart = "linux"`); `None`: any value.
    pub value: Option<&'static str>,
    /// The key deciding whether `key` is read.
    pub when: &'static str,
    /// The values of `when`, as a file writes them (`"true"`, a name), under which `key` is read.
    pub values: Vec<&'static str>,
    /// The condition holds only while this other key takes one of these values (`None`:
    /// always): `recovery` needs a NewReno-scheme `cc` only without SACK.
    pub only_while: Option<(&'static str, Vec<&'static str>)>,
}

impl KeyUse {
    /// Returns that `key` of `table` is read only while `when` is one of `values`.
    pub fn new(table: impl Into<String>, key: &'static str, when: &'static str, values: &[&'static str]) -> Self {
        KeyUse { table: table.into(), key, value: None, when, values: values.to_vec(), only_while: None }
    }

    /// Applies the condition only while `key` is one of `values`.
    #[must_use]
    pub fn only_while(mut self, key: &'static str, values: &[&'static str]) -> Self {
        self.only_while = Some((key, values.to_vec()));
        self
    }

    /// Restricts the condition to the value `value` of the key.
    #[must_use]
    pub fn of_value(mut self, value: &'static str) -> Self {
        self.value = Some(value);
        self
    }
}

/// A congestion control's name and description.
#[derive(Debug, Clone, Serialize)]
pub struct CcInfo {
    /// Name used as `cc` in experiment files.
    pub name: &'static str,
    /// Description with its source.
    pub summary: &'static str,
}

/// One parameter of an algorithm, for `qdsim list` and generated docs.
#[derive(Debug, Clone, Serialize)]
pub struct ParamInfo {
    /// Key in the experiment file.
    pub name: &'static str,
    /// Unit or type (`"pkts"`, `"bytes"`, `"time"`, `"bool"`, ...; see the unit contract).
    pub unit: &'static str,
    /// Default, rendered as an experiment file would write it; `"none"`, `"auto"` and other
    /// words mean the core's field is absent (not set, or derived).
    pub default: &'static str,
    /// One-line description.
    pub help: &'static str,
}

/// One algorithm and its parameters, for `qdsim list`.
#[derive(Debug, Clone, Serialize)]
pub struct AlgorithmInfo {
    /// Name used as `kind` in experiment files.
    pub name: &'static str,
    /// One-line description with its source.
    pub summary: &'static str,
    /// Its parameters.
    pub params: Vec<ParamInfo>,
}

/// One TCP option as the core declares it (`tcp::OPTIONS`): its experiment-file key, the
/// core's `TcpConfig` field it sets, its unit and help. Its default is the default profile's
/// value (`tcp::profiles`), so it is not written here.
#[derive(Debug, Clone, Copy)]
pub struct TcpOption {
    /// Key in a flow group's `tcp = {...}`.
    pub name: &'static str,
    /// The `TcpConfig` field it sets.
    pub field: &'static str,
    /// Unit (`"bytes"`, `"pkts"`, `"time"`, `"bool"` or `"name"`).
    pub unit: &'static str,
    /// The names it takes: every value of a `"name"` option; for a numeric option, words
    /// allowed besides a number (`initial_cwnd = "rfc3390"`).
    pub values: &'static [&'static str],
    /// Whether 0 is a valid value of a numeric option.
    pub allow_zero: bool,
    /// One-line description.
    pub help: &'static str,
    /// The largest value the field holds (in its core unit), for numeric options.
    pub max: Option<u64>,
}

impl TcpOption {
    /// Returns the option's catalog entry with default `default`.
    pub fn with_default(&self, default: &'static str) -> TcpOptionInfo {
        TcpOptionInfo {
            name: self.name,
            field: self.field,
            unit: self.unit,
            values: self.values,
            allow_zero: self.allow_zero,
            default,
            help: self.help,
            max: self.max,
        }
    }
}

/// One TCP option in the catalog: [`TcpOption`] with its default.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct TcpOptionInfo {
    /// Key in a flow group's `tcp = {...}`.
    pub name: &'static str,
    /// The `TcpConfig` field it sets.
    pub field: &'static str,
    /// Unit (`"bytes"`, `"pkts"`, `"time"`, `"bool"` or `"name"`).
    pub unit: &'static str,
    /// The names it takes (see [`TcpOption::values`]).
    pub values: &'static [&'static str],
    /// Whether 0 is a valid value of a numeric option.
    pub allow_zero: bool,
    /// Default (the default profile's value), rendered; `"none"` means the field is absent.
    pub default: &'static str,
    /// One-line description.
    pub help: &'static str,
    /// The largest value the field holds (in its core unit), for numeric options.
    pub max: Option<u64>,
}

impl TcpOptionInfo {
    /// Returns the option as a parameter of the `tcp` traffic kind.
    pub fn as_param(&self) -> ParamInfo {
        ParamInfo { name: self.name, unit: self.unit, default: self.default, help: self.help }
    }
}

/// A TCP profile in the catalog: every option's value and where it comes from.
#[derive(Debug, Clone, Serialize)]
pub struct TcpProfileInfo {
    /// Name used as `tcp = { profile = "..." }`.
    pub name: &'static str,
    /// The stack (and version) it follows.
    pub summary: &'static str,
    /// Whether it is the default of a flow group that names none.
    pub default: bool,
    /// Every option's value, as an experiment file writes it, with its source.
    pub options: Vec<TcpProfileEntry>,
    /// The resolved `TcpConfig` (JSON): what the profile gives the core.
    pub config: serde_json::Value,
}

/// One option of a profile.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct TcpProfileEntry {
    /// The option's key.
    pub option: &'static str,
    /// Its value, as an experiment file writes it.
    pub value: &'static str,
    /// Where the value comes from (`repository:path:function`, RFC §, or "derived").
    pub source: &'static str,
}

/// Defaults that say the field is absent (not set, or derived from something else).
pub const ABSENT: [&str; 7] =
    ["none", "none (required)", "auto", "the link's rate", "(required)", "end of run", "the profile's"];

/// Splits `"15ms"` into `(15.0, "ms")`.
fn split(text: &str) -> (f64, &str) {
    let at = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let number = text[..at].parse().unwrap_or_else(|_| panic!("{text}: not a number with a unit"));
    (number, &text[at..])
}

/// Returns `text` times the scale of its unit suffix in `units` (`""` must be listed to
/// allow a bare number).
fn scaled(text: &str, units: &[(&str, f64)]) -> Value {
    let (number, unit) = split(text);
    let scale = units.iter().find(|(u, _)| *u == unit).unwrap_or_else(|| panic!("{text}: unknown unit")).1;
    Value::from((number * scale).round() as u64)
}

/// Returns the core's value of a catalog default: `None` for a word meaning "absent",
/// else the number, boolean, list or name it stands for, in the core's unit.
///
/// # Panics
/// A default the unit cannot parse (the catalog's default is then wrong).
pub fn core_value(unit: &str, default: &str) -> Option<Value> {
    if ABSENT.contains(&default) {
        return None;
    }
    let value = match unit {
        "time" => scaled(default, &[("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9), ("min", 60e9)]),
        "bytes" => scaled(
            default,
            &[
                ("", 1.0),
                ("B", 1.0),
                ("KB", 1e3),
                ("MB", 1e6),
                ("GB", 1e9),
                ("KiB", 1024.0),
                ("MiB", 1048576.0),
                ("GiB", 1073741824.0),
            ],
        ),
        "pkts" | "pkts|bytes" => scaled(default, &[("", 1.0), ("pkt", 1.0), ("pkts", 1.0)]),
        "bit/s" => scaled(default, &[("", 1.0), ("bps", 1.0), ("kbps", 1e3), ("Mbps", 1e6), ("Gbps", 1e9)]),
        "bool" | "list" | "bools" | "int" | "float" => {
            serde_json::from_str(default).unwrap_or_else(|e| panic!("{default}: not a {unit} ({e})"))
        }
        "name" => Value::from(default),
        other => panic!("{default}: unknown unit {other}"),
    };
    Some(value)
}

/// Checks of catalog entries against the Rust types they describe, for the modules' tests.
#[cfg(test)]
pub(crate) mod check {
    use serde_json::Value;

    use super::{core_value, ParamInfo};

    /// Returns the core fields parameter `p` sets, by the unit contract.
    pub fn fields(p: &ParamInfo) -> Vec<String> {
        let n = p.name;
        match p.unit {
            "time" => vec![format!("{n}_ns")],
            "pkts" => vec![format!("{n}_pkts")],
            "bytes" => vec![format!("{n}_bytes")],
            "bit/s" => vec![format!("{n}_bps")],
            "pkts|bytes" => vec![format!("{n}_pkts"), format!("{n}_bytes")],
            _ => vec![n.to_string()],
        }
    }

    /// Asserts that the default of every parameter in `params` is the value (or absence) of
    /// its field(s) in `defaults`, the JSON of the Rust `Default`; `what` names the entry.
    pub fn defaults_match(what: &str, params: &[ParamInfo], defaults: &Value) {
        for p in params {
            let expected = core_value(p.unit, p.default);
            for field in fields(p) {
                let actual = defaults.get(&field).unwrap_or_else(|| panic!("{what}.{}: no field {field}", p.name));
                match &expected {
                    None => assert!(
                        actual.is_null(),
                        "{what}.{}: catalog says {:?}, Default has {actual}",
                        p.name,
                        p.default
                    ),
                    Some(v) => assert!(
                        numbers_equal(v, actual),
                        "{what}.{}: catalog says {:?} ({v}), Default has {actual}",
                        p.name,
                        p.default
                    ),
                }
            }
        }
    }

    /// Compares two JSON values, numbers by value (so `10` equals `10.0`).
    fn numbers_equal(a: &Value, b: &Value) -> bool {
        match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        }
    }

    #[test]
    fn defaults_parse_in_their_units() {
        assert_eq!(core_value("time", "5ms"), Some(Value::from(5_000_000u64)));
        assert_eq!(core_value("bytes", "32MiB"), Some(Value::from(32u64 << 20)));
        assert_eq!(core_value("bytes", "32MB"), Some(Value::from(32_000_000u64)));
        assert_eq!(core_value("pkts", "10"), Some(Value::from(10u64)));
        assert_eq!(core_value("float", "0.1"), Some(Value::from(0.1)));
        assert_eq!(core_value("list", "[]"), Some(Value::Array(vec![])));
        assert_eq!(core_value("pkts|bytes", "none"), None);
    }

    #[test]
    #[should_panic(expected = "catalog says")]
    fn a_default_that_differs_from_the_rust_default_fails() {
        let p = ParamInfo { name: "memory_limit", unit: "bytes", default: "32MB", help: "" };
        defaults_match("fq_codel", &[p], &serde_json::json!({"memory_limit_bytes": 32u64 << 20}));
    }
}
