#!/usr/bin/env bash
# Sanitizer + fuzz suite (docs/security.md): one clang-19 build with
# ASan + UBSan + libFuzzer instrumentation (SYSTOLE_FUZZ=ON), its ctest run,
# then every fuzz target over its crash regressions and for a bounded slice
# over its seed corpus. Called by tools/test.sh after the main suite;
# SYSTOLE_SKIP_SANITIZE=1 skips it. `tools/sanitize.sh fuzz` only runs the
# fuzz part (after a build), `tools/sanitize.sh test` only the ctest part.
# Uses only what tools/setup.sh installs (clang-19, libclang-rt-19-dev).
#
#   SYSTOLE_SANITIZE_BUILD_DIR  build directory (default: build-asan)
#   SYSTOLE_SANITIZE_SCOPE      parsers (default): build and test sanitized
#                               only what parses untrusted input: the fuzz
#                               targets and the ISA, runtime and hostile-input
#                               GoogleTest suites (fits the CI budget);
#                               all: every target and test (several times
#                               longer, docs/security.md)
#   SYSTOLE_FUZZ_SECONDS        seconds per fuzz target (default: 15)
#   SYSTOLE_FUZZ_SEED           libFuzzer seed of the slices (default: 1, so
#                               a slice replays the same mutations on every
#                               run and CI is reproducible; 0 = random, as
#                               in the long campaigns of docs/security.md)
#   SYSTOLE_SANITIZE_EXCLUDE    ctest -E regex of tests not run sanitized
#                               with scope "all" (default: the ResNet e2e runs)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MAIN_BUILD="${SYSTOLE_BUILD_DIR:-$ROOT/build}"
BUILD="${SYSTOLE_SANITIZE_BUILD_DIR:-$ROOT/build-asan}"
SECONDS_PER_TARGET="${SYSTOLE_FUZZ_SECONDS:-15}"
SEED="${SYSTOLE_FUZZ_SEED:-1}"
EXCLUDE="${SYSTOLE_SANITIZE_EXCLUDE:-^e2e\.resnet}"
SCOPE="${SYSTOLE_SANITIZE_SCOPE:-parsers}"
FUZZERS=(hwconfig asm npu-load npy onnx-import)
STEP="${1:-all}"

for tool in clang-19:clang-19 clang++-19:clang-19; do
  command -v "${tool%%:*}" >/dev/null ||
    { echo "sanitize: ${tool%%:*} not found: install the Debian package '${tool#*:}'" >&2; exit 1; }
done
ls /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
  { echo "sanitize: libFuzzer runtime not found: install the Debian package 'libclang-rt-19-dev'" >&2; exit 1; }

# Release + line tables: sanitizer reports with file:line at -O3 speed.
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_C_FLAGS=-gline-tables-only -DCMAKE_CXX_FLAGS=-gline-tables-only \
    -DSYSTOLE_FUZZ=ON
fi
case "$SCOPE" in
  parsers) TARGETS=(systole-fuzzers isa-tests runtime-tests hostile-tests) ;;
  all) TARGETS=(all) ;;
  *) echo "sanitize: SYSTOLE_SANITIZE_SCOPE must be 'parsers' or 'all', got '$SCOPE'" >&2; exit 1 ;;
esac
start=$SECONDS
cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}"
echo "sanitize: build (scope $SCOPE) took $((SECONDS - start)) s"

# The model zoo and ONNX Runtime come from the main build (tools/setup.sh).
for d in cache ort; do
  if [ -d "$MAIN_BUILD/$d" ] && [ ! -e "$BUILD/$d" ]; then
    ln -s "$MAIN_BUILD/$d" "$BUILD/$d"
  fi
done

# Any ASan/UBSan report aborts the process and fails its test. Manual
# poisoning is off: LLVM's BumpPtrAllocator poisons slabs from our
# instrumented copies and the uninstrumented libLLVM/libMLIR hands them out
# (false use-after-poison; docs/security.md).
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if [ "$STEP" != fuzz ]; then
  start=$SECONDS
  if [ "$SCOPE" = parsers ]; then
    # The GoogleTest suites of the binaries built above, by suite name (the
    # other tests' executables are not built in this scope).
    suites=$(for b in isa-tests runtime-tests hostile-tests; do
               "$BUILD/bin/$b" --gtest_list_tests | sed -n 's/^\([A-Za-z0-9_]*\)\.$/\1/p'
             done | sort -u | paste -sd'|')
    [ -n "$suites" ] || { echo "sanitize: no GoogleTest suites found in $BUILD/bin" >&2; exit 1; }
    ctest --test-dir "$BUILD" --output-on-failure --no-tests=error -j "$(nproc)" \
      -R "^((runtime|hostile)\.)?($suites)\."
  else
    ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)" -E "$EXCLUDE"
  fi
  echo "sanitize: sanitized ctest (scope $SCOPE) passed in $((SECONDS - start)) s"
fi
[ "$STEP" = test ] && exit 0

# Fuzzers: first the inputs that once crashed them (must pass), then a bounded
# run over the committed seeds; new inputs go to a scratch copy.
start=$SECONDS
for t in "${FUZZERS[@]}"; do
  bin="$BUILD/bin/fuzz-$t"
  regressions=("$ROOT/tests/fuzz/regressions/$t"/*)
  if [ -e "${regressions[0]}" ]; then
    "$bin" "${regressions[@]}" >"$BUILD/fuzz-$t-regressions.log" 2>&1 ||
      { cat "$BUILD/fuzz-$t-regressions.log"; echo "sanitize: fuzz-$t: a regression input fails" >&2; exit 1; }
    echo "sanitize: fuzz-$t: ${#regressions[@]} regression input(s) pass"
  fi
  work="$BUILD/fuzz-ci/$t"
  mkdir -p "$work"
  if ! "$bin" -seed="$SEED" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
       -max_len=8192 -print_final_stats=1 -artifact_prefix="$BUILD/fuzz-ci/$t-" \
       "$work" "$ROOT/tests/fuzz/corpus/$t" >"$BUILD/fuzz-$t.log" 2>&1; then
    tail -n 40 "$BUILD/fuzz-$t.log"
    echo "sanitize: fuzz-$t found a crash; the input is in $BUILD/fuzz-ci/" >&2
    exit 1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$BUILD/fuzz-$t.log")
  [ -n "$execs" ] || { tail -n 20 "$BUILD/fuzz-$t.log"; echo "sanitize: fuzz-$t printed no statistics" >&2; exit 1; }
  echo "sanitize: fuzz-$t: $execs executions in ${SECONDS_PER_TARGET} s (seed $SEED), no crash"
done
echo "sanitize: fuzz regressions + slices took $((SECONDS - start)) s"
echo "sanitize: all sanitized tests and fuzz slices passed"
