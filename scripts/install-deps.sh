#!/usr/bin/env bash
# Installs every Debian 12 package the workbench needs to build, test and run.
# Usage: scripts/install-deps.sh   (as root, or with sudo available)
set -euo pipefail

packages=(
  cmake ninja-build ccache pkg-config g++ make
  libsqlite3-dev libsimdjson-dev nlohmann-json3-dev libfmt-dev libcli11-dev libssl-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libimgui-dev libstb-dev libglfw3-dev libgl-dev libopengl-dev libgl1-mesa-dri
  libgraphviz-dev graphviz fonts-jetbrains-mono fonts-dejavu-core
  llvm-19-dev libzstd-dev libedit-dev libffi-dev libxml2-dev libz3-dev zlib1g-dev
  libopenblas-dev libdnnl-dev
  clang libclang-rt-14-dev
  xvfb xauth libx11-dev xdotool x11-xserver-utils libxml2-utils
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
