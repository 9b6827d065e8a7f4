//! A controller's parameters changed between the steps of a run
//! ([`World::set_cc_param`]): the fields [`LIVE_PARAMS`] lists for the core's
//! controllers (PERT's thresholds, `p_max` and decrease, Vegas' alpha, beta and
//! gamma, CUBIC's C and beta, FAST's alpha and gamma, DCTCP's g, Scalable's a
//! and b).
//!
//! The flow's `cc` with the field changed is read and validated as a
//! scenario's is, so a value is refused with the message a scenario holding
//! it would get (`flows[3].cc.p_max: must lie in (0, 1], got 1.5`); the
//! controller then takes it from its next hook and keeps its state
//! ([`crate::tcp::cc::CongestionControl::set_params`]). The world's copy of
//! the scenario holds the parameters in force, as a channel holds its rate.
//!
//! Left out: the other controllers' parameters (adaptive PERT's, PERT/PI's,
//! HighSpeed's table, Compound's and Illinois' curves, which shape state
//! built from them), web transfers' controllers.

use serde_json::Value;

use super::World;
use crate::error::ConfigError;
use crate::scenario::CcSpec;
use crate::tcp::cc::{live_params, people_name, LIVE_PARAMS};

/// Field names as scenario files write them, for messages.
fn people_names(fields: &[&str]) -> String {
    fields.iter().map(|f| people_name(f)).collect::<Vec<_>>().join(", ")
}

impl World {
    /// Field `field` of long flow `flow`'s controller becomes `value` (JSON:
    /// a number, in the scenario's units, e.g. `t_min_ns` in ns), from the
    /// controller's next hook. Errors name the flow, the field and what is
    /// allowed; nothing changes on an error.
    pub fn set_cc_param(&mut self, flow: u32, field: &str, value: Value) -> Result<(), ConfigError> {
        let kind = self.long_flow(flow)?.sender.cc_name();
        let path = format!("flows[{flow}].cc");
        let Some(fields) = live_params(kind) else {
            let kinds: Vec<String> = LIVE_PARAMS.iter().map(|(k, f)| format!("{k} ({})", people_names(f))).collect();
            return Err(ConfigError::new(
                path,
                format!("flow {flow}'s controller is {kind}, which has no parameters that change mid-run; those that have: {}", kinds.join("; ")),
            ));
        };
        if field.is_empty() {
            return Err(ConfigError::new("field", format!("must name a parameter of {kind}; those that change mid-run are {}", people_names(fields))));
        }
        if !fields.contains(&field) {
            return Err(ConfigError::new(
                format!("{path}.{field}"),
                format!("not a parameter of {kind} that changes mid-run; those are {}", people_names(fields)),
            ));
        }
        let spec = with_field(&self.scenario.flows[flow as usize].cc, field, value).map_err(|e| ConfigError::new(format!("{path}.{field}"), e))?;
        spec.validate(&format!("flows[{flow}]"))?;
        self.flows[flow as usize].sender.set_cc_params(&spec);
        self.scenario.flows[flow as usize].cc = spec;
        Ok(())
    }
}

/// `spec` with `field` set to `value`, read as a scenario's `cc` is (the error
/// says what the field takes).
fn with_field(spec: &CcSpec, field: &str, value: Value) -> Result<CcSpec, String> {
    let mut json = serde_json::to_value(spec).map_err(|e| e.to_string())?;
    let Value::Object(fields) = &mut json else { return Err("the controller's parameters are not a table".into()) };
    fields.insert(field.to_string(), value);
    serde_json::from_value(json).map_err(|e| e.to_string())
}
