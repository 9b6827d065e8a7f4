//! Static shortest-path routing by hop count, computed once when the world is
//! built (ns-2's default static routing: every link costs 1). Ties are broken by
//! the order in which links are declared, so routes are deterministic.
//!
//! A node with one link (a host) sends everything on it, so only nodes with two
//! or more links (routers) keep a table: one entry per router for each
//! destination, not one per node. With 1000 flows on a dumbbell (2,002 nodes,
//! 2 routers) the tables take 16 KB instead of 16 MB, and the lookup on every
//! hop stays in cache; 10,000 flows would have needed 1.6 GB (issue 21).

use std::collections::VecDeque;

/// Routes towards the destinations that need them (see the module doc).
pub struct Routes {
    /// What each hop looks up about a node, in one place.
    nodes: Vec<NodeRoute>,
    /// Number of routers: the length of each destination's table.
    routers: usize,
    /// The destinations' tables one after the other: `tables[t * routers + r]`
    /// is the channel router `r` sends on to reach the destination whose
    /// table is `t` (one array, so a lookup is one load, not two).
    tables: Vec<u32>,
}

/// A node's part of the routes.
#[derive(Clone, Copy)]
struct NodeRoute {
    /// Its one channel and the neighbour at the other end, for a node with
    /// exactly one link; `NO_ROUTE` otherwise.
    channel: u32,
    neighbour: u32,
    /// The column in the tables of the router that decides where its packets
    /// go: its own if it has two links or more, else its neighbour's (a host's
    /// packets leave on its one link if that router reaches the destination),
    /// `NO_ROUTE` if there is none.
    column: u32,
    /// Its table as a destination, if routes were computed towards it, else `NO_ROUTE`.
    table: u32,
}

/// No route (unreachable, or the node is the destination itself).
pub const NO_ROUTE: u32 = u32::MAX;

impl Routes {
    /// `adjacency[n]` lists `(neighbour, channel from n to neighbour)` in
    /// declaration order; routes are computed towards each node in `destinations`.
    ///
    /// The search from each destination visits routers only: a host is a leaf
    /// that leads nowhere, so skipping hosts leaves every router's parent (and
    /// the declaration-order tie-breaking) as a search over all nodes gives it,
    /// and costs the router-to-router links per destination instead of every
    /// node (10,000 flows: 20,000 destinations x 20,002 nodes before).
    pub fn compute(adjacency: &[Vec<(u32, u32)>], destinations: impl IntoIterator<Item = u32>) -> Routes {
        let n = adjacency.len();
        let single: Vec<(u32, u32)> = adjacency.iter().map(|a| if let [(m, c)] = a[..] { (c, m) } else { (NO_ROUTE, NO_ROUTE) }).collect();
        let mut router_row = vec![NO_ROUTE; n];
        let mut routers = Vec::new();
        for (node, a) in adjacency.iter().enumerate() {
            if a.len() > 1 {
                router_row[node] = routers.len() as u32;
                routers.push(node as u32);
            }
        }
        let is_router = |m: u32| router_row[m as usize] != NO_ROUTE;
        // The channel m -> u: the first of m's links to u in declaration order.
        let back = |m: u32, u: u32| adjacency[m as usize].iter().find(|&&(v, _)| v == u).map_or(NO_ROUTE, |&(_, c)| c);
        // Per router, its router neighbours in declaration order with the channel back from each.
        let router_links: Vec<Vec<(u32, u32)>> =
            routers.iter().map(|&u| adjacency[u as usize].iter().filter(|&&(m, _)| is_router(m)).map(|&(m, _)| (m, back(m, u))).collect()).collect();
        // Per host, the channel its neighbour sends to it on.
        let mut into_host = vec![NO_ROUTE; n];
        for &r in &routers {
            for &(m, c) in &adjacency[r as usize] {
                if single[m as usize].1 == r && into_host[m as usize] == NO_ROUTE {
                    into_host[m as usize] = c;
                }
            }
        }
        let width = routers.len().max(1);
        let mut table_of = vec![NO_ROUTE; n];
        let mut tables = Vec::new();
        let mut seen = vec![false; routers.len()];
        let mut frontier = VecDeque::new();
        for d in destinations {
            if table_of[d as usize] != NO_ROUTE {
                continue;
            }
            let mut table = vec![NO_ROUTE; width];
            seen.iter_mut().for_each(|s| *s = false);
            // Links are full duplex, so a breadth-first search outward from d
            // finds, for each router, the channel towards its parent, one hop
            // closer to d. From a host, the search starts at its neighbour.
            let (start, first) = if is_router(d) { (d, NO_ROUTE) } else { (single[d as usize].1, into_host[d as usize]) };
            if start != NO_ROUTE && is_router(start) {
                let row = router_row[start as usize] as usize;
                seen[row] = true;
                table[row] = first;
                frontier.push_back(start);
            }
            while let Some(u) = frontier.pop_front() {
                for &(m, to_u) in &router_links[router_row[u as usize] as usize] {
                    let row = router_row[m as usize] as usize;
                    if !seen[row] {
                        seen[row] = true;
                        table[row] = to_u;
                        frontier.push_back(m);
                    }
                }
            }
            table_of[d as usize] = (tables.len() / width) as u32;
            tables.extend(table);
        }
        // A host decides by its neighbour's column (NO_ROUTE when that is not a router).
        let column = |i: usize| if single[i].1 == NO_ROUTE { router_row[i] } else { router_row[single[i].1 as usize] };
        let nodes = (0..n).map(|i| NodeRoute { channel: single[i].0, neighbour: single[i].1, column: column(i), table: table_of[i] }).collect();
        Routes { nodes, routers: width, tables }
    }

    /// Channel from `node` towards `dst`, or `NO_ROUTE`. On every hop of every
    /// packet: one table entry, read the same way for routers and hosts (issue 21).
    #[inline(always)]
    pub fn next(&self, node: u32, dst: u32) -> u32 {
        let (Some(at), Some(to)) = (self.nodes.get(node as usize), self.nodes.get(dst as usize)) else { return NO_ROUTE };
        if to.table == NO_ROUTE {
            return NO_ROUTE;
        }
        // The destination's entry at the deciding router (`at` itself, or a host's neighbour).
        let via = if at.column == NO_ROUTE { NO_ROUTE } else { self.tables[to.table as usize * self.routers + at.column as usize] };
        if at.channel == NO_ROUTE {
            // A router (or a node without links, whose column is NO_ROUTE).
            return via;
        }
        // A host: its one link, if the neighbour is the destination or a
        // router with a route to it.
        if node != dst && (at.neighbour == dst || via != NO_ROUTE) {
            at.channel
        } else {
            NO_ROUTE
        }
    }

    /// The one channel of a host (a node with exactly one link), None for other nodes.
    #[inline(always)]
    pub fn host_link(&self, node: u32) -> Option<u32> {
        self.nodes.get(node as usize).map(|n| n.channel).filter(|&c| c != NO_ROUTE)
    }

    /// The channels of the path from `src` to `dst`, or None if unreachable.
    pub fn path(&self, src: u32, dst: u32, channel_to: impl Fn(u32) -> u32) -> Option<Vec<u32>> {
        let mut at = src;
        let mut path = Vec::new();
        while at != dst {
            let c = self.next(at, dst);
            if c == NO_ROUTE || path.len() > self.nodes.len() {
                return None;
            }
            path.push(c);
            at = channel_to(c);
        }
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_path_in_a_chain_with_a_shortcut() {
        // 0 - 1 - 2 - 3, and 0 - 3 directly. Channels numbered per direction.
        let adjacency = vec![vec![(1, 0), (3, 6)], vec![(0, 1), (2, 2)], vec![(1, 3), (3, 4)], vec![(2, 5), (0, 7)]];
        let to = |c: u32| [1, 0, 2, 1, 3, 2, 3, 0][c as usize];
        let routes = Routes::compute(&adjacency, [3, 2]);
        assert_eq!(routes.path(0, 3, to), Some(vec![6]));
        assert_eq!(routes.path(1, 3, to).map(|p| p.len()), Some(2));
        assert_eq!(routes.path(0, 2, to).map(|p| p.len()), Some(2));
        // No routes were computed towards 0.
        assert_eq!(routes.path(3, 0, to), None);
    }

    /// The table of every node towards `d` by breadth-first search (the
    /// representation before routers alone kept tables): the reference.
    fn full_table(adjacency: &[Vec<(u32, u32)>], d: u32) -> Vec<u32> {
        let mut table = vec![NO_ROUTE; adjacency.len()];
        let mut seen = vec![false; adjacency.len()];
        seen[d as usize] = true;
        let mut frontier = VecDeque::from([d]);
        while let Some(u) = frontier.pop_front() {
            for &(m, _) in &adjacency[u as usize] {
                if !seen[m as usize] {
                    seen[m as usize] = true;
                    table[m as usize] = adjacency[m as usize].iter().find(|&&(v, _)| v == u).unwrap().1;
                    frontier.push_back(m);
                }
            }
        }
        table
    }

    proptest::proptest! {
        /// Random graphs with hosts (one link), host pairs joined directly,
        /// isolated nodes, several components and parallel links: every node's next channel
        /// towards every computed destination is the full table's, and no
        /// route towards a destination not computed.
        #[test]
        fn routers_only_tables_give_the_full_tables_routes(
            nodes in 2usize..14,
            links in proptest::collection::vec((0u32..14, 0u32..14), 0..24),
            wanted in proptest::collection::vec(0u32..14, 0..6),
        ) {
            let mut adjacency = vec![Vec::new(); nodes];
            let mut channel = 0u32;
            for (a, b) in links {
                // Self-loops aside, anything goes: two links between the same pair too.
                let (a, b) = (a % nodes as u32, b % nodes as u32);
                if a == b {
                    continue;
                }
                adjacency[a as usize].push((b, channel));
                adjacency[b as usize].push((a, channel + 1));
                channel += 2;
            }
            let wanted: Vec<u32> = wanted.into_iter().map(|d| d % nodes as u32).collect();
            let routes = Routes::compute(&adjacency, wanted.iter().copied());
            for d in 0..nodes as u32 {
                let full = wanted.contains(&d).then(|| full_table(&adjacency, d));
                for n in 0..nodes as u32 {
                    let expected = full.as_ref().map_or(NO_ROUTE, |t| t[n as usize]);
                    proptest::prop_assert_eq!(routes.next(n, d), expected, "node {} towards {}", n, d);
                }
            }
        }
    }
}
