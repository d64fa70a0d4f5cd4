//! A qdisc timer that fires every `period` once started: ARED's `max_p` adaptation and PIE's
//! probability update both run on one.
//!
//! It starts with the first arrival (an idle link asks for no timer), then re-arms itself at
//! every firing. The port runs a qdisc's timer at its earliest request, so a wake-up can come
//! before the period is up (another request of the same qdisc); it then keeps the schedule.

use crate::qdisc::QdiscCtx;
use crate::time::{Duration, Time};

/// A periodic timer of a qdisc.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Periodic {
    period: Duration,
    /// When the next period ends; `None` until started.
    next: Option<Time>,
}

impl Periodic {
    /// Returns a timer of `period`, not yet started.
    pub fn new(period: Duration) -> Self {
        Periodic { period, next: None }
    }

    /// Starts the timer at `now` unless it runs: the first period ends at `now + period`.
    pub fn start(&mut self, now: Time, ctx: &mut QdiscCtx) {
        if self.next.is_none() {
            let at = now + self.period;
            self.next = Some(at);
            ctx.request_timer(at);
        }
    }

    /// Handles the qdisc's timer at `now`: returns whether a period has ended (the caller
    /// runs its periodic step), re-arming for the next one; an early wake-up keeps the schedule.
    pub fn fire(&mut self, now: Time, ctx: &mut QdiscCtx) -> bool {
        match self.next {
            Some(at) if now >= at => {
                let next = now + self.period;
                self.next = Some(next);
                ctx.request_timer(next);
                true
            }
            Some(at) => {
                ctx.request_timer(at);
                false
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    #[test]
    fn starts_once_fires_each_period_and_keeps_its_schedule_on_early_wake_ups() {
        let mut ctx = QdiscCtx::new(rng::stream(1, "qdisc", 0));
        let mut t = Periodic::new(Duration::from_ms(10));
        assert!(!t.fire(Time(0), &mut ctx), "not started");
        assert_eq!(ctx.timer.take(), None);
        t.start(Time::from_ns(3_000_000), &mut ctx);
        t.start(Time::from_ns(5_000_000), &mut ctx); // already running: no second schedule
        assert_eq!(ctx.timer.take(), Some(Time::from_ns(13_000_000)));
        assert!(!t.fire(Time::from_ns(8_000_000), &mut ctx), "early");
        assert_eq!(ctx.timer.take(), Some(Time::from_ns(13_000_000)));
        assert!(t.fire(Time::from_ns(13_000_000), &mut ctx));
        assert_eq!(ctx.timer.take(), Some(Time::from_ns(23_000_000)));
    }
}
