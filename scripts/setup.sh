#!/usr/bin/env bash
# Installs what x64emu needs (Debian 12; apt-get needs root) and builds it in ./build.
# Sourced by demo.sh and test.sh: `setup.sh demo` installs and builds what the speed
# example needs, `setup.sh test` everything the test suite needs.
set -euo pipefail
cd "$(dirname "$0")/.."
purpose=${1:-test}

# x64emu itself, and the speed example (a static program linked with libcrypto.a)
packages=(build-essential cmake pkg-config libcapstone-dev libelf-dev zlib1g-dev libssl-dev)
if [ "$purpose" = test ]; then
  packages+=(libcmocka-dev python3 # the Python binding's tests
             # real static programs and libraries the guest tests run
             busybox-static bash-static zsh-static libsqlite3-dev
             python3-cryptography-vectors # NIST CAVP vectors for the crypto guests
             valgrind # callgrind, the oracle of --profile
             gdb # the client of the gdb stub
             strace # which files x64emu opens
             golang-go rustc # threaded programs in Go and Rust
             openssl perl gzip coreutils xz-utils sqlite3 # Debian's own dynamic programs
             nodejs openjdk-17-jdk-headless # runtimes that compile code as they run
             postgresql-15 # a server of processes sharing System V memory
             musl-tools # musl's dynamic loader
             clang # the libFuzzer targets (tests/fuzz)
             # the aarch64 host: the crypto tier and x64emu itself, cross-built and run
             # under user-mode QEMU
             gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libcmocka-dev:arm64
             libcapstone-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 # (libelf.a, libz.a)
             libc6-amd64-cross) # the x86-64 sysroot an aarch64 host uses
elif [ "$purpose" != demo ]; then
  echo "usage: $0 demo|test" >&2
  exit 2
fi

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
  # The arm64 packages come from Debian's arm64 multiarch.
  if printf '%s\n' "${missing[@]}" | grep -q ':arm64$'; then
    dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
  fi
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

if [ "$purpose" = demo ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
  cmake --build build -j"$(nproc)" --target x64emu speed_program
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null
  cmake --build build -j"$(nproc)"
fi
