//! `pbrain-sente`: with no arguments, the Gomocup/Piskvork protocol on stdin/stdout.
//! Subcommands: `bench`, `solve`, `analyze`, and the evaluation's training pipeline
//! `selfplay`, `train`, `evalcheck`, `evalfile`, and `tunables` for tuning runs (see `--help`).

fn usage() -> &'static str {
    "usage: pbrain-sente                 speak the Gomocup/Piskvork protocol on stdin/stdout
       pbrain-sente --log FILE      the same, writing a debug log to FILE
       pbrain-sente --eval-file FILE [--log FILE]  the same, evaluating with a weight file
                                    (as INFO eval_file FILE; a bad file: MESSAGE, embedded weights)
       pbrain-sente bench [DEPTH [CYCLES]]  fixed-depth search of the bench positions (node signature, speed)
       pbrain-sente bench --time MS  middle-game positions at MS per move: depth, nodes/s, time used
       pbrain-sente bench --nodes N  the same at N nodes a move: one tree everywhere (callgrind)
                                    (either with --nnue FILE [--nnue-use value|policy|both]: a network
                                    for the positions of its rule, and its cost an evaluation)
       pbrain-sente bench --check   the signature at a small depth against the kept one (about 1 s)
       pbrain-sente analyze ...     search one position: iterations, root scores, pruning statistics
                                    (with --nnue FILE or --nnue-use USE: the network's value too)
       pbrain-sente solve ...       prove or refute a VCF/VCT (see src/tools/solve.rs or 'solve --help')
       pbrain-sente selfplay ...    self-play games for training the evaluation ('selfplay --help')
       pbrain-sente train ...       fit the evaluation tables to self-play data ('train --help')
       pbrain-sente evalcheck ...   loss and accuracy of a weight file on self-play data
       pbrain-sente games FILE...   check games files (selfplay --format games) and count them
       pbrain-sente nnue-train ...  train the network from games files ('nnue-train --help')
                                    (these five only in a build with --features train)
       pbrain-sente evalfile ...    write the hand-set weight files, check a weight file
       pbrain-sente tunables        the search's tunable numbers (INFO tune_NAME): name, value, range
       pbrain-sente help            this text"
}

fn main() {
    // Never let a panic print to stdout/stderr in protocol mode: Piskvork reads stderr as
    // replies. The message goes to the log, if the user asked for one.
    std::panic::set_hook(Box::new(|info| log::error!("panic: {info}")));
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let net = bench_net(&mut args);
    let code = match args.first().map(String::as_str) {
        None => {
            init_logging(None);
            sente::protocol::run()
        }
        Some("--log") if args.len() == 2 => {
            init_logging(Some(&args[1]));
            sente::protocol::run()
        }
        Some("--eval-file" | "--log") if args.len() == 2 || args.len() == 4 => {
            // `--eval-file FILE` is `INFO eval_file FILE` before the manager's first line.
            let mut log = None;
            let mut eval_file = None;
            for pair in args.chunks(2) {
                match (pair[0].as_str(), pair.get(1)) {
                    ("--log", Some(f)) if log.is_none() => log = Some(f.as_str()),
                    ("--eval-file", Some(f)) if eval_file.is_none() => eval_file = Some(f.as_str()),
                    _ => {
                        println!("{}", usage());
                        std::process::exit(2);
                    }
                }
            }
            init_logging(log);
            let preamble = eval_file.map_or(String::new(), |f| format!("INFO eval_file {f}\n"));
            sente::protocol::run_with_preamble(preamble)
        }
        Some("bench") if matches!(args.get(1).map(String::as_str), Some("--time" | "--nodes")) => {
            init_stderr_logging();
            let timed = args[1] == "--time";
            match (args.get(2).and_then(|t| t.parse().ok()), timed) {
                (Some(ms), true) => sente::tools::bench::run_timed(ms as i64, &net),
                (Some(nodes), false) => sente::tools::bench::run_nodes(nodes, &net),
                (None, _) => {
                    println!("bench {} needs a number\n{}", args[1], usage());
                    2
                }
            }
        }
        Some("bench") if args.get(1).map(String::as_str) == Some("--check") => {
            init_stderr_logging();
            sente::tools::bench::check()
        }
        Some("bench") => {
            init_stderr_logging();
            let depth = args.get(1).and_then(|d| d.parse().ok());
            let cycles = args.get(2).and_then(|c| c.parse().ok());
            sente::tools::bench::run(depth, cycles, &net)
        }
        Some("analyze") => {
            init_stderr_logging();
            sente::tools::analyze::run(&args[1..], &net)
        }
        Some("solve") => {
            init_stderr_logging();
            sente::tools::solve::run(&args[1..])
        }
        Some(command @ ("selfplay" | "train" | "evalcheck" | "games" | "nnue-train")) => {
            init_stderr_logging();
            training(command, &args[1..])
        }
        Some("evalfile") => {
            init_stderr_logging();
            sente::tools::evalfile::run(&args[1..])
        }
        Some("tunables") => {
            for (name, value, (low, high)) in sente::search::Tunables::DEFAULT.table() {
                println!("{name} {value} {low} {high}");
            }
            0
        }
        Some("help" | "--help" | "-h") => {
            println!("{}", usage());
            0
        }
        Some(other) => {
            // Only a person types arguments; managers start the engine without any.
            println!("unknown command '{other}'\n{}", usage());
            2
        }
    };
    std::process::exit(code);
}

/// `bench`'s and `analyze`'s network options (`--nnue FILE`, `--nnue-use USE`), taken
/// out of their arguments.
fn bench_net(args: &mut Vec<String>) -> sente::tools::bench::NetChoice {
    let Some(command @ ("bench" | "analyze")) = args.first().map(String::as_str) else {
        return Default::default();
    };
    let command = command.to_string();
    sente::tools::bench::NetChoice::from_args(args).unwrap_or_else(|e| {
        println!("{command}: {e}");
        std::process::exit(2)
    })
}

/// The training pipeline's commands, in a build with the `train` feature.
#[cfg(feature = "train")]
fn training(command: &str, args: &[String]) -> i32 {
    match command {
        "selfplay" => sente::train::selfplay::run(args),
        "train" => sente::train::tables::run_train(args),
        "games" => sente::train::games::run(args),
        "nnue-train" => sente::train::nnue::run_train(args),
        _ => sente::train::tables::run_check(args),
    }
}

#[cfg(not(feature = "train"))]
fn training(command: &str, _args: &[String]) -> i32 {
    println!("'{command}' is part of the training pipeline: build with `cargo build --release --features train`");
    2
}

/// Protocol mode logs only when asked: `RUST_LOG` (to stderr) or `--log FILE`.
fn init_logging(file: Option<&str>) {
    if let Some(path) = file {
        if let Ok(f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = env_logger::Builder::new()
                .filter_level(log::LevelFilter::Debug)
                .parse_default_env()
                .target(env_logger::Target::Pipe(Box::new(f)))
                .try_init();
        }
    } else if std::env::var_os("RUST_LOG").is_some() {
        let _ = env_logger::try_init();
    }
}

/// Tools (not protocol mode) may log warnings to stderr.
fn init_stderr_logging() {
    let _ = env_logger::Builder::new()
        .filter_level(log::LevelFilter::Warn)
        .parse_default_env()
        .try_init();
}
