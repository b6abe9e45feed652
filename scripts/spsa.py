"""SPSA by self-play through sente-match, shared by scripts/tune-eval.py and
scripts/tune-search.py (not part of the tests).

Each step plays one opening twice (colours swapped) between theta + c*delta and
theta - c*delta (delta a random sign per parameter) and moves theta toward the winner, as
fishtest's SPSA does: theta_i += r_k * c_i * result * delta_i, result the plus engine's
points minus the minus engine's (-2..2), r_k = rate * ((1 + A) / (1 + A + k))^0.602 with
A a tenth of the run. The perturbation c stays fixed: the runs here are short.
"""
import argparse
import json
import os
import random
import subprocess
import tempfile
import threading


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def arguments(pairs, openings, rate):
    """The options every tuning script takes; `openings` relative to the repository."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=pairs)
    ap.add_argument("--tc", type=float, default=0.1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--openings", default=os.path.join(ROOT, openings))
    ap.add_argument("--engine", default=os.path.join(ROOT, "target/release/pbrain-sente"))
    ap.add_argument("--match", default=os.path.join(ROOT, "target/release/sente-match"))
    ap.add_argument("--log", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=float, default=rate)
    return ap


def play_pair(match, engine, tc, opening, plus_options, minus_options, seed):
    """Two games of `opening`, colours swapped, between the engine with `plus_options`
    and with `minus_options` (INFO key -> value). Returns plus's points minus minus's."""
    with tempfile.TemporaryDirectory() as tmp:
        openings = os.path.join(tmp, "opening.txt")
        with open(openings, "w", encoding="utf-8") as f:
            f.write(opening + "\n")
        records = os.path.join(tmp, "games.jsonl")

        def side(name, options):
            return ["--engine", f"cmd={engine}", f"name={name}",
                    *[f"option.{k}={v}" for k, v in options.items()]]

        cmd = [match, *side("plus", plus_options), *side("minus", minus_options), "--tc", str(tc),
               "--games", "2", "--openings", openings, "--symmetry", "--seed", str(seed), "--reuse",
               "--quiet", "--jsonl", records]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        score = 0.0
        if os.path.exists(records):
            for line in open(records, encoding="utf-8"):
                winner = json.loads(line)["winner"]
                score += {"plus": 1.0, "minus": -1.0}.get(winner, 0.0)
        return score


class Spsa:
    """theta: start values; c: perturbation per parameter; bounds: (low, high) per
    parameter; options(vector) -> the INFO options of an engine with those values."""

    def __init__(self, theta, c, bounds, options, pairs, rate, seed):
        self.theta = [float(v) for v in theta]
        self.c = c
        self.bounds = bounds
        self.options = options
        self.pairs = pairs
        self.rate = rate
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.done = 0

    def step_size(self, k):
        a = self.pairs / 10
        return self.rate * ((1 + a) / (1 + a + k)) ** 0.602

    def clamp(self, i, v):
        low, high = self.bounds[i]
        return min(max(v, low), high)

    def run(self, play, workers, on_pair):
        """Play `pairs` steps on `workers` threads. play(plus_options, minus_options, k)
        plays step k's pair and returns its result; on_pair(k, result, theta, delta) is called
        (under the lock) after every pair. Returns the final theta."""

        def worker():
            while True:
                with self.lock:
                    if self.done >= self.pairs:
                        return
                    k = self.done
                    self.done += 1
                    delta = [self.rng.choice((-1, 1)) for _ in self.theta]
                    plus = [self.clamp(i, t + c * d) for i, (t, c, d) in enumerate(zip(self.theta, self.c, delta))]
                    minus = [self.clamp(i, t - c * d) for i, (t, c, d) in enumerate(zip(self.theta, self.c, delta))]
                result = play(self.options(plus), self.options(minus), k)
                with self.lock:
                    r = self.step_size(k)
                    for i, (c, d) in enumerate(zip(self.c, delta)):
                        self.theta[i] = self.clamp(i, self.theta[i] + r * c * result * d)
                    on_pair(k, result, list(self.theta), delta)

        threads = [threading.Thread(target=worker) for _ in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return self.theta
