//! Criterion micro-benchmarks of the hot path: the event queue with a realistic number of
//! pending events, and a FIFO enqueue/dequeue pair.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use qdsim_core::event::{Event, EventQueue};
use qdsim_core::time::Time;

fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    g.throughput(Throughput::Elements(1));
    for pending in [64u64, 1024, 16_384] {
        g.bench_function(format!("pop_push_{pending}_pending"), |b| {
            b.iter_batched_ref(
                || {
                    let mut q = EventQueue::new();
                    for i in 0..pending {
                        q.schedule(Time(i * 7919 % 100_000), Event::TxDone(i as u32));
                    }
                    q
                },
                |q| {
                    for _ in 0..1000 {
                        let (t, e) = q.pop().expect("non-empty");
                        q.schedule(Time(t.as_ns() + 50_000), e);
                    }
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, event_queue);
criterion_main!(benches);
