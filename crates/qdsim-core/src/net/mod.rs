//! The network: nodes, unidirectional links with their output port, and static routing.
//!
//! A link serialises one packet at a time at its rate, then the packet propagates for the
//! link's delay. Propagation is a per-link FIFO "delay line": with a constant delay,
//! packets arrive in the order they were sent, so only the head of each line needs an event
//! in the global queue — the heap stays O(links), not O(packets in flight). A host's
//! processing delay (`host.rs`) is a line of the same kind in front of the host's links.

mod host;
mod link;
mod port;
mod routing;

pub use host::HostLine;
pub use link::{EarlyEnd, Link, LinkCounters, TxOutcome, TxStart, WIRE_LOSS};
pub use port::{Drops, Port, PortCounters, ReasonCounters};
pub use routing::{Routes, NO_ROUTE};
