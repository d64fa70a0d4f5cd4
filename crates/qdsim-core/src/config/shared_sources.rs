//! Sources read once for the flows that share them.
//!
//! The flows of a group carry the same source, a kilobyte of JSON with its TCP options, and
//! a run of 10⁴ or 10⁵ flows read it as many times: two thirds of the core's set-up went to
//! reading sources — buffering each for its `kind` tag (an internally tagged enum) and
//! building each TCP configuration through a map. While [`RunConfig::parse_json`] reads a
//! configuration, a flow's source is one of two things:
//!
//! - the index of one of the configuration's `sources` (`"source": 0`): the text names each
//!   shared source once, as `config.json` does (10⁵ flows wrote 10⁵ copies of their group's
//!   options: 100 of its 184 MB). The index is taken as the flow is read and the source put in
//!   its place when the whole configuration has been ([`resolve`]), so `sources` may come
//!   before or after `flows`;
//! - a source itself, which, when its text is, byte for byte, the previous flow's, is a copy
//!   of the value read for it: the same text reads as the same value.
//!
//! A configuration read by another deserializer (`serde_json::from_value`, say) has its
//! sources read as any value, and an index is an error there.
//!
//! [`RunConfig::parse_json`]: super::RunConfig::parse_json

use std::cell::RefCell;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::{RunConfig, SourceConfig};
use crate::tcp::TcpConfig;
use crate::ConfigError;

/// What [`sharing`] keeps while a configuration is read.
#[derive(Default)]
struct Reading {
    /// The last source read from its text, and its value.
    last: Option<(String, SourceConfig)>,
    /// Flows whose source has been read so far.
    flows: usize,
    /// Each flow that named a source by index: the flow's and the source's.
    by_index: Vec<(usize, u64)>,
}

thread_local! {
    /// `Some` while [`sharing`] runs (its deserializer hands out a value's text).
    static READING: RefCell<Option<Reading>> = const { RefCell::new(None) };
}

/// Reads a flow's source (`FlowConfig::source`): inside [`sharing`], from its text, an index
/// into `sources` (a stand-in until [`resolve`]) or a source, a copy of the previous flow's
/// value when the text is the same; elsewhere as any source.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SourceConfig, D::Error> {
    if READING.with(|reading| reading.borrow().is_none()) {
        return SourceConfig::deserialize(d);
    }
    let text = <&RawValue>::deserialize(d)?.get();
    READING.with(|reading| {
        let mut reading = reading.borrow_mut();
        let reading = reading.as_mut().expect("inside `sharing`");
        let flow = reading.flows;
        reading.flows += 1;
        if text.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            let index = text.parse::<u64>().map_err(|_| {
                serde::de::Error::custom(format!(
                    "source {text}: a source, or the index of one of `sources` (0, 1, ...)"
                ))
            })?;
            reading.by_index.push((flow, index));
            // Replaced by `sources[index]` once the whole configuration is read.
            return Ok(SourceConfig::Tcp { size_bytes: None, tcp: TcpConfig::default(), repeat: None });
        }
        if let Some((_, value)) = reading.last.as_ref().filter(|(read, _)| read == text) {
            return Ok(value.clone());
        }
        let value: SourceConfig = serde_json::from_str(text).map_err(serde::de::Error::custom)?;
        reading.last = Some((text.to_owned(), value.clone()));
        Ok(value)
    })
}

/// Reads a configuration with `read` (a [`serde_json::from_str`]), its flows' sources shared
/// (module doc), and puts in place the sources its flows named by index.
///
/// # Errors
/// `read`'s, and an index past the end of `sources` (naming the flow).
pub(super) fn sharing(read: impl FnOnce() -> serde_json::Result<RunConfig>) -> Result<RunConfig, ConfigError> {
    /// Ends the sharing however `read` ends (an error, a panic).
    struct End;
    impl Drop for End {
        fn drop(&mut self) {
            READING.with(|reading| *reading.borrow_mut() = None);
        }
    }
    READING.with(|reading| *reading.borrow_mut() = Some(Reading::default()));
    let _end = End;
    let cfg = read().map_err(|e| ConfigError::new("config", "(json)", format!("a valid run configuration ({e})")))?;
    let by_index =
        READING.with(|reading| std::mem::take(&mut reading.borrow_mut().as_mut().expect("inside `sharing`").by_index));
    resolve(cfg, &by_index)
}

/// Returns `cfg` with each flow of `by_index` given its source from `sources`, and `sources`
/// emptied: once read, every flow holds its own source.
fn resolve(mut cfg: RunConfig, by_index: &[(usize, u64)]) -> Result<RunConfig, ConfigError> {
    let sources = std::mem::take(&mut cfg.sources);
    for &(flow, index) in by_index {
        let source = usize::try_from(index).ok().and_then(|i| sources.get(i)).ok_or_else(|| {
            let allowed = match sources.len() {
                0 => "a source (the configuration has no `sources` to name by index)".to_string(),
                n => format!("the index of one of `sources` (0 to {})", n - 1),
            };
            ConfigError::new(format!("flows[{flow}].source"), index, allowed)
        })?;
        cfg.flows[flow].source = source.clone();
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::scenario::{Dumbbell, FlowGroup};
    use crate::tcp::TcpConfig;

    /// A dumbbell whose groups' flows share sources, with `tcp` options in each.
    fn shared(groups: &[(&str, usize, TcpConfig)]) -> RunConfig {
        let groups = groups.iter().map(|(name, n, tcp)| FlowGroup::bulk(name, *n, 1_000_000, tcp.clone())).collect();
        let qdisc = serde_json::from_str(r#"{"kind": "fifo"}"#).unwrap();
        Dumbbell { rate_bps: 10_000_000, delay_ns: 1_000_000, loss: 0.0, qdisc, groups }.config(1, 1_000_000_000, 0)
    }

    #[test]
    fn flows_read_with_shared_sources_are_those_written() {
        let reno = TcpConfig::profile("ns2-reno").unwrap();
        let cubic = TcpConfig::profile("linux").unwrap();
        let mut cfg = shared(&[("a", 3, reno.clone()), ("b", 2, cubic), ("c", 2, reno)]);
        // One flow of a group with a source of its own, among those sharing.
        if let SourceConfig::Tcp { size_bytes, .. } = &mut cfg.flows[1].source {
            *size_bytes = Some(10_000);
        }
        let text = serde_json::to_string(&cfg).unwrap();
        assert_eq!(RunConfig::parse_json(&text).unwrap(), cfg);
        // Outside `parse_json` sources are read as any value (here not from text).
        assert!(READING.with(|reading| reading.borrow().is_none()), "the sharing ended");
        let value = serde_json::to_value(&cfg).unwrap();
        assert_eq!(serde_json::from_value::<RunConfig>(value).unwrap(), cfg);
    }

    #[test]
    fn a_bad_source_is_an_error_even_after_a_good_one_and_the_sharing_ends() {
        let cfg = shared(&[("a", 2, TcpConfig::default())]);
        let mut value = serde_json::to_value(&cfg).unwrap();
        value["flows"][1]["source"]["tcp"]["sack"] = "perhaps".into();
        let e = RunConfig::parse_json(&value.to_string()).unwrap_err();
        assert!(e.to_string().contains("perhaps"), "{e}");
        assert!(READING.with(|reading| reading.borrow().is_none()), "the sharing ended with the error");
        // The first flow's source, read before the error, is no longer shared.
        value["flows"][1]["source"]["tcp"]["sack"] = true.into();
        assert_eq!(RunConfig::parse_json(&value.to_string()).unwrap().flows.len(), 2);
    }

    /// `cfg`'s JSON with every flow's source named by index into `sources`, as `config.json`
    /// writes it, `sources` before or after `flows`.
    fn by_index(cfg: &RunConfig, sources_first: bool) -> String {
        let mut value = serde_json::to_value(cfg).unwrap();
        let mut sources: Vec<serde_json::Value> = Vec::new();
        for flow in value["flows"].as_array_mut().unwrap() {
            let source = flow["source"].take();
            let index = sources.iter().position(|s| *s == source).unwrap_or_else(|| {
                sources.push(source);
                sources.len() - 1
            });
            flow["source"] = index.into();
        }
        let mut object = value.as_object().unwrap().clone();
        let flows = object.remove("flows").unwrap();
        let (first, second) = if sources_first {
            (("sources", sources.into()), ("flows", flows))
        } else {
            (("flows", flows), ("sources", sources.into()))
        };
        object.insert(first.0.into(), first.1);
        object.insert(second.0.into(), second.1);
        serde_json::to_string(&object).unwrap()
    }

    #[test]
    fn flows_naming_their_sources_by_index_read_as_those_holding_them() {
        let reno = TcpConfig::profile("ns2-reno").unwrap();
        let mut cfg = shared(&[("a", 3, reno.clone()), ("b", 2, TcpConfig::profile("linux").unwrap()), ("c", 2, reno)]);
        if let SourceConfig::Tcp { size_bytes, .. } = &mut cfg.flows[1].source {
            *size_bytes = Some(10_000);
        }
        for sources_first in [true, false] {
            let text = by_index(&cfg, sources_first);
            assert!(text.contains(r#""source":2"#), "{text}");
            let read = RunConfig::parse_json(&text).unwrap();
            assert_eq!(read, cfg, "sources first: {sources_first}");
            assert!(read.sources.is_empty() && read.validate().is_ok());
        }
        // Outside `parse_json` an index is not a source.
        let value: serde_json::Value = serde_json::from_str(&by_index(&cfg, true)).unwrap();
        assert!(serde_json::from_value::<RunConfig>(value).is_err());
        // A configuration built with `sources` is refused: they would do nothing.
        let kept = RunConfig { sources: vec![cfg.flows[0].source.clone()], ..cfg };
        assert_eq!(kept.validate().unwrap_err().key, "sources");
    }

    #[test]
    fn an_index_past_the_sources_names_the_flow_and_the_range() {
        let cfg = shared(&[("a", 2, TcpConfig::default())]);
        let text = by_index(&cfg, true).replacen(r#""source":0"#, r#""source":1"#, 2);
        let e = RunConfig::parse_json(&text).unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.value.as_str(), e.allowed.as_str()),
            ("flows[0].source", "1", "the index of one of `sources` (0 to 0)")
        );
        let none = by_index(&cfg, true).replacen(r#""sources":[{"#, r#""unused":[{"#, 1);
        assert!(
            RunConfig::parse_json(&none).unwrap_err().to_string().contains("unused"),
            "an unknown key is still refused"
        );
        let e =
            RunConfig::parse_json(&by_index(&cfg, true).replacen(r#""source":0"#, r#""source":-1"#, 1)).unwrap_err();
        assert!(e.to_string().contains("the index of one of `sources`"), "{e}");
        assert!(READING.with(|reading| reading.borrow().is_none()), "the sharing ended with the error");
    }
}
