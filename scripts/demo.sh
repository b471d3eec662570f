#!/usr/bin/env bash
# Quick start 1: set up, build, and run the bundled example under x64emu.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "+ build/x64emu build/examples/cpuinfo hello from x64emu" >&2
exec build/x64emu build/examples/cpuinfo hello from x64emu
