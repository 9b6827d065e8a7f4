//! Web traffic as ns-2's `PagePool/WebTraf` generates it (ns-2
//! `tcl/webcache/webtraf.tcl`, `webcache/webtraf.cc`; the defaults are those of
//! ns-2's example `tcl/ex/web-traffic.tcl`).
//!
//! A *session* is a browsing user on a client node. It requests *pages* one
//! after another; a page is `objects_per_page` *objects*, requested at
//! exponential inter-object times; each object is fetched over its own TCP
//! connection from a server drawn uniformly from `servers`, as a transfer of
//! `ceil(size)` segments from server to client with `size` drawn from a Pareto
//! distribution of the second kind (Lomax, ns-2 `RandomVariable/ParetoII`) with
//! the given mean and shape (heavy-tailed, infinite variance for shape <= 2).
//! When every object of a page is completely acknowledged, the next page is
//! requested after an exponential think time (ns-2's default
//! `interPageOption 1`: the time from the end of a page to the start of the next).
//!
//! Models: the connection per object (each in slow start from the initial
//! window), the heavy-tailed object sizes, think times, session start times
//! drawn uniformly in a window. Leaves out: the request packets (ns-2 WebTraf
//! also sends a one-packet request client -> server, whose delay we omit), the
//! TCP handshake (no SYN exchange, as in ns-2's one-way agents), server
//! processing delay (ns-2's default server mode 0: none), persistent HTTP.
//!
//! A completed object counts in the results when it completes inside the
//! measurement window; its response time is from the start of its connection
//! to the ACK of its last segment at the server.

use rand::Rng;
use rand_distr::{Distribution, Exp};
use serde::{Deserialize, Serialize};

use crate::error::{check, ConfigError};
use crate::rng::SimRng;
use crate::scenario::CcSpec;
use crate::tcp::TcpConfig;
use crate::time::{SimTime, NS_PER_MS, NS_PER_SEC};

/// Mean think time between pages, from the end of one to the start of the next
/// (ns-2 `tcl/ex/web-traffic.tcl`: `interPage` Exponential, `avg_ 1`).
pub const DEFAULT_THINK_TIME_NS: SimTime = NS_PER_SEC;
/// Objects per page (ns-2 `tcl/ex/web-traffic.tcl`: `pageSize` Constant 1).
pub const DEFAULT_OBJECTS_PER_PAGE: u32 = 1;
/// Mean time between the requests of a page's objects (ns-2 example:
/// `interObj` Exponential, `avg_ 0.01`).
pub const DEFAULT_INTER_OBJECT_NS: SimTime = 10 * NS_PER_MS;
/// Mean object size in segments (ns-2 example: `objSize` ParetoII `avg_ 10`).
pub const DEFAULT_OBJECT_MEAN_SEGMENTS: f64 = 10.0;
/// Shape of the object size (ns-2 example: `shape_ 1.2`; Feldmann et al.'s
/// heavy tail, infinite variance).
pub const DEFAULT_OBJECT_SHAPE: f64 = 1.2;

fn default_think() -> SimTime {
    DEFAULT_THINK_TIME_NS
}
fn default_objects() -> u32 {
    DEFAULT_OBJECTS_PER_PAGE
}
fn default_inter_object() -> SimTime {
    DEFAULT_INTER_OBJECT_NS
}
fn default_mean() -> f64 {
    DEFAULT_OBJECT_MEAN_SEGMENTS
}
fn default_shape() -> f64 {
    DEFAULT_OBJECT_SHAPE
}

/// A group of web sessions.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// Nodes of the browsing users; session `i` runs on `clients[i % len]`.
    pub clients: Vec<String>,
    /// Nodes serving the objects; each object's server is drawn uniformly.
    pub servers: Vec<String>,
    /// Number of sessions.
    pub sessions: u32,
    /// Session start times, uniform in [lo, hi]; default [0, 0].
    #[serde(default)]
    pub start_window_ns: [SimTime; 2],
    /// Pages per session; unset: the session browses until the run ends.
    #[serde(default)]
    pub pages_per_session: Option<u32>,
    /// Mean think time between pages (exponential).
    #[serde(default = "default_think")]
    pub think_time_ns: SimTime,
    /// Objects per page.
    #[serde(default = "default_objects")]
    pub objects_per_page: u32,
    /// Mean time between the requests of one page's objects (exponential).
    #[serde(default = "default_inter_object")]
    pub inter_object_ns: SimTime,
    /// Mean object size in segments (Pareto II).
    #[serde(default = "default_mean")]
    pub object_mean_segments: f64,
    /// Shape of the object size (Pareto II), > 1 for a finite mean.
    #[serde(default = "default_shape")]
    pub object_shape: f64,
    /// Congestion control of the object transfers.
    #[serde(default)]
    pub cc: CcSpec,
    #[serde(default)]
    pub tcp: TcpConfig,
}

impl WebSpec {
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        if self.clients.is_empty() {
            return Err(ConfigError::new(format!("{path}.clients"), "give at least one client node"));
        }
        if self.servers.is_empty() {
            return Err(ConfigError::new(format!("{path}.servers"), "give at least one server node"));
        }
        let [lo, hi] = self.start_window_ns;
        if lo > hi {
            return Err(ConfigError::new(format!("{path}.start_window_ns"), format!("need lo <= hi, got [{lo}, {hi}]")));
        }
        check::positive(&format!("{path}.think_time_ns"), self.think_time_ns as f64)?;
        check::positive(&format!("{path}.objects_per_page"), self.objects_per_page as f64)?;
        check::positive(&format!("{path}.inter_object_ns"), self.inter_object_ns as f64)?;
        check::positive(&format!("{path}.object_mean_segments"), self.object_mean_segments)?;
        if !(self.object_shape.is_finite() && self.object_shape > 1.0) {
            return Err(ConfigError::new(
                format!("{path}.object_shape"),
                format!("must be greater than 1 (the mean is infinite otherwise), got {}", self.object_shape),
            ));
        }
        if let CcSpec::Py(_) = self.cc {
            return Err(ConfigError::new(
                format!("{path}.cc.kind"),
                "a \"py\" controller drives long flows only (a web object's connection is built during the run); use a core controller here",
            ));
        }
        self.cc.validate(path)?;
        self.tcp.validate(&format!("{path}.tcp"))
    }

    /// Lomax (Pareto II) scale giving the configured mean: mean = scale / (shape - 1).
    fn scale(&self) -> f64 {
        self.object_mean_segments * (self.object_shape - 1.0)
    }
}

/// One browsing session's state.
pub struct Session {
    /// Which `WebSpec` it belongs to.
    pub group: u32,
    pub client: u32,
    /// Pages still to request; `None`: unlimited.
    pages_left: Option<u32>,
    /// Objects of the current page not requested yet.
    to_request: u32,
    /// Objects of the current page requested and not yet complete.
    in_progress: u32,
    rng: SimRng,
}

/// What a session does next.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// Request an object at the given time.
    Object(SimTime),
    /// Start the next page at the given time.
    Page(SimTime),
    /// Nothing: waiting for objects, or the session is over.
    Wait,
}

impl Session {
    pub fn new(group: u32, client: u32, spec: &WebSpec, rng: SimRng) -> Session {
        Session { group, client, pages_left: spec.pages_per_session, to_request: 0, in_progress: 0, rng }
    }

    /// Draw the session's start time in its group's window.
    pub fn start_time(&mut self, spec: &WebSpec) -> SimTime {
        let [lo, hi] = spec.start_window_ns;
        self.rng.gen_range(lo..=hi)
    }

    /// A page starts at `now`: its first object is requested at once.
    pub fn start_page(&mut self, spec: &WebSpec, now: SimTime) -> Next {
        match self.pages_left {
            Some(0) => return Next::Wait,
            Some(n) => self.pages_left = Some(n - 1),
            None => {}
        }
        self.to_request = spec.objects_per_page;
        Next::Object(now)
    }

    /// An object is requested at `now`: its server index and size in segments,
    /// and when the page's next object is requested.
    pub fn request(&mut self, spec: &WebSpec, now: SimTime) -> (usize, u32, Next) {
        self.to_request = self.to_request.saturating_sub(1);
        self.in_progress += 1;
        let server = self.rng.gen_range(0..spec.servers.len());
        let segments = lomax_segments(&mut self.rng, spec.scale(), spec.object_shape);
        let next = if self.to_request > 0 { Next::Object(now.saturating_add(exp_ns(&mut self.rng, spec.inter_object_ns))) } else { Next::Wait };
        (server, segments, next)
    }

    /// An object completed at `now`: after the page's last, the next page follows a think time.
    pub fn complete(&mut self, spec: &WebSpec, now: SimTime) -> Next {
        self.in_progress = self.in_progress.saturating_sub(1);
        if self.in_progress == 0 && self.to_request == 0 && self.pages_left != Some(0) {
            Next::Page(now.saturating_add(exp_ns(&mut self.rng, spec.think_time_ns)))
        } else {
            Next::Wait
        }
    }
}

/// An exponential time with mean `mean_ns`, in whole nanoseconds.
fn exp_ns(rng: &mut SimRng, mean_ns: SimTime) -> SimTime {
    let draw: f64 = Exp::new(1.0).map(|e| e.sample(rng)).unwrap_or(1.0);
    (draw * mean_ns as f64).round() as SimTime
}

/// `ceil` of a Lomax draw `scale (U^(-1/shape) - 1)`, at least 1 segment and at
/// most 2^31 (a draw beyond that, probability ~1e-10 at the defaults, is capped).
pub fn lomax_segments(rng: &mut SimRng, scale: f64, shape: f64) -> u32 {
    let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    let x = scale * (u.powf(-1.0 / shape) - 1.0);
    x.ceil().clamp(1.0, (1u64 << 31) as f64) as u32
}

/// One completed object, for the results.
#[derive(Clone, Copy, Debug)]
pub struct Completion {
    pub at: SimTime,
    pub response: SimTime,
    /// Payload bytes of the object (segments x payload per segment).
    pub bytes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::from_seed;

    fn spec() -> WebSpec {
        WebSpec {
            clients: vec!["c".into()],
            servers: vec!["s1".into(), "s2".into()],
            sessions: 1,
            start_window_ns: [0, 0],
            pages_per_session: Some(2),
            think_time_ns: DEFAULT_THINK_TIME_NS,
            objects_per_page: 3,
            inter_object_ns: DEFAULT_INTER_OBJECT_NS,
            object_mean_segments: DEFAULT_OBJECT_MEAN_SEGMENTS,
            object_shape: DEFAULT_OBJECT_SHAPE,
            cc: CcSpec::Reno,
            tcp: TcpConfig::default(),
        }
    }

    #[test]
    fn lomax_median_and_tail_match_the_distribution() {
        // Lomax with scale 2, shape 1.2 (mean 10): P(X > x) = (1 + x/2)^-1.2.
        // Median x = 2 (2^(1/1.2) - 1) = 1.563: ceil gives 2 segments for half of the draws
        // and 1 for P(X <= 1) = 1 - 1.5^-1.2 = 0.385.
        let mut rng = from_seed(5);
        let n = 200_000;
        let draws: Vec<u32> = (0..n).map(|_| lomax_segments(&mut rng, 2.0, 1.2)).collect();
        let ones = draws.iter().filter(|&&s| s == 1).count() as f64 / n as f64;
        assert!((ones - (1.0 - 1.5f64.powf(-1.2))).abs() < 0.005, "{ones}");
        // Tail: P(ceil X > 100) = P(X > 100) = 51^-1.2 = 0.00892; binomial sd 2.1e-4.
        let tail = draws.iter().filter(|&&s| s > 100).count() as f64 / n as f64;
        assert!((tail - 51f64.powf(-1.2)).abs() < 0.001, "{tail}");
    }

    #[test]
    fn exponential_times_have_the_mean() {
        let mut rng = from_seed(9);
        let n = 100_000;
        let mean = (0..n).map(|_| exp_ns(&mut rng, NS_PER_SEC) as f64).sum::<f64>() / n as f64;
        // Standard error 1 s / sqrt(n) = 3.2 ms: four of them.
        assert!((mean - 1e9).abs() < 1.3e7, "{mean}");
    }

    #[test]
    fn a_session_requests_its_pages_and_objects_then_stops() {
        let s = spec();
        let mut session = Session::new(0, 0, &s, from_seed(1));
        for _page in 0..2 {
            assert_eq!(session.start_page(&s, 100), Next::Object(100));
            let mut objects = 0;
            let mut at = 100;
            loop {
                let (server, segments, next) = session.request(&s, at);
                assert!(server < 2 && segments >= 1);
                objects += 1;
                match next {
                    Next::Object(t) => {
                        assert!(t >= at);
                        at = t;
                    }
                    Next::Wait => break,
                    Next::Page(_) => panic!("a page is not done before its objects complete"),
                }
            }
            assert_eq!(objects, 3);
            assert_eq!(session.complete(&s, 5_000), Next::Wait);
            assert_eq!(session.complete(&s, 6_000), Next::Wait);
            match session.complete(&s, 7_000) {
                Next::Page(t) => assert!(t >= 7_000),
                Next::Wait => assert_eq!(_page, 1, "only the last page ends the session"),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(session.start_page(&s, 10_000), Next::Wait);
    }

    #[test]
    fn validation_names_the_field() {
        let err = |f: &dyn Fn(&mut WebSpec)| {
            let mut s = spec();
            f(&mut s);
            s.validate("web[0]").unwrap_err().field
        };
        assert!(spec().validate("web[0]").is_ok());
        assert_eq!(err(&|s| s.clients.clear()), "web[0].clients");
        assert_eq!(err(&|s| s.servers.clear()), "web[0].servers");
        assert_eq!(err(&|s| s.object_shape = 1.0), "web[0].object_shape");
        assert_eq!(err(&|s| s.object_mean_segments = 0.0), "web[0].object_mean_segments");
        assert_eq!(err(&|s| s.think_time_ns = 0), "web[0].think_time_ns");
        assert_eq!(err(&|s| s.objects_per_page = 0), "web[0].objects_per_page");
        assert_eq!(err(&|s| s.start_window_ns = [5, 1]), "web[0].start_window_ns");
    }
}
