#!/usr/bin/env bash
# Builds the Gomocup entry: dist/sente-gomocup.zip with two Windows x86_64 builds of
# pbrain-sente, cross-compiled on Debian 12, then tests them under wine
# (scripts/test-gomocup-wine.sh).
#
#   ./scripts/package-gomocup.sh            build, check, zip, test under wine
#   ./scripts/package-gomocup.sh --no-test  build, check and zip only
#
# Toolchain: Debian's rustc-web / cargo-web / rust-web-src (same version) with
# gcc-mingw-w64-x86-64. The standard library is rebuilt from Debian's source for the tier-3
# target x86_64-win7-windows-gnu (-Zbuild-std with RUSTC_BOOTSTRAP=1): the
# x86_64-pc-windows-gnu std needs bcryptprimitives.dll, which wine 8.0 lacks, while the
# win7 std imports only kernel32/ntdll/msvcrt and runs on Windows 7 to 11 and under wine.
# The script calls /usr/bin/cargo and /usr/bin/rustc by full path and never runs rustup,
# so the default rustup toolchain (used by ./scripts/test.sh) is left as it is.
#
# Writes only target/gomocup/ (the two builds) and dist/ (the zip and its staging folder);
# installs missing Debian packages with apt-get (as root, or through sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
START_TIME=$(date +%s)

TARGET=x86_64-win7-windows-gnu
ZIP=dist/sente-gomocup.zip
STAGE=dist/gomocup
# The exe the Gomocup judge runs on its 64-bit Windows machines: pbrain- prefix, "64" in the
# name, no rule/size suffix. The portable build has no "64" in its name, so the judge's
# selection (prefer "64" on a 64-bit OS) never picks it.
EXE_AVX2=pbrain-sente64.exe
EXE_PORTABLE=pbrain-sente-sse42.exe
MAX_ZIP_BYTES=8000000 # "8 MB"; stay under the decimal reading to be safe
# DLLs a Windows 7..11 installation always has; anything else in the import table fails.
ALLOWED_DLLS="kernel32.dll ntdll.dll msvcrt.dll advapi32.dll ws2_32.dll userenv.dll bcrypt.dll"
PACKAGES=(rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 zip unzip)

run_tests=1
for arg in "$@"; do
    case "$arg" in
    --no-test) run_tests=0 ;;
    -h | --help)
        sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "package-gomocup: unknown argument '$arg' (try --help)" >&2
        exit 2
        ;;
    esac
done

say() { printf '\n== %s\n' "$*"; }
die() {
    echo "package-gomocup: ERROR: $*" >&2
    exit 1
}

# --- toolchain -------------------------------------------------------------------------
# Prints the installed version of a Debian package, or nothing.
deb_version() { dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$1" 2>/dev/null | awk '$1 == "installed" { print $2 }'; }

apt_install() {
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "not root and no sudo: install these Debian packages first: $*"
        sudo=(sudo)
    fi
    echo "installing with apt-get: $*"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

say "toolchain"
command -v dpkg-query >/dev/null 2>&1 || die "this script needs Debian (12) and its apt/dpkg"
# rustc-web conflicts with Debian's own rustc/cargo packages: apt would remove them. Refuse
# rather than change someone's system compiler behind their back.
for p in rustc cargo; do
    if [ -n "$(deb_version "$p")" ]; then
        die "Debian's '$p' package is installed and rustc-web/cargo-web would replace it; remove it (apt-get remove $p) or build elsewhere"
    fi
done
rustup_before=$(rustup default 2>/dev/null || true)
missing=()
for p in "${PACKAGES[@]}"; do
    [ -n "$(deb_version "$p")" ] || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    apt_install "${missing[@]}"
fi
v_rustc=$(deb_version rustc-web)
v_cargo=$(deb_version cargo-web)
v_src=$(deb_version rust-web-src)
v_std=$(deb_version libstd-rust-web-dev)
echo "rustc-web $v_rustc, cargo-web $v_cargo, rust-web-src $v_src, libstd-rust-web-dev $v_std"
if [ "$v_rustc" != "$v_cargo" ] || [ "$v_rustc" != "$v_src" ] || [ "$v_rustc" != "$v_std" ]; then
    die "Debian Rust package versions differ (see above); run: apt-get install --only-upgrade rustc-web cargo-web rust-web-src libstd-rust-web-dev"
fi
DEB_RUSTC=/usr/bin/rustc
DEB_CARGO=/usr/bin/cargo
for tool in "$DEB_RUSTC" "$DEB_CARGO"; do
    [ -x "$tool" ] || die "$tool missing after installing rustc-web/cargo-web"
done
rustc_release=$("$DEB_RUSTC" -V | awk '{ print $2 }')
src_dir="$("$DEB_RUSTC" --print sysroot)/lib/rustlib/src/rust/library"
[ -f "$src_dir/std/Cargo.toml" ] || die "std source not found at $src_dir (rust-web-src)"
case "$v_src" in
"$rustc_release"+*) ;;
*) die "/usr/bin/rustc is $rustc_release but rust-web-src is $v_src" ;;
esac
"$DEB_RUSTC" --print target-list | grep -qx "$TARGET" || die "$DEB_RUSTC does not know the target $TARGET"
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || die "x86_64-w64-mingw32-gcc missing (gcc-mingw-w64-x86-64)"
echo "$("$DEB_RUSTC" -V); $("$DEB_CARGO" -V); linker $(x86_64-w64-mingw32-gcc -dumpversion) ($(readlink -f "$(command -v x86_64-w64-mingw32-gcc)" | xargs basename))"

# --- build -----------------------------------------------------------------------------
# build NAME TARGET_CPU [RUSTFLAGS...]: one release build in its own target dir (re-runs
# are incremental).
build() {
    local name=$1 cpu=$2 extra=${3:-}
    say "build $name (-C target-cpu=$cpu $extra)"
    # Only the Debian toolchain: RUSTC/RUSTDOC by full path, no rustup proxy, no
    # RUSTC_WRAPPER, and RUSTFLAGS (which with --target reach the crate and std, not build
    # scripts) set here alone.
    env -u RUSTC_WRAPPER -u RUSTUP_TOOLCHAIN -u CARGO_BUILD_RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS \
        RUSTC_BOOTSTRAP=1 RUSTC="$DEB_RUSTC" RUSTDOC=/usr/bin/rustdoc \
        CARGO_TARGET_DIR="$ROOT/target/gomocup/$name" \
        RUSTFLAGS="-C target-cpu=$cpu $extra" \
        "$DEB_CARGO" build --release --locked -j2 --bin pbrain-sente \
        --target "$TARGET" -Zbuild-std=std,panic_abort
}
build avx2 x86-64-v3
# The portable build leaves out the network's AVX2 kernels (chosen at run time elsewhere),
# so that it holds no AVX instruction at all (the check below).
build portable x86-64-v2 "--cfg sente_portable"
BIN_AVX2=target/gomocup/avx2/$TARGET/release/pbrain-sente.exe
BIN_PORTABLE=target/gomocup/portable/$TARGET/release/pbrain-sente.exe

# --- checks ----------------------------------------------------------------------------
say "checks"
OBJDUMP=x86_64-w64-mingw32-objdump
for exe in "$BIN_AVX2" "$BIN_PORTABLE"; do
    # (Whole outputs in variables: `objdump | grep -q` fails under pipefail when grep
    # stops reading early.)
    headers=$("$OBJDUMP" -p "$exe")
    grep -q 'file format pei-x86-64' <<<"$headers" || die "$exe is not a PE32+ x86-64 executable"
    # A console program: managers talk to it through its standard input and output.
    grep -q 'Subsystem.*(Windows CUI)' <<<"$headers" || die "$exe is not a console (CUI) program"
    dlls=$(awk '/DLL Name:/ { print $3 }' <<<"$headers")
    # One name per DLL (Rust's raw-dylib imports add a second, lower-case kernel32/ntdll table).
    imports=$(echo "$dlls" | tr '[:upper:]' '[:lower:]' | sort -u | tr '\n' ' ' | sed 's/ $//')
    echo "$exe imports: $imports"
    for dll in $dlls; do
        lower=$(echo "$dll" | tr '[:upper:]' '[:lower:]')
        case " $ALLOWED_DLLS " in
        *" $lower "*) ;;
        *) die "$exe imports $dll, which is not a Windows system DLL (allowed: $ALLOWED_DLLS)" ;;
        esac
    done
done
# The portable build must run on a CPU without AVX: no VEX-encoded instruction at all
# (every AVX instruction, on xmm or ymm, has a v-prefixed mnemonic).
vex=$("$OBJDUMP" -d --no-show-raw-insn "$BIN_PORTABLE" | grep -cE '^\s+[0-9a-f]+:\s+v[a-z0-9]+\s.*%[xyz]mm' || true)
[ "$vex" = 0 ] || die "the portable build contains $vex AVX (VEX) instructions"
echo "portable build: no AVX instructions"
ymm=$("$OBJDUMP" -d --no-show-raw-insn "$BIN_AVX2" | grep -c '%ymm' || true)
echo "AVX2 build: $ymm instructions on ymm registers"

# --- zip -------------------------------------------------------------------------------
say "zip"
rm -rf "$STAGE" "$ZIP"
mkdir -p "$STAGE"
cp "$BIN_AVX2" "$STAGE/$EXE_AVX2"
cp "$BIN_PORTABLE" "$STAGE/$EXE_PORTABLE"
version=$(awk -F'"' '/^version *=/ { print $2; exit }' Cargo.toml)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit+changes"; fi
cat >"$STAGE/README.txt" <<EOF
Sente $version ($commit), a Gomoku / Renju engine for the Gomocup (Piskvork) protocol.
Rules 0 (freestyle), 1 (standard), 4 (renju) and 8 (caro); boards 15x15 and 20x20.

$EXE_AVX2
    64-bit Windows, needs AVX2 (built for x86-64-v3: AVX2, BMI1/2, FMA, LZCNT, MOVBE).
    This is the file the Gomocup judge runs: on a 64-bit OS it prefers the pbrain exe
    with "64" in its name.
$EXE_PORTABLE
    The same engine for 64-bit CPUs without AVX2 (x86-64-v2: SSE4.2, POPCNT). Run it
    by hand, or rename it to $EXE_AVX2, on a machine whose CPU lacks AVX2.

Both import only Windows system DLLs ($imports) and run on Windows 7 to 11.
EOF
sed -i 's/$/\r/' "$STAGE/README.txt"
# Same inputs, same zip: fixed timestamps (the commit's time) and no extra attributes.
stamp=$(git log -1 --format=%cd --date=format:%Y%m%d%H%M.%S 2>/dev/null || echo 202601010000.00)
touch -t "$stamp" "$STAGE"/*
(cd "$STAGE" && zip -q -X -9 "$ROOT/$ZIP" "$EXE_AVX2" "$EXE_PORTABLE" README.txt)
unzip -l "$ZIP"
size=$(stat -c %s "$ZIP")
[ "$size" -lt "$MAX_ZIP_BYTES" ] || die "$ZIP is $size bytes, over the $MAX_ZIP_BYTES byte limit"
if unzip -Z1 "$ZIP" | grep -q /; then die "$ZIP has entries in folders; the exe must be at its root"; fi
echo "$ZIP: $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.2f", s / 1048576 }') MiB), sha256 $(sha256sum "$ZIP" | cut -d' ' -f1)"

rustup_after=$(rustup default 2>/dev/null || true)
[ "$rustup_before" = "$rustup_after" ] || die "the default rustup toolchain changed: '$rustup_before' -> '$rustup_after'"

# --- wine tests ------------------------------------------------------------------------
if [ "$run_tests" = 1 ]; then
    say "wine tests"
    ./scripts/test-gomocup-wine.sh "$ZIP"
fi

say "done in $(($(date +%s) - START_TIME)) s: $ZIP (the judge runs $EXE_AVX2)"
