#!/usr/bin/env bash
# Quick start 1: set up, build, and run the speed example (openssl speed -evp in a static
# program linked with OpenSSL's libcrypto.a) under x64emu: six ciphers and digests at six
# block sizes, 0.3 s each (about 12 s). Arguments replace "-seconds 0.3", e.g.
# scripts/demo.sh -seconds 3 -evp aes-128-gcm
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
args=("$@")
[ $# -gt 0 ] || args=(-seconds 0.3)
echo "+ build/x64emu build/examples/speed ${args[*]}" >&2
exec build/x64emu build/examples/speed "${args[@]}"
