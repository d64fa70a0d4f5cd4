//! TCP at segment level: sender, receiver, RTT estimation and congestion controls.
//!
//! The model follows the RFCs named in each file and Linux where they leave room; the
//! choices are listed in `docs/tcp.md`. Both endpoints talk to the rest of the simulator only
//! through an [`Outbox`](crate::outbox::Outbox) (packets to send, timers to set), so they
//! can be tested by hand-feeding packets.

pub mod cc;
mod config;
mod receiver;
mod rtt;
mod sack;
mod sender;
mod stream;
mod wire;

pub use config::{CcKind, TcpConfig, OPTIONS};
pub use receiver::{Delivery, TcpReceiver};
pub use rtt::RttEstimator;
pub use sack::Scoreboard;
pub use sender::{SenderStats, TcpSender};
pub use wire::{WireFormat, WireSizes};

#[cfg(test)]
pub(crate) mod testing;
