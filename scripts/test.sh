#!/usr/bin/env bash
# Quick start 2: set up, build, and run the whole test suite (ends with ctest's summary).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
cd build
exec ctest --output-on-failure -j"$(nproc)" "$@"
