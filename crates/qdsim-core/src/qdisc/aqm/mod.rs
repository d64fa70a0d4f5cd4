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
mod periodic;
pub mod pie;
pub mod red;

pub use ared::{Ared, AredParams};
pub use blue::{Blue, BlueParams};
pub use codel::{Codel, CodelParams, CodelQdisc, CodelQueue, CodelVars};
pub use pie::{Pie, PieParams};
pub use red::{Red, RedParams};

pub(crate) use periodic::Periodic;

use crate::catalog::ParamInfo;

/// The `ecn` parameter of the AQMs that drop by default (CoDel, PIE, Blue: off, as Linux).
const ECN_PARAM: ParamInfo =
    ParamInfo { name: "ecn", unit: "bool", default: "false", help: "mark ECN-capable packets instead of dropping" };
