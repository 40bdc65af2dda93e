# Shared set-up for scripts/kforge and scripts/test; sourced, not run (DEVELOPERS.md).
# Creates .venv when missing, installs the project with the extras this machine can use
# when pyproject.toml changed, and installs Mesa's software Vulkan driver (lavapipe) and
# Debian's Chromium (for the browser backend) when they are missing and we may (root, or
# CI=true); otherwise prints the command.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PYTHON="${PYTHON:-python3}"

say() { printf 'kforge-setup: %s\n' "$*" >&2; }

may_install_system() { [ "$(id -u)" = 0 ] || [ "${CI:-}" = "true" ]; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi
}

apt_install() {
  say "installing $* through apt"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

need_python() {
  if ! command -v "$PYTHON" >/dev/null 2>&1; then
    say "no $PYTHON found; install Python 3.10 or newer"; exit 1
  fi
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    say "$("$PYTHON" --version) is too old; kernel-forge needs Python 3.10 or newer"; exit 1
  fi
}

make_venv() {
  local ready="$VENV/.kforge-venv-ready"
  [ -x "$VENV/bin/python" ] && [ -f "$ready" ] && return 0
  if [ -e "$VENV" ]; then
    # A first set-up that was interrupted (Ctrl-C, a lost connection) left a venv
    # without its marker: make it again rather than trust half of one.
    say "$VENV is incomplete (an interrupted set-up); making it again"
    rm -rf "$VENV"
  fi
  if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    # Debian and Ubuntu ship venv's pip bootstrap separately.
    local pkg="python3-venv"
    if may_install_system; then apt_install "$pkg"
    else say "Python's venv module is missing; run: sudo apt-get install -y $pkg"; exit 1; fi
  fi
  say "creating $VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  touch "$ready"
}

digest() { "$VENV/bin/python" -c 'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())'; }

# The optional extras this machine can use: test, report (matplotlib) and tune (optuna)
# always; cuda (cuda-python, NVRTC, NVIDIA's header wheels) on Linux, where NVIDIA ships
# them; browser (Playwright) where Playwright ships its driver (Linux and macOS on x86_64
# or arm64); ray where Ray ships wheels (Linux on x86_64 or arm64, macOS on arm64).
usable_extras() {
  local extras="test,report,tune"
  [ "$(uname -s)" = Linux ] && extras="$extras,cuda"
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64|Linux-aarch64|Darwin-arm64) extras="$extras,browser,ray" ;;
    Darwin-x86_64) extras="$extras,browser" ;;
  esac
  echo "$extras"
}

# The project, editable, with its extras: again only when pyproject.toml or the extras
# changed (a stamp written last, so an interrupted install is redone). Both scripts
# install exactly this, so switching between them never reinstalls.
install_project() {
  local stamp="$VENV/.kernel-forge-installed" want extras
  extras="$(usable_extras)"
  want="$( { cat "$ROOT/pyproject.toml"; echo "$extras"; } | digest)"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
  rm -f "$stamp"
  say "installing kernel-forge (editable) with the extras [$extras]"
  "$VENV/bin/python" -m pip install -q -e "$ROOT[$extras]"
  echo "$want" > "$stamp"
}

# The test suite's plugin distribution (tests/plugins/forge_demo_plugin) goes into
# .test-plugins, outside the venv, on the tests' path only: the user's environment
# (./scripts/kforge, the venv) never sees its demo backends and kernels.
TEST_PLUGINS="$ROOT/.test-plugins"

install_test_plugins() {
  local source="$ROOT/tests/plugins/forge_demo_plugin" stamp="$TEST_PLUGINS/.installed" want
  want="$(find "$source" -name '*.py' -o -name 'pyproject.toml' | sort | xargs cat | digest)"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
  say "installing the test plugin into $TEST_PLUGINS"
  rm -rf "$TEST_PLUGINS"
  "$VENV/bin/python" -m pip install -q --no-deps --target "$TEST_PLUGINS" "$source"
  echo "$want" > "$stamp"
}

have_vulkan_driver() {
  [ -n "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ] && return 0
  ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' || return 1
  local dir
  for dir in /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d; do
    compgen -G "$dir/*.json" >/dev/null && return 0
  done
  return 1
}

ensure_vulkan() {
  have_vulkan_driver && return 0
  if may_install_system; then
    apt_install mesa-vulkan-drivers libvulkan1
  else
    say "no Vulkan driver found: the wgpu backend will be unavailable. To run it on the"
    say "CPU with Mesa's lavapipe, run: sudo apt-get install -y mesa-vulkan-drivers libvulkan1"
  fi
}

# The same places backends/browser/_chromium.py looks (FORGE_CHROMIUM first).
have_chromium() {
  [ -n "${FORGE_CHROMIUM:-}" ] && [ -x "$FORGE_CHROMIUM" ] && return 0
  [ -x /usr/lib/chromium/chromium ] && return 0
  local name
  for name in chromium chromium-browser google-chrome-stable google-chrome; do
    command -v "$name" >/dev/null 2>&1 && return 0
  done
  return 1
}

ensure_chromium() {
  have_chromium && return 0
  if may_install_system && command -v apt-get >/dev/null 2>&1; then
    apt_install chromium
  else
    say "no Chromium found: the browser backend will be unavailable. To run it (WebGPU"
    say "on Chromium's SwiftShader when there is no GPU), run: sudo apt-get install -y chromium"
  fi
}

setup_project() {
  need_python
  make_venv
  install_project
  ensure_vulkan
  ensure_chromium
  # Mesa's window-system probe complains when this is unset; compute needs no display.
  if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    XDG_RUNTIME_DIR="$(mktemp -d)"; export XDG_RUNTIME_DIR
  fi
}
