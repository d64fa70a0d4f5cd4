//! Buffer policies of the multi-queue qdiscs: which packets are dropped, and when.
//!
//! Combinable with any scheduler of [`crate::qdisc::sched`], one policy per file:
//! - [`Shared`] (`shared`): one buffer of `S_B` packets or bytes with McKenney's buffer
//!   stealing (Menth et al. §2.2, "drop-on-enqueue");
//! - [`DropOnDequeue`] (`drop_on_dequeue`): heads older than `T_D` are dropped as they are
//!   chosen to leave (Menth et al. §4.1);
//! - [`PerQueue`] (`per_queue`): a static byte limit per queue, tail drop;
//! - [`Ewfq`] (`ewfq`): one shared buffer with EWFQ's weighted differential dropping (Lu,
//!   Voelker & Snoeren §III–IV);
//! - the discard policies of Kantawala & Turner (2005) and ns-2's DRR they compare with:
//!   [`Ns2Lqd`] (`ns2_lqd`), [`Qsdrr`] (`qsdrr`), [`Tdrr`] (`tdrr`), [`Dtdrr`] (`dtdrr`) and
//!   [`Dsdrr`] (`dsdrr`); what they share is in `push_out.rs`.
//!
//! A policy implements [`Policy`]: it is built (and its keys checked) from [`FqParams`],
//! decides every arrival — possibly dropping queued packets first — and may drop the head
//! the scheduler chose. Adding one is a file here plus a line in the `policies!` list below
//! (its keys go into [`FqParams`], its name into the `buffer` key's help; its `PARAMS` are the
//! keys it reads, so that a file setting one under another policy is refused).
//!
//! A policy only ever drops the arriving packet or a queue's head, so the scheduler hears of
//! every change through `enqueued`, `sent` and `head_dropped`.

mod drop_on_dequeue;
mod dsdrr;
mod dtdrr;
mod ewfq;
mod ns2_lqd;
mod per_queue;
mod push_out;
mod qsdrr;
mod shared;
mod tdrr;
#[cfg(test)]
mod testing;

pub use drop_on_dequeue::DropOnDequeue;
pub use dsdrr::Dsdrr;
pub use dtdrr::Dtdrr;
pub use ewfq::Ewfq;
pub use ns2_lqd::Ns2Lqd;
pub use per_queue::PerQueue;
pub use qsdrr::Qsdrr;
pub use shared::Shared;
pub use tdrr::Tdrr;

use super::FqParams;
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, Probe, QdiscCtx};
use crate::time::Time;

/// A buffer policy.
pub trait Policy: Sized {
    /// The experiment-file keys the policy reads (beyond `buffer`), for the catalog; a key
    /// another policy listed first (`limit`) is listed once.
    const PARAMS: &'static [ParamInfo];

    /// Builds the policy from the multi-queue parameters, checking the keys it needs.
    ///
    /// # Errors
    /// A key the policy needs that is missing or out of range.
    fn from_params(p: &FqParams) -> Result<Self, ConfigError>;

    /// Checks the range of every key the policy owns, whatever the `buffer` (a bad value is
    /// a mistake even where it is not used). Default: none to check.
    ///
    /// # Errors
    /// The first of its keys out of range.
    fn check_keys(_p: &FqParams) -> Result<(), ConfigError> {
        Ok(())
    }

    /// Decides an arrival `pkt` for queue `q`: `Ok` to queue it, or the reason it is dropped.
    /// May drop queued heads first, reporting each through `ctx` and telling `sched`.
    fn admit<S: Scheduler>(
        &mut self,
        q: usize,
        pkt: &Packet,
        queues: &mut Queues,
        sched: &mut S,
        ctx: &mut QdiscCtx,
    ) -> Result<(), DropReason>;

    /// Returns why the head `p`, chosen to leave at `now`, is dropped instead, if it is.
    /// Default: never.
    fn drop_at_dequeue(&self, _p: &Packet, _now: Time) -> Option<DropReason> {
        None
    }

    /// Handles the qdisc's timer at `now`, which the policy requested through `ctx` in an
    /// earlier call (in `admit`, the arrival's `enq_time` is the current time: the port
    /// stamps it). Default: nothing.
    fn on_timer(&mut self, _now: Time, _queues: &Queues, _ctx: &mut QdiscCtx) {}

    /// Reports the policy's internal variables ([`crate::qdisc::Qdisc::internals`]).
    /// Default: none.
    fn internals(&self, _probe: &mut dyn Probe) {}

    /// The head `p` of queue `q` left on the link at `now` (`queues` without it): for
    /// policies that keep per-queue state (a discard bit cleared when the queue empties, a
    /// throughput average). Default: nothing.
    fn sent(&mut self, _q: usize, _p: &Packet, _queues: &Queues, _now: Time) {}
}

/// Returns whether `pkt` fits within the total limits, given what is queued.
pub(crate) fn fits_total(queues: &Queues, pkt: &Packet, limit_pkts: Option<u64>, limit_bytes: Option<u64>) -> bool {
    limit_pkts.is_none_or(|l| queues.total_pkts() < l)
        && limit_bytes.is_none_or(|l| queues.total_bytes() + pkt.size_bytes as u64 <= l)
}

/// Declares every buffer policy once — its [`BufferPolicy`] variant, type and `buffer` name —
/// and generates the enum, the selection by name, the dispatch and the catalog keys.
macro_rules! policies {
    ($($(#[$doc:meta])* $variant:ident($policy:ty) = $name:literal;)*) => {
        /// One of the buffer policies, for static dispatch.
        #[derive(Debug, Clone, PartialEq)]
        pub enum BufferPolicy {
            $($(#[$doc])* $variant($policy),)*
        }

        /// Every policy's name, as the `buffer` key takes it.
        pub const NAMES: &[&str] = &[$($name),*];

        impl BufferPolicy {
            /// Checks the keys of every policy ([`Policy::check_keys`]).
            ///
            /// # Errors
            /// The first key out of range, in policy order.
            pub fn check_every_policy_s_keys(p: &FqParams) -> Result<(), ConfigError> {
                $(<$policy as Policy>::check_keys(p)?;)*
                Ok(())
            }

            /// Returns every policy's name and keys, in policy order.
            pub fn params_by_policy() -> [(&'static str, &'static [ParamInfo]); NAMES.len()] {
                [$(($name, <$policy as Policy>::PARAMS)),*]
            }

            /// Returns the catalog entries of every policy's keys, each key once.
            pub fn params() -> Vec<ParamInfo> {
                let mut v: Vec<ParamInfo> = Vec::new();
                for p in [$(<$policy as Policy>::PARAMS),*].into_iter().flatten() {
                    if !v.iter().any(|q| q.name == p.name) {
                        v.push(p.clone());
                    }
                }
                v
            }
        }

        impl Policy for BufferPolicy {
            const PARAMS: &'static [ParamInfo] = &[];

            /// Builds the policy named by `buffer`.
            fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
                match p.buffer.as_str() {
                    $($name => Ok(BufferPolicy::$variant(<$policy>::from_params(p)?)),)*
                    other => Err(ConfigError::new("buffer", other, one_of(NAMES))),
                }
            }

            fn admit<S: Scheduler>(
                &mut self,
                q: usize,
                pkt: &Packet,
                queues: &mut Queues,
                sched: &mut S,
                ctx: &mut QdiscCtx,
            ) -> Result<(), DropReason> {
                match self {
                    $(BufferPolicy::$variant(b) => b.admit(q, pkt, queues, sched, ctx),)*
                }
            }

            fn drop_at_dequeue(&self, p: &Packet, now: Time) -> Option<DropReason> {
                match self {
                    $(BufferPolicy::$variant(b) => b.drop_at_dequeue(p, now),)*
                }
            }

            fn on_timer(&mut self, now: Time, queues: &Queues, ctx: &mut QdiscCtx) {
                match self {
                    $(BufferPolicy::$variant(b) => b.on_timer(now, queues, ctx),)*
                }
            }

            fn internals(&self, probe: &mut dyn Probe) {
                match self {
                    $(BufferPolicy::$variant(b) => b.internals(probe),)*
                }
            }

            fn sent(&mut self, q: usize, p: &Packet, queues: &Queues, now: Time) {
                match self {
                    $(BufferPolicy::$variant(b) => b.sent(q, p, queues, now),)*
                }
            }
        }
    };
}

policies! {
    /// Shared buffer with longest-queue (buffer stealing) drop on enqueue.
    Shared(Shared) = "shared";
    /// Drop at dequeue of packets older than `T_D`.
    DropOnDequeue(DropOnDequeue) = "drop_on_dequeue";
    /// Static per-queue byte limits with tail drop.
    PerQueue(PerQueue) = "per_queue";
    /// A shared buffer with EWFQ's weighted differential dropping.
    Ewfq(Ewfq) = "ewfq";
    /// ns-2's DRR longest-queue drop (by bytes, enqueue first, scan from the DRR pointer).
    Ns2Lqd(Ns2Lqd) = "ns2_lqd";
    /// QSDRR: drop from the current drop queue, with hysteresis.
    Qsdrr(Qsdrr) = "qsdrr";
    /// TDRR: drop from the queue with the highest EWMA throughput.
    Tdrr(Tdrr) = "tdrr";
    /// DTDRR: dynamic threshold on arrival.
    Dtdrr(Dtdrr) = "dtdrr";
    /// DSDRR: dynamic threshold with discard bits and an adaptive bound.
    Dsdrr(Dsdrr) = "dsdrr";
}

/// Returns `"a, b or c"`.
fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_name_is_refused_with_every_known_one() {
        let p = FqParams { buffer: "infinite".into(), ..FqParams::default() };
        let e = BufferPolicy::from_params(&p).unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.allowed.as_str()),
            ("buffer", "shared, drop_on_dequeue, per_queue, ewfq, ns2_lqd, qsdrr, tdrr, dtdrr or dsdrr")
        );
    }

    #[test]
    fn a_policy_s_bad_key_is_refused_whatever_the_buffer() {
        use crate::qdisc::QdiscParams;
        let p = FqParams { dsdrr_w0: 0.0, ..FqParams::default() };
        assert_eq!((p.buffer.as_str(), p.validate().unwrap_err().key.as_str()), ("shared", "dsdrr_w0"));
        let p = FqParams { buffer: "qsdrr".into(), tdrr_period_ns: 0, ..FqParams::default() };
        assert_eq!(p.validate().unwrap_err().key, "tdrr_period");
    }

    #[test]
    fn every_key_is_listed_once_in_policy_order() {
        let names: Vec<&str> = BufferPolicy::params().iter().map(|p| p.name).collect();
        assert_eq!(&names[..3], ["limit", "t_d", "queue_limits"]);
        assert!(names[3..].contains(&"ewfq_rtt_o"), "{names:?}");
        assert!(names[3..].contains(&"dsdrr_w_max"), "{names:?}");
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }

    /// Returns `p` with the field behind the catalog key `key` changed to another valid value.
    fn perturbed(mut p: FqParams, key: &str) -> FqParams {
        const MS: u64 = 1_000_000;
        match key {
            "limit" => p.limit_bytes = Some(200_000),
            "t_d" => p.t_d_ns = Some(6 * MS),
            "queue_limits" => p.queue_limits = vec![20_000],
            "ewfq_alpha" => p.ewfq_alpha = 0.5,
            "ewfq_beta" => p.ewfq_beta = 1.2,
            "ewfq_f_s" => p.ewfq_f_s = 50.0,
            "ewfq_t_i" => p.ewfq_t_i_ns = 2_000 * MS,
            "ewfq_window" => p.ewfq_window_ns = Some(50 * MS),
            "ewfq_ceiling" => p.ewfq_ceiling = "fair_share".into(),
            "ewfq_p_c" => p.ewfq_p_c = 0.2,
            "ewfq_k" => p.ewfq_k = 2,
            "ewfq_cache_size" => p.ewfq_cache_size = 50,
            "ewfq_p_miss" => p.ewfq_p_miss = 0.2,
            "ewfq_hold_fraction" => p.ewfq_hold_fraction = 0.25,
            "ewfq_rtt_o" => p.ewfq_rtt_o_ns = Some(200 * MS),
            "ewfq_size_p" => p.ewfq_size_p_bytes = Some(1000),
            "ewfq_responsive" => p.ewfq_responsive = vec![false],
            "ewfq_tcp_flows" => p.ewfq_tcp_flows = vec![3],
            "link_rate" => p.link_rate_bps = Some(20_000_000),
            "qsdrr_release" => p.qsdrr_release = "empty".into(),
            "tdrr_w" => p.tdrr_w = 0.25,
            "tdrr_period" => p.tdrr_period_ns = 20 * MS,
            "dtdrr_alpha" => p.dtdrr_alpha = 3.0,
            "dsdrr_alpha" => p.dsdrr_alpha = 0.2,
            "dsdrr_period" => p.dsdrr_period_ns = 2_000 * MS,
            "dsdrr_w0" => p.dsdrr_w0 = 0.2,
            "dsdrr_w_max" => p.dsdrr_w_max = 0.6,
            other => panic!("no perturbation for key {other}: add one"),
        }
        p
    }

    /// A policy's `PARAMS` are exactly the keys it reads: changing one of them changes the
    /// built policy, changing any other policy's key leaves it equal — what makes refusing
    /// another policy's key (`key_uses`) right, and never refusing a key that acts.
    #[test]
    fn each_policy_reads_its_keys_and_no_other_policy_s() {
        const MS: u64 = 1_000_000;
        let all = BufferPolicy::params();
        for (name, own) in BufferPolicy::params_by_policy() {
            let base = FqParams {
                buffer: name.into(),
                limit_bytes: Some(150_000),
                t_d_ns: Some(5 * MS),
                queue_limits: vec![10_000],
                ewfq_rtt_o_ns: Some(100 * MS),
                link_rate_bps: Some(10_000_000),
                ..FqParams::default()
            };
            let built = BufferPolicy::from_params(&base).unwrap_or_else(|e| panic!("{name}: {e}"));
            for key in &all {
                let changed = BufferPolicy::from_params(&perturbed(base.clone(), key.name))
                    .unwrap_or_else(|e| panic!("{name} with {} changed: {e}", key.name));
                let reads = own.iter().any(|k| k.name == key.name);
                assert_eq!(changed != built, reads, "buffer = {name}, key {}: read = {}", key.name, !reads);
            }
        }
    }
}
