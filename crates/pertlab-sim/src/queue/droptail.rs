//! DropTail: the discipline that never intervenes; the [`OutputQueue`] limit
//! alone drops arrivals to a full buffer (tail drop).
//!
//! [`OutputQueue`]: super::OutputQueue

use super::{QueueDiscipline, QueueView, Verdict};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::SimTime;

pub struct DropTail;

impl QueueDiscipline for DropTail {
    fn name(&self) -> &'static str {
        "droptail"
    }

    fn on_arrival(&mut self, _view: &QueueView, _pkt: &mut Packet, _now: SimTime, _rng: &mut SimRng) -> Verdict {
        Verdict::Pass
    }

    fn is_passive(&self) -> bool {
        true
    }
}
