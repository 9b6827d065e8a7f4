//! A FIFO of `Copy` values in a ring of power-of-two capacity: the engine's
//! lanes of events, and each channel's output queue (its packets' slots).
//!
//! Written here rather than taken from `std::collections::VecDeque` (issue 21):
//! with a power-of-two capacity the wrap is a mask, and a push or pop costs
//! about a third of the instructions (callgrind: 18 per pop and 8 per push
//! with `VecDeque` in the engine's lanes). Slots outside the live range hold
//! filler (copies of a value once pushed), so no slot is ever uninitialised
//! and no unsafe code is needed.

/// See the module doc.
#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// The values are `buf[(head + i) & (buf.len() - 1)]` for `i < len`;
    /// `buf.len()` is 0 or a power of two.
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring { buf: Vec::new(), head: 0, len: 0 }
    }
}

/// The capacity of a ring's first allocation.
const FIRST_CAPACITY: usize = 16;

impl<T: Copy> Ring<T> {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline(always)]
    pub fn push_back(&mut self, x: T) {
        if self.len == self.buf.len() {
            self.grow(x);
        }
        let i = (self.head + self.len) & self.mask();
        self.buf[i] = x;
        self.len += 1;
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.head])
    }

    /// The value `i` places from the front, if the ring holds that many.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self.buf[(self.head + i) & self.mask()])
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = self.buf[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(x)
    }

    /// Twice the capacity (16 at first), the values moved to its start in
    /// order; `filler` (the value about to be pushed) fills the rest.
    #[cold]
    fn grow(&mut self, filler: T) {
        let capacity = (2 * self.buf.len()).max(FIRST_CAPACITY);
        let mut buf = Vec::with_capacity(capacity);
        buf.extend(self.iter().copied());
        buf.resize(capacity, filler);
        (self.buf, self.head) = (buf, 0);
    }

    /// The values, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        let mask = self.mask();
        (0..self.len).map(move |i| &self.buf[(self.head + i) & mask])
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use proptest::prelude::*;

    use super::Ring;

    proptest! {
        /// Any sequence of pushes and pops gives what a `VecDeque` gives,
        /// across growths and wraps.
        #[test]
        fn a_ring_is_a_fifo_like_vecdeque(ops in prop::collection::vec(0u8..3, 0..600)) {
            let (mut ring, mut deque) = (Ring::new(), VecDeque::new());
            for (n, op) in ops.into_iter().enumerate() {
                match op {
                    0 | 1 => { ring.push_back(n as u32); deque.push_back(n as u32); }
                    _ => prop_assert_eq!(ring.pop_front(), deque.pop_front()),
                }
                prop_assert_eq!(ring.len(), deque.len());
                prop_assert_eq!(ring.front(), deque.front());
                prop_assert!((0..deque.len() + 2).all(|i| ring.get(i) == deque.get(i)));
                prop_assert!(ring.iter().eq(deque.iter()));
            }
        }
    }

    #[test]
    fn capacity_is_a_power_of_two_from_sixteen() {
        let mut ring = Ring::new();
        for i in 0..17u64 {
            ring.push_back(i);
        }
        assert_eq!(ring.buf.len(), 32);
        assert_eq!(ring.iter().copied().collect::<Vec<_>>(), (0..17).collect::<Vec<_>>());
    }
}
