//! `pbrain-sente evalfile`: write and inspect weight files (`eval::file`).

use crate::eval::{file, RuleTables, LINE, OPP, OWN};
use crate::game::Rule;

const HELP: &str = "usage: pbrain-sente evalfile hand-set RULE FILE   write the hand-set weights of RULE
                                                    (the embedded files: src/eval/weights/RULE.bin)
       pbrain-sente evalfile show FILE              check a weight file and print its header";

pub fn run(args: &[String]) -> i32 {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["hand-set", rule, path] => Rule::from_name(rule)
            .ok_or_else(|| format!("unknown rule '{rule}'"))
            .and_then(|r| file::save(&RuleTables::from_hand_set(r, &OWN, &OPP, &LINE), path))
            .map(|_| format!("wrote {path}")),
        ["show", path] => file::load(path, None).map(|t| {
            let v = file::values(&t);
            format!(
                "{path}: format version {}, rule {}, point values by the {}, {} values, min {}, max {}",
                file::VERSION,
                t.rule.name(),
                crate::eval::point_basis(t.by_initiative),
                v.len(),
                v.iter().min().unwrap_or(&0),
                v.iter().max().unwrap_or(&0)
            )
        }),
        _ => {
            println!("{HELP}");
            return 2;
        }
    };
    match result {
        Ok(text) => {
            println!("{text}");
            0
        }
        Err(e) => {
            println!("evalfile: {e}");
            1
        }
    }
}
