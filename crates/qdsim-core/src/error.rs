//! The one error type of the core: a configuration value it refuses.
//!
//! It sits below every other module (it needs none of them), so that the run configuration
//! (`config.rs`) and the parameter types it holds (`qdisc`, `tcp`) can all report errors
//! without importing one another.

/// A configuration value the core refuses, with the key path, the value and what is allowed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{key}: {value} is not allowed; {allowed}")]
pub struct ConfigError {
    /// Dotted key path, e.g. `links[2].rate_bps`.
    pub key: String,
    /// The offending value, rendered.
    pub value: String,
    /// What is allowed, as a sentence fragment.
    pub allowed: String,
}

impl ConfigError {
    /// Builds an error for `key` with the rendered `value` and the `allowed` description.
    pub fn new(key: impl Into<String>, value: impl ToString, allowed: impl Into<String>) -> Self {
        ConfigError { key: key.into(), value: value.to_string(), allowed: allowed.into() }
    }

    /// Prefixes the key path with `prefix` (e.g. `links[3]`).
    pub fn within(mut self, prefix: &str) -> Self {
        self.key = if self.key.is_empty() { prefix.to_string() } else { format!("{prefix}.{}", self.key) };
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_prefixes_the_key_path_and_the_message_names_all_three_parts() {
        let e = ConfigError::new("rate_bps", 0, "a rate > 0 bit/s").within("links[2]");
        assert_eq!(e.key, "links[2].rate_bps");
        assert_eq!(e.to_string(), "links[2].rate_bps: 0 is not allowed; a rate > 0 bit/s");
        assert_eq!(ConfigError::new("", 1, "x").within("flows[0]").key, "flows[0]");
    }
}
