#!/usr/bin/env bash
# The project's test command: set-up (idempotent), build, then every test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYSTOLE_BUILD_DIR:-$ROOT/build}"
"$ROOT/tools/setup.sh"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)" "$@"
