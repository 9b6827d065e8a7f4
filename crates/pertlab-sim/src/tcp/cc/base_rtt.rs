//! Where a delay-based controller's base RTT comes from: Vegas's `baseRTT`
//! ([`super::vegas`]) and every PERT variant's propagation-delay estimate `P`
//! ([`super::pert_signal`]). The papers measure it (the smallest RTT sample);
//! the path's own RTT, known to the simulator, is an oracle that tests what a
//! measured one costs (Hua 2002's analysis takes it as given, eq. 3.7).

use serde::{Deserialize, Serialize};

/// Where the base RTT comes from. Read from a string (`TryFrom<String>`), so
/// that a wrong value's error names the field (the controller's table is read
/// whole, by its `kind`, and the error's path stops at `cc`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum BaseRtt {
    /// The minimum of all RTTs measured (Brakmo and Peterson 1995, the
    /// congestion-avoidance mechanism: "in practice, Vegas sets BaseRTT to the
    /// minimum of all measured round trip times"; Hua 2002, eq. 3.1; PERT's
    /// `P`, SIGCOMM 2007 Section 2; Linux, ns-2). Holds any queue the flow
    /// never saw drain.
    #[default]
    Observed,
    /// The path's true base RTT, fixed for the run: the sum over the data path
    /// of each link's propagation delay and the transmission time of a data
    /// packet, plus the same over the ACK path with the ACK's size: the RTT of
    /// a segment "when the connection is not congested" (Brakmo and Peterson's
    /// definition of BaseRTT) and acknowledged at once, Hua's `d~ = d + sum tau_i` (eq.
    /// 3.7), which the thesis's analysis takes as baseRTT. The world computes
    /// it when it builds the flow; changes of a link's rate or delay during
    /// the run do not update it. With delayed ACKs the samples also hold the
    /// receiver's wait, which the controller then counts as queueing.
    Propagation,
}

impl TryFrom<String> for BaseRtt {
    type Error = String;

    fn try_from(name: String) -> Result<BaseRtt, String> {
        match name.as_str() {
            "observed" => Ok(BaseRtt::Observed),
            "propagation" => Ok(BaseRtt::Propagation),
            _ => Err(format!(
                "base_rtt: must be \"observed\" (the minimum RTT measured) or \"propagation\" (the path's propagation and transmission delays), got {name:?}"
            )),
        }
    }
}
