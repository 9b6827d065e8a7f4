//! What each event of the engine does to the world: packets through queues,
//! transmitters and wires; the endpoints' timers; sources; monitors.

use rand::Rng;

use super::{tcp_flow, World};
use crate::engine::Event;
use crate::net::routing::NO_ROUTE;
use crate::packet::{Packet, PacketKind};
use crate::packet_store::PacketId;
use crate::queue::Enqueued;
use crate::time::NS_PER_SEC;
use crate::traffic::web::{Completion, Next};

impl World {
    /// Run `ev`. A packet's transmission ends and arrivals (nearly all events)
    /// are handled in the caller's loop; the rest go to [`World::dispatch_other`],
    /// out of line (issue 21: the big function's entry and exit cost 16
    /// instructions on every event when all of them went through it).
    #[inline(always)]
    pub(super) fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(c) => self.tx_done(c),
            Event::Arrive(c, id) => self.arrive(c, id),
            _ => self.dispatch_other(ev),
        }
    }

    /// Every kind of event, out of line (the two of [`World::dispatch`]'s
    /// fast path too, so that it is a whole dispatcher).
    #[inline(never)]
    fn dispatch_other(&mut self, ev: Event) {
        match ev {
            Event::TxDone(c) => self.tx_done(c),
            Event::Arrive(c, id) => self.arrive(c, id),
            Event::Rto(f) => {
                let (now, queue) = (self.now, &mut self.queue);
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) else { return };
                if flow.rto.on_pop(now, flow.sender.rto_deadline(), queue, ev) {
                    let mut out = std::mem::take(&mut self.out);
                    flow.sender.on_rto(now, &mut flow.rng, &mut out);
                    self.emit_from_sender(f, &mut out);
                    self.out = out;
                }
            }
            Event::DelAck(f) => {
                let (now, queue) = (self.now, &mut self.queue);
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) else { return };
                if flow.delack.on_pop(now, flow.receiver.delack_deadline(), queue, ev) {
                    let mut out = std::mem::take(&mut self.out);
                    flow.receiver.on_delack_timer(now, &mut out);
                    self.emit_from_receiver(f, &mut out);
                    self.out = out;
                }
            }
            Event::SendRelease(f) => {
                let (now, queue) = (self.now, &mut self.queue);
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) else { return };
                if flow.release.on_pop(now, flow.sender.release_deadline(), queue, ev) {
                    let mut out = std::mem::take(&mut self.out);
                    flow.sender.on_release(now, &mut out);
                    self.emit_from_sender(f, &mut out);
                    self.out = out;
                }
            }
            Event::FlowStart(f) => {
                let mut out = std::mem::take(&mut self.out);
                let flow = &mut self.flows[f as usize];
                flow.started = true;
                flow.sender.start(self.now, &mut flow.rng, &mut out);
                self.emit_from_sender(f, &mut out);
                self.out = out;
            }
            Event::FlowStop(f) => self.flows[f as usize].sender.stop(),
            Event::FlowResume(f) => {
                let mut out = std::mem::take(&mut self.out);
                self.flows[f as usize].sender.resume(self.now, &mut out);
                self.emit_from_sender(f, &mut out);
                self.out = out;
            }
            Event::VideoWrite(f) => {
                let mut out = std::mem::take(&mut self.out);
                let flow = &mut self.flows[f as usize];
                if let Some(v) = flow.video.as_mut() {
                    v.written = v.written.saturating_add(1);
                    self.queue.push(self.now.saturating_add(v.interval), Event::VideoWrite(f));
                    flow.sender.write(self.now, v.written, &mut out);
                }
                self.emit_from_sender(f, &mut out);
                self.out = out;
            }
            Event::UdpSend(u) => self.udp_send(u),
            Event::WebPage(s) => {
                let session = &mut self.web.sessions[s as usize];
                let next = session.start_page(&self.scenario.web[session.group as usize], self.now);
                self.schedule_web(s, next);
            }
            Event::WebObject(s) => self.web_object(s),
            Event::Sample => {
                self.monitor.sample(self.now, &self.channels, &self.flows);
                if let Some(dt) = self.monitor.sample_interval {
                    self.queue.push(self.now.saturating_add(dt), Event::Sample);
                }
            }
            Event::MeasureStart => {
                for c in self.channels.iter_mut().filter_map(|c| c.queue.classes.as_mut()) {
                    c.windows.clear();
                    c.trace.clear();
                }
                self.snap_start = Some(self.snapshot());
            }
            Event::MeasureEnd => self.snap_end = Some(self.snapshot()),
        }
    }

    /// Inject the packets a sender sent (those its send overhead holds wait for
    /// their release), then re-arm its timers. Arming the release after the
    /// packets is the order of arming it before them: with a send overhead the
    /// sender holds every segment, so `out` is empty; without one there is no
    /// release to arm.
    pub(super) fn emit_from_sender(&mut self, f: u32, out: &mut Vec<Packet>) {
        self.inject_all(out);
        if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) {
            flow.release.arm(flow.sender.release_deadline(), &mut self.queue, Event::SendRelease(f));
            flow.rto.arm(flow.sender.rto_deadline(), &mut self.queue, Event::Rto(f));
        }
    }

    fn emit_from_receiver(&mut self, f: u32, out: &mut Vec<Packet>) {
        self.inject_all(out);
        if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) {
            flow.delack.arm(flow.receiver.delack_deadline(), &mut self.queue, Event::DelAck(f));
        }
    }

    /// Schedule what a web session does next.
    fn schedule_web(&mut self, s: u32, next: Next) {
        match next {
            Next::Object(at) => self.queue.push(at, Event::WebObject(s)),
            Next::Page(at) => self.queue.push(at, Event::WebPage(s)),
            Next::Wait => {}
        }
    }

    /// A session requests an object: a new connection from a server to the
    /// session's client transfers it.
    fn web_object(&mut self, s: u32) {
        let session = &mut self.web.sessions[s as usize];
        let spec = &self.scenario.web[session.group as usize];
        let (server, segments, next) = session.request(spec, self.now);
        let Some(id) = self.web.open_conn(s, spec, server, segments, self.now, self.seed, &self.channels, &self.routes) else { return };
        self.schedule_web(s, next);
        let mut out = std::mem::take(&mut self.out);
        if let Some(flow) = self.web.conn_flow(id) {
            flow.sender.start(self.now, &mut flow.rng, &mut out);
        }
        self.emit_from_sender(id, &mut out);
        self.out = out;
    }

    /// A web object is completely acknowledged: record it, close its connection,
    /// and let the session go on.
    fn web_complete(&mut self, id: u32) {
        let Some(conn) = self.web.close(id) else { return };
        let payload = conn.flow.payload_bytes() as u64;
        self.web.completions.push(Completion { at: self.now, response: self.now - conn.started, bytes: conn.segments as u64 * payload });
        let session = &mut self.web.sessions[conn.session as usize];
        let next = session.complete(&self.scenario.web[session.group as usize], self.now);
        self.schedule_web(conn.session, next);
    }

    /// The packets in `out` enter the network in order; `out` is left empty.
    fn inject_all(&mut self, out: &mut Vec<Packet>) {
        for pkt in out.drain(..) {
            self.inject(pkt);
        }
    }

    /// A packet enters the network at its source node (into the store), with
    /// the service class its source gave it.
    fn inject(&mut self, pkt: Packet) {
        self.totals.injected += 1;
        let src = pkt.src;
        let id = self.store.put(pkt);
        self.forward(src, id);
    }

    /// Send the packet in slot `id` from `node` towards its destination.
    fn forward(&mut self, node: u32, id: PacketId) {
        let (dst, kind, flow) = {
            let pkt = self.store.get(id);
            (pkt.dst, pkt.kind, pkt.flow)
        };
        let c = self.routes.next(node, dst);
        // Routes exist for every endpoint pair (checked at build), so NO_ROUTE
        // cannot occur; a packet is counted as dropped rather than panicking.
        if c == NO_ROUTE {
            self.count_drop(id, None);
            return;
        }
        let ch = &mut self.channels[c as usize];
        let idle = !ch.busy(self.now);
        if idle {
            // An empty DropTail queue on an idle link: the packet goes straight to the transmitter.
            match ch.queue.pass_idle(id, &mut self.store, self.now) {
                Some(Enqueued::Queued) => {
                    self.record_position(c, kind, flow, 1);
                    self.transmit(c, id);
                    return;
                }
                Some(Enqueued::Dropped(_)) => return self.count_drop(id, Some(c)),
                None => {}
            }
        }
        let ch = &mut self.channels[c as usize];
        match ch.queue.enqueue(id, &mut self.store, self.now) {
            Enqueued::Queued => {
                let len = ch.queue.len_pkts();
                self.record_position(c, kind, flow, len);
                let ch = &mut self.channels[c as usize];
                if idle {
                    self.start_tx(c);
                } else if !ch.tx_done_pending {
                    // The transmission in progress had no end event (its
                    // arrival is scheduled): its end now starts this packet.
                    ch.tx_done_pending = true;
                    self.queue.push_as_of(ch.tx_end, ch.tx_seq, Event::TxDone(c));
                }
            }
            Enqueued::Dropped(_) => self.count_drop(id, Some(c)),
        }
    }

    /// The queue-position monitor (Kotla's Fig. 2) records a data packet of `flow` queued at
    /// `position` (the queue's length with it) on channel `c` within the measurement window.
    #[inline(always)]
    fn record_position(&mut self, c: u32, kind: PacketKind, flow: u32, position: u32) {
        if let Some(qp) = &mut self.monitor.queue_positions {
            if qp.channel == c && kind == PacketKind::Data && self.snap_start.is_some() && self.snap_end.is_none() {
                qp.record(&self.labels, flow, position);
            }
        }
    }

    fn start_tx(&mut self, c: u32) {
        let ch = &mut self.channels[c as usize];
        if let Some(id) = ch.queue.dequeue(self.now, &mut self.store, &mut self.dropped) {
            self.transmit(c, id);
        }
        // Only sojourn-time AQMs drop at departure: the buffer is taken out of
        // `self` (for `count_drop`) only when it holds something.
        if !self.dropped.is_empty() {
            let mut dropped = std::mem::take(&mut self.dropped);
            for id in dropped.drain(..) {
                self.count_drop(id, Some(c));
            }
            self.dropped = dropped;
        }
    }

    /// The packet in slot `id`, out of channel `c`'s queue, starts its transmission now.
    #[inline(always)]
    fn transmit(&mut self, c: u32, id: PacketId) {
        let ch = &mut self.channels[c as usize];
        let tx = ch.tx_time(self.store.get(id).size);
        ch.tx_end = self.now.saturating_add(tx);
        ch.counters.busy_ns += tx;
        ch.in_tx = id;
        // With `engine.tx_end_events = when_needed`, nothing happens at the
        // end of this transmission unless the queue holds the next packet,
        // a loss is drawn then, or the wire holds the packet back after a
        // decrease of its delay: else its arrival is scheduled now (see the
        // module doc of `net`).
        ch.arrival_scheduled = ch.arrival_at_start && ch.queue.is_empty() && ch.arrival(ch.tx_end).is_none();
        ch.tx_done_pending = !ch.arrival_scheduled;
        if ch.arrival_scheduled {
            // The place a `TxDone` pushed now would take, for one scheduled later.
            ch.tx_seq = self.queue.reserve_seq();
            self.queue.push_after(self.now, tx.saturating_add(ch.delay), Event::Arrive(c, id), &mut ch.tx_prop_lane);
        } else {
            self.queue.push_after(self.now, tx, Event::TxDone(c), &mut ch.tx_lane);
        }
        if !self.captures.is_empty() {
            let pkt = *self.store.get(id);
            self.capture(c, &pkt);
        }
    }

    /// Every capture of channel `c` records `pkt`, which starts transmission now.
    fn capture(&mut self, c: u32, pkt: &Packet) {
        if !self.captures.iter().any(|cap| cap.wants(c, pkt)) {
            return;
        }
        // The data packet size of the packet's TCP flow; a late ACK of a web
        // transfer already closed has none left and is not captured.
        let segment_bytes = match (pkt.kind, tcp_flow(&mut self.flows, &mut self.web, pkt.flow)) {
            (PacketKind::Udp, _) | (PacketKind::Data, None) => pkt.size,
            (_, Some(flow)) => flow.sender.tp.mss,
            (PacketKind::Ack, None) => return,
        };
        let ch = &self.channels[c as usize];
        for cap in self.captures.iter_mut().filter(|cap| cap.wants(c, pkt)) {
            cap.record(ch, pkt, self.now, segment_bytes);
        }
    }

    fn tx_done(&mut self, c: u32) {
        let ch = &mut self.channels[c as usize];
        if !ch.tx_done_pending {
            return;
        }
        ch.tx_done_pending = false;
        // An arrival scheduled when the transmission started (`when_needed`)
        // leaves this event only the next packet of the queue to start.
        if !ch.arrival_scheduled {
            self.leave_transmitter(c);
        }
        // An access link's queue is empty after nearly every transmission: the
        // check here spares `start_tx`'s call (issue 21), which on an empty
        // queue does nothing (no discipline sees an empty queue's dequeue).
        if !self.channels[c as usize].queue.is_empty() {
            self.start_tx(c);
        }
    }

    /// The packet just transmitted on channel `c` (the back of its wire) is
    /// lost there, or its arrival at the far end is scheduled.
    #[inline(always)]
    fn leave_transmitter(&mut self, c: u32) {
        let ch = &mut self.channels[c as usize];
        let bernoulli = ch.loss > 0.0 && ch.loss_rng.gen::<f64>() < ch.loss;
        let lost = ch.burst.as_mut().is_some_and(|b| b.lost(&mut ch.loss_rng)) || bernoulli;
        if lost {
            ch.counters.losses += 1;
            let id = ch.in_tx;
            self.count_drop(id, None);
        } else {
            // With a constant delay the arrival goes to the engine's lane of
            // that delay, behind those of the packets ahead on the wire; after a
            // decrease of the delay, a packet held behind them goes to the heap.
            let id = ch.in_tx;
            match ch.arrival(self.now) {
                None => self.queue.push_after(self.now, ch.delay, Event::Arrive(c, id), &mut ch.prop_lane),
                Some(at) => self.queue.push(at, Event::Arrive(c, id)),
            }
        }
    }

    /// The packet in slot `id` reaches the far node of channel `c`, the end of
    /// its wire: its next hop, or its destination. Nothing of the channel is
    /// read but its far end (see the module doc of `net`).
    fn arrive(&mut self, c: u32, id: PacketId) {
        let node = self.far_ends[c as usize];
        if self.prefetch {
            self.prefetch_ahead();
        }
        if self.store.get(id).dst == node {
            let pkt = self.store.take(id);
            self.deliver(pkt);
        } else {
            self.forward(node, id);
        }
    }

    /// Memory asked for two arrivals ahead, in a world larger than the caches
    /// ([`super::PREFETCH_ABOVE_BYTES`]; issue 21: with a link per flow the
    /// next hop's channel and the flow's state are seldom in cache;
    /// BENCHMARKS.md, "The access links' share" and "The wire without a ring").
    /// The arrivals due next on links of this delay are the lane's front and
    /// the one behind it. The one behind: its packet's slot. The front (its
    /// slot asked for at the arrival before this one): the channel it will
    /// take from its far node, or where it is delivered there, the link its
    /// reply leaves on and the TCP end that will read it.
    #[inline(always)]
    fn prefetch_ahead(&self) {
        if let Some(Event::Arrive(_, after)) = self.queue.lane_ahead(1) {
            self.store.prefetch(after);
        }
        let Some(Event::Arrive(c, next)) = self.queue.lane_ahead(0) else { return };
        let node = self.far_ends[c as usize];
        let pkt = self.store.get(next);
        let delivered = pkt.dst == node;
        let hop = if delivered { self.routes.host_link(node) } else { Some(self.routes.next(node, pkt.dst)) };
        if let Some(ch) = hop.and_then(|h| self.channels.get(h as usize)) {
            crate::prefetch::value(ch);
        }
        if let (true, Some(flow)) = (delivered, self.flows.get(pkt.flow as usize)) {
            match pkt.kind {
                PacketKind::Data => crate::prefetch::value(&flow.receiver),
                PacketKind::Ack => crate::prefetch::value(&flow.sender),
                PacketKind::Udp => {}
            }
        }
    }

    /// A packet reached its destination node (out of the store).
    fn deliver(&mut self, pkt: Packet) {
        self.totals.delivered += 1;
        let f = pkt.flow;
        let mut out = std::mem::take(&mut self.out);
        match pkt.kind {
            // A packet of a web transfer already complete finds no connection and is discarded.
            PacketKind::Data => {
                if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) {
                    let before = flow.receiver.rcv_nxt();
                    let sender = &flow.sender;
                    flow.receiver.on_data(self.now, &pkt, || sender.view(), &mut out);
                    if let Some(v) = flow.video.as_mut() {
                        v.playout.deliver(self.now, before, flow.receiver.rcv_nxt());
                    }
                    self.emit_from_receiver(f, &mut out);
                }
            }
            PacketKind::Ack => {
                if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, f) {
                    flow.sender.on_ack(self.now, &pkt, &mut flow.rng, &mut out);
                    let finished = flow.sender.finished();
                    if let (Some(sample), true) = (flow.sender.last_rtt_sample, self.monitor.traced(f)) {
                        let cwnd = flow.sender.tp.snd_cwnd;
                        let q = self.monitor.trace_channel.map_or(0, |c| self.channels[c as usize].queue.len_pkts());
                        self.monitor.record_rtt(self.now, f, sample, cwnd, q);
                    }
                    self.emit_from_sender(f, &mut out);
                    if finished {
                        self.web_complete(f);
                    }
                }
            }
            PacketKind::Udp => {
                let u = &mut self.udp[f as usize].counters;
                u.received += 1;
                u.received_bytes += pkt.size as u64;
            }
        }
        self.out = out;
    }

    /// The packet in slot `id` is lost (and leaves the store); `at_queue` is
    /// the channel whose queue dropped it, if a queue did.
    fn count_drop(&mut self, id: PacketId, at_queue: Option<u32>) {
        let pkt = self.store.take(id);
        self.totals.dropped += 1;
        let t_s = self.now as f64 / NS_PER_SEC as f64;
        let trace = &mut self.monitor.trace;
        if at_queue.is_some() && at_queue == self.monitor.trace_channel {
            trace.drop_t_s.push(t_s);
            trace.drop_flow.push(pkt.flow);
        }
        match pkt.kind {
            PacketKind::Data => {
                if self.monitor.traced(pkt.flow) {
                    let trace = &mut self.monitor.trace;
                    trace.loss_t_s.push(t_s);
                    trace.loss_flow.push(pkt.flow);
                }
                if let Some(flow) = tcp_flow(&mut self.flows, &mut self.web, pkt.flow) {
                    flow.data_drops += 1;
                    flow.retransmit_drops += u64::from(pkt.retx);
                }
            }
            PacketKind::Udp => self.udp[pkt.flow as usize].counters.dropped += 1,
            PacketKind::Ack => {}
        }
    }

    fn udp_send(&mut self, u: u32) {
        let src = &mut self.udp[u as usize];
        if src.stop.is_some_and(|s| self.now >= s) {
            return;
        }
        let pkt = src.next_packet();
        let gap = src.next_gap();
        self.queue.push(self.now.saturating_add(gap), Event::UdpSend(u));
        self.inject(pkt);
    }
}
