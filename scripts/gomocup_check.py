#!/usr/bin/env python3
"""Checks an extracted Gomocup package the way the Gomocup judge (GomocupJudge) uses it,
running the Windows exes under wine. Called by scripts/test-gomocup-wine.sh; Python 3
standard library only.

  1. selection: which exe the judge picks for each league format (protocol.md §9);
  2. for each exe in the package: a protocol smoke test (START, INFO, ABOUT, BEGIN, TURN,
     BOARD, an empty BOARD on 20x20, END) and the judge's rule self-test positions (§6),
     each position in a fresh process driven as the judge does (START and INFO without
     waiting for OK, suspended between commands, INFO time_left, BOARD ... DONE, END);
  3. short games of the judge's exe against the Linux build, rules 0, 1, 4, 8 on 15x15 and
     0 on 20x20, played and refereed by sente-match (--match-runner).

Prints one PASS/FAIL line per check and `N passed, M failed` last; exits 1 on a failure.
"""

import argparse
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

EOL = "\r\n"  # what GomocupJudge and Piskvork send
STRICT_MOVE = re.compile(r"^(\d+),(\d+)$")
LOOSE_MOVE = re.compile(r"^\s*-?\d+\s*,\s*-?\d+\s*$")
RULE_WORDS = {0: "freestyle", 1: "standard", 4: "renju", 8: "caro"}
MEMORY = 350 * 1024 * 1024

# The judge's self-test formats and positions (protocol.md §6 and §9; GomocupJudge
# test_zip_rules.py): name, rule, size, timeout_turn, timeout_match, checks. A check is
# (position in "pos" notation, accepted answers or None, forbidden answers or None).
FIVE = ("h8h9i8i9j8j9k8k9", ["g8", "l8"], None)
FORMATS = [
    ("Freestyle", 0, 20, 30000, 180000, [FIVE]),
    ("Fastgame", 0, 20, 5000, 100000, [FIVE]),
    ("Freestyle15", 0, 15, 30000, 180000, [FIVE]),
    ("Standard", 1, 15, 30000, 180000, [FIVE, ("h8h9i8h10g8h11j13h12g14h14i15", ["f8", "j8"], None)]),
    ("Renju", 4, 15, 30000, 180000, [FIVE, ("h8h9i7i9h10i6i11i12", None, ["g9"])]),
    ("Caro", 8, 15, 30000, 180000, [FIVE, ("h8f8g8f9i8f7j8l8", ["f5", "f6", "f10", "f11"], None)]),
]


class Fail(Exception):
    pass


def parse_pos(text):
    """'h8h10' -> [(7, 7), (7, 9)]: letter = x, number = y + 1."""
    return [(ord(c) - ord("a"), int(n) - 1) for c, n in re.findall(r"([a-z])(\d+)", text.lower())]


def pos_name(x, y):
    return f"{chr(ord('a') + x)}{y + 1}"


class Engine:
    """One engine process on pipes. Every stdout line is checked as it is read: it must
    end in LF alone, and only `MESSAGE` lines may come before a reply."""

    def __init__(self, cmd, cwd, label, wine=False):
        self.label = label
        self.wine = wine
        try:
            self.proc = subprocess.Popen(
                cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
            )
        except OSError as e:
            raise Fail(f"{label}: cannot start {' '.join(cmd)}: {e}")
        self.lines = queue.Queue()
        self.stderr = []
        self.messages = 0
        self.suspended = False
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr.append), daemon=True).start()

    @staticmethod
    def _pump(stream, put):
        for raw in iter(stream.readline, b""):
            put(raw)
        put(None)

    def send(self, *lines):
        try:
            self.proc.stdin.write("".join(line + EOL for line in lines).encode())
            self.proc.stdin.flush()
        except OSError as e:
            raise Fail(f"{self.label}: cannot write to the engine ({e}); exit code {self.proc.poll()}")

    def suspend(self):  # the judge suspends an engine whenever it is not on move
        self.proc.send_signal(signal.SIGSTOP)
        self.suspended = True

    def resume(self):
        if self.suspended:
            self.proc.send_signal(signal.SIGCONT)
            self.suspended = False

    def read(self, deadline, what):
        """The next stdout line (without LF) before the monotonic deadline."""
        try:
            raw = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise Fail(f"{self.label}: no {what} in time")
        if raw is None:
            raise Fail(f"{self.label}: exited (code {self.proc.wait()}) while waiting for {what}{self.stderr_note()}")
        if not raw.endswith(b"\n") or raw.endswith(b"\r\n"):
            raise Fail(f"{self.label}: reply {raw!r} does not end in a lone LF")
        return raw[:-1].decode("utf-8", "replace")

    def reply(self, deadline, what, accept, allow_ok=False):
        """Reads until a line that `accept` takes; MESSAGE lines (and one OK when the judge
        did not wait for it) may come first, anything else fails."""
        while True:
            line = self.read(deadline, what)
            if line.upper().startswith("MESSAGE"):
                self.messages += 1
                continue
            if allow_ok and line == "OK":
                allow_ok = False
                continue
            if accept(line):
                return line
            raise Fail(f"{self.label}: unexpected line {line!r} while waiting for {what}")

    def move(self, deadline, size, board=None, allow_ok=False):
        line = self.reply(deadline, "a move", lambda s: LOOSE_MOVE.match(s) is not None, allow_ok)
        m = STRICT_MOVE.match(line)
        if not m:
            raise Fail(f"{self.label}: move {line!r} is not in the strict form x,y")
        x, y = int(m.group(1)), int(m.group(2))
        if not (x < size and y < size):
            raise Fail(f"{self.label}: move {x},{y} is off the {size}x{size} board")
        if board is not None and (x, y) in board:
            raise Fail(f"{self.label}: move {x},{y} is on an occupied point")
        return x, y

    def end(self, limit=5.0):
        """END as a manager sends it: returns how the engine ended; fails if it prints
        anything after END, exits with an error code or lingers past `limit`.

        Under wine 8 a process that exits while another of its threads is blocked reading
        stdin (as a protocol reader thread is) is now and then finished off by wine with
        SIGKILL, in a few percent of exits; Windows has no such thing, so under wine that
        counts as an exit, and is reported."""
        self.resume()
        t0 = time.monotonic()
        self.send("END")
        try:
            code = self.proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            self.kill()
            raise Fail(f"{self.label}: still running {limit:.0f} s after END")
        took = time.monotonic() - t0
        time.sleep(0.05)
        after = []
        while not self.lines.empty():
            raw = self.lines.get()
            if raw is not None:
                after.append(raw)
        if after:
            raise Fail(f"{self.label}: printed {after!r} after END")
        if self.wine and code == -signal.SIGKILL:
            return f"ended {took:.2f}s after END (wine finished it with SIGKILL)"
        if code != 0:
            raise Fail(f"{self.label}: exit code {code} after END{self.stderr_note()}")
        return f"exit 0 {took:.2f}s after END"

    def stderr_note(self):
        text = b"".join(line for line in self.stderr if line).decode("utf-8", "replace").strip()
        return f"; stderr: {text[:500]!r}" if text else ""

    def kill(self):
        if self.proc.poll() is None:
            self.resume()
            self.proc.kill()
            self.proc.wait()


class Checker:
    def __init__(self, args):
        self.args = args
        self.passed = 0
        self.failed = 0

    def record(self, ok, name, detail):
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def run(self, name, fn, *fn_args):
        try:
            self.record(True, name, fn(*fn_args))
        except Fail as e:
            self.record(False, name, str(e))

    # --- commands ------------------------------------------------------------------------
    def windows_cmd(self, exe):
        path = os.path.join(self.args.package, exe)
        return ([self.args.wine] if self.args.wine else []) + [path]

    def engine_path(self, path):
        """A path as the engine sees it: wine maps the Linux root to drive Z:."""
        return "Z:" + path if self.args.wine else path

    def start(self, cmd, label, size, rule, turn, match):
        """Launches an engine and sends START and the INFO lines in the judge's order
        (without waiting for OK, which the judge reads with the first move); then
        suspends it as the judge does."""
        folder = os.path.join(self.args.tmp, "folder", label.replace(" ", "_"))
        os.makedirs(folder, exist_ok=True)
        engine = Engine(cmd, self.args.package, label, wine=bool(self.args.wine))
        engine.send(
            f"START {size}",
            f"INFO timeout_turn {turn}",
            f"INFO timeout_match {match}",
            f"INFO max_memory {MEMORY}",
            "INFO game_type 1",
            f"INFO rule {rule}",
            f"INFO folder {self.engine_path(folder)}",
        )
        engine.suspend()
        return engine

    # --- 1. selection ------------------------------------------------------------------------
    def selection(self, exes):
        """The judge's choice for each league format (protocol.md §9 "Executable
        selection"), reimplemented: pbrain exes only when there are any; the best
        rule/size suffix match; on a 64-bit OS, "64" in the name breaks ties."""
        pbrain = [e for e in exes if e.lower().startswith("pbrain")] or exes

        def compat(exe, rule_word, size):
            base = os.path.splitext(exe)[0].lower()
            for tail in ("_64", "-64", "64"):
                if base.endswith(tail):
                    base = base[: -len(tail)]
                    break
            m = re.search(r"_(freestyle|standard|renju|caro)(?:-(15|20))?$|_(15|20)$", base)
            if not m:
                return 1
            file_rule, file_size = m.group(1), m.group(2) or m.group(3)
            if (file_rule and file_rule != rule_word) or (file_size and file_size != str(size)):
                return 0
            return 4 if file_rule and file_size else 3 if file_rule else 2

        chosen = {}
        for name, rule, size, *_ in FORMATS:
            scores = [(compat(e, RULE_WORDS[rule], size), "64" in e, e) for e in pbrain]
            if max(scores)[0] == 0:  # nothing fits: every exe counts as generic
                scores = [(1, a, e) for _, a, e in scores]
            best = max(scores)[:2]
            picks = [e for c, a, e in scores if (c, a) == best]
            if len(picks) > 1:
                raise Fail(f"{name}: the judge cannot tell {picks} apart (it would take whichever it lists first)")
            chosen[name] = picks[0]
        picked = sorted(set(chosen.values()))
        if picked != [self.args.judge_exe]:
            raise Fail(f"the judge would run {chosen}, expected {self.args.judge_exe} for every format")
        return f"every format ({', '.join(chosen)}) runs {picked[0]}"

    # --- 2a. smoke test --------------------------------------------------------------------
    def smoke(self, exe):
        tol = self.args.tolerance
        engine = Engine(self.windows_cmd(exe), self.args.package, exe, wine=bool(self.args.wine))
        notes = []
        try:
            t0 = time.monotonic()
            engine.send("START 15")
            engine.reply(t0 + tol, "OK to START 15", lambda s: s == "OK")
            notes.append(f"START 15 -> OK {time.monotonic() - t0:.2f}s")
            folder = os.path.join(self.args.tmp, "folder", "smoke with space")
            os.makedirs(folder, exist_ok=True)
            engine.send(
                "INFO timeout_turn 1000",
                "INFO timeout_match 60000",
                f"INFO max_memory {MEMORY}",
                "INFO game_type 1",
                "INFO rule 0",
                f"INFO folder {self.engine_path(folder)}",
                "INFO time_left 60000",
            )
            t0 = time.monotonic()
            engine.send("ABOUT")
            about = engine.reply(t0 + tol, "the ABOUT line", lambda s: True)
            if not re.search(r'name="[^",=]+"', about):
                raise Fail(f"{exe}: ABOUT reply {about!r} has no name=\"...\"")
            notes.append(f"ABOUT -> {about}")

            board = {}

            def ask(command, lines=()):
                t0 = time.monotonic()
                engine.send("INFO time_left 60000", command, *lines)
                x, y = engine.move(t0 + 1.0 + tol, 15, board)
                board[(x, y)] = 1
                notes.append(f"{command} -> {x},{y} {time.monotonic() - t0:.2f}s")
                return x, y

            x, y = ask("BEGIN")
            reply = next((x + dx, y + dy) for dx, dy in ((1, 1), (-1, -1), (1, -1)) if 0 <= x + dx < 15 and 0 <= y + dy < 15)
            board[reply] = 2
            ask(f"TURN {reply[0]},{reply[1]}")
            # A fresh position: the opponent (black) opened, we answered, black played again.
            stones = [((7, 7), 2), ((8, 8), 1), ((6, 8), 2)]
            board = {p: f for p, f in stones}
            ask("BOARD", [f"{x},{y},{f}" for (x, y), f in stones] + ["DONE"])
            # The judge's empty opening on 20x20: BOARD then DONE straight away, no BEGIN.
            t0 = time.monotonic()
            engine.send("START 20")
            engine.reply(t0 + tol, "OK to START 20", lambda s: s == "OK")
            engine.send("INFO rule 0", "INFO time_left 60000", "BOARD", "DONE")
            x, y = engine.move(t0 + 1.0 + tol, 20, {})
            notes.append(f"START 20, BOARD DONE -> {x},{y} {time.monotonic() - t0:.2f}s")
            notes.append(f"END -> {engine.end()}")
            if any(line for line in engine.stderr if line):
                raise Fail(f"{exe}: wrote to stderr{engine.stderr_note()}")
            return "; ".join(notes)
        finally:
            engine.kill()

    # --- 2b. rule self-test positions --------------------------------------------------------
    def rule_check(self, exe, rule, size, turn, match, position, accepted, forbidden):
        stones = parse_pos(position)
        to_move = len(stones) % 2  # 0: black to move
        engine = self.start(self.windows_cmd(exe), exe, size, rule, turn, match)
        try:
            t0 = time.monotonic()
            engine.resume()
            lines = [f"{x},{y},{1 if i % 2 == to_move else 2}" for i, (x, y) in enumerate(stones)]
            engine.send(f"INFO time_left {match}", "BOARD", *lines, "DONE")
            x, y = engine.move(t0 + turn / 1000 + self.args.tolerance, size, set(stones), allow_ok=True)
            took = time.monotonic() - t0
            ended = engine.end()
        finally:
            engine.kill()
        answer = pos_name(x, y)
        if accepted and answer not in accepted:
            raise Fail(f"answered {answer}, expected {' or '.join(accepted)}")
        if forbidden and answer in forbidden:
            raise Fail(f"answered {answer}, which is forbidden")
        slow = "" if took <= turn / 1000 + 1 else f" (over the judge's {turn} ms + 1 s tolerance)"
        want = " or ".join(accepted) if accepted else "not " + " ".join(forbidden)
        killed = "; " + ended if "SIGKILL" in ended else ""
        return f"{answer} (wanted {want}) in {took:.2f}s{slow}{killed}"

    def rule_checks(self, exe):
        for name, rule, size, turn, match, checks in FORMATS:
            if not self.args.judge_times:
                turn = min(turn, self.args.check_turn)
            for position, accepted, forbidden in checks:
                self.run(
                    f"rule check {exe} {name} (rule {rule}, {size}x{size}) {position}",
                    self.rule_check, exe, rule, size, turn, 180000, position, accepted, forbidden,
                )

    # --- 3. games ------------------------------------------------------------------------------
    def match_runner_game(self, rule, size, opening, windows_black):
        """One game through sente-match (Sente's own referee, renju fouls included): one
        game, the engine named first plays black, stopped as a draw at `--plies` stones."""
        exe = self.args.judge_exe
        tag = f"{RULE_WORDS[rule]}-{size}"
        openings = os.path.join(self.args.tmp, f"opening-{tag}.txt")
        records = os.path.join(self.args.tmp, f"game-{tag}.jsonl")
        with open(openings, "w") as f:
            f.write("".join(pos_name(x, y) for x, y in opening) + "\n")
        if os.path.exists(records):
            os.remove(records)
        wine = ([f"cmd={self.args.wine}", f"arg={os.path.join(self.args.package, exe)}"]
                if self.args.wine else [f"cmd={os.path.join(self.args.package, exe)}"])
        win = ["--engine", *wine, f"dir={self.args.package}", "name=windows"]
        lin = ["--engine", f"cmd={self.args.linux_engine}", "name=linux"]
        tc = f"{self.args.game_turn / 1000:g}/{self.args.game_match / 1000:g}"
        cmd = [self.args.match_runner, *(win + lin if windows_black else lin + win),
               "--rule", str(rule), "--size", str(size), "--games", "1", "--tc", tc,
               "--tolerance", str(int(self.args.tolerance * 1000)), "--start-timeout", "30000",
               "--end-grace", "5000", "--draw-after", str(self.args.plies),
               "--openings", openings, "--openings-format", "pos", "--jsonl", records, "--quiet"]
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0 or not os.path.exists(records):
            raise Fail(f"sente-match exited with {run.returncode}: {run.stdout.strip()[-800:]}")
        with open(records) as f:
            games = [json.loads(line) for line in f if line.strip()]
        if len(games) != 1:
            raise Fail(f"sente-match recorded {len(games)} games, expected 1")
        g = games[0]
        if g["faults"]:
            raise Fail("; ".join(f"{x['engine']} ({x['color']}) {x['kind']}: {x['detail']}" for x in g["faults"]))
        slowest = {}
        for m in g["moves"]:
            who = g[m["color"]]
            slowest[who] = max(slowest.get(who, 0), m["ms"])
        moves = " ".join([g["opening"]] + [m["move"] for m in g["moves"]])
        times = ", ".join(f"{who} max {ms / 1000:.2f}s" for who, ms in sorted(slowest.items()))
        first = "black" if windows_black else "white"
        return f"{exe} {first}: {g['result']} ({g['reason']}), {g['plies']} plies ({moves}); {times}"

    def games(self):
        # (rule, size, opening in "pos" notation around the centre, Windows build black?)
        plan = [
            (0, 15, "h8i9g10", True),
            (1, 15, "h8i7j9", False),
            (4, 15, "h8h9j10", True),
            (8, 15, "h8g9f7", False),
            (0, 20, "k11l12j13", True),
        ]
        for rule, size, opening, windows_black in plan:
            self.run(
                f"game {RULE_WORDS[rule]} {size}x{size} vs Linux build (sente-match)",
                self.match_runner_game, rule, size, parse_pos(opening), windows_black,
            )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("package", help="the folder the zip was extracted to")
    ap.add_argument("--linux-engine", required=True, help="the Linux pbrain-sente for the games")
    ap.add_argument("--judge-exe", default="pbrain-sente64.exe", help="the exe the judge must pick")
    ap.add_argument("--wine", default="wine", help="the wine command ('' runs the exes directly)")
    ap.add_argument("--tmp", required=True, help="a scratch folder (INFO folder points into it)")
    ap.add_argument("--tolerance", type=float, default=20.0,
                    help="seconds a reply may take beyond its time limit (wine starts slowly)")
    ap.add_argument("--check-turn", type=int, default=2000, help="timeout_turn (ms) for the rule checks")
    ap.add_argument("--judge-times", action="store_true",
                    help="use the judge's own time limits for the rule checks (30 s a move; slow)")
    ap.add_argument("--game-turn", type=int, default=500, help="timeout_turn (ms) in the games")
    ap.add_argument("--game-match", type=int, default=60000, help="timeout_match (ms) in the games")
    ap.add_argument("--plies", type=int, default=30, help="stop a game after this many stones")
    ap.add_argument("--match-runner", required=True, help="the sente-match that plays and referees the games")
    ap.add_argument("--no-games", action="store_true")
    args = ap.parse_args()

    checker = Checker(args)
    exes = sorted(f for f in os.listdir(args.package) if f.lower().endswith(".exe"))
    print(f"package {args.package}: {', '.join(exes)}", flush=True)
    checker.run("judge's exe selection", checker.selection, exes)
    ordered = sorted(exes, key=lambda e: e != args.judge_exe)
    for exe in ordered:
        checker.run(f"smoke {exe}", checker.smoke, exe)
        checker.rule_checks(exe)
    if not args.no_games:
        checker.games()
    print(f"{checker.passed} passed, {checker.failed} failed", flush=True)
    return 1 if checker.failed else 0


if __name__ == "__main__":
    sys.exit(main())
