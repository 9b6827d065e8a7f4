//! Where packets live while they are inside the network: one slot per packet,
//! reused once the packet has left (delivered, dropped or lost).
//!
//! Queues and the arrival events of packets on a wire hold a packet's slot
//! number ([`PacketId`], 4 bytes), not the 96-byte [`Packet`]: a hop moves the
//! number through the output queue and into the arrival, and the packet itself
//! is written once when it enters the network and read or changed in place at
//! each hop. Before the store, every hop copied
//! the whole packet into the queue's ring, out of it, onto the wire and off it;
//! with traffic both ways and standing queues, those four rings streamed through
//! more memory than the caches hold and the run spent its time waiting for it
//! (issue 16's evaluation suite at 1 Gbit/s, BENCHMARKS.md).
//!
//! Freed slots are reused last-freed first: the ACK a receiver sends as a data
//! packet arrives takes the slot that packet just left, still in cache. Slot
//! numbers never reach results, so a run stays a pure function of (scenario, seed).

use crate::packet::Packet;

/// A packet's slot in the [`PacketStore`].
pub type PacketId = u32;

/// Bytes a packet inside the network costs (for the memory estimate): its slot,
/// its number in a queue (on a wire, its arrival event holds it: see
/// `engine::EVENT_BYTES`), and its place in the free list once it
/// has left (slots are kept for reuse).
pub const BYTES_PER_PACKET: usize = std::mem::size_of::<Packet>() + 2 * std::mem::size_of::<PacketId>();

/// The packets inside the network, by slot (see the module doc).
#[derive(Default)]
pub struct PacketStore {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketStore {
    /// Store a packet entering the network; its slot until [`PacketStore::take`].
    /// The slots number at most the packets inside the network at once, which
    /// the memory estimate bounds far below `u32::MAX` (96 bytes each).
    #[inline]
    pub fn put(&mut self, pkt: Packet) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = pkt;
                id
            }
            None => {
                self.slots.push(pkt);
                (self.slots.len() - 1) as PacketId
            }
        }
    }

    /// The packet leaves the network: its slot is free again.
    #[inline]
    pub fn take(&mut self, id: PacketId) -> Packet {
        self.free.push(id);
        self.slots[id as usize]
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Ask the processor to bring slot `id` into its cache: called for the
    /// packet that a wire or a queue will hand over next, a few events before it
    /// is read. Queues and arrivals hold slot numbers, so the slot itself is where a
    /// hop waits for memory (cpu-clock samples of the evaluation suite at 1
    /// Gbit/s: the read of the arriving packet's `dst` and of the departing
    /// packet's `size` were most of the run's stalls). A hint only: nothing
    /// changes, whatever `id` is.
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        // Both ends of the slot: 96 bytes, not aligned to a line.
        let slot = self.slots.as_ptr().wrapping_add(id as usize);
        crate::prefetch::line(slot);
        crate::prefetch::line((slot as *const u8).wrapping_add(std::mem::size_of::<Packet>() - 1));
    }

    /// Packets stored now.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    #[test]
    fn a_freed_slot_is_reused_first_and_holds_the_new_packet() {
        let mut store = PacketStore::default();
        let a = store.put(Packet::new(PacketKind::Data, 1, 0, 1, 1000));
        let b = store.put(Packet::new(PacketKind::Data, 2, 0, 1, 1000));
        assert_ne!(a, b);
        assert_eq!(store.take(a).flow, 1);
        let c = store.put(Packet::new(PacketKind::Ack, 3, 1, 0, 40));
        assert_eq!(c, a, "the slot just freed");
        assert_eq!((store.get(c).flow, store.get(b).flow, store.len()), (3, 2, 2));
        store.get_mut(b).seq = 7;
        assert_eq!(store.take(b).seq, 7);
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn a_prefetch_of_any_slot_number_changes_nothing_and_never_faults() {
        let mut store = PacketStore::default();
        // Past the end of an empty store, and far outside any allocation.
        for id in [0, 1, 1 << 20, u32::MAX] {
            store.prefetch(id);
        }
        let a = store.put(Packet::new(PacketKind::Data, 4, 0, 1, 1000));
        store.prefetch(a);
        store.prefetch(u32::MAX);
        assert_eq!((store.len(), store.get(a).flow, store.get(a).size), (1, 4, 1000));
    }
}
