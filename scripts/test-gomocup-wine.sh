#!/usr/bin/env bash
# Tests the Gomocup package under wine (called by scripts/package-gomocup.sh):
#
#   ./scripts/test-gomocup-wine.sh [dist/sente-gomocup.zip] [gomocup_check.py options]
#
# Unzips the package into a temporary folder, makes a fresh 64-bit wine prefix there
# (WINEDEBUG=-all), builds the Linux engine (cargo build --release, the default toolchain)
# as the games' opponent, and runs scripts/gomocup_check.py: the judge's exe selection, a
# protocol smoke test and the judge's rule self-test positions for every exe, and short
# games of the judge's exe against the Linux build (rules 0, 1, 4, 8 on 15x15, 0 on 20x20),
# played and refereed by the match runner sente-match.
# Installs wine64 and python3 with apt-get when they are missing. Everything but the Linux
# build (target/) lives in a temporary folder that is removed at the end, with the wine
# server of that prefix.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

ZIP=dist/sente-gomocup.zip
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    ZIP=$1
    shift
fi
[ -f "$ZIP" ] || {
    echo "test-gomocup-wine: $ZIP not found; build it with ./scripts/package-gomocup.sh" >&2
    exit 1
}
ZIP=$(readlink -f "$ZIP")

say() { printf '\n== %s\n' "$*"; }

# --- tools -------------------------------------------------------------------------------
need=()
[ -x /usr/lib/wine/wine64 ] || need+=(wine wine64)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
if [ "${#need[@]}" -gt 0 ]; then
    sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    echo "installing with apt-get: ${need[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
command -v wine >/dev/null 2>&1 || {
    echo "test-gomocup-wine: wine not found after installing wine/wine64" >&2
    exit 1
}

# The games are played and refereed by the match runner sente-match.
say "Linux build (the games' opponent and the match runner)"
cargo build --release --locked --quiet -j2 --bin pbrain-sente --bin sente-match
LINUX_ENGINE=$ROOT/target/release/pbrain-sente
MATCH_RUNNER=$ROOT/target/release/sente-match
for exe in "$LINUX_ENGINE" "$MATCH_RUNNER"; do
    [ -x "$exe" ] || {
        echo "test-gomocup-wine: $exe was not built" >&2
        exit 1
    }
done

# --- a fresh wine prefix -----------------------------------------------------------------
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sente-wine.XXXXXX")
export WINEPREFIX=$TMP/prefix WINEARCH=win64 WINEDEBUG=-all
# No Mono or Gecko installer dialogs when the prefix is created: console programs need neither.
export WINEDLLOVERRIDES="mscoree=;mshtml="
unset DISPLAY WAYLAND_DISPLAY
cleanup() {
    # Stops this prefix's wine server and with it every wine process of this test.
    wineserver -k >/dev/null 2>&1 || true
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "wine prefix $WINEPREFIX"
t0=$(date +%s%N)
mkdir -p "$WINEPREFIX"
wineserver -p # a server that stays up between engine processes (stopped by cleanup)
wineboot -i >/dev/null 2>&1
echo "$(wine --version) prefix ready in $((($(date +%s%N) - t0) / 1000000)) ms"

PACKAGE=$TMP/package
mkdir -p "$PACKAGE" "$TMP/scratch"
unzip -q "$ZIP" -d "$PACKAGE"
say "checks of $(basename "$ZIP") ($(stat -c %s "$ZIP") bytes) under wine"
python3 scripts/gomocup_check.py "$PACKAGE" --linux-engine "$LINUX_ENGINE" --tmp "$TMP/scratch" --match-runner "$MATCH_RUNNER" "$@"
