#!/usr/bin/env python3
"""Check every forced win an engine announced in recorded games: was it won?

Usage: scripts/audit-mates.py GAMES.jsonl [ENGINE-NAME-PREFIX]

Reads sente-match JSONL records written with --messages. For each move whose MESSAGE
lines carry a mate score for the mover (Sente prints `ev +M7`, Rapfi `Eval +M7`,
PentaZen `ev +v7`), the announcing engine must win that game, within the announced
number of plies (its own five included; a shorter win is fine). Prints each claim that
was not won and a summary per engine; exits 1 if any claim failed.
"""

import json
import re
import sys
from collections import Counter

MATE = re.compile(r"(?:\bev|\bEval) \+(?:M|v)(\d+)")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    only = sys.argv[2] if len(sys.argv) > 2 else None
    claims, failed = Counter(), Counter()
    bad = []
    for line in open(sys.argv[1]):
        g = json.loads(line)
        moves = g.get("moves", [])
        for i, m in enumerate(moves):
            mover = g["black"] if m["color"] == "black" else g["white"]
            if only and not mover.startswith(only):
                continue
            plies = [int(x.group(1)) for msg in m.get("messages", []) for x in [MATE.search(msg)] if x]
            if not plies:
                continue
            claimed = plies[-1]  # the last iteration before the move
            claims[mover] += 1
            won = g.get("winner") == mover and g.get("reason") == "five"
            left = len(moves) - i  # plies from this move to the end, this move included
            if not won or left > claimed:
                failed[mover] += 1
                bad.append(
                    f"game {g['game']} ply {i + 1} {m['move']}: {mover} announced +M{claimed}, "
                    f"game ended {g['result']} ({g.get('reason')}) {left} plies later"
                )
    for b in bad:
        print(b)
    for engine in sorted(claims):
        print(f"{engine}: {claims[engine]} mate announcements, {failed[engine]} not won as announced")
    if not claims:
        print("no mate announcements (were the games recorded with --messages?)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
