//! Models defined outside the core: congestion controllers and queue
//! disciplines a caller supplies, named in a scenario by a `target` the
//! caller resolves (the Python front resolves `module:Class`, see
//! `crates/pertlab-py`, docs/python-cc.md and docs/python-aqm.md).
//!
//! The core stays free of any language runtime: it asks an [`Extensions`]
//! for a boxed [`CongestionControl`] per long flow whose `cc` is
//! `{"kind": "py", "target": ...}` and for a boxed [`QueueDiscipline`] per
//! queue (one direction of a link) whose spec is `{"kind": "py", "target":
//! ...}`, and it reads one [`Halt`] flag that such a model raises when its
//! user code failed, so that the run stops right after the event where it
//! happened (the results up to there are kept, as for an interrupted run). A
//! run without external models has no flag and takes the same path as before.
//!
//! Left out: external controllers for web transfers (their connections are
//! built during the run; validation refuses them), and external hooks beyond
//! the ones the Python front forwards.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::queue::{QueueDiscipline, QueueLimit};
use crate::tcp::cc::CongestionControl;

/// Raised by an external model when its code failed: the run stops after the
/// current event and is reported as interrupted.
pub type Halt = Arc<AtomicBool>;

/// Whether `halt` was raised.
pub fn halted(halt: &Halt) -> bool {
    halt.load(Ordering::Relaxed)
}

/// A model named by its caller: `module:Class` (an importable module path and
/// a class name), e.g. `{"kind": "py", "target": "reno:Reno"}`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExternalSpec {
    pub target: String,
}

impl ExternalSpec {
    /// The form every target must have, for messages.
    pub const FORM: &'static str =
        "module:Class (a dotted module path importable from sys.path or the scenario's directory, a colon, a class name), as in reno:Reno";

    /// `target` is `module:Class`: a dotted path of identifiers, a colon, an identifier.
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        let ident = |s: &str| {
            let mut chars = s.chars();
            matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic()) && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        };
        let ok = match self.target.split_once(':') {
            Some((module, class)) => module.split('.').all(ident) && ident(class),
            None => false,
        };
        if ok {
            Ok(())
        } else {
            Err(ConfigError::new(format!("{path}.target"), format!("must be {}, got {:?}", Self::FORM, self.target)))
        }
    }

    /// The model's name in results: `py:module:Class`.
    pub fn name(&self) -> String {
        format!("py:{}", self.target)
    }
}

/// Where an external queue discipline sits: for its messages and what it
/// may want to know about its queue when built.
#[derive(Clone, Debug)]
pub struct QueueSite {
    /// The scenario field of its spec, e.g. `links[2].queue` or `dumbbell.bottleneck_queue`.
    pub field: String,
    /// The link's name and the direction's ends (node names).
    pub link: String,
    pub from: String,
    pub to: String,
    /// Index of the channel (one direction of a link) in the world.
    pub channel: u32,
    pub rate_bps: u64,
    pub limit: QueueLimit,
}

/// What a caller supplies to build the external models of a scenario.
pub trait Extensions {
    /// The controller of long flow `flow` (index in the scenario's `flows`)
    /// named `target`; an error says why it cannot be built.
    fn congestion_control(&self, target: &str, flow: u32) -> Result<Box<dyn CongestionControl>, String>;

    /// The discipline of the queue at `site` named `target`; an error says why
    /// it cannot be built.
    fn queue_discipline(&self, target: &str, site: &QueueSite) -> Result<Box<dyn QueueDiscipline>, String>;

    /// The flag the models raise when their code fails; `None` when there are none.
    fn halt(&self) -> Option<Halt>;
}

/// No external models: a scenario that names one is refused.
pub struct NoExtensions;

impl Extensions for NoExtensions {
    fn congestion_control(&self, target: &str, _flow: u32) -> Result<Box<dyn CongestionControl>, String> {
        Err(format!("the controller {target:?} is defined in Python; run it through the pertlab Python package, which supplies it"))
    }

    fn queue_discipline(&self, target: &str, _site: &QueueSite) -> Result<Box<dyn QueueDiscipline>, String> {
        Err(format!("the queue discipline {target:?} is defined in Python; run it through the pertlab Python package, which supplies it"))
    }

    fn halt(&self) -> Option<Halt> {
        None
    }
}
