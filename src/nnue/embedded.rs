//! The networks built into the engine (`include_bytes!`), one per rule that has one, read
//! once when a search first asks for its rule. Which run made each file, and how to make
//! it again: README, "Training the network".

use std::sync::{Arc, OnceLock};

use crate::game::Rule;

use super::Network;

/// The file of `rule`'s embedded network, if it has one.
fn file_of(rule: Rule) -> Option<&'static [u8]> {
    match rule {
        // fs15-n7: 25,121 self-play games at 10,000 nodes (README, "Training the network").
        Rule::Freestyle => Some(include_bytes!("nets/freestyle.nnue")),
        _ => None,
    }
}

/// `rule`'s embedded network (`None`: the rule keeps its tables).
pub fn embedded(rule: Rule) -> Option<Arc<Network>> {
    static NETS: [OnceLock<Option<Arc<Network>>>; Rule::ALL.len()] = [const { OnceLock::new() }; Rule::ALL.len()];
    NETS[rule.index()]
        .get_or_init(|| {
            file_of(rule).map(|bytes| {
                // The files are checked by the tests below: a bad one is a build mistake.
                Arc::new(Network::from_bytes(bytes, Some(rule)).expect("a valid embedded network"))
            })
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_network_reads_and_is_for_its_rule() {
        let mut found = 0;
        for rule in Rule::ALL {
            if let Some(bytes) = file_of(rule) {
                let net = Network::from_bytes(bytes, Some(rule)).expect("reads");
                assert_eq!(net.rule, rule);
                assert_eq!(embedded(rule).as_deref(), Some(&net));
                // A network that says nothing would be a stub.
                assert!(net.shapes.iter().flatten().any(|&v| v != 0));
                found += 1;
            } else {
                assert!(embedded(rule).is_none());
            }
        }
        assert!(found >= 1);
    }
}
