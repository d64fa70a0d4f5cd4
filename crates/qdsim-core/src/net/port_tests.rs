//! The port's books on hand-built sequences: conservation, pass-throughs, drops, waits.

use super::*;
use crate::qdisc::testing::pkt;
use crate::qdisc::{Fifo, FifoParams};

fn fifo_port(limit: u64) -> Port {
    let fifo = Fifo::new(FifoParams { limit_pkts: Some(limit), limit_bytes: None });
    Port::new(AnyQdisc::Fifo(fifo), crate::rng::stream(1, "qdisc", 0))
}

/// What a port reports of its books: counters, queue-length means and peaks, sojourns.
fn books(p: &Port, now: Time) -> (PortCounters, ReasonCounters, f64, u64, f64, u64, Option<u64>) {
    let ([mean_pkts, mean_bytes], max_pkts) = (p.mean_queue(now), p.max_queue_pkts());
    let (c, r) = (p.counters.clone(), p.reasons.clone());
    let sojourn = p.sojourn().expect("kept");
    (c, r, mean_pkts, max_pkts, mean_bytes, sojourn.count(), sojourn.quantile(0.5))
}

#[test]
fn a_port_without_the_waits_distribution_books_the_rest_alike() {
    // Two ports, one keeping the waits' distribution and one not, the same packets: the
    // same counters and queue length; the mean wait from the counters is the kept
    // distribution's mean; the other has no distribution and recorded no wait.
    let (mut kept, mut not) = (fifo_port(10), fifo_port(10));
    not.keep_waits(false);
    for p in [&mut kept, &mut not] {
        p.start_window(Time(0));
        for i in 0..4 {
            assert!(p.enqueue(pkt(i, 500 + 100 * i), Time(10 * i as u64)).is_empty());
        }
        for t in [100, 250, 400, 401] {
            assert!(p.dequeue(Time(t)).is_some());
        }
    }
    let sojourn = kept.sojourn().expect("kept");
    assert_eq!((sojourn.count(), kept.mean_sojourn()), (4, sojourn.mean()));
    assert_eq!(kept.mean_sojourn(), Some((100.0 + 240.0 + 380.0 + 371.0) / 4.0));
    assert!(not.sojourn().is_none());
    assert_eq!(not.waits().count(), 0, "no wait recorded");
    assert_eq!(not.mean_sojourn(), kept.mean_sojourn());
    assert_eq!((not.counters.clone(), not.mean_queue(Time(500))), (kept.counters.clone(), kept.mean_queue(Time(500))));
}

#[test]
fn a_queue_emptied_by_drops_at_dequeue_is_empty_from_then() {
    // DRR with drop-on-dequeue (T_D = 100 ns): two packets wait 1000 ns, both are dropped
    // as the transmitter asks at 1000 and nothing is sent; a third waits from 2000.
    let params = crate::qdisc::FqParams { buffer: "drop_on_dequeue".into(), t_d_ns: Some(100), ..Default::default() };
    let mut p = Port::new(AnyQdisc::Drr(crate::qdisc::Multi::drr(params)), crate::rng::stream(1, "qdisc", 0));
    p.start_window(Time(0));
    for i in 0..2 {
        assert!(p.enqueue(pkt(i, 500), Time(0)).is_empty());
    }
    assert!(p.dequeue(Time(1_000)).is_none());
    assert_eq!(p.last_drops().len(), 2);
    assert!(p.enqueue(pkt(2, 500), Time(2_000)).is_empty());
    // Two packets for 1000 ns, none for 1000, one for 1000: a mean of 1 over 3000 ns
    // (5/3 if the length fell only when the next packet came).
    assert_eq!(p.mean_queue(Time(3_000)), [1.0, 500.0]);
    p.check_conservation().unwrap();
}

#[test]
fn a_pass_through_after_a_drop_hands_out_no_drops() {
    let fifo = Fifo::new(FifoParams { limit_pkts: Some(10), limit_bytes: Some(1000) });
    let mut p = Port::new(AnyQdisc::Fifo(fifo), crate::rng::stream(1, "qdisc", 0));
    // Too large for the queue, which stays empty: the call's drop is handed out.
    assert_eq!(p.enqueue(pkt(1, 1500), Time(10)).len(), 1);
    let mut small = pkt(2, 500);
    assert!(p.passes_through(&small));
    p.pass_through(&mut small, Time(20));
    assert!(p.last_drops().is_empty(), "the earlier call's drop is not this one's");
    assert_eq!((p.counters.arrivals, p.counters.departures, p.reasons.total_drops()), (2, 1, 1));
    p.check_conservation().unwrap();
    // Nor does one after a call that dropped nothing.
    let mut again = pkt(3, 500);
    p.pass_through(&mut again, Time(30));
    assert!(p.last_drops().is_empty());
}

#[test]
fn a_pass_through_books_what_an_offer_then_a_dequeue_would() {
    let (mut queued, mut passed) = (fifo_port(10), fifo_port(10));
    for p in [&mut queued, &mut passed] {
        p.enqueue(pkt(1, 1500), Time(0));
        p.dequeue(Time(0));
        p.start_window(Time(5));
    }
    for (i, t) in [(0u32, 10u64), (1, 35), (2, 35), (3, 90)] {
        let offered = pkt(i, 500 + 100 * i);
        assert!(passed.passes_through(&offered));
        let mut a = offered;
        passed.pass_through(&mut a, Time(t));
        queued.enqueue(offered, Time(t));
        let b = queued.dequeue(Time(t)).unwrap();
        assert_eq!((a.enq_time, a.queue_delay_ns), (b.enq_time, b.queue_delay_ns));
    }
    assert_eq!(books(&passed, Time(120)), books(&queued, Time(120)));
    assert!(passed.last_drops().is_empty());
    // A queue that holds a packet, or has no room, does not let one through.
    passed.enqueue(pkt(9, 100), Time(130));
    assert!(!passed.passes_through(&pkt(9, 100)));
    assert!(!fifo_port(0).passes_through(&pkt(9, 100)));
}

#[test]
fn a_deferred_wait_is_the_callers_to_record_and_the_books_come_out_the_same() {
    let (mut at_once, mut deferred) = (fifo_port(10), fifo_port(10));
    deferred.defer_waits(true);
    let mut taken = Vec::new();
    for p in [&mut at_once, &mut deferred] {
        p.start_window(Time(0));
    }
    for (i, t) in [(0u32, 10u64), (1, 110), (2, 210), (3, 310), (4, 410)] {
        for p in [&mut at_once, &mut deferred] {
            p.enqueue(pkt(2 * i, 500), Time(t));
            p.enqueue(pkt(2 * i + 1, 500), Time(t));
        }
        for at in [t + 3, t + 40 + 7 * i as u64] {
            at_once.dequeue(Time(at));
            deferred.dequeue(Time(at));
            taken.push(deferred.take_wait());
            assert_eq!(deferred.take_wait(), 0, "taken once");
        }
    }
    assert_eq!(taken.len(), 10);
    assert!(taken.iter().all(|&w| w > 0));
    // A wait not yet taken is in the sojourns already; the taken ones once recorded.
    deferred.enqueue(pkt(20, 500), Time(600));
    at_once.enqueue(pkt(20, 500), Time(600));
    deferred.dequeue(Time(660));
    at_once.dequeue(Time(660));
    assert_ne!(books(&deferred, Time(700)), books(&at_once, Time(700)), "ten waits taken, not recorded");
    for &w in taken.iter().rev() {
        deferred.record_wait(Histogram::bucket(w) as usize, w);
    }
    assert_eq!(books(&deferred, Time(700)), books(&at_once, Time(700)));
    // Switched back, the port records the wait it held.
    deferred.defer_waits(false);
    assert_eq!(deferred.take_wait(), 0);
    assert_eq!(books(&deferred, Time(700)), books(&at_once, Time(700)));
}

#[test]
fn the_sojourn_histogram_holds_every_departure_of_the_window_zeros_included() {
    let mut p = fifo_port(10);
    // Before the window: booked in the counters only.
    p.enqueue(pkt(0, 500), Time(0));
    p.dequeue(Time(40));
    assert_eq!(p.sojourn().expect("kept").count(), 0, "no window yet: no samples, though one departure");
    p.start_window(Time(50));
    // One packet passed through at t (a sojourn of 0), or two offered at t, dequeued at t
    // and at t + wait (0, then wait).
    let mut reference = Histogram::new();
    for (i, t, wait) in [(1, 60, None), (2, 70, Some(30)), (4, 110, None), (5, 120, Some(70))] {
        reference.record(0);
        match wait {
            None => p.pass_through(&mut pkt(i, 500), Time(t)),
            Some(wait) => {
                p.enqueue(pkt(i, 500), Time(t));
                p.enqueue(pkt(i + 1, 500), Time(t));
                p.dequeue(Time(t));
                p.dequeue(Time(t + wait));
                reference.record(wait);
            }
        }
    }
    let h = p.sojourn().expect("kept");
    assert_eq!((h.count(), h.mean()), (6, reference.mean()));
    for q in [0.0, 0.5, 0.6, 0.8, 0.9, 1.0] {
        assert_eq!(h.quantile(q), reference.quantile(q), "quantile {q}");
    }
    assert_eq!(h.quantile(0.5), Some(0));
}
