//! Errors a scenario can produce. Every error names the offending field (a path
//! such as `links[2].rate_bps`) and says what is allowed.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
#[error("{field}: {message}")]
pub struct ConfigError {
    /// Path of the field in the scenario, e.g. `flows[3].cc.p_max`.
    pub field: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError { field: field.into(), message: message.into() }
    }
}

/// Check helpers used by every `validate` method, so that messages read alike.
pub mod check {
    use super::ConfigError;

    pub fn positive(field: &str, v: f64) -> Result<(), ConfigError> {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(ConfigError::new(field, format!("must be a positive number, got {v}")))
        }
    }

    pub fn non_negative(field: &str, v: f64) -> Result<(), ConfigError> {
        if v.is_finite() && v >= 0.0 {
            Ok(())
        } else {
            Err(ConfigError::new(field, format!("must be zero or positive, got {v}")))
        }
    }

    /// `lo <= v <= hi`.
    pub fn in_range(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
        if v.is_finite() && v >= lo && v <= hi {
            Ok(())
        } else {
            Err(ConfigError::new(field, format!("must lie in [{lo}, {hi}], got {v}")))
        }
    }

    /// `0 < v < 1`.
    pub fn open_unit(field: &str, v: f64) -> Result<(), ConfigError> {
        if v.is_finite() && v > 0.0 && v < 1.0 {
            Ok(())
        } else {
            Err(ConfigError::new(field, format!("must lie strictly between 0 and 1, got {v}")))
        }
    }
}
