//! Controllers and queue disciplines supplied by the caller (`CcSpec::Py`,
//! queue kind "py", `external::Extensions`): built per long flow or per queue
//! through the extension, the same bytes as the core's own when they do the
//! same, refused without an extension, and a raised halt stops the run after
//! that event with the results kept.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pertlab_sim::external::{Extensions, ExternalSpec, Halt, NoExtensions, QueueSite};
use pertlab_sim::packet::Packet;
use pertlab_sim::queue::red::{Red, RedConfig, RedVariant};
use pertlab_sim::queue::{QueueDiscipline, QueueLimit, QueueView, Verdict};
use pertlab_sim::rng::SimRng;
use pertlab_sim::scenario::{CcSpec, QueueSpec, Scenario};
use pertlab_sim::tcp::cc::reno::{reno_cong_avoid, reno_ssthresh};
use pertlab_sim::tcp::cc::{CcState, CongestionControl};
use pertlab_sim::tcp::TcpConfig;
use pertlab_sim::time::SimTime;
use pertlab_sim::time::NS_PER_SEC;
use pertlab_sim::world::{MemoryLimit, World};

mod common;
use common::*;

/// Reno through the extension; raises the halt at its first ACK after `halt_at`.
struct Outside {
    halt: Halt,
    halt_at: u64,
}

impl CongestionControl for Outside {
    fn name(&self) -> &'static str {
        "py:outside:Reno"
    }
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32, _rng: &mut SimRng) {
        if tp.now >= self.halt_at {
            self.halt.store(true, Ordering::Relaxed);
        }
        reno_cong_avoid(tp, acked);
    }
}

/// The core's RED through the extension, under its own name.
struct OutsideRed(Red);

impl QueueDiscipline for OutsideRed {
    fn name(&self) -> &'static str {
        "py:outside:Red"
    }
    fn on_arrival(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        self.0.on_arrival(view, pkt, now, rng)
    }
    fn on_departure(&mut self, view: &QueueView, pkt: &mut Packet, now: SimTime) -> Verdict {
        self.0.on_departure(view, pkt, now)
    }
    fn probability(&self) -> f64 {
        QueueDiscipline::probability(&self.0)
    }
    fn average(&self) -> Option<f64> {
        QueueDiscipline::average(&self.0)
    }
    fn max_p(&self) -> Option<f64> {
        QueueDiscipline::max_p(&self.0)
    }
}

struct Supplier {
    halt: Halt,
    halt_at: u64,
}

impl Extensions for Supplier {
    fn congestion_control(&self, target: &str, _flow: u32) -> Result<Box<dyn CongestionControl>, String> {
        match target {
            "outside:Reno" => Ok(Box::new(Outside { halt: self.halt.clone(), halt_at: self.halt_at })),
            _ => Err(format!("no class {target}")),
        }
    }
    fn queue_discipline(&self, target: &str, site: &QueueSite) -> Result<Box<dyn QueueDiscipline>, String> {
        let QueueLimit::Packets(limit) = site.limit else { return Err("a limit in packets".into()) };
        match target {
            "outside:Red" => Ok(Box::new(OutsideRed(Red::new(RedConfig::default(), RedVariant::Red, limit, site.rate_bps)))),
            _ => Err(format!("no class {target} for {} {}->{}", site.field, site.from, site.to)),
        }
    }
    fn halt(&self) -> Option<Halt> {
        Some(self.halt.clone())
    }
}

fn with_cc(cc: CcSpec) -> Scenario {
    let q = droptail(bdp_pkts(20, 40));
    let flows = bulk_flows(4, cc, TcpConfig::default(), NS_PER_SEC);
    scenario(dumbbell(4, 20, 40, q), flows, 6, 2)
}

fn outside() -> CcSpec {
    CcSpec::Py(ExternalSpec { target: "outside:Reno".into() })
}

fn json_of(world: World) -> serde_json::Value {
    let mut r = world.into_results();
    r.wall_seconds = 0.0;
    serde_json::to_value(&r).unwrap()
}

#[test]
fn an_external_reno_gives_the_bytes_of_the_core_reno() {
    let supplier = Supplier { halt: Arc::new(AtomicBool::new(false)), halt_at: u64::MAX };
    let mut w = World::build_with(&with_cc(outside()), MemoryLimit::NONE, &supplier).unwrap();
    w.run(&mut |_| true);
    let mut outside = json_of(w);
    let mut core = serde_json::to_value(pertlab_sim::run(&with_cc(CcSpec::Reno)).unwrap()).unwrap();
    core["wall_seconds"] = 0.0.into();
    assert_eq!(outside["flows"][0]["cc"], "py:outside:Reno");
    for r in [&mut outside, &mut core] {
        for f in r["flows"].as_array_mut().unwrap() {
            f.as_object_mut().unwrap().retain(|k, _| k != "cc" && k != "label");
        }
        r.as_object_mut().unwrap().remove("controllers");
    }
    assert!(core["events"].as_u64().unwrap() > 50_000, "the run did work: {} events", core["events"]);
    assert_eq!(outside, core);
}

#[test]
fn a_raised_halt_stops_the_run_after_that_event_and_keeps_the_results() {
    let supplier = Supplier { halt: Arc::new(AtomicBool::new(false)), halt_at: 3 * NS_PER_SEC };
    let mut w = World::build_with(&with_cc(outside()), MemoryLimit::NONE, &supplier).unwrap();
    assert!(w.run_until(6 * NS_PER_SEC, &mut |_| true), "a halted run is over");
    let stopped = w.now();
    assert!(w.interrupted() && (3 * NS_PER_SEC..3 * NS_PER_SEC + NS_PER_SEC / 10).contains(&stopped), "stopped at {stopped}");
    // A later step does nothing.
    assert!(w.run_until(6 * NS_PER_SEC, &mut |_| true));
    assert_eq!(w.now(), stopped);
    w.finish();
    let r = json_of(w);
    assert_eq!(r["interrupted"], true);
    assert!(r["flows"][0]["goodput_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn an_external_controller_needs_its_supplier() {
    let err = World::build_with(&with_cc(outside()), MemoryLimit::NONE, &NoExtensions).err().unwrap();
    assert_eq!(err.field, "flows[0].cc.target");
    assert!(err.message.contains("is defined in Python"), "{}", err.message);
    let supplier = Supplier { halt: Arc::new(AtomicBool::new(false)), halt_at: 0 };
    let other = CcSpec::Py(ExternalSpec { target: "outside:Other".into() });
    let err = World::build_with(&with_cc(other), MemoryLimit::NONE, &supplier).err().unwrap();
    assert_eq!((err.field.as_str(), err.message.as_str()), ("flows[0].cc.target", "no class outside:Other"));
}

#[test]
fn targets_are_module_colon_class() {
    for bad in ["reno", "reno:", ":Reno", "1x:Reno", "a..b:Reno", "a.b:Re-no", "a:b:c"] {
        let err = with_cc(CcSpec::Py(ExternalSpec { target: bad.into() })).validate().err().unwrap();
        assert_eq!(err.field, "flows[0].cc.target", "{bad}");
        assert!(err.message.starts_with("must be module:Class"), "{bad}: {}", err.message);
    }
    for good in ["reno:Reno", "a.b_c.d:_E9"] {
        assert!(with_cc(CcSpec::Py(ExternalSpec { target: good.into() })).validate().is_ok(), "{good}");
    }
}

fn with_queue(kind: &str, target: Option<&str>) -> Scenario {
    let q = QueueSpec { kind: kind.into(), target: target.map(Into::into), limit_pkts: Some(bdp_pkts(20, 40)), ..QueueSpec::default() };
    let flows = bulk_flows(4, CcSpec::Reno, TcpConfig::default(), NS_PER_SEC);
    scenario(dumbbell(4, 20, 40, q), flows, 6, 2)
}

#[test]
fn an_external_red_gives_the_bytes_of_the_core_red() {
    let supplier = Supplier { halt: Arc::new(AtomicBool::new(false)), halt_at: u64::MAX };
    let mut w = World::build_with(&with_queue("py", Some("outside:Red")), MemoryLimit::NONE, &supplier).unwrap();
    w.run(&mut |_| true);
    let mut outside = json_of(w);
    let mut core = serde_json::to_value(pertlab_sim::run(&with_queue("red", None)).unwrap()).unwrap();
    core["wall_seconds"] = 0.0.into();
    let bottleneck = |r: &serde_json::Value| r["bottleneck"]["discipline"].clone();
    assert_eq!((bottleneck(&outside), bottleneck(&core)), ("py:outside:Red".into(), "red".into()));
    for r in [&mut outside, &mut core] {
        r["bottleneck"].as_object_mut().unwrap().remove("discipline");
        for q in r["queues"].as_array_mut().unwrap() {
            q.as_object_mut().unwrap().remove("discipline");
        }
    }
    assert!(core["bottleneck"]["drops"].as_u64().unwrap() > 10, "RED dropped: the comparison means something");
    assert_eq!(outside, core);
}

#[test]
fn an_external_queue_needs_its_supplier_and_names_its_field() {
    let err = World::build_with(&with_queue("py", Some("outside:Red")), MemoryLimit::NONE, &NoExtensions).err().unwrap();
    assert_eq!(err.field, "dumbbell.bottleneck_queue.target");
    assert!(err.message.contains("is defined in Python"), "{}", err.message);
    let supplier = Supplier { halt: Arc::new(AtomicBool::new(false)), halt_at: 0 };
    let err = World::build_with(&with_queue("py", Some("outside:Other")), MemoryLimit::NONE, &supplier).err().unwrap();
    assert_eq!(err.field, "dumbbell.bottleneck_queue.target");
    assert_eq!(err.message, "no class outside:Other for dumbbell.bottleneck_queue r0->r1");
    // The form of the target, its presence for "py" and its absence otherwise.
    let field_of = |s: Scenario| s.validate().err().map(|e| (e.field, e.message));
    let (field, message) = field_of(with_queue("py", None)).unwrap();
    assert_eq!(field, "dumbbell.bottleneck_queue.target");
    assert!(message.starts_with("a \"py\" queue names its class"), "{message}");
    let (field, message) = field_of(with_queue("py", Some("red"))).unwrap();
    assert_eq!(field, "dumbbell.bottleneck_queue.target");
    assert!(message.starts_with("must be module:Class"), "{message}");
    let (field, message) = field_of(with_queue("red", Some("red:Red"))).unwrap();
    assert_eq!((field.as_str(), message.as_str()), ("dumbbell.bottleneck_queue.target", "only a \"py\" queue names a class; this queue's kind is `red`"));
    assert!(field_of(with_queue("py", Some("red:Red"))).is_none());
}
