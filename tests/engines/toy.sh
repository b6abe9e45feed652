#!/usr/bin/env bash
# A tiny Piskvork-protocol engine for the match-runner tests (tests/match_runner.rs).
# It plays the first empty point in row-major order, unless MODE makes it misbehave.
#
# Usage: toy.sh MODE [log=FILE] [delay=SECONDS] [X,Y ...]
#   first     play legally (scripted X,Y moves first, then the first empty point)
#   timeout   never answer a move request (sleeps in a child process)
#   occupied  answer with the point of the last stone on the board
#   offboard  answer with a point just off the board
#   crash     print to stderr and exit when asked for a move
#   garbage   answer a move request with a line that is not a move
#   chatty    before each move an ERROR line (as Rapfi answers an INFO it does not know)
#   nostart   never answer START
#   hangend   play legally but ignore END
# log=FILE appends every command received to FILE; delay=S sleeps before every move.
mode=${1:-first}
shift || true
log=""
delay=""
script=()
for a in "$@"; do
    case $a in
        log=*) log=${a#log=} ;;
        delay=*) delay=${a#delay=} ;;
        *) script+=("$a") ;;
    esac
done

W=0
H=0
cell=()
last=""
next=0

new_game() {
    W=$1
    H=$2
    cell=()
    for ((i = 0; i < W * H; i++)); do cell[i]=0; done
    last=""
    next=0
}

put() { cell[$2 * W + $1]=$3; last="$1,$2"; }

first_empty() {
    for ((i = 0; i < W * H; i++)); do
        if [[ ${cell[i]} == 0 ]]; then
            mv="$((i % W)),$((i / W))"
            return
        fi
    done
    mv="0,0"
}

reply_move() {
    [[ -n $delay ]] && sleep "$delay"
    case $mode in
        timeout) sleep 1000 ;;
        crash) echo "boom: crashed on purpose" >&2; exit 3 ;;
        garbage) echo "hello there"; return ;;
        chatty) echo "ERROR Unknown command: TIME_LEFT" ;;
        offboard) echo "$W,0"; return ;;
        occupied) if [[ -n $last ]]; then echo "$last"; return; fi ;;
    esac
    if ((next < ${#script[@]})); then
        mv=${script[next]}
        next=$((next + 1))
    else
        first_empty
    fi
    put "${mv%,*}" "${mv#*,}" 1
    echo "MESSAGE toy plays $mv"
    echo "$mv"
}

note() { if [[ -n $log ]]; then echo "$1" >> "$log"; fi; }

while IFS= read -r line; do
    line=${line%$'\r'}
    note "$line"
    cmd=${line%% *}
    arg=${line#* }
    case ${cmd^^} in
        ABOUT) echo 'name="toy", version="1", author="sente tests", country="XX"' ;;
        START) [[ $mode == nostart ]] && continue; new_game "$arg" "$arg"; echo OK ;;
        RECTSTART) new_game "${arg%,*}" "${arg#*,}"; echo OK ;;
        INFO) ;;
        BEGIN) reply_move ;;
        TURN) put "${arg%,*}" "${arg#*,}" 2; reply_move ;;
        BOARD)
            while IFS= read -r l; do
                l=${l%$'\r'}
                note "$l"
                [[ ${l^^} == DONE ]] && break
                IFS=, read -r x y f <<< "$l"
                put "$x" "$y" "$f"
            done
            reply_move
            ;;
        END) [[ $mode == hangend ]] && sleep 1000; exit 0 ;;
        *) echo "UNKNOWN $cmd" ;;
    esac
done
