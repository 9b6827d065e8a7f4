//! What a run observes besides its counters: time series of queues and flows
//! sampled every `monitor.sample_interval_ns` (a queue's row has the
//! utilization of its link over the interval since the previous sample, from
//! the channel's busy time as the summary's), the per-packet trace of some
//! flows (`monitor.trace_flows`, `trace_link`), and the queue positions of the
//! data packets one queue accepts (`monitor.queue_positions`).

use super::flows::{Flow, Labels};
use crate::error::ConfigError;
use crate::net::routing::Routes;
use crate::net::Channel;
use crate::queue::QueueLimit;
use crate::scenario::{LinkSpec, Scenario};
use crate::stats::{utilization, FlowSeries, QueueSeries, Trace};
use crate::tcp::sender::RttSample;
use crate::time::{SimTime, NS_PER_SEC};

/// Positions of the data packets one queue accepts inside the measurement
/// window: `counts[label][position - 1]`, position = packets waiting + 1.
pub(super) struct QueuePositionCounts {
    /// The channel (link direction a -> b) observed.
    pub channel: u32,
    /// Label index of web transfers (ids past the long flows').
    web_label: u32,
    pub counts: Vec<Vec<u64>>,
}

impl QueuePositionCounts {
    /// A data packet of connection `flow` was accepted at `position`.
    pub fn record(&mut self, labels: &Labels, flow: u32, position: u32) {
        let label = labels.of_flow.get(flow as usize).copied().unwrap_or(self.web_label);
        let Some(row) = self.counts.get_mut(label as usize) else { return };
        let i = position.max(1) as usize - 1;
        if row.len() <= i {
            row.resize(i + 1, 0);
        }
        row[i] += 1;
    }
}

/// The monitors of a run and what they recorded.
pub(super) struct Monitors {
    /// The interval of the time series; none when there is nothing to sample.
    pub sample_interval: Option<SimTime>,
    sampled_channels: Vec<u32>,
    /// Busy time of each sampled channel at the previous sample, and its time.
    busy_at_sample: Vec<u64>,
    last_sample: SimTime,
    sampled_flows: Vec<u32>,
    /// Per-packet trace: which flows (a flag per long flow), which channel.
    traced: Vec<bool>,
    pub trace_channel: Option<u32>,
    pub trace: Trace,
    pub queue_positions: Option<QueuePositionCounts>,
    pub queue_series: QueueSeries,
    pub flow_series: FlowSeries,
}

impl Monitors {
    /// The monitors of `scenario.monitor`, checked against the network and the
    /// flows; the queue-position link may add the label "web" to `labels`.
    pub fn build(
        scenario: &Scenario,
        links: &[LinkSpec],
        channels: &[Channel],
        routes: &Routes,
        flows: &[Flow],
        labels: &mut Labels,
    ) -> Result<Monitors, ConfigError> {
        let m = &scenario.monitor;
        let sampled_channels = match &m.links {
            None => (0..channels.len() as u32).collect(),
            Some(names) => {
                let mut v = Vec::new();
                for (i, n) in names.iter().enumerate() {
                    let found: Vec<u32> = (0..channels.len() as u32).filter(|&c| &channels[c as usize].link_name == n).collect();
                    if found.is_empty() {
                        return Err(ConfigError::new(format!("monitor.links[{i}]"), format!("no link named `{n}`")));
                    }
                    v.extend(found);
                }
                v
            }
        };
        let sampled_flows = match &m.flows {
            None => (0..flows.len() as u32).collect(),
            Some(ids) => {
                if let Some((i, id)) = ids.iter().enumerate().find(|&(_, &id)| id as usize >= flows.len()) {
                    return Err(ConfigError::new(format!("monitor.flows[{i}]"), format!("flow index must be below {}, got {id}", flows.len())));
                }
                ids.clone()
            }
        };
        let mut traced = vec![false; flows.len()];
        for (i, &id) in m.trace_flows.iter().enumerate() {
            match traced.get_mut(id as usize) {
                Some(t) => *t = true,
                None => return Err(ConfigError::new(format!("monitor.trace_flows[{i}]"), format!("flow index must be below {}, got {id}", flows.len()))),
            }
        }
        let trace_channel = trace_channel(scenario, channels, routes, flows)?;
        let queue_limit_pkts = trace_channel.map_or(0, |c| match channels[c as usize].queue.limit {
            QueueLimit::Packets(n) => n,
            QueueLimit::Bytes(_) => 0,
        });
        let sample_interval = m.sample_interval_ns.filter(|_| !sampled_channels.is_empty() || !sampled_flows.is_empty());
        Ok(Monitors {
            sample_interval,
            busy_at_sample: vec![0; sampled_channels.len()],
            last_sample: 0,
            sampled_channels,
            sampled_flows,
            traced,
            trace_channel,
            trace: Trace { queue_limit_pkts, ..Trace::default() },
            queue_positions: queue_positions(scenario, links, labels)?,
            queue_series: QueueSeries::default(),
            flow_series: FlowSeries::default(),
        })
    }

    /// Whether long flow `f` is traced.
    pub fn traced(&self, f: u32) -> bool {
        self.traced.get(f as usize).copied().unwrap_or(false)
    }

    /// A traced sender took RTT sample `sample` at `now` with window `cwnd`; the
    /// traced queue held `queue_pkts`.
    pub fn record_rtt(&mut self, now: SimTime, f: u32, sample: RttSample, cwnd: u32, queue_pkts: u32) {
        let t = &mut self.trace;
        t.rtt_t_s.push(now as f64 / NS_PER_SEC as f64);
        t.rtt_flow.push(f);
        t.rtt_ms.push(sample.rtt as f64 / 1e6);
        t.rtt_seq.push(sample.seq);
        t.rtt_cwnd.push(cwnd);
        t.rtt_queue_pkts.push(queue_pkts);
    }

    /// Record one sample of every sampled queue and (started) flow at `now`.
    pub fn sample(&mut self, now: SimTime, channels: &[Channel], flows: &[Flow]) {
        let t = now as f64 / NS_PER_SEC as f64;
        let span = now.saturating_sub(self.last_sample);
        self.last_sample = now;
        for (&c, busy_before) in self.sampled_channels.iter().zip(&mut self.busy_at_sample) {
            let channel = &channels[c as usize];
            let q = &channel.queue;
            let busy = channel.counters_at(now).busy_ns;
            let s = &mut self.queue_series;
            s.utilization.push(utilization(busy.saturating_sub(*busy_before), span));
            *busy_before = busy;
            s.t_s.push(t);
            s.queue.push(c);
            s.len_pkts.push(q.len_pkts());
            s.len_bytes.push(q.len_bytes());
            s.probability.push(q.discipline().probability());
            s.avg.push(q.discipline().average());
            s.max_p.push(q.discipline().max_p());
        }
        for &f in &self.sampled_flows {
            let flow = &flows[f as usize];
            if !flow.started {
                continue;
            }
            let s = &mut self.flow_series;
            s.t_s.push(t);
            s.flow.push(f);
            s.cwnd.push(flow.sender.tp.snd_cwnd);
            s.ssthresh.push(flow.sender.tp.snd_ssthresh);
            s.srtt_ms.push(flow.sender.tp.srtt as f64 / 1e6);
            s.delivered_bytes.push(flow.receiver.counters().segments_delivered * flow.payload_bytes() as u64);
            let tm = flow.sender.cc_telemetry();
            s.mode.push(tm.map(|x| x.mode.name()));
            s.alpha.push(tm.map(|x| x.alpha));
            s.beta.push(tm.map(|x| x.beta));
            s.p.push(tm.map(|x| x.p));
            s.p_early.push(tm.map(|x| x.p_early));
            s.qdelay_ms.push(flow.sender.cc_queueing_delay().map(|ns| ns as f64 / 1e6));
            s.q_max_ms.push(tm.map(|x| x.q_max_ms));
            s.p_response.push(flow.sender.cc_response_probability());
            s.r.push(flow.sender.cc_path_r());
        }
    }
}

/// The channel of `monitor.trace_link` on the first traced flow's data path.
fn trace_channel(scenario: &Scenario, channels: &[Channel], routes: &Routes, flows: &[Flow]) -> Result<Option<u32>, ConfigError> {
    let m = &scenario.monitor;
    match (&m.trace_link, m.trace_flows.first()) {
        (None, _) => Ok(None),
        (Some(_), None) => Err(ConfigError::new("monitor.trace_link", "needs at least one flow in monitor.trace_flows")),
        (Some(name), Some(&f)) => {
            let (src, dst) = (flows[f as usize].src, flows[f as usize].dst);
            let path = routes.path(src, dst, |c| channels[c as usize].to).unwrap_or_default();
            match path.into_iter().find(|&c| &channels[c as usize].link_name == name) {
                Some(c) => Ok(Some(c)),
                None => Err(ConfigError::new("monitor.trace_link", format!("no link named `{name}` on the data path of flow {f}"))),
            }
        }
    }
}

/// The counts of `monitor.queue_positions`, one row per label (with "web" when
/// the scenario has web sessions).
fn queue_positions(scenario: &Scenario, links: &[LinkSpec], labels: &mut Labels) -> Result<Option<QueuePositionCounts>, ConfigError> {
    let Some(name) = &scenario.monitor.queue_positions else { return Ok(None) };
    let Some(c) = links.iter().position(|l| &l.display_name() == name) else {
        return Err(ConfigError::new("monitor.queue_positions", format!("no link named `{name}`")));
    };
    let web_label = if scenario.web.is_empty() { labels.names.len() as u32 } else { labels.index("web") };
    // Channels are pushed a -> b then b -> a for each link.
    Ok(Some(QueuePositionCounts { channel: 2 * c as u32, web_label, counts: vec![Vec::new(); labels.names.len()] }))
}
