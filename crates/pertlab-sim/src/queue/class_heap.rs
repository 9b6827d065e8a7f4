//! An indexed binary max-heap over class numbers keyed by a priority, so that
//! insert, remove and change of a key cost O(log N) (spec section 7, erratum 7:
//! the thesis's sorted array needs O(N) shifts; a heap gives the O(log N) it
//! claims). Ties go to the higher class. Counts its key comparisons.

pub struct ClassHeap {
    heap: Vec<usize>,
    /// Position of each class in `heap`, if present.
    pos: Vec<Option<usize>>,
    key: Vec<f64>,
    pub comparisons: u64,
}

impl ClassHeap {
    pub fn new(classes: usize) -> Self {
        ClassHeap { heap: Vec::with_capacity(classes), pos: vec![None; classes], key: vec![0.0; classes], comparisons: 0 }
    }

    /// The class with the largest key.
    pub fn top(&self) -> Option<usize> {
        self.heap.first().copied()
    }

    pub fn contains(&self, class: usize) -> bool {
        self.pos[class].is_some()
    }

    /// Insert `class` (absent) with `key`.
    pub fn push(&mut self, class: usize, key: f64) {
        self.key[class] = key;
        self.pos[class] = Some(self.heap.len());
        self.heap.push(class);
        self.sift_up(self.heap.len() - 1);
    }

    /// Set the key of `class` (present) and restore the heap.
    pub fn update(&mut self, class: usize, key: f64) {
        let Some(i) = self.pos[class] else { return };
        let old = self.key[class];
        self.key[class] = key;
        if key > old {
            self.sift_up(i);
        } else {
            self.sift_down(i);
        }
    }

    /// Remove `class` if present.
    pub fn remove(&mut self, class: usize) {
        let Some(i) = self.pos[class].take() else { return };
        let last = self.heap.pop().unwrap_or(class);
        if i < self.heap.len() {
            self.heap[i] = last;
            self.pos[last] = Some(i);
            self.sift_down(i);
            self.sift_up(i);
        }
    }

    fn above(&mut self, a: usize, b: usize) -> bool {
        self.comparisons += 1;
        let (ka, kb) = (self.key[a], self.key[b]);
        ka > kb || (ka == kb && a > b)
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.heap.swap(i, j);
        self.pos[self.heap[i]] = Some(i);
        self.pos[self.heap[j]] = Some(j);
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.above(self.heap[i], self.heap[parent]) {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut best = i;
            if l < self.heap.len() && self.above(self.heap[l], self.heap[best]) {
                best = l;
            }
            if r < self.heap.len() && self.above(self.heap[r], self.heap[best]) {
                best = r;
            }
            if best == i {
                break;
            }
            self.swap(i, best);
            i = best;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_follows_pushes_updates_and_removals() {
        let mut h = ClassHeap::new(5);
        for (c, k) in [(0, 3.0), (1, 1.0), (2, 5.0), (3, 5.0), (4, 0.5)] {
            h.push(c, k);
        }
        assert_eq!(h.top(), Some(3), "ties go to the higher class");
        h.update(3, 0.1);
        assert_eq!(h.top(), Some(2));
        h.remove(2);
        assert_eq!(h.top(), Some(0));
        h.update(4, 9.0);
        assert_eq!(h.top(), Some(4));
        for c in [4, 0, 1, 3] {
            h.remove(c);
        }
        assert_eq!(h.top(), None);
        assert!(!h.contains(1));
    }
}
