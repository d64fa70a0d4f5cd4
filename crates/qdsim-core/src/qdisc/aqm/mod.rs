//! Active queue management: single-queue AQMs, one algorithm per file.
//!
//! - [`codel`]: CoDel (RFC 8289), with the [`Codel`] control law that FQ-CoDel reuses per flow.
//! - [`red`]: RED (Floyd & Jacobson 1993) with gentle and byte modes.
//! - [`ared`]: Adaptive RED (Floyd, Gummadi, Shenker 2001), reusing RED's estimator.
//! - [`pie`]: PIE (RFC 8033).
//! - [`blue`]: Blue (Feng et al. 1999/2002).
//!
//! FQ-CoDel (RFC 8290) is a multi-queue qdisc and lives in `qdisc/fq_codel.rs`; it runs the
//! [`Codel`] control law of [`codel`] on each of its flow queues.
//!
//! Every AQM here reports its drops through [`super::QdiscCtx`] with a reason naming the
//! rule that fired (`early`, `forced`, `target_exceeded`, `overflow`, ...), and marks ECN
//! capable packets instead of dropping them when its `ecn` parameter is set. Random draws
//! come only from `ctx.rng`, so a run is a function of its seed.

pub mod ared;
pub mod blue;
pub mod codel;
pub mod pie;
pub mod red;

pub use ared::{Ared, AredParams};
pub use blue::{Blue, BlueParams};
pub use codel::{Codel, CodelParams, CodelQdisc, CodelQueue, CodelVars};
pub use pie::{Pie, PieParams};
pub use red::{Red, RedParams};

/// The `ecn` parameter of the AQMs that drop by default (CoDel, PIE, Blue: off, as Linux).
const ECN_PARAM: super::ParamInfo = super::ParamInfo {
    name: "ecn",
    unit: "bool",
    default: "false",
    help: "mark ECN-capable packets instead of dropping",
};

#[cfg(test)]
mod tests {
    use crate::qdisc::{catalog, QdiscConfig};

    const MINE: [&str; 6] = ["codel", "red", "ared", "pie", "blue", "fq_codel"];

    fn parse(kind: &str, field: &str, value: &str) -> QdiscConfig {
        let j = format!(r#"{{"kind":"{kind}","{field}":{value}}}"#);
        serde_json::from_str(&j).unwrap_or_else(|e| panic!("{j}: {e}"))
    }

    #[test]
    fn catalog_keys_map_to_params_fields_by_the_unit_contract() {
        // The Python side turns key + unit into the core's field (python/qdsim/algorithms.py).
        let mut seen = 0;
        for info in catalog().into_iter().filter(|i| MINE.contains(&i.name)) {
            seen += 1;
            for p in &info.params {
                let n = p.name;
                let fields: Vec<(String, &str)> = match p.unit {
                    "time" => vec![(format!("{n}_ns"), "1000")],
                    "pkts" => vec![(format!("{n}_pkts"), "10")],
                    "bytes" => vec![(format!("{n}_bytes"), "1500")],
                    "bit/s" => vec![(format!("{n}_bps"), "1000000")],
                    "pkts|bytes" => vec![(format!("{n}_pkts"), "10"), (format!("{n}_bytes"), "15000")],
                    "float" => vec![(n.to_string(), "0.5")],
                    "bool" => vec![(n.to_string(), "true")],
                    "int" => vec![(n.to_string(), "16")],
                    u => panic!("{}: {n} has an unexpected unit {u}", info.name),
                };
                for (field, value) in fields {
                    assert_eq!(parse(info.name, &field, value).kind(), info.name);
                }
            }
        }
        assert_eq!(seen, MINE.len());
    }

    #[test]
    fn every_params_field_is_in_the_catalog() {
        // The reverse of the unit contract: a field the catalog forgets cannot be set from an
        // experiment file (and `qdsim list` would not show it).
        for info in catalog().into_iter().filter(|i| MINE.contains(&i.name)) {
            let defaults: QdiscConfig = serde_json::from_str(&format!(r#"{{"kind":"{}"}}"#, info.name)).unwrap();
            let json = serde_json::to_value(&defaults).unwrap();
            let covered: Vec<String> = info
                .params
                .iter()
                .flat_map(|p| {
                    let n = p.name;
                    match p.unit {
                        "time" => vec![format!("{n}_ns")],
                        "pkts" => vec![format!("{n}_pkts")],
                        "bytes" => vec![format!("{n}_bytes")],
                        "bit/s" => vec![format!("{n}_bps")],
                        "pkts|bytes" => vec![format!("{n}_pkts"), format!("{n}_bytes")],
                        _ => vec![n.to_string()],
                    }
                })
                .collect();
            for field in json.as_object().unwrap().keys().filter(|k| k.as_str() != "kind") {
                assert!(covered.contains(field), "{}: field {field} has no catalog entry", info.name);
            }
        }
    }

    #[test]
    fn defaults_are_valid_except_ared_which_needs_the_link_rate() {
        for kind in MINE {
            let c: QdiscConfig = serde_json::from_str(&format!(r#"{{"kind":"{kind}"}}"#)).unwrap();
            assert_eq!(c.validate().is_ok(), kind != "ared", "{kind}");
        }
        let c = parse("ared", "link_rate_bps", "1000000000");
        assert!(c.validate().is_ok());
        assert!(
            serde_json::from_str::<QdiscConfig>(r#"{"kind":"codel","target":5}"#).is_err(),
            "unknown keys are refused"
        );
    }
}
