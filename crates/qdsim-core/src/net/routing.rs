//! Static shortest-path routing: for each destination, the next link from every node.
//!
//! Paths minimise the sum of link metrics (1 by default = hop count). Ties are broken by the
//! lowest link index, so routes depend only on the configuration. Tables are built only for
//! nodes that are some flow's endpoint (data and ACKs), by one Dijkstra per destination on
//! the reversed graph.
//!
//! A table holds one entry per node, so a table per endpoint would cost memory and time
//! quadratic in the number of hosts (20 000 hosts: 1.6 GB and most of a run's setup). Most
//! endpoints are hosts behind one access link, so a destination `d` whose only incoming link
//! `l` comes from `p` gets no table of its own: every path to `d` ends with `l` and reaches
//! `p` first, so `d`'s next hop is `l` at `p` and `p`'s next hop everywhere else (exactly,
//! ties included: the distances to `d` are those to `p` plus `l`'s metric). Chains of such
//! nodes resolve to the first node up the chain with a table, its *anchor*.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::packet::NodeId;

/// Marks "no route".
pub const NO_ROUTE: u32 = u32::MAX;

/// Next-hop tables.
#[derive(Debug, Clone)]
pub struct Routes {
    /// Per node: where its routes are ([`NodeRoute`]).
    nodes: Vec<NodeRoute>,
    /// The tables one after another, `stride` entries each (the next link from every node):
    /// one vector, so that a lookup loads no table's own pointer first.
    next: Vec<u32>,
    /// Entries per table: the node count.
    stride: usize,
}

/// What a lookup needs of one destination node, together: in a network too large for the
/// caches each of the three, kept in a vector of its own, was a miss of its own, one waiting
/// for the other (`docs/performance.md`, "Reading three events ahead").
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
struct NodeRoute {
    /// The index into `next` of its table, or [`NO_ROUTE`].
    table: u32,
    /// Without a table: its single incoming link, or [`NO_ROUTE`].
    in_link: u32,
    /// The node `in_link` leaves.
    up: NodeId,
}

const UNROUTED: NodeRoute = NodeRoute { table: NO_ROUTE, in_link: NO_ROUTE, up: 0 };

impl Routes {
    /// Builds tables towards every node in `dsts` over links given as `(from, to, metric)`.
    pub fn build(num_nodes: usize, links: &[(NodeId, NodeId, u32)], dsts: &[NodeId]) -> Routes {
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); num_nodes];
        for (i, &(_, to, _)) in links.iter().enumerate() {
            incoming[to as usize].push(i as u32);
        }
        let mut routes = Routes { nodes: vec![UNROUTED; num_nodes], next: Vec::new(), stride: num_nodes };
        let mut on_chain = vec![false; num_nodes];
        for &d in dsts {
            let anchor = routes.chain_to_anchor(d, links, &incoming, &mut on_chain);
            if routes.nodes[anchor as usize].table == NO_ROUTE {
                routes.nodes[anchor as usize].table = routes.tables() as u32;
                routes.next.extend(dijkstra_towards(anchor, num_nodes, links, &incoming));
            }
        }
        routes
    }

    /// Returns the number of tables.
    fn tables(&self) -> usize {
        self.next.len().checked_div(self.stride).unwrap_or(0)
    }

    /// Links `d` and the nodes up its chain of single incoming links to their anchor (the
    /// first node with a table, several or no incoming links, or closing a cycle of single
    /// links); returns the anchor. `on_chain` is all false on entry and on return.
    fn chain_to_anchor(
        &mut self,
        d: NodeId,
        links: &[(NodeId, NodeId, u32)],
        incoming: &[Vec<u32>],
        on_chain: &mut [bool],
    ) -> NodeId {
        if self.nodes[d as usize].in_link != NO_ROUTE {
            return self.anchor_of(d);
        }
        let mut chain = Vec::new();
        let mut at = d;
        let anchor = loop {
            let only_in = match incoming[at as usize].as_slice() {
                &[l] if self.nodes[at as usize].table == NO_ROUTE => l,
                _ => break at,
            };
            let up = links[only_in as usize].0;
            if up == at || on_chain[up as usize] {
                break at; // a cycle of single links: `at` gets the table
            }
            on_chain[at as usize] = true;
            chain.push((at, only_in, up));
            if self.nodes[up as usize].in_link != NO_ROUTE {
                break self.anchor_of(up); // `up`'s chain is already linked
            }
            at = up;
        };
        for &(n, in_link, up) in &chain {
            self.nodes[n as usize] = NodeRoute { in_link, up, ..self.nodes[n as usize] };
            on_chain[n as usize] = false;
        }
        anchor
    }

    /// Follows single incoming links from `d` to the node whose table holds its routes.
    fn anchor_of(&self, mut d: NodeId) -> NodeId {
        while self.nodes[d as usize].in_link != NO_ROUTE {
            d = self.nodes[d as usize].up;
        }
        d
    }

    /// Returns the link to take from `at` towards `dst`, or [`NO_ROUTE`].
    #[inline]
    pub fn next_link(&self, at: NodeId, dst: NodeId) -> u32 {
        if at == dst {
            return NO_ROUTE;
        }
        let mut d = dst;
        loop {
            let Some(route) = self.nodes.get(d as usize) else { return NO_ROUTE };
            if route.table != NO_ROUTE {
                return self.next[route.table as usize * self.stride + at as usize];
            }
            if route.in_link == NO_ROUTE {
                return NO_ROUTE; // no table: `dst` is no flow's endpoint
            }
            if route.up == at {
                return route.in_link;
            }
            d = route.up;
        }
    }
}

/// Returns, for every node, the first link of its shortest path to `d` (lowest link index
/// among equals), or [`NO_ROUTE`].
fn dijkstra_towards(d: NodeId, num_nodes: usize, links: &[(NodeId, NodeId, u32)], incoming: &[Vec<u32>]) -> Vec<u32> {
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
    hop
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

    #[test]
    fn hosts_behind_one_link_share_their_router_table() {
        // Dumbbell: hosts 2, 3 -> router 0 -> router 1 -> hosts 4, 5, and the reverse links.
        let mut links = vec![(0, 1, 1), (1, 0, 1)];
        for (h, r) in [(2, 0), (3, 0), (4, 1), (5, 1)] {
            links.push((h, r, 1));
            links.push((r, h, 1));
        }
        let r = Routes::build(6, &links, &[2, 3, 4, 5]);
        assert_eq!(r.tables(), 2, "one table per router, none per host");
        assert_eq!(r.next_link(2, 4), 2); // host 2's access link
        assert_eq!(r.next_link(0, 4), 0); // router 0 to router 1
        assert_eq!(r.next_link(1, 4), 7); // router 1 to host 4
        assert_eq!(r.next_link(1, 5), 9);
        assert_eq!(r.next_link(4, 2), 6); // the ACK path back
        assert_eq!(r.next_link(1, 2), 1);
        assert_eq!(r.next_link(0, 2), 3);
        assert_eq!(r.next_link(4, 4), NO_ROUTE);
    }

    #[test]
    fn a_ring_of_single_links_still_routes() {
        // 0 -> 1 -> 2 -> 0: every node has one incoming link.
        let links = [(0, 1, 1), (1, 2, 1), (2, 0, 1)];
        let r = Routes::build(3, &links, &[0, 1, 2]);
        for (at, dst, link) in [(0, 1, 0), (0, 2, 0), (1, 2, 1), (1, 0, 1), (2, 0, 2), (2, 1, 2)] {
            assert_eq!(r.next_link(at, dst), link, "{at} -> {dst}");
        }
    }

    proptest::proptest! {
        /// Routes agree, for every node and endpoint, with a table per endpoint (the plain
        /// algorithm) on random graphs with leaves, chains, cycles and parallel links.
        #[test]
        fn agree_with_one_dijkstra_per_destination(
            num_nodes in 2usize..12,
            raw_links in proptest::collection::vec((0u32..12, 0u32..12, 1u32..4), 1..30),
            raw_dsts in proptest::collection::vec(0u32..12, 1..8),
        ) {
            let n = num_nodes as u32;
            let links: Vec<(NodeId, NodeId, u32)> = raw_links.iter().map(|&(a, b, m)| (a % n, b % n, m)).collect();
            let dsts: Vec<NodeId> = raw_dsts.iter().map(|&d| d % n).collect();
            let routes = Routes::build(num_nodes, &links, &dsts);
            let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); num_nodes];
            for (i, &(_, to, _)) in links.iter().enumerate() {
                incoming[to as usize].push(i as u32);
            }
            for &d in &dsts {
                let plain = dijkstra_towards(d, num_nodes, &links, &incoming);
                for at in 0..n {
                    proptest::prop_assert_eq!(routes.next_link(at, d), plain[at as usize], "at {} dst {} links {:?}", at, d, &links);
                }
            }
        }
    }
}
