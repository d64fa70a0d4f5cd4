//! Tests of `ewfq.rs`: hand-set inputs for the formulas, hand-built arrival sequences (with
//! fixed seeds) for identification, and the multi-queue qdisc for conservation.

use rand::seq::SliceRandom;

use super::*;
use crate::qdisc::multi::buffer::BufferPolicy;
use crate::qdisc::multi::Multi;
use crate::qdisc::sched::Arrival;
use crate::qdisc::testing::{pkt, Harness};
use crate::qdisc::{Qdisc, QdiscParams};
use crate::rng;
use proptest::prelude::*;

/// EWFQ over a 30 KB buffer on an 8 Mb/s link (m_fair's ceiling: 1 MB per 1 s interval).
fn base() -> FqParams {
    FqParams {
        buffer: "ewfq".into(),
        limit_bytes: Some(30_000),
        ewfq_rtt_o_ns: Some(200_000_000),
        link_rate_bps: Some(8_000_000),
        ..FqParams::default()
    }
}

/// Drives the policy alone: arrivals are decided but not queued, timers fire only when a
/// test calls them, so a test can hold `m_fair` where it sets it.
struct Driver {
    e: Ewfq,
    queues: Queues,
    sched: Arrival,
    ctx: QdiscCtx,
}

impl Driver {
    fn new(p: FqParams, seed: u64) -> Self {
        let e = Ewfq::from_params(&p).unwrap();
        Driver {
            e,
            queues: Queues::default(),
            sched: Arrival::new(),
            ctx: QdiscCtx::new(rng::stream(seed, "qdisc", 0)),
        }
    }

    fn arrive(&mut self, q: usize, size: u32) -> Result<(), DropReason> {
        let p = pkt(q as u32, size);
        self.e.admit(q, &p, &mut self.queues, &mut self.sched, &mut self.ctx)
    }

    /// One interval of 1000-byte packets, `(class, packets)` of each, shuffled with `order`,
    /// then the interval's end; returns whether each class was held before the end.
    fn interval(&mut self, mix: &[(usize, usize)], order: &mut StreamRng) -> Vec<bool> {
        let mut arrivals: Vec<usize> = mix.iter().flat_map(|&(q, n)| std::iter::repeat_n(q, n)).collect();
        arrivals.shuffle(order);
        for q in arrivals {
            let _ = self.arrive(q, 1000);
        }
        let held = mix.iter().map(|&(q, _)| self.e.classes[q].held).collect();
        self.e.end_interval();
        held
    }

    fn held(&self, q: usize) -> bool {
        self.e.classes.get(q).is_some_and(|c| c.held)
    }
}

/// F = m_fair = 100 kB per interval; arrivals 1 MB per interval (A): p = O_1·A/F² = 2.3e-4
/// per byte, a 1000-byte packet sampled with probability 0.23.
const F: f64 = 100_000.0;

#[test]
fn o_k_makes_a_poisson_count_fall_short_of_k_with_probability_p_miss() {
    assert!((expected_matches(1, 0.1) - 10f64.ln()).abs() < 1e-9);
    // P(N < 2) = e^−μ (1 + μ) = 0.1 at μ = 3.8897 (tables of the Poisson distribution).
    let mu = expected_matches(2, 0.1);
    assert!((mu - 3.8897).abs() < 1e-3, "{mu}");
    assert!(((-mu).exp() * (1.0 + mu) - 0.1).abs() < 1e-9);
}

#[test]
fn a_class_at_twice_its_fair_share_is_held_within_three_intervals() {
    // Class 0 sends 2F, class 1 F/10, class 2 the rest of A = 1 MB. A class at r gets
    // μ = O_1·(r/F)² = 9.2 expected matches once the 100-slot cache is full (it fills at
    // p_c·1000 = 100 insertions per interval: on average 37 % full during the first interval,
    // 77 % during the second). P(no match in 3 intervals) ≈ e^−(3.4 + 7.1 + 8.5) < 1e-8 per
    // seed, so 20 seeds may never fail by chance.
    for seed in 1..=20 {
        let mut d = Driver::new(base(), seed);
        d.e.m_fair = F;
        let mut order = rng::stream(seed, "order", 0);
        let within = (1..=3).find(|_| d.interval(&[(0, 200), (1, 10), (2, 790)], &mut order)[0]);
        assert!(within.is_some(), "seed {seed}: not held after 3 intervals");
        assert!(d.held(0), "seed {seed}: held classes above hold_fraction stay held");
    }
}

#[test]
fn a_class_at_a_tenth_of_its_fair_share_is_almost_never_held() {
    // μ = O_1·(0.1)² = 0.023 matches per interval: P(held in an interval) ≈ 2.3 %; over 200
    // intervals ≈ 4.6 identifications expected; more than 15 has a Poisson tail of ~1e-4.
    let mut d = Driver::new(base(), 7);
    d.e.m_fair = F;
    let mut order = rng::stream(7, "order", 0);
    let mut identified = 0;
    let mut was_held = false;
    for _ in 0..200 {
        let held = d.interval(&[(0, 200), (1, 10), (2, 790)], &mut order);
        identified += (held[1] && !was_held) as u32;
        was_held = d.held(1);
    }
    assert!(identified <= 15, "{identified} identifications of a class at F/10");
    assert!(d.held(0), "the class at 2F is held");
}

/// Fraction of `n` fresh intervals (the class forgotten after each) in which class 0,
/// sending `pkts` of the 1000 packets, is not identified.
fn miss_rate(pkts: usize, n: usize) -> f64 {
    let mut d = Driver::new(base(), 3);
    d.e.m_fair = F;
    let mut order = rng::stream(3, "order", 0);
    let mix = [(0, pkts), (2, 1000 - pkts)];
    for _ in 0..3 {
        d.interval(&mix, &mut order); // fill the cache
    }
    let mut missed = 0;
    for _ in 0..n {
        d.e.classes[0] = Class::default();
        d.e.holding = d.e.classes.iter().filter(|c| c.held).count();
        missed += !d.interval(&mix, &mut order)[0] as u32;
    }
    missed as f64 / n as f64
}

#[test]
fn the_miss_probability_follows_the_calculation_in_the_docs() {
    // At F (10 % of the packets): (1 − 0.23·x)^100 with x the class's share of the cache,
    // 0.1 on average, gives 9.7 % at x = 0.1 and ≈ 12 % averaged over the cache's spread
    // (binomial, sd 0.03). 400 intervals: sd of the estimate 1.6 %, so [5 %, 20 %] holds.
    let at_f = miss_rate(100, 400);
    assert!((0.05..=0.20).contains(&at_f), "miss at the fair share {at_f}");
    // At 2F: e^−9.2 ≈ 1e-4, 5e-4 with the cache's spread: at most 1 % of 400.
    let at_2f = miss_rate(200, 400);
    assert!(at_2f <= 0.01, "miss at twice the fair share {at_2f}");
}

#[test]
fn weights_scale_the_sampling_down_by_the_weight() {
    // Before a full interval A is the link's 1 MB: p = ln 10 · 1e6 / F² = 2.3026e-4 per byte.
    // A 1000-byte packet of weight 4 is sampled with p·1000/4 = 0.05756 (0.23026 at weight 1).
    let mut d = Driver::new(FqParams { weights: vec![4], ..base() }, 5);
    d.e.m_fair = F;
    let s = |d: &Driver, q| d.e.p() * 1000.0 / d.e.weight(q);
    assert!((s(&d, 0) - 0.057565).abs() < 1e-5, "{}", s(&d, 0));
    assert!((s(&d, 1) - 0.230259).abs() < 1e-5, "{}", s(&d, 1));
}

#[test]
fn equation_2_on_hand_set_inputs() {
    // γ = 2, n = 3, w = 2, m_fair = 125 kB, size_p = 1000 B, RTT_o = 0.2 s, t_i = 1 s:
    // window = 125·0.2 = 25 packets; 0.66·25² = 412.5; (γn/w)² = 9; d = 9/412.5 = 0.0218181…
    let d = equation_2(2.0, 3.0, 2.0, 125_000.0, 1000.0, 0.2, 1.0);
    assert!((d - 9.0 / 412.5).abs() < 1e-12, "{d}");
    // At most 1.
    assert_eq!(equation_2(100.0, 1.0, 1.0, 125_000.0, 1000.0, 0.2, 1.0), 1.0);

    // The same through the policy: class 0 held with γ = 2, n_0 = 3, w_0 = 2, size_p measured.
    let p = FqParams { weights: vec![2], ewfq_tcp_flows: vec![3], ..base() };
    let mut d = Driver::new(p, 1);
    d.arrive(0, 1000).unwrap();
    d.e.m_fair = 125_000.0;
    d.e.classes[0] = Class { held: true, gamma: 2.0, size_last: Some(1000.0), ..Class::default() };
    assert!((d.e.d(0) - 9.0 / 412.5).abs() < 1e-12);
    // A class not held is never dropped.
    d.e.classes[0].held = false;
    assert_eq!(d.e.d(0), 0.0);
}

#[test]
fn a_non_responsive_class_is_dropped_down_to_its_weighted_fair_share() {
    // (1 − w·m_fair/m_i)⁺: m_fair = 100 kB, m_i = 400 kB: 0.75 at w = 1, 0.5 at w = 2, 0 at w = 4.
    let p = FqParams { ewfq_responsive: vec![false, false, false], weights: vec![1, 2, 4], ..base() };
    let mut d = Driver::new(p, 1);
    d.arrive(2, 1000).unwrap();
    d.e.m_fair = F;
    for q in 0..3 {
        d.e.classes[q] = Class { held: true, m_last: Some(400_000), ..Class::default() };
    }
    assert_eq!([d.e.d(0), d.e.d(1), d.e.d(2)], [0.75, 0.5, 0.0]);
    // Before a complete interval there is no m_i to compare: no drop.
    d.e.classes[0].m_last = None;
    assert_eq!(d.e.d(0), 0.0);
}

#[test]
fn m_fair_moves_toward_q_target() {
    // A window of t_i (the 1-s reading): the step unscaled. q_target = 15 000 B.
    // m_fair ← m_fair + 0.85(Q_old − 15000) − 0.9(Q_now − 15000).
    let mut d = Driver::new(FqParams { ewfq_window_ns: Some(1_000_000_000), ..base() }, 1);
    d.e.m_fair = 500_000.0;
    d.e.q_old = 15_000.0;
    d.e.update_m_fair(25_000); // 0.85·0 − 0.9·10000 = −9000
    assert_eq!(d.e.m_fair, 491_000.0);
    d.e.update_m_fair(25_000); // 0.85·10000 − 0.9·10000 = −500: still above, still lower
    assert_eq!(d.e.m_fair, 490_500.0);
    d.e.update_m_fair(15_000); // 0.85·10000 − 0 = +8500
    d.e.update_m_fair(5_000); // 0 − 0.9·(−10000) = +9000
    d.e.update_m_fair(5_000); // 0.85·(−10000) + 9000 = +500: below target raises it
    assert_eq!(d.e.m_fair, 490_500.0 + 8500.0 + 9000.0 + 500.0);
    d.e.update_m_fair(15_000);
    d.e.update_m_fair(15_000); // at target: unchanged
    let at = d.e.m_fair;
    d.e.update_m_fair(15_000);
    assert_eq!(d.e.m_fair, at);
    // Clamped to [1500 B, link rate × t_i = 1 MB].
    for _ in 0..1000 {
        d.e.update_m_fair(30_000);
    }
    assert_eq!(d.e.m_fair, M_FAIR_MIN_BYTES);
    for _ in 0..2000 {
        d.e.update_m_fair(0); // +0.05·15000 per update once Q_old = 0
    }
    assert_eq!(d.e.m_fair, 1_000_000.0);
}

/// Runs one update from m_fair = 500 kB with the queue from q_target to 25 kB, and returns
/// the step: 0.85·0 − 0.9·10 000 = −9000 bytes per control window, times t_i/W.
fn one_step(d: &mut Driver) -> f64 {
    d.e.m_fair = 500_000.0;
    d.e.q_old = 15_000.0;
    d.e.update_m_fair(25_000);
    d.e.m_fair - 500_000.0
}

#[test]
fn a_fixed_window_scales_each_step_by_t_i_over_the_window() {
    // W = 100 ms in a 1-s interval: m_fair counted over 100 ms, −9000 B per window = −90 000
    // B per interval. W = 250 ms: ×4; W = 2 s: ×0.5; W = t_i: unscaled.
    for (w_ms, step) in [(100, -90_000.0), (250, -36_000.0), (2000, -4_500.0), (1000, -9_000.0)] {
        let mut d = Driver::new(FqParams { ewfq_window_ns: Some(w_ms * 1_000_000), ..base() }, 1);
        assert_eq!(one_step(&mut d), step, "W = {w_ms} ms");
        assert_eq!(d.e.step_scale(), 1000.0 / w_ms as f64);
    }
}

#[test]
fn the_default_window_is_the_time_of_cache_size_arrivals() {
    // b = 100 slots. Before an interval ends, A is the link's 1 MB per interval in packets of
    // the mean size seen: 1000 packets of 1000 B → ×1000/100 = ×10; of 500 B, 2000 → ×20.
    let mut d = Driver::new(base(), 1);
    d.arrive(0, 1000).unwrap();
    assert_eq!(d.e.step_scale(), 10.0);
    assert_eq!(one_step(&mut d), -90_000.0);
    let mut d = Driver::new(base(), 1);
    d.arrive(0, 500).unwrap();
    assert_eq!(one_step(&mut d), -180_000.0);
    // After an interval: its arrivals. 400 packets → ×4 (W = 250 ms); with b = 50 slots ×8.
    for (b, scale) in [(100, 4.0), (50, 8.0)] {
        let mut d = Driver::new(FqParams { ewfq_cache_size: b, ..base() }, 1);
        let mut order = rng::stream(1, "order", 0);
        d.e.m_fair = 1e6; // nothing held, nothing dropped
        d.interval(&[(0, 300), (1, 100)], &mut order);
        assert_eq!(d.e.step_scale(), scale, "b = {b}");
        assert_eq!(one_step(&mut d), -9000.0 * scale, "b = {b}");
        // This interval's arrivals count once they pass the last one's (a lower bound of A).
        for _ in 0..(b as usize * 9) {
            let _ = d.arrive(2, 1000);
        }
        assert_eq!(d.e.step_scale(), f64::max(scale, 9.0), "b = {b}");
    }
}

#[test]
fn the_fair_share_ceiling_divides_the_link_among_the_active_weights() {
    // 1 MB per interval over classes 0 (weight 2) and 1 (weight 1): 333 333 B per unit weight.
    let p = FqParams { weights: vec![2, 1, 1], ewfq_window_ns: Some(1_000_000_000), ..base() };
    let mut d = Driver::new(FqParams { ewfq_ceiling: "fair_share".into(), ..p.clone() }, 1);
    let _ = d.arrive(0, 1000);
    let _ = d.arrive(1, 1000);
    assert_eq!(d.e.ceiling(), 1e6 / 3.0);
    for _ in 0..2000 {
        d.e.update_m_fair(0);
    }
    assert_eq!(d.e.m_fair, 1e6 / 3.0);
    // Class 2 arrives: 1 MB / 4.
    let _ = d.arrive(2, 1000);
    assert_eq!(d.e.ceiling(), 250_000.0);
    // Classes 1 and 2 fall silent: still active through the next interval, not the one after.
    d.e.end_interval();
    let _ = d.arrive(0, 1000);
    assert_eq!(d.e.ceiling(), 250_000.0);
    d.e.end_interval();
    let _ = d.arrive(0, 1000);
    assert_eq!(d.e.ceiling(), 500_000.0);
    // By default the ceiling is the link's bytes per interval, whoever is active.
    let mut d = Driver::new(p, 1);
    let _ = d.arrive(0, 1000);
    let _ = d.arrive(1, 1000);
    assert_eq!(d.e.ceiling(), 1e6);
    for _ in 0..2000 {
        d.e.update_m_fair(0);
    }
    assert_eq!(d.e.m_fair, 1e6);
}

#[test]
fn m_fair_updates_run_every_one_over_f_s_from_the_first_arrival() {
    let m_fair = |h: &Harness<Multi<crate::qdisc::sched::Wfq>>| match &h.q.buffer {
        BufferPolicy::Ewfq(e) => e.m_fair,
        other => panic!("{other:?}"),
    };
    let mut h = Harness::new(Multi::wfq(base()));
    h.now = Time(5_000_000);
    h.enqueue(pkt(0, 1000));
    assert_eq!(h.ctx.timer.take(), Some(Time(15_000_000)), "first update 10 ms after the first arrival");
    assert_eq!(m_fair(&h), 1500.0, "starts at its floor");
    h.q.on_timer(Time(15_000_000), &mut h.ctx);
    // The default window: A = the link's 1 MB in 1000-byte packets, b = 100: steps ×10.
    // Q_old = 0, Q_now = 1000 (below q_target = 15000): 10·(0.85·(−15000) − 0.9·(−14000)) =
    // −1500, clamped at the floor.
    assert_eq!(m_fair(&h), 1500.0);
    assert_eq!(h.ctx.timer.take(), Some(Time(25_000_000)));
    h.q.on_timer(Time(25_000_000), &mut h.ctx);
    // Q_old = Q_now = 1000: 10·0.05·14000 = +7000.
    assert_eq!(m_fair(&h), 8500.0);
    assert_eq!(h.ctx.timer.take(), Some(Time(35_000_000)));
}

#[test]
fn gamma_tracks_the_rtt_ratio_and_resets_when_a_class_leaves_the_holding_table() {
    // γ_new = max(0.5γ + 0.5γ·m_i/(w·m̄), 1): γ = 2 at 3× the fair share → 4; at 0 → 1.
    assert_eq!(gamma_update(2.0, 3.0), 4.0);
    assert_eq!(gamma_update(2.0, 0.0), 1.0);
    assert_eq!(gamma_update(1e6, 10.0), GAMMA_MAX);

    let mut d = Driver::new(FqParams { weights: vec![2, 1], ..base() }, 1);
    d.arrive(1, 1000).unwrap();
    d.e.m_fair = F; // m̄_fair = F (no updates ran)
    d.e.classes[0] = Class { held: true, gamma: 2.0, m_i: 600_000, pkts: 600, ..Class::default() };
    d.e.classes[1] = Class { held: true, gamma: 3.0, m_i: 40_000, pkts: 40, ..Class::default() };
    d.e.holding = 2;
    d.e.end_interval();
    let c0 = &d.e.classes[0];
    // m_i/(w·m̄) = 600k/200k = 3 → γ = 4; the report kept, the counter restarted.
    assert_eq!((c0.held, c0.gamma, c0.m_last, c0.m_i), (true, 4.0, Some(600_000), 0));
    assert_eq!(c0.size_last, Some(1000.0));
    // 40 kB < hold_fraction·w·m̄ = 50 kB: out of the holding table, γ back to 1.
    assert_eq!(d.e.classes[1], Class::default());
    assert_eq!(d.e.holding, 1);
}

#[test]
fn a_class_that_entered_during_the_interval_stays_held_through_its_first_report() {
    let mut d = Driver::new(base(), 1);
    d.arrive(0, 1000).unwrap();
    d.e.m_fair = F;
    d.e.classes[0] = Class { held: true, new: true, m_i: 1000, pkts: 1, ..Class::default() };
    d.e.holding = 1;
    d.e.end_interval();
    assert!(d.e.classes[0].held && !d.e.classes[0].new);
    assert_eq!(d.e.classes[0].gamma, 1.0, "a partial count only lowers γ, which is at 1");
    d.e.end_interval(); // a whole interval with nothing sent: out
    assert!(!d.e.classes[0].held);
}

#[test]
fn k_stages_need_k_matches_within_an_interval() {
    let mut d = Driver::new(FqParams { ewfq_k: 3, ewfq_p_c: 1.0, ewfq_cache_size: 1, ..base() }, 1);
    d.e.m_fair = 1500.0; // p = 1: every packet sampled, and the one-slot cache holds class 0
    d.arrive(0, 1000).unwrap(); // cache empty at the draw: no match; then cached
    d.arrive(0, 1000).unwrap(); // match 1
    d.arrive(0, 1000).unwrap(); // match 2
    assert_eq!((d.e.classes[0].matches, d.held(0)), (2, false));
    d.e.end_interval(); // the sampling table is cleared
    assert_eq!(d.e.classes[0].matches, 0);
    for _ in 0..3 {
        let _ = d.arrive(0, 1000);
    }
    assert!(d.held(0));
    assert_eq!(d.e.holding, 1);
}

#[test]
fn the_shared_buffer_tail_drops_what_the_dropper_keeps() {
    let mut h = Harness::new(Multi::wfq(FqParams { limit_bytes: Some(3000), ..base() }));
    for _ in 0..4 {
        h.enqueue(pkt(0, 1000));
    }
    let reasons: Vec<DropReason> = h.drops.iter().map(|d| d.1).collect();
    assert_eq!(reasons, vec![DropReason::Overflow]);
    assert_eq!(h.q.len_bytes(), 3000);
}

#[test]
fn internals_name_every_variable() {
    struct Names(Vec<(&'static str, Option<u32>)>);
    impl Probe for Names {
        fn record(&mut self, name: &'static str, class: Option<u32>, _value: f64) {
            self.0.push((name, class));
        }
    }
    let mut d = Driver::new(base(), 1);
    d.arrive(1, 1000).unwrap();
    let mut n = Names(vec![]);
    d.e.internals(&mut n);
    let names: Vec<&str> = n.0.iter().map(|r| r.0).collect();
    assert_eq!(&names[..4], ["m_fair", "p", "holding", "window"]);
    assert_eq!(names.len(), 4 + 2 * 4, "four variables per class seen (0 and 1)");
    assert!(n.0.contains(&("d_i", Some(1))) && n.0.contains(&("gamma_i", Some(0))));
}

#[test]
fn bad_parameters_are_refused_by_key() {
    let key = |f: fn(&mut FqParams)| {
        let mut p = base();
        f(&mut p);
        let e = p.validate().unwrap_err();
        (e.key, e.allowed)
    };
    assert_eq!(key(|p| p.ewfq_alpha = 0.0).0, "ewfq_alpha");
    assert_eq!(key(|p| p.ewfq_alpha = -0.5).0, "ewfq_alpha");
    assert_eq!(key(|p| p.ewfq_alpha = f64::NAN).0, "ewfq_alpha");
    let (k, allowed) = key(|p| p.ewfq_alpha = f64::INFINITY);
    assert_eq!((k.as_str(), allowed.as_str()), ("ewfq_alpha", "a finite gain > 0"));
    let (k, allowed) = key(|p| p.ewfq_beta = 0.8);
    assert_eq!(k, "ewfq_beta");
    assert!(allowed.contains("greater than ewfq_alpha (0.85)"), "{allowed}");
    assert_eq!(key(|p| p.ewfq_beta = -1.0).0, "ewfq_beta");
    assert_eq!(key(|p| p.ewfq_beta = 0.85).0, "ewfq_beta", "β = α: no integral action");
    // AFD's own gains (α 1.7, β 1.8) and any β > α > 0 are accepted.
    for (alpha, beta) in [(1.7, 1.8), (1.0, 1.5), (0.01, 0.02)] {
        let p = FqParams { ewfq_alpha: alpha, ewfq_beta: beta, ..base() };
        assert!(p.validate().is_ok(), "α {alpha}, β {beta}");
    }
    let (k, allowed) = key(|p| p.ewfq_window_ns = Some(0));
    assert_eq!(k, "ewfq_window");
    assert!(allowed.contains("or auto"), "{allowed}");
    assert!(FqParams { ewfq_window_ns: Some(1), ..base() }.validate().is_ok());
    let (k, allowed) = key(|p| p.ewfq_ceiling = "fair".into());
    assert_eq!((k.as_str(), allowed.as_str()), ("ewfq_ceiling", "link or fair_share"));
    assert_eq!(key(|p| p.ewfq_f_s = 0.0).0, "ewfq_f_s");
    assert_eq!(key(|p| p.ewfq_t_i_ns = 1_000_000).0, "ewfq_t_i");
    assert_eq!(key(|p| p.ewfq_p_c = 0.0).0, "ewfq_p_c");
    assert_eq!(key(|p| p.ewfq_p_c = 1.5).0, "ewfq_p_c");
    assert_eq!(key(|p| p.ewfq_k = 0).0, "ewfq_k");
    assert_eq!(key(|p| p.ewfq_cache_size = 0).0, "ewfq_cache_size");
    assert_eq!(key(|p| p.ewfq_p_miss = 1.0).0, "ewfq_p_miss");
    assert_eq!(key(|p| p.ewfq_hold_fraction = 1.5).0, "ewfq_hold_fraction");
    assert_eq!(key(|p| p.ewfq_rtt_o_ns = None).0, "ewfq_rtt_o");
    assert_eq!(key(|p| p.ewfq_rtt_o_ns = Some(0)).0, "ewfq_rtt_o");
    assert_eq!(key(|p| p.ewfq_size_p_bytes = Some(0)).0, "ewfq_size_p");
    assert_eq!(key(|p| p.ewfq_tcp_flows = vec![2, 0]).0, "ewfq_tcp_flows[1]");
    assert_eq!(key(|p| p.weights = vec![1, 0]).0, "weights[1]");
    assert_eq!(key(|p| p.limit_bytes = None).0, "limit");
    assert_eq!(key(|p| p.link_rate_bps = None).0, "link_rate");
    assert!(base().validate().is_ok());
}

#[test]
fn a_config_parses_by_the_papers_names_under_every_scheduler() {
    for kind in ["wfq", "drr", "fifo_classes", "wf2q_plus"] {
        let j = format!(
            r#"{{"kind":"{kind}","buffer":"ewfq","limit_bytes":30000,"ewfq_rtt_o_ns":300000000,"weights":[2,1,1],
               "ewfq_responsive":[true,true,false],"ewfq_tcp_flows":[1,2,1],"ewfq_alpha":0.85,"ewfq_beta":0.9,"ewfq_f_s":100,"ewfq_p_c":0.1,"ewfq_k":1}}"#
        );
        let c: crate::qdisc::QdiscConfig = serde_json::from_str(&j).unwrap();
        assert!(c.validate().is_err(), "{kind}: the link's rate comes with the link");
        let c = c.on_link(5_000_000);
        c.validate().unwrap();
        let _ = c.build();
    }
}

proptest! {
    #[test]
    fn conserves_packets_and_bytes_with_its_timers_running(
        ops in proptest::collection::vec((0u8..3, 0u32..4, 40u32..1500), 0..400),
        responsive in any::<bool>(),
    ) {
        // A tiny buffer and link so that m_fair falls, classes are held and dropped.
        let p = FqParams {
            limit_bytes: Some(6000),
            link_rate_bps: Some(100_000),
            ewfq_responsive: vec![responsive; 4],
            weights: vec![1, 2, 1, 3],
            ewfq_t_i_ns: 50_000_000,
            ..base()
        };
        let mut h = Harness::new(Multi::fifo_classes(p));
        for &(op, flow, size) in &ops {
            h.now += Duration::from_ns(1_000_000);
            match op {
                0 => h.enqueue(pkt(flow, size)),
                1 => { h.dequeue(); }
                _ => {
                    if let Some(t) = h.ctx.timer.take() {
                        h.now = h.now.max(t);
                        h.q.on_timer(t.max(h.now), &mut h.ctx);
                    }
                }
            }
        }
        while h.dequeue().is_some() {}
        prop_assert_eq!(h.q.len_bytes(), 0);
        h.check();
    }
}
