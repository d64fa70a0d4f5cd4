//! The parameters of the multi-queue qdiscs (`drr`, `drr_lds`, `wfq`, `wf2q_plus`, `fifo_classes`): one flat
//! table of keys, the classifier and buffer policy named by `classifier` and `buffer`.

use serde::{Deserialize, Serialize};

use super::buffer::{BufferPolicy, Policy};
use crate::catalog::{AlgorithmInfo, KeyUse, ParamInfo};
use crate::error::ConfigError;
use crate::qdisc::classify::{Classifier, MAX_QUEUES};
use crate::qdisc::QdiscParams;

/// Parameters shared by `drr`, `drr_lds`, `wfq`, `wf2q_plus` and `fifo_classes` (flat, one key each).
///
/// A qdisc's catalog lists only the keys its scheduler reads (`quantum` for DRR, `d_max` for
/// DRR-LDS); a buffer policy's keys (`t_d` for drop-on-dequeue, ...), the hashed classifiers'
/// `buckets` and `fifo_classes`' `weights` are read only under their `buffer` or
/// `classifier` ([`crate::qdisc::key_uses`]), and an experiment file setting one elsewhere is refused; here,
/// in the core, they are left at their value. Defaults: Menth,
/// Mehl & Veith 2017 (DRR-LDS) where they give one, Linux `sfq` for the hashed classifier.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FqParams {
    /// `per_flow`, `per_user`, `hashed` or `ns2_hash`. Default `per_flow`.
    pub classifier: String,
    /// Buckets of the `hashed` classifier. Default 1024 (Linux `sfq` `divisor`).
    pub buckets: i64,
    /// Weight of queue i (queues beyond the list weigh 1); each at least 1.
    pub weights: Vec<i64>,
    /// DRR quantum in bytes (§2.2). Default 1500 (one Ethernet MTU; Menth et al. §4.1).
    pub quantum_bytes: i64,
    /// DRR-LDS deficit saving limit `D_max`, in quanta (§3). Default 10 (project choice: the
    /// paper's findings need `D_max` ≥ 10 with drop-on-enqueue, §4).
    pub d_max: i64,
    /// The buffer policy: `shared`, `drop_on_dequeue`, `per_queue`, `ewfq`, `ns2_lqd`, `qsdrr`,
    /// `tdrr`, `dtdrr` or `dsdrr` (see `buffer/`). Default `shared`.
    pub buffer: String,
    /// Buffer size `S_B` in packets (shared; optional for drop_on_dequeue).
    pub limit_pkts: Option<u64>,
    /// Buffer size `S_B` in bytes (shared; optional for drop_on_dequeue).
    pub limit_bytes: Option<u64>,
    /// Delay threshold `T_D` of drop-on-dequeue, ns.
    pub t_d_ns: Option<u64>,
    /// Per-queue byte limits of `per_queue` (the last repeats).
    pub queue_limits: Vec<i64>,
    /// EWFQ's m_fair gain α on Q_old − q_target. Default 0.85 (Lu et al. §V).
    pub ewfq_alpha: f64,
    /// EWFQ's m_fair gain β on Q_now − q_target. Default 0.9 (§V).
    pub ewfq_beta: f64,
    /// EWFQ's m_fair updates per second, f_s (Hz). Default 100 (§V).
    pub ewfq_f_s: f64,
    /// EWFQ's measurement interval t_i, ns. Default 1 s (§V).
    pub ewfq_t_i_ns: u64,
    /// EWFQ's control window W of the m_fair update, ns; `None` = the time of the last
    /// `ewfq_cache_size` arrivals, AFD's shadow buffer (`buffer/ewfq.rs`, `Window`).
    pub ewfq_window_ns: Option<u64>,
    /// EWFQ's ceiling of m_fair: `link` (link rate × t_i, the default) or `fair_share`.
    pub ewfq_ceiling: String,
    /// EWFQ's packet cache insertion probability p_c. Default 0.1 (§V).
    pub ewfq_p_c: f64,
    /// EWFQ's match-hit stages k. Default 1 (§V).
    pub ewfq_k: i64,
    /// EWFQ's packet cache slots. Default 100 (project choice, docs/algorithms/ewfq.md).
    pub ewfq_cache_size: i64,
    /// EWFQ's chance to miss a class at its fair share in an interval. Default 0.1 (§V).
    pub ewfq_p_miss: f64,
    /// EWFQ: a held class sending less than this share of its fair bytes in an interval
    /// leaves the holding table. Default 0.5 (project choice, docs/algorithms/ewfq.md).
    pub ewfq_hold_fraction: f64,
    /// EWFQ's RTT_o, an assumed maximum RTT, ns (required by `ewfq`).
    pub ewfq_rtt_o_ns: Option<u64>,
    /// EWFQ's size_p, bytes; `None` = each class's measured mean packet size.
    pub ewfq_size_p_bytes: Option<u64>,
    /// EWFQ: whether class i is responsive (equation 2) or not (footnote 1); missing = true.
    pub ewfq_responsive: Vec<bool>,
    /// EWFQ's n_i, TCP flows of class i (§IV-A); missing = 1.
    pub ewfq_tcp_flows: Vec<i64>,
    /// The link's rate (EWFQ's ceiling of m_fair); filled from the link unless set.
    pub link_rate_bps: Option<u64>,
    /// QSDRR's release rule, `shortest` or `empty` (`buffer/qsdrr.rs`). Default `shortest`.
    pub qsdrr_release: String,
    /// TDRR's EWMA weight `w`. Default 1/16 (`buffer/tdrr.rs`).
    pub tdrr_w: f64,
    /// TDRR's averaging period `Δ`, ns. Default 10 ms (`buffer/tdrr.rs`).
    pub tdrr_period_ns: u64,
    /// DTDRR's α. Default 2 (Kantawala & Turner 2005, §3.1).
    pub dtdrr_alpha: f64,
    /// DSDRR's α. Default 0.1 (§3.2).
    pub dsdrr_alpha: f64,
    /// DSDRR's period `T`, ns. Default 1 s (§3.2).
    pub dsdrr_period_ns: u64,
    /// DSDRR's initial `W` as a fraction of the queues. Default 0.1 (§3.2).
    pub dsdrr_w0: f64,
    /// DSDRR's `W_max` as a fraction of the queues. Default 0.5 (§3.2).
    pub dsdrr_w_max: f64,
}

impl Default for FqParams {
    fn default() -> Self {
        FqParams {
            classifier: "per_flow".into(),
            buckets: 1024,
            weights: vec![],
            quantum_bytes: 1500,
            d_max: 10,
            buffer: "shared".into(),
            limit_pkts: None,
            limit_bytes: None,
            t_d_ns: None,
            queue_limits: vec![],
            ewfq_alpha: 0.85,
            ewfq_beta: 0.9,
            ewfq_f_s: 100.0,
            ewfq_t_i_ns: 1_000_000_000,
            ewfq_window_ns: None,
            ewfq_ceiling: "link".into(),
            ewfq_p_c: 0.1,
            ewfq_k: 1,
            ewfq_cache_size: 100,
            ewfq_p_miss: 0.1,
            ewfq_hold_fraction: 0.5,
            ewfq_rtt_o_ns: None,
            ewfq_size_p_bytes: None,
            ewfq_responsive: vec![],
            ewfq_tcp_flows: vec![],
            link_rate_bps: None,
            qsdrr_release: "shortest".into(),
            tdrr_w: 0.0625,
            tdrr_period_ns: 10_000_000,
            dtdrr_alpha: 2.0,
            dsdrr_alpha: 0.1,
            dsdrr_period_ns: 1_000_000_000,
            dsdrr_w0: 0.1,
            dsdrr_w_max: 0.5,
        }
    }
}

impl QdiscParams for FqParams {
    /// Checks every parameter's range and the names of classifier and buffer policy.
    ///
    /// The first bad key: an unknown classifier or buffer, buckets < 1, a weight < 1, a
    /// quantum < 1 byte, a negative `d_max`, a zero limit, per-queue limits < 1 byte, or a
    /// key the buffer policy needs but is missing.
    fn validate(&self) -> Result<(), ConfigError> {
        if !matches!(self.classifier.as_str(), "per_flow" | "per_user" | "hashed" | "ns2_hash") {
            return Err(ConfigError::new("classifier", &self.classifier, "per_flow, per_user, hashed or ns2_hash"));
        }
        if self.buckets < 1 || self.buckets > MAX_QUEUES as i64 {
            return Err(ConfigError::new("buckets", self.buckets, "between 1 and 65536"));
        }
        for (i, &w) in self.weights.iter().enumerate() {
            if w < 1 {
                return Err(ConfigError::new(format!("weights[{i}]"), w, "a weight of at least 1"));
            }
        }
        if self.quantum_bytes < 1 {
            return Err(ConfigError::new("quantum", self.quantum_bytes, "at least 1 byte"));
        }
        if self.d_max < 0 {
            return Err(ConfigError::new("d_max", self.d_max, "0 or more quanta (0 = plain DRR)"));
        }
        if self.limit_pkts == Some(0) {
            return Err(ConfigError::new("limit", "0pkt", "at least 1 packet, or absent for no limit"));
        }
        if self.limit_bytes == Some(0) {
            return Err(ConfigError::new("limit", "0B", "at least 1 byte, or absent for no limit"));
        }
        // Checked whatever the buffer: a bad limit is a mistake even where it is not used.
        for (i, &l) in self.queue_limits.iter().enumerate() {
            if l < 1 {
                return Err(ConfigError::new(format!("queue_limits[{i}]"), l, "at least 1 byte"));
            }
        }
        BufferPolicy::check_every_policy_s_keys(self)?;
        BufferPolicy::from_params(self).map(|_| ())
    }

    /// Takes the link's rate (EWFQ bounds `m_fair` by the link's bytes per interval).
    fn on_link(&mut self, rate_bps: u64) {
        self.link_rate_bps.get_or_insert(rate_bps);
    }
}

impl FqParams {
    /// Returns the DRR quantum in bytes.
    pub(super) fn quantum(&self) -> u64 {
        self.quantum_bytes.max(1) as u64
    }

    /// Returns DRR-LDS's `D_max` in quanta.
    pub(super) fn d_max(&self) -> u64 {
        self.d_max.max(0) as u64
    }

    /// Returns the classifier `classifier` names.
    pub(super) fn classifier(&self) -> Classifier {
        match self.classifier.as_str() {
            "per_user" => Classifier::PerUser,
            "hashed" => Classifier::Hashed { buckets: self.buckets.clamp(1, MAX_QUEUES as i64) as u32, salt: None },
            "ns2_hash" => Classifier::Ns2Hash { buckets: self.buckets.clamp(1, MAX_QUEUES as i64) as u32 },
            _ => Classifier::PerFlow,
        }
    }
}

fn common_params(with_quantum: bool, with_d_max: bool) -> Vec<ParamInfo> {
    let mut v = vec![
        ParamInfo {
            name: "classifier",
            unit: "name",
            default: "per_flow",
            help: "queue per flow (per_flow), per user id (per_user), hashed buckets (hashed), or ns-2 Queue/DRR's hash of the source address (ns2_hash)",
        },
        ParamInfo { name: "buckets", unit: "int", default: "1024", help: "number of queues of the hashed and ns2_hash classifiers" },
        ParamInfo {
            name: "weights",
            unit: "list",
            default: "[]",
            help: "weight of queue i (integers >= 1); missing entries weigh 1",
        },
    ];
    if with_quantum {
        v.push(ParamInfo {
            name: "quantum",
            unit: "bytes",
            default: "1500",
            help: "bytes added to a queue's deficit per turn, times its weight",
        });
    }
    if with_d_max {
        v.push(ParamInfo {
            name: "d_max",
            unit: "int",
            default: "10",
            help: "deficit saving limit D_max in quanta (0 = plain DRR)",
        });
    }
    v.push(ParamInfo {
        name: "buffer",
        unit: "name",
        default: "shared",
        help: "shared (longest-queue drop on enqueue), drop_on_dequeue, per_queue, ewfq (differential dropping), or the discard policies ns2_lqd, qsdrr, tdrr, dtdrr, dsdrr",
    });
    v.extend(BufferPolicy::params());
    v
}

/// Returns the keys of every multi-queue qdisc read only under a value of another key: each
/// buffer policy's keys under the policies that read them (their `PARAMS`), `buckets` under
/// the hashed classifiers, and `fifo_classes`' `weights` under `ewfq` (the only reader there:
/// its arrival-order scheduler weighs no queue).
pub(crate) fn key_uses() -> Vec<KeyUse> {
    // Each buffer key and the policies that read it, the same for every multi-queue kind.
    let by_policy = BufferPolicy::params_by_policy();
    let readers: Vec<(&'static str, Vec<&'static str>)> = BufferPolicy::params()
        .iter()
        .map(|key| {
            let names = by_policy.iter().filter(|(_, keys)| keys.iter().any(|k| k.name == key.name)).map(|(n, _)| *n);
            (key.name, names.collect())
        })
        .collect();
    let mut uses = Vec::new();
    for info in [info_drr(), info_drr_lds(), info_wfq(), info_wf2q_plus(), info_fifo_classes()] {
        let table = format!("qdisc.{}", info.name);
        for (key, names) in &readers {
            uses.push(KeyUse::new(table.clone(), key, "buffer", names));
        }
        uses.push(KeyUse::new(table.clone(), "buckets", "classifier", &["hashed", "ns2_hash"]));
        if info.name == "fifo_classes" {
            uses.push(KeyUse::new(table, "weights", "buffer", &["ewfq"]));
        }
    }
    uses
}

pub(crate) fn info_drr() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "drr",
        summary: "Deficit Round Robin (Shreedhar & Varghese 1995; Menth et al. 2017 §2.2)",
        params: common_params(true, false),
    }
}

pub(crate) fn info_drr_lds() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "drr_lds",
        summary: "DRR with Limited Deficit Savings (Menth, Mehl & Veith 2017 §3)",
        params: common_params(true, true),
    }
}

pub(crate) fn info_wfq() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "wfq",
        summary: "Weighted Fair Queueing, finish tags with self-clocked virtual time (SCFQ, Golestani 1994)",
        params: common_params(false, false),
    }
}

pub(crate) fn info_fifo_classes() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "fifo_classes",
        summary: "One FIFO (arrival order) over classified packets: a buffer policy per class, as AFD",
        params: common_params(false, false),
    }
}

pub(crate) fn info_wf2q_plus() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "wf2q_plus",
        summary: "WF2Q+: smallest finish tag among eligible heads (Bennett & Zhang 1996)",
        params: common_params(false, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::multi::buffer::NAMES;

    #[test]
    fn the_buffer_key_names_every_policy() {
        let info = info_drr();
        let buffer = info.params.iter().find(|p| p.name == "buffer").unwrap();
        for name in NAMES {
            assert!(buffer.help.contains(name), "`buffer` help does not mention {name}");
        }
    }
}
