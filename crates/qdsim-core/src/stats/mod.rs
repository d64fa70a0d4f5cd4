//! Statistics collected during a run: cheap counters, time-weighted means and delay
//! histograms. Everything here is O(1) per packet and allocation-free after start-up.
//!
//! The measurement window starts at the warm-up time: collectors either snapshot their
//! counters then ([`Counters`] users) or reset their accumulation ([`QueueArea`],
//! [`Histogram`]).

mod histogram;
mod occupancy;
mod queue_area;

pub use histogram::Histogram;
pub use occupancy::Occupancy;
pub use queue_area::QueueArea;

/// A snapshot-able set of monotone counters: window value = final − value at warm-up.
pub trait Counters: Clone + Default {
    /// Returns `self − earlier`, field by field.
    fn since(&self, earlier: &Self) -> Self;
}

/// Implements [`Counters`] for a struct of `u64` counters, subtracting each named field:
/// `counters_since!(LinkCounters { tx_pkts, tx_bytes })`.
macro_rules! counters_since {
    ($ty:ident { $($field:ident),+ $(,)? }) => {
        impl $crate::stats::Counters for $ty {
            fn since(&self, earlier: &Self) -> Self {
                $ty { $($field: self.$field - earlier.$field),+ }
            }
        }
    };
}
pub(crate) use counters_since;
