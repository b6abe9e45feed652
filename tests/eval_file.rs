//! `pbrain-sente --eval-file FILE`: the weight file option on the command line, as
//! `INFO eval_file FILE` before the manager's first line.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

mod common;

/// Run the engine with `args`: start a game, give it a stone, read its replies up to its
/// move, end it. Returns (stdout lines, stderr).
fn run(args: &[&str]) -> (Vec<String>, String) {
    let mut child = common::engine_command()
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pbrain-sente");
    let mut stdin = child.stdin.take().unwrap();
    // (An engine that refuses its arguments may have exited already.)
    let _ = stdin.write_all(b"INFO timeout_turn 200\nSTART 15\nTURN 7,7\n");
    let mut lines = Vec::new();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 0 {
        lines.push(line.trim_end().to_string());
        line.clear();
        if is_move(lines.last().unwrap()) || lines.last().unwrap().starts_with("usage") {
            break;
        }
    }
    let _ = stdin.write_all(b"END\n");
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (lines, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn is_move(line: &str) -> bool {
    let mut parts = line.split(',');
    matches!((parts.next(), parts.next(), parts.next()), (Some(x), Some(y), None)
        if x.parse::<u32>().is_ok() && y.parse::<u32>().is_ok())
}

#[test]
fn a_good_file_plays_silently() {
    let (lines, stderr) = run(&["--eval-file", "src/eval/weights/freestyle.bin"]);
    assert_eq!(stderr, "");
    assert_eq!(lines[0], "OK");
    assert!(is_move(lines.last().unwrap()), "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("eval_file")), "{lines:?}");
}

#[test]
fn a_bad_file_is_reported_and_the_embedded_weights_play() {
    for (file, why) in [
        ("tests/data/weights_corrupt.bin", "checksum does not match"),
        ("tests/data/weights_version2.bin", "format version 2"),
        (
            "src/eval/weights/renju.bin",
            "holds renju weights, the game is freestyle",
        ),
    ] {
        let (lines, stderr) = run(&["--eval-file", file, "--log", "/dev/null"]);
        assert_eq!(stderr, "", "{file}");
        let message = lines
            .iter()
            .find(|l| l.starts_with("MESSAGE eval_file:"))
            .expect("a MESSAGE");
        assert!(message.contains(file) && message.contains(why), "{message}");
        assert!(message.ends_with("using the embedded weights"), "{message}");
        assert!(is_move(lines.last().unwrap()), "{lines:?}");
    }
}

#[test]
fn bad_arguments_print_the_usage() {
    let (lines, _) = run(&["--eval-file"]);
    assert!(lines.iter().any(|l| l.starts_with("usage")), "{lines:?}");
}
