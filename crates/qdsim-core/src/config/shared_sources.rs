//! Sources read once for the flows that share them.
//!
//! The flows of a group carry the same source, a kilobyte of JSON with its TCP options, and
//! a run of 10⁴ or 10⁵ flows read it as many times: two thirds of the core's set-up went to
//! reading sources — buffering each for its `kind` tag (an internally tagged enum) and
//! building each TCP configuration through a map. While [`RunConfig::parse_json`] reads a
//! configuration, a flow's source whose text is, byte for byte, the previous flow's is a
//! copy of the value read for it: the same text reads as the same value. Any other source, or
//! a configuration read by another deserializer (`serde_json::from_value`, say), is read as
//! before.
//!
//! [`RunConfig::parse_json`]: super::RunConfig::parse_json

use std::cell::RefCell;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::SourceConfig;

thread_local! {
    /// `Some` while [`sharing`] runs — its deserializer hands out a value's text — holding
    /// the last source read, its text and its value.
    static LAST: RefCell<Option<Option<(String, SourceConfig)>>> = const { RefCell::new(None) };
}

/// Reads a flow's source (`FlowConfig::source`): inside [`sharing`], from its text, a copy of
/// the previous flow's value when the text is the same; elsewhere as any source.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SourceConfig, D::Error> {
    if LAST.with(|last| last.borrow().is_none()) {
        return SourceConfig::deserialize(d);
    }
    let text = <&RawValue>::deserialize(d)?.get();
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        let last = last.as_mut().expect("inside `sharing`");
        if let Some((_, value)) = last.as_ref().filter(|(read, _)| read == text) {
            return Ok(value.clone());
        }
        let value: SourceConfig = serde_json::from_str(text).map_err(serde::de::Error::custom)?;
        *last = Some((text.to_owned(), value.clone()));
        Ok(value)
    })
}

/// Runs `read`, a [`serde_json::from_str`] of a configuration, with its flows' sources shared
/// (module doc).
pub(super) fn sharing<T>(read: impl FnOnce() -> T) -> T {
    /// Ends the sharing however `read` ends (an error, a panic).
    struct End;
    impl Drop for End {
        fn drop(&mut self) {
            LAST.with(|last| *last.borrow_mut() = None);
        }
    }
    LAST.with(|last| *last.borrow_mut() = Some(None));
    let _end = End;
    read()
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
        assert!(LAST.with(|last| last.borrow().is_none()), "the sharing ended");
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
        assert!(LAST.with(|last| last.borrow().is_none()), "the sharing ended with the error");
        // The first flow's source, read before the error, is no longer shared.
        value["flows"][1]["source"]["tcp"]["sack"] = true.into();
        assert_eq!(RunConfig::parse_json(&value.to_string()).unwrap().flows.len(), 2);
    }
}
