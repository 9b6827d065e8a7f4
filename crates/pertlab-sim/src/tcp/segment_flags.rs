//! The scoreboard's flags, one byte per segment from SND.UNA to SND.NXT: a
//! FIFO of power-of-two capacity whose first [`INLINE`] bytes live inside
//! itself, moved to the heap only while the window holds more segments.
//!
//! Issue 21: with 1000 flows a window is one to three segments, and every ACK
//! and every segment sent touched the flags' own heap allocation, a load that
//! waited for the sender's line before it could start; inside the sender, the
//! flags share its lines. A window that empties gives its heap buffer back.
//!
//! The ring arithmetic is `crate::ring::Ring`'s; `Ring` made generic over
//! inline values to serve here too ran 1.03 times the CPU of this with 1000
//! flows (31 pairs, BENCHMARKS.md), so the two stay apart.

use std::ops::{Index, IndexMut};

/// Segments whose flags are kept inline (one cache line of them).
pub const INLINE: usize = 64;

/// See the module doc.
#[derive(Clone, Debug)]
pub struct SegmentFlags {
    /// Empty while the flags are inline; else a power-of-two capacity above `INLINE`.
    heap: Vec<u8>,
    head: usize,
    len: usize,
    inline: [u8; INLINE],
}

impl Default for SegmentFlags {
    fn default() -> Self {
        SegmentFlags { heap: Vec::new(), head: 0, len: 0, inline: [0; INLINE] }
    }
}

impl SegmentFlags {
    #[inline(always)]
    fn buf(&self) -> &[u8] {
        if self.heap.is_empty() {
            &self.inline
        } else {
            &self.heap
        }
    }

    #[inline(always)]
    fn buf_mut(&mut self) -> &mut [u8] {
        if self.heap.is_empty() {
            &mut self.inline
        } else {
            &mut self.heap
        }
    }

    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & (self.buf().len() - 1)
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
    pub fn get(&self, i: usize) -> Option<&u8> {
        (i < self.len).then(|| &self.buf()[self.slot(i)])
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&u8> {
        self.get(0)
    }

    #[inline(always)]
    pub fn push_back(&mut self, f: u8) {
        if self.len == self.buf().len() {
            self.grow();
        }
        let i = self.slot(self.len);
        self.buf_mut()[i] = f;
        self.len += 1;
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<u8> {
        let f = *self.front()?;
        self.head = self.slot(1);
        self.len -= 1;
        if self.len == 0 && !self.heap.is_empty() {
            self.heap = Vec::new();
            self.head = 0;
        }
        Some(f)
    }

    /// Twice the capacity, on the heap, the flags moved to its start in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let capacity = 2 * self.buf().len();
        let mut heap = Vec::with_capacity(capacity);
        heap.extend(self.iter().copied());
        heap.resize(capacity, 0);
        (self.heap, self.head) = (heap, 0);
    }

    /// The flags, from SND.UNA up.
    pub fn iter(&self) -> impl Iterator<Item = &u8> {
        (0..self.len).map(move |i| &self.buf()[self.slot(i)])
    }

    /// Apply `f` to every flag, from SND.UNA up.
    pub fn update_all(&mut self, mut f: impl FnMut(&mut u8)) {
        for i in 0..self.len {
            let s = self.slot(i);
            f(&mut self.buf_mut()[s]);
        }
    }
}

impl Index<usize> for SegmentFlags {
    type Output = u8;

    #[inline(always)]
    fn index(&self, i: usize) -> &u8 {
        assert!(i < self.len, "segment {i} beyond the window of {}", self.len);
        &self.buf()[self.slot(i)]
    }
}

impl IndexMut<usize> for SegmentFlags {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut u8 {
        assert!(i < self.len, "segment {i} beyond the window of {}", self.len);
        let s = self.slot(i);
        &mut self.buf_mut()[s]
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any sequence of pushes, pops and writes gives what a `VecDeque` gives,
        /// inline, on the heap and back.
        #[test]
        fn the_flags_are_a_fifo_like_vecdeque(ops in prop::collection::vec((0u8..4, any::<u8>(), any::<usize>()), 0..800)) {
            let (mut flags, mut deque) = (SegmentFlags::default(), VecDeque::new());
            for (op, value, at) in ops {
                match op {
                    0 | 1 => { flags.push_back(value); deque.push_back(value); }
                    2 => prop_assert_eq!(flags.pop_front(), deque.pop_front()),
                    _ if !deque.is_empty() => {
                        let i = at % deque.len();
                        flags[i] |= value;
                        deque[i] |= value;
                    }
                    _ => {}
                }
                prop_assert_eq!(flags.len(), deque.len());
                prop_assert_eq!(flags.front(), deque.front());
                prop_assert!(flags.iter().eq(deque.iter()));
            }
            flags.update_all(|f| *f ^= 0x55);
            prop_assert!(flags.iter().copied().eq(deque.iter().map(|f| f ^ 0x55)));
        }
    }

    #[test]
    fn a_window_that_empties_goes_back_inline() {
        let mut flags = SegmentFlags::default();
        for i in 0..(INLINE + 1) {
            flags.push_back(i as u8);
        }
        assert_eq!(flags.heap.len(), 2 * INLINE);
        while flags.pop_front().is_some() {}
        assert!(flags.heap.is_empty() && flags.is_empty());
    }
}
