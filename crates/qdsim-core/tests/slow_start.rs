//! A hand-computed trace of slow start: with an initial window of 10 segments, no loss and a
//! path whose serialisation time is negligible against the RTT, the sender transmits 10, 20,
//! 40, 80 segments in its first four round trips (cwnd grows by one segment per ACKed
//! segment, RFC 5681 §3.1), and each round trip is one RTT = 2 × (20 + 30) ms = 100 ms.

use crate::common::*;
use qdsim_core::time::Time;
use qdsim_core::Sim;

#[test]
fn segments_sent_per_rtt_double_in_slow_start() {
    let d = dumbbell(1_000_000_000, 30, 20, 1, 10_000);
    let cfg = d.config(1, 2 * S, S / 2);
    let mut sim = Sim::new(&cfg).unwrap();
    let mut cumulative = vec![];
    for k in 0..5 {
        // Halfway through round trip k every segment of round k is out, none of round k+1.
        sim.run_until(Time::from_ns(k * 100 * MS + 50 * MS));
        cumulative.push(sim.tcp_sender(0).unwrap().stats.sent_pkts);
    }
    let per_rtt: Vec<u64> = cumulative.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(cumulative[0], 10);
    assert_eq!(per_rtt, vec![20, 40, 80, 160]);
    assert_eq!(sim.tcp_sender(0).unwrap().stats.retransmits, 0);
}

#[test]
fn the_first_rtt_sample_matches_the_path() {
    let d = dumbbell(1_000_000_000, 30, 20, 1, 10_000);
    let mut sim = Sim::new(&d.config(1, S, 0)).unwrap();
    // Data crosses 3 links (s0->r1, r1->r2, r2->d0), each serialising 1500 B at 1 Gb/s in
    // 12 us; the 40-byte ACK crosses 3 links back at 0.32 us each. The first ACK is back at
    // 100.03696 ms; the second (segment 1 waited 12 us behind segment 0 at the sender's
    // link) 12 us later. Stop between the two.
    sim.run_until(Time::from_ns(100 * MS + 43_000));
    let srtt = sim.tcp_sender(0).unwrap().rtt.srtt.expect("one RTT has passed").as_ns();
    assert_eq!(srtt, 100 * MS + 3 * 12_000 + 3 * 320);
}
