//! Active queue management: single-queue AQMs, one algorithm per file.
//!
//! - [`codel`]: CoDel (RFC 8289), with the [`Codel`] control law that FQ-CoDel reuses per flow.
//!
//! Every AQM here reports its drops through [`super::QdiscCtx`] with a reason naming the
//! rule that fired (`early`, `forced`, `target_exceeded`, `overflow`, ...), and marks ECN
//! capable packets instead of dropping them when its `ecn` parameter is set. Random draws
//! come only from `ctx.rng`, so a run is a function of its seed.

pub mod codel;

pub use codel::{Codel, CodelParams, CodelQdisc, CodelQueue, CodelVars};
