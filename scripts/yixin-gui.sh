#!/usr/bin/env bash
# Drive Sente inside the Yixin-Board GUI under Xvfb and take screenshots of what an
# analysis user sees: the live search display, nbest, balance, search-defend, hash files,
# the database, renju's forbidden points, takeback, swap2 step by step and a whole game
# against clicks. Builds nothing: Yixin-Board is built outside the project (README,
# "Yixin-Board").
#
# Usage: scripts/yixin-gui.sh GUI_DIR [OUT_DIR]
#   GUI_DIR  the folder of a built Yixin-Board (its ./Yixin binary); the GUI starts
#            ./engine from there, so the script puts a wrapper there for the run (an
#            engine, settings.txt and sente.db already there are put back afterwards)
#   OUT_DIR  screenshots and the exchange logs (default /tmp/sente-yixin)
# Needs Xvfb, xdotool and ImageMagick's import (Debian: xvfb xdotool imagemagick), and
# target/release/pbrain-sente (cargo build --release).
set -euo pipefail
if [[ $# -lt 1 ]]; then
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
gui=$(cd "$1" && pwd)
out=$(mkdir -p "${2:-/tmp/sente-yixin}" && cd "${2:-/tmp/sente-yixin}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
engine=$root/target/release/pbrain-sente
for tool in Xvfb xdotool import; do
    command -v "$tool" >/dev/null || { echo "$tool not found (apt-get install xvfb xdotool imagemagick)" >&2; exit 1; }
done
[[ -x $gui/Yixin ]] || { echo "no $gui/Yixin: build Yixin-Board first" >&2; exit 1; }
[[ -x $engine ]] || { echo "no $engine: cargo build --release first" >&2; exit 1; }

export DISPLAY=:${YIXIN_DISPLAY:-97}
Xvfb "$DISPLAY" -screen 0 1280x1024x24 >/dev/null 2>&1 &
xvfb=$!
saved="engine settings.txt sente.db"
for f in $saved; do
    if [[ -e $gui/$f ]]; then mv "$gui/$f" "$gui/$f.sente-backup"; fi
done
restore() {
    pkill -f "$gui/Yixin" 2>/dev/null || true
    kill "$xvfb" 2>/dev/null || true
    [[ -e $gui/sente.db ]] && mv "$gui/sente.db" "$out/sente.db"
    rm -f "$gui/engine" "$gui/settings.txt"
    for f in $saved; do
        if [[ -e $gui/$f.sente-backup ]]; then mv "$gui/$f.sente-backup" "$gui/$f"; fi
    done
}
trap restore EXIT
cat >"$gui/engine" <<EOF
#!/bin/sh
exec sh -c 'tee -a "$out/in.log" | "$engine" | tee -a "$out/out.log"'
EOF
chmod +x "$gui/engine"
: >"$out/in.log"
: >"$out/out.log"

# settings.txt in the order Yixin-Board's main.c reads it: rule (0 freestyle, 2 renju,
# 6 swap2), computer black, computer white, turn and match seconds, pondering; the
# human's clock is not checked (the clicks come from this script).
settings() {
    local rule=$1 black=$2 white=$3 turn=$4 ponder=${5:-0}
    printf '%s\n' "15 15" 0 "$rule" "$black" "$white" 1 "$turn" 600 225 1000000000 1 1 1 1 1 \
        0 0 1 19 8 0 "$ponder" 0 0 1 6 6 1 0 1 0 1 0 100 0 >"$gui/settings.txt"
}

window=
start_gui() {
    pkill -f "$gui/Yixin" 2>/dev/null || true
    sleep 0.5
    (cd "$gui" && exec ./Yixin >>"$out/gui.log" 2>&1) &
    for _ in $(seq 50); do
        window=$(xdotool search --name '^Yixin$' 2>/dev/null | tail -1) && [[ -n $window ]] &&
            xdotool getwindowgeometry "$window" | grep -q 'Geometry: [0-9]\{3,\}' && break
        sleep 0.2
    done
    sleep 1.5
}
# The main window's top left corner on the screen.
origin() {
    xdotool getwindowgeometry "$window" | sed -n 's/.*Position: \([0-9]*\),\([0-9]*\).*/\1 \2/p'
}
# Click the point at column letter $1 and row number $2 as the GUI labels them.
click() {
    local col row wx wy
    col=$(($(printf '%d' "'$1") - 65))
    row=$2
    read -r wx wy < <(origin)
    xdotool mousemove $((wx + 24 + 43 * col)) $((wy + 57 + 43 * (15 - row))) click 1
    sleep 0.3
}
# Game > New.
new_game() {
    local wx wy
    read -r wx wy < <(origin)
    xdotool mousemove $((wx + 31)) $((wy + 16)) click 1
    sleep 0.5
    xdotool mousemove $((wx + 43)) $((wy + 41)) click 1
    sleep 0.5
}
# Type a command into the GUI's command box.
type_command() {
    local wx wy
    read -r wx wy < <(origin)
    xdotool mousemove $((wx + 850)) $((wy + 679)) click 1
    xdotool key ctrl+a BackSpace
    xdotool type --delay 20 "$1"
    xdotool key Return
    sleep "${2:-0.5}"
}
shot() {
    import -window root "$out/$1.png"
    echo "$out/$1.png"
}
mark() { echo "### $*" | tee -a "$out/in.log" >>"$out/out.log"; }

# 1. Freestyle, the computer white, 3 s a move: the live display while it thinks, then
#    its move; nbest 2, balance, search-defend, hash files, a block, a takeback.
settings 0 0 1 3
start_gui
mark "freestyle: h8, live display"
click H 8
sleep 1.5
shot 01-thinking
sleep 2.5
shot 02-moved
mark "nbest 2"
type_command "nbest 2" 3.5
shot 03-nbest
mark "balance1 0"
type_command "balance1 0" 3.5
shot 04-balance1
mark "searchdefend"
type_command "putpos h8h7h9g8h10" 0.5
type_command "searchdefend" 3.5
shot 05-searchdefend
mark "hash"
type_command "hash usage"
type_command "hash dump $out/sente.hash"
type_command "hash load $out/sente.hash"
type_command "hash load /nonexistent/file"
shot 06-hash
mark "database"
type_command "putpos h8"
type_command "dbedittag a"
type_command "dbeditval 35"
type_command "undo one"
shot 07-database
mark "takeback"
type_command "putpos h8i9h9"
type_command "undo one" 1
shot 08-undo

# 2. Renju, nobody automatic: a black double three shows its forbidden point.
settings 2 0 0 3
start_gui
mark "renju forbidden"
# Black H8 I8 and G9 G10: G8 would make two threes.
for p in "H 8" "A 1" "I 8" "A 3" "G 9" "A 5" "G 10" "A 7"; do
    click $p
done
sleep 1
shot 09-renju-forbid

# 3. Swap2, the computer black: it proposes three stones (yxswap2step1).
settings 6 1 0 3
start_gui
mark "swap2 step 1"
new_game
sleep 4
shot 10-swap2-step1

# 4. A whole game: the computer white at 1 s a move, the human clicking points near the
#    centre in a fixed order (the GUI ignores occupied ones), 40 clicks.
settings 0 0 1 1
start_gui
mark "whole game"
cols=ABCDEFGHIJKLMNO
for i in $(seq 0 39); do
    c=$(((7 + (i * 7) % 9) - 4))
    r=$((8 + (i * 4) % 7 - 3))
    click "${cols:$c:1}" "$r"
    sleep 1.3
done
shot 11-whole-game
echo "exchange: $out/in.log (GUI to engine), $out/out.log (engine to GUI)"
grep -c '^UNKNOWN\|^ERROR' "$out/out.log" | sed 's/^/UNKNOWN or ERROR lines from the engine: /'
