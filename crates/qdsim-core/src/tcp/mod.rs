//! TCP at segment level: sender, receiver, RTT estimation and congestion controls.
//!
//! The model follows the RFCs named in each file; where stacks differ (loss recovery, the
//! RTO, delayed ACKs) each way is an option, and a profile (`profiles.rs`: `ns3`, the default,
//! `ns2-sack1`, `linux-2.6`, `rfc`) sets every option as one stack does. The choices are
//! listed in `docs/tcp.md` and `docs/tcp-profiles.md`. Both endpoints talk to the rest of the simulator only
//! through an [`Outbox`](crate::outbox::Outbox) (packets to send, timers to set), so they
//! can be tested by hand-feeding packets.

pub mod cc;
mod config;
mod options;
pub mod profiles;
mod receiver;
mod rtt;
mod sack;
mod sender;
mod stream;
mod wire;

pub use config::{
    ByteCounting, CcKind, HyStartKind, InitialWindow, IwRule, LimitedTransmit, PrrBound, RecoverCheck, RecoveryExit,
    RecoveryKind, ReductionBase, RescueRetransmit, RtoFormula, RtoRestart, SynLoss, TcpConfig, TimeoutSsthresh,
    WindowArithmetic,
};
pub use options::{key_uses, OPTIONS};
pub use receiver::{Delivery, TcpReceiver};
pub use rtt::RttEstimator;
pub use sack::Scoreboard;
pub use sender::{SenderStats, TcpSender};
pub use wire::{WireFormat, WireSizes, BASE_HEADER_BYTES};

#[cfg(test)]
pub(crate) mod testing;
