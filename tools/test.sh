#!/usr/bin/env bash
# The project's test command: set-up (idempotent), build, then every test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYSTOLE_BUILD_DIR:-$ROOT/build}"
"$ROOT/tools/setup.sh"
start=$SECONDS
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)" "$@"
echo "test: ctest took $((SECONDS - start)) s"

# Sanitizer build (ASan + UBSan) of the suite and bounded fuzz runs
# (docs/security.md); SYSTOLE_SKIP_SANITIZE=1 skips them.
if [ "${SYSTOLE_SKIP_SANITIZE:-0}" != 1 ]; then
  "$ROOT/tools/sanitize.sh"
fi
