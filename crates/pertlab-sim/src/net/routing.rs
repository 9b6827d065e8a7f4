//! Static shortest-path routing by hop count, computed once when the world is
//! built (ns-2's default static routing: every link costs 1). Ties are broken by
//! the order in which links are declared, so routes are deterministic.

use std::collections::VecDeque;

/// `next[d][n]`: the channel node `n` sends on to reach destination `d`, for the
/// destinations that need routes (others are empty).
pub struct Routes {
    next: Vec<Vec<u32>>,
}

/// No route (unreachable, or the node is the destination itself).
pub const NO_ROUTE: u32 = u32::MAX;

impl Routes {
    /// `adjacency[n]` lists `(neighbour, channel from n to neighbour)` in
    /// declaration order; routes are computed towards each node in `destinations`.
    pub fn compute(adjacency: &[Vec<(u32, u32)>], destinations: impl IntoIterator<Item = u32>) -> Routes {
        let n = adjacency.len();
        let mut next = vec![Vec::new(); n];
        // Links are full duplex: the channel n -> m exists iff m -> n does, so a
        // breadth-first search outward from d over the adjacency finds, for each
        // node, the channel towards its parent, which is one hop closer to d.
        for d in destinations {
            if !next[d as usize].is_empty() {
                continue;
            }
            let mut table = vec![NO_ROUTE; n];
            let mut seen = vec![false; n];
            seen[d as usize] = true;
            let mut frontier = VecDeque::from([d]);
            while let Some(u) = frontier.pop_front() {
                for &(m, _) in &adjacency[u as usize] {
                    if seen[m as usize] {
                        continue;
                    }
                    seen[m as usize] = true;
                    // The channel m -> u.
                    let back = adjacency[m as usize].iter().find(|&&(v, _)| v == u).map(|&(_, c)| c).unwrap_or(NO_ROUTE);
                    table[m as usize] = back;
                    frontier.push_back(m);
                }
            }
            next[d as usize] = table;
        }
        Routes { next }
    }

    /// Channel from `node` towards `dst`, or `NO_ROUTE`.
    #[inline]
    pub fn next(&self, node: u32, dst: u32) -> u32 {
        self.next[dst as usize].get(node as usize).copied().unwrap_or(NO_ROUTE)
    }

    /// The channels of the path from `src` to `dst`, or None if unreachable.
    pub fn path(&self, src: u32, dst: u32, channel_to: impl Fn(u32) -> u32) -> Option<Vec<u32>> {
        let mut at = src;
        let mut path = Vec::new();
        while at != dst {
            let c = self.next(at, dst);
            if c == NO_ROUTE || path.len() > self.next.len() {
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
}
