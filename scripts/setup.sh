#!/usr/bin/env bash
# Installs what building and testing x64emu needs (Debian 12; apt-get needs root) and
# builds it in ./build. Sourced by demo.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config libcapstone-dev libelf-dev libcmocka-dev
          # real static programs and libraries the guest tests run
          busybox-static bash-static zsh-static libsqlite3-dev zlib1g-dev
          libssl-dev python3-cryptography-vectors # crypto guests: libcrypto.a, NIST CAVP vectors
          # the aarch64 host: the crypto tier and x64emu itself, cross-built and run under
          # user-mode QEMU
          gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libcmocka-dev:arm64
          libcapstone-dev:arm64 libelf-dev:arm64)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "x64emu setup: missing packages: ${missing[*]}; run as root to install them" >&2
    exit 1
  fi
  echo "x64emu setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # libcmocka-dev:arm64 comes from Debian's arm64 multiarch.
  dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
