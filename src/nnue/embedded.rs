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

/// The board sizes (width, height) where `rule`'s embedded network plays by default: those
/// it was trained and measured on. fs15-n7 behind the gate: +84.6 ± 51.2 Elo over the
/// tables at 1 s a move on 15×15; on 20×20 it lost to them at 0.2 s (docs/experiments/nnue.md).
fn sizes_of(rule: Rule) -> &'static [(usize, usize)] {
    match rule {
        Rule::Freestyle => &[(15, 15)],
        _ => &[],
    }
}

/// `rule`'s embedded network for a `width`×`height` game: `embedded(rule)` on the sizes it
/// was measured on, else `None` (the tables).
pub fn embedded_for(rule: Rule, width: usize, height: usize) -> Option<Arc<Network>> {
    sizes_of(rule)
        .contains(&(width, height))
        .then(|| embedded(rule))
        .flatten()
}

/// `rule`'s embedded network (`None`: the rule keeps its tables), on any board size.
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

    #[test]
    fn an_embedded_network_plays_only_on_the_sizes_it_was_measured_on() {
        for rule in Rule::ALL {
            assert_eq!(sizes_of(rule).is_empty(), file_of(rule).is_none(), "{rule:?}");
            for &(w, h) in sizes_of(rule) {
                assert_eq!(embedded_for(rule, w, h), embedded(rule));
            }
            assert!(embedded_for(rule, 31, 29).is_none());
        }
        assert!(embedded_for(Rule::Freestyle, 15, 15).is_some());
        assert!(embedded_for(Rule::Freestyle, 20, 20).is_none());
    }
}
