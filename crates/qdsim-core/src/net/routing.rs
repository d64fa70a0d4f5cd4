//! Static shortest-path routing: for each destination, the next link from every node.
//!
//! Paths minimise the sum of link metrics (1 by default = hop count). Ties are broken by the
//! lowest link index, so routes depend only on the configuration. Tables are built only for
//! nodes that are some flow's endpoint (data and ACKs), by one Dijkstra per destination on
//! the reversed graph.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::packet::NodeId;

/// Marks "no route".
pub const NO_ROUTE: u32 = u32::MAX;

/// Next-hop tables.
#[derive(Debug, Clone)]
pub struct Routes {
    slot_of: Vec<u32>,
    next: Vec<Vec<u32>>,
}

impl Routes {
    /// Builds tables towards every node in `dsts` over links given as `(from, to, metric)`.
    pub fn build(num_nodes: usize, links: &[(NodeId, NodeId, u32)], dsts: &[NodeId]) -> Routes {
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); num_nodes];
        for (i, &(_, to, _)) in links.iter().enumerate() {
            incoming[to as usize].push(i as u32);
        }
        let mut slot_of = vec![NO_ROUTE; num_nodes];
        let mut next = Vec::new();
        for &d in dsts {
            if slot_of[d as usize] != NO_ROUTE {
                continue;
            }
            slot_of[d as usize] = next.len() as u32;
            let mut dist = vec![u64::MAX; num_nodes];
            let mut hop = vec![NO_ROUTE; num_nodes];
            let mut heap = BinaryHeap::new();
            dist[d as usize] = 0;
            heap.push(Reverse((0u64, d)));
            while let Some(Reverse((du, u))) = heap.pop() {
                if du > dist[u as usize] {
                    continue;
                }
                for &l in &incoming[u as usize] {
                    let (from, _, metric) = links[l as usize];
                    let nd = du + metric as u64;
                    let f = from as usize;
                    if nd < dist[f] || (nd == dist[f] && l < hop[f]) {
                        if nd < dist[f] {
                            heap.push(Reverse((nd, from)));
                        }
                        dist[f] = nd;
                        hop[f] = l;
                    }
                }
            }
            next.push(hop);
        }
        Routes { slot_of, next }
    }

    /// Returns the link to take from `at` towards `dst`, or [`NO_ROUTE`].
    #[inline]
    pub fn next_link(&self, at: NodeId, dst: NodeId) -> u32 {
        match self.slot_of.get(dst as usize) {
            Some(&s) if s != NO_ROUTE => self.next[s as usize][at as usize],
            _ => NO_ROUTE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_fewest_hops_and_breaks_ties_by_link_index() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3 (both 2 hops), 0 -> 3 with metric 5.
        let links = [(0, 1, 1), (1, 3, 1), (0, 2, 1), (2, 3, 1), (0, 3, 5)];
        let r = Routes::build(4, &links, &[3]);
        assert_eq!(r.next_link(0, 3), 0);
        assert_eq!(r.next_link(1, 3), 1);
        assert_eq!(r.next_link(2, 3), 3);
    }

    #[test]
    fn metrics_override_hop_count() {
        // Two hops of 10 beat one hop of 25; one hop of 15 beats two of 10.
        let r = Routes::build(3, &[(0, 1, 10), (1, 2, 10), (0, 2, 25)], &[2]);
        assert_eq!(r.next_link(0, 2), 0);
        let r = Routes::build(3, &[(0, 1, 10), (1, 2, 10), (0, 2, 15)], &[2]);
        assert_eq!(r.next_link(0, 2), 2);
    }

    #[test]
    fn unreachable_and_untabled_destinations_have_no_route() {
        let links = [(0, 1, 1)];
        let r = Routes::build(3, &links, &[1, 2]);
        assert_eq!(r.next_link(1, 2), NO_ROUTE);
        assert_eq!(r.next_link(0, 0), NO_ROUTE);
    }
}
