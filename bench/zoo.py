#!/usr/bin/python3
"""Builds, compiles and checks every model of the zoo and prints a table.

usage: /usr/bin/python3 bench/zoo.py [--out DIR] [--only NAME ...] [--no-build] [--npm-cache DIR]
           [--hw default-32x32,edge-16x16] [--backends functional,cycle] [--json OUT]
           [--no-perf | --perf-only] [--baseline SYSTOLE] [--tune-budget N] [--no-tune]

For each model (models/build_models.py --list): build its folder into DIR
(default build/cache/zoo; --no-build reuses it), then for both ONNX forms and
each preset compile with `systole compile` and run the three reference inputs
on each backend (tests/e2e/check_zoo_model.py), comparing the output with
ONNX Runtime in quantization steps. The bound is the one
tests/e2e/CMakeLists.txt states for the model (ZOO_BOUNDS below; 0 =
bit-exact). Exits 1 if any run fails. Needs build/bin/systole and ORT in
build/ort (or SYSTOLE_ORT_DIR). Then the performance table of issue 18
(bench/zoo_perf.py): per model and preset, cycles, the model bound, cycles /
bound, MAC utilization, DRAM bytes and compile time with and without --tune
(and for a --baseline binary), and the CNNs' geometric mean of cycles / bound;
--perf-only prints just that table from already built models, --no-perf
skips it.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
import check_zoo_model  # noqa: E402

# Fraction of output values allowed one quantization step off (ops ORT runs in float).
ZOO_BOUNDS = {}


def model_names():
    out = subprocess.run([sys.executable, str(ROOT / "models" / "build_models.py"), "--list"],
                         capture_output=True, text=True, check=True).stdout
    return next(line.split()[1:] for line in out.splitlines() if line.startswith("zoo:"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "cache" / "zoo")
    parser.add_argument("--only", action="append")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--hw", default="default-32x32,edge-16x16")
    parser.add_argument("--backends", default="functional,cycle")
    parser.add_argument("--systole", default=str(ROOT / "build" / "bin" / "systole"))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--npm-cache", type=Path, help="where npm packages are unpacked (default OUT/.npm)")
    parser.add_argument("--no-perf", action="store_true",
                        help="skip the performance table printed after the checks (cycles, bound, "
                             "MAC utilization, DRAM bytes, compile time; default and --tune)")
    parser.add_argument("--perf-only", action="store_true", help="the performance table only")
    parser.add_argument("--baseline", help="another systole binary to add to the performance table")
    parser.add_argument("--tune-budget", type=int, default=2000)
    parser.add_argument("--no-tune", action="store_true",
                        help="performance table without the --tune columns (faster)")
    args = parser.parse_args()
    if args.perf_only:
        import zoo_perf
        zoo_perf.perf_table(args.only or model_names(), args.out, args.hw.split(","), args.systole,
                            args.out / ".perf", args.baseline, args.tune_budget, not args.no_tune)
        return 0
    names = args.only or model_names()
    results, build_s = [], {}
    for name in names:
        folder = args.out / name
        if not args.no_build:
            start = time.perf_counter()
            cmd = [sys.executable, str(ROOT / "models" / "build_models.py"), "--out", str(args.out), "--only", name]
            if args.npm_cache:
                cmd += ["--npm-cache", str(args.npm_cache)]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            build_s[name] = time.perf_counter() - start
            if proc.returncode != 0:
                lines = proc.stderr.strip().splitlines()
                print(f"{name}: BUILD-FAIL: {lines[-1] if lines else proc.returncode}", flush=True)
                results.append({"model": name, "status": "BUILD-FAIL", "message": lines[-1] if lines else ""})
                continue
        if not (folder / "manifest.json").is_file():
            print(f"{name}: not built in {folder}", flush=True)
            results.append({"model": name, "status": "BUILD-FAIL", "message": "not built"})
            continue
        bound = ZOO_BOUNDS.get(name, 0.0)
        for r in check_zoo_model.check(args.systole, str(folder), str(args.out / ".work" / name), ["qdq", "qop"],
                                       args.hw.split(","), args.backends.split(","), bound):
            r["build_s"] = build_s.get(name)
            print(check_zoo_model.describe(r), flush=True)
            results.append(r)

    print()
    print(f"{'model':28} {'form':4} {'preset':14} {'backend':10} {'status':13} {'differ':>13} {'+-1':>6} "
          f"{'>1':>6} {'compile s':>9} {'run s':>6}")
    for r in results:
        if "form" not in r:
            print(f"{r['model']:28} {'':4} {'':14} {'':10} {r['status']:13} {r['message']}")
            continue
        counts = (f"{r['differ']:>6}/{r['values']:<6} {r['off_by_one']:>6} {r['off_by_more']:>6}"
                  if "values" in r else f"{'':13} {'':6} {'':6}")
        run_s = f"{r['run_s']:6.1f}" if "run_s" in r else ""
        print(f"{r['model']:28} {r['form']:4} {r['hw']:14} {r['backend']:10} {r['status']:13} {counts} "
              f"{r['compile_s']:9.1f} {run_s}" + (f"  {r['message']}" if r.get("message") else ""))
    failed = sum(not check_zoo_model.passed(r) for r in results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    print(f"{len(results) - failed} passed, {failed} failed")
    if not args.no_perf:
        import zoo_perf
        print()
        zoo_perf.perf_table(names, args.out, args.hw.split(","), args.systole, args.out / ".perf",
                            args.baseline, args.tune_budget, not args.no_tune)
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("SYSTOLE_ORT_DIR", str(ROOT / "build" / "ort"))
    sys.exit(main())
