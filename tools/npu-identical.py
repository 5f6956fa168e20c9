#!/usr/bin/python3
"""Proves that two `systole` binaries write the same .npu bytes.

usage: tools/npu-identical.py --baseline OLD_SYSTOLE [--systole NEW_SYSTOLE]
           [--models DIR ...] [--hw default-32x32,edge-16x16]
           [--fuzz N] [--seed S] [--jobs J] [--work DIR]

A refactoring of the compiler that must not change what it emits (issue 30:
the NPU stage as IR) is checked with this: every quantized ONNX model under
each --models folder (searched recursively: the zoo's QDQ and QOperator
forms) is compiled for each preset of --hw by both binaries, and N random
graphs of tools/fuzz-models (seed S, graph i exactly as `tools/fuzz-models
--seed S --first i --count 1 --hw-random` draws it, with its random hardware
config) likewise. A pair is the same when both binaries write byte-identical
files, or both reject the input with the same message. Prints one line per
difference and a summary; exits 1 if any pair differs.
"""
import argparse
import filecmp
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))


def compile_with(systole, model, hw, out):
    """(ok, message): the compile's exit status and its error lines."""
    p = subprocess.run([systole, "compile", str(model), "-o", str(out), "--hw", hw, "-q"],
                       capture_output=True, text=True)
    errors = [ln.replace(str(out), "OUT") for ln in p.stderr.splitlines() if "error" in ln]
    return p.returncode == 0, "\n".join(errors)


def check_pair(job):
    label, model, hw, old, new, work = job
    work = Path(work)
    a, b = work / "old.npu", work / "new.npu"
    for f in (a, b):
        f.unlink(missing_ok=True)
    ok_a, msg_a = compile_with(old, model, hw, a)
    ok_b, msg_b = compile_with(new, model, hw, b)
    if ok_a and ok_b:
        same = filecmp.cmp(a, b, shallow=False)
        return label, "identical" if same else "bytes differ", a.stat().st_size
    if not ok_a and not ok_b:
        return label, "both rejected alike" if msg_a == msg_b else \
            f"rejected differently: {msg_a[:200]!r} vs {msg_b[:200]!r}", 0
    return label, f"only {'old' if ok_a else 'new'} compiles: {(msg_b or msg_a)[:300]}", 0


def fuzz_case(args):
    seed, i, work = args
    import numpy as np
    from fuzz_models import graphgen, harness, hwgen
    rng = np.random.default_rng([seed, i])
    model, feeds, info = graphgen.generate(rng)
    hw = hwgen.random_hw(rng, name=f"fuzz-{seed}-{i}", min_token_depth=1)
    case = Path(work) / f"{seed}-{i}"
    harness.save_case(case, model, feeds, info, hw)
    return case


def run_job(job):
    kind, payload = job
    if kind == "fuzz":
        seed, i, old, new, work = payload
        case = fuzz_case((seed, i, work))
        return check_pair((f"fuzz {seed}-{i}", case / "model.onnx", str(case / "hw.json"), old, new, case))
    label, model, hw, old, new, work = payload
    Path(work).mkdir(parents=True, exist_ok=True)
    return check_pair(payload)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required=True, help="the systole binary before the change")
    ap.add_argument("--systole", default=str(ROOT / "build" / "bin" / "systole"))
    ap.add_argument("--models", action="append", default=[], type=Path)
    ap.add_argument("--hw", default="default-32x32,edge-16x16")
    ap.add_argument("--fuzz", type=int, default=0, help="random graphs with random configs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--work", type=Path)
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="npu-identical-"))
    jobs = []
    for folder in a.models:
        for model in sorted(folder.rglob("*.onnx")):
            if "fp32" in model.name or "float" in model.name:
                continue  # only quantized models compile
            for hw in a.hw.split(","):
                rel = model.relative_to(folder)
                jobs.append(("model", (f"{rel} {hw}", model, hw, a.baseline, a.systole,
                                       str(work / "models" / str(rel).replace("/", "_") / hw))))
    for i in range(a.fuzz):
        jobs.append(("fuzz", (a.seed, i, a.baseline, a.systole, str(work / "fuzz"))))
    t0 = time.time()
    counts = {}
    differ = 0
    total_bytes = 0
    with multiprocessing.Pool(a.jobs) as pool:
        for n, (label, verdict, size) in enumerate(pool.imap_unordered(run_job, jobs), 1):
            key = verdict if verdict in ("identical", "both rejected alike") else "different"
            counts[key] = counts.get(key, 0) + 1
            total_bytes += size
            if key == "different":
                differ += 1
                print(f"DIFFERENT {label}: {verdict}", flush=True)
            if n % 100 == 0:
                print(f"# {n}/{len(jobs)} pairs, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    models = sum(1 for j in jobs if j[0] == "model")
    print(f"# {models} model compiles ({len(a.models)} folder(s), hw {a.hw}) and {a.fuzz} fuzz graphs "
          f"(seed {a.seed}, random hw): {len(jobs)} pairs in {time.time() - t0:.0f} s; "
          f"{total_bytes} bytes of binaries compared")
    print(f"# old: {a.baseline}\n# new: {a.systole}")
    print(", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
