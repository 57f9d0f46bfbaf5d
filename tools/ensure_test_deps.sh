#!/usr/bin/env bash
# ensure_test_deps.sh — what `make test` runs before CMake: makes sure the test build's
# dependencies are there, and installs Criterion itself where it can.
#
# Checks nvcc (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin: the folders the Makefile adds to PATH),
# CMake, and Criterion the way CMake finds it (`pkg-config --exists criterion`). When Criterion,
# pkg-config or CMake is missing and this runs as root with apt-get (and HARNESS_NO_INSTALL is
# not set), it runs `apt-get update` then `apt-get install -y --no-install-recommends` of
# libcriterion-dev, pkg-config, cmake as needed (noninteractive, quiet; apt's output goes to a log
# that is named when it fails). Otherwise it prints one line naming the command to run. The CUDA
# toolkit it never installs.
# libseccomp (`pkg-config --exists libseccomp`: the solution's seccomp filter, src/sandbox.c) is
# optional: installed the same way (libseccomp-dev, its own apt-get call) where Criterion could
# be, otherwise one line says the filter will be off and how to install it; neither case changes
# the exit code.
#
# usage: tools/ensure_test_deps.sh [--dry-run]     --dry-run: check and say, install nothing
# environment: HARNESS_NO_INSTALL=1 forbids installing
# exit codes: 0  ready (everything found, or installed now)
#             1  something is missing and was not installed (not root, no apt-get,
#                HARNESS_NO_INSTALL, --dry-run); the line says the command to run
#             2  apt-get ran and failed, or Criterion is still not found after it
#             3  no nvcc (install the CUDA toolkit)
#             64 bad argument
set -uo pipefail

me="make test"
dry=0
for a in "$@"; do
    case "$a" in
    --dry-run) dry=1 ;;
    -h | --help)
        sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "ensure_test_deps.sh: unknown argument '$a' (usage: tools/ensure_test_deps.sh [--dry-run])" >&2
        exit 64
        ;;
    esac
done

# nvcc: the harness compiles every stage with it, and CMake's CUDAToolkit needs it
have_nvcc=0
if command -v nvcc >/dev/null 2>&1; then
    have_nvcc=1
else
    for d in ${CUDA_HOME:+"$CUDA_HOME/bin"} /usr/local/cuda/bin; do
        [ -x "$d/nvcc" ] && have_nvcc=1 && break
    done
fi
if [ "$have_nvcc" = 0 ]; then
    echo "$me: nvcc not found (looked at PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin); install the CUDA toolkit or put its bin folder on PATH" >&2
    exit 3
fi

what=() pkgs=()
if ! command -v pkg-config >/dev/null 2>&1; then
    what+=("Criterion (no pkg-config to find it)")
    pkgs+=(libcriterion-dev pkg-config)
elif ! pkg-config --exists criterion; then
    what+=("Criterion")
    pkgs+=(libcriterion-dev)
fi
if ! command -v cmake >/dev/null 2>&1; then
    what+=("CMake")
    pkgs+=(cmake)
fi
# the optional one: looked for now when pkg-config is here, after an install otherwise
want_seccomp=0
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libseccomp; then
    want_seccomp=1
fi
uid="$(id -u 2>/dev/null || echo unknown)"
sudo=""
[ "$uid" = 0 ] || sudo="sudo "
have_apt=0
command -v apt-get >/dev/null 2>&1 && have_apt=1
forbid=0
[ -n "${HARNESS_NO_INSTALL:-}" ] && [ "${HARNESS_NO_INSTALL}" != 0 ] && forbid=1
may_install=0
[ "$uid" = 0 ] && [ "$have_apt" = 1 ] && [ "$forbid" = 0 ] && [ "$dry" = 0 ] && may_install=1

# libseccomp-dev, when it is missing: installed where allowed, else one line; exit code unchanged
seccomp() {
    command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libseccomp && return 0
    local how="${sudo}apt-get install libseccomp-dev"
    [ "$have_apt" = 1 ] || how="libseccomp's development files (Debian/Ubuntu: ${sudo}apt-get install libseccomp-dev)"
    if [ "$may_install" = 1 ]; then
        local slog
        slog="$(mktemp "${TMPDIR:-/tmp}/harness-apt.XXXXXX")" || slog=/dev/null
        export DEBIAN_FRONTEND=noninteractive
        [ "${1:-}" = updated ] || apt-get update -qq >>"$slog" 2>&1 || echo "(apt-get update failed)" >>"$slog"
        if apt-get install -y -qq --no-install-recommends libseccomp-dev >>"$slog" 2>&1 &&
            command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libseccomp; then
            [ "$slog" = /dev/null ] || rm -f "$slog"
            echo "$me: installed libseccomp-dev (the solution's seccomp filter)" >&2
            return 0
        fi
        echo "$me: libseccomp-dev could not be installed (its output: $slog): the solution's seccomp filter will be off" >&2
        return 0
    fi
    echo "$me: libseccomp is missing, so the solution's seccomp filter will be off; install it with: $how" >&2
}

if [ ${#pkgs[@]} -eq 0 ]; then
    [ "$want_seccomp" = 1 ] && seccomp
    exit 0
fi

if [ ${#what[@]} -eq 2 ]; then
    missing="${what[0]} and ${what[1]} are missing" it=them
else
    missing="${what[0]} is missing" it=it
fi
if [ "$have_apt" = 1 ]; then
    cmd="${sudo}apt-get install ${pkgs[*]}"
elif command -v dnf >/dev/null 2>&1; then
    fed=()
    for p in "${pkgs[@]}"; do
        case "$p" in
        libcriterion-dev) fed+=(criterion-devel) ;;
        pkg-config) fed+=(pkgconf-pkg-config) ;;
        *) fed+=("$p") ;;
        esac
    done
    cmd="${sudo}dnf install ${fed[*]}"
else
    cmd=""
fi
if [ -n "$cmd" ]; then
    how="install $it with: $cmd"
else
    how="install Criterion's development files and pkg-config with this system's package manager, so that 'pkg-config --exists criterion' succeeds (Debian/Ubuntu: ${sudo}apt-get install ${pkgs[*]})"
fi

# installing is for root with apt-get, when not forbidden
if [ "$uid" != 0 ] || [ "$have_apt" = 0 ] || [ "$forbid" = 1 ]; then
    echo "$me: $missing; $how" >&2
    exit 1
fi
install="apt-get update && apt-get install -y --no-install-recommends ${pkgs[*]}"
if [ "$dry" = 1 ]; then
    echo "$me: $missing; would install $it with: $install (dry run: nothing installed)" >&2
    exit 1
fi

log="$(mktemp "${TMPDIR:-/tmp}/harness-apt.XXXXXX")" || log=/dev/null
echo "$me: $missing; installing ${pkgs[*]} ($install, quiet)..." >&2
export DEBIAN_FRONTEND=noninteractive
# a failed update (one unreachable mirror) need not stop the install: the lists may suffice
apt-get update -qq >>"$log" 2>&1 || echo "(apt-get update failed; trying the install anyway)" >>"$log"
if ! apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >>"$log" 2>&1; then
    echo "$me: $missing and apt-get could not install ${pkgs[*]} (its output: $log); $how" >&2
    exit 2
fi
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists criterion || ! command -v cmake >/dev/null 2>&1; then
    echo "$me: apt-get installed ${pkgs[*]} but $missing still (its output: $log); $how" >&2
    exit 2
fi
[ "$log" = /dev/null ] || rm -f "$log"
echo "$me: installed ${pkgs[*]}" >&2
[ "$want_seccomp" = 1 ] && seccomp updated
exit 0
