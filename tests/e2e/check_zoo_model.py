"""End-to-end check of a zoo model: compile each form for each hardware preset,
run it on each backend, and compare the output with the ONNX Runtime reference
stored next to the model (models/build_models.py).

usage: check_zoo_model.py SYSTOLE MODEL_DIR WORKDIR [--forms qdq,qop]
           [--hw default-32x32,edge-16x16] [--backends functional,cycle]
           [--max-off-by-one FRACTION] [--json OUT.json]

A value is compared in quantization steps of the output (the model's output is
the final DequantizeLinear of an int8/uint8 tensor). Bit-exact is 0 steps
everywhere. Where ORT computes an op in float (HardSigmoid, Softmax, Erf, ...,
see the manifest's ort_executed_op_types) the host may round differently in
the last place; --max-off-by-one allows that FRACTION of the values to be one
step off (default 0: bit-exact). Anything two or more steps off fails.
Prints one line per run with the counts; exits 1 on any failure.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def compare(got, want, scale):
    """(values, differing values, values off by one step, values off by more)."""
    if got.shape != want.shape:
        return want.size, want.size, 0, want.size
    steps = np.rint(np.abs(got.astype(np.float64) - want.astype(np.float64)) / float(scale))
    differ = int((got != want).sum())
    return want.size, differ, int((steps == 1).sum()), int((steps > 1).sum())


def run(cmd):
    """subprocess.run that turns a missing or unexecutable program into a failed result."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        return subprocess.CompletedProcess(cmd, 127, "", f"error: {cmd[0]}: {e.strerror}")


def first_error(proc):
    """The first diagnostic line that says error (else the last line) of a failed command."""
    lines = [line for line in (proc.stderr + proc.stdout).strip().splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or [f"exit status {proc.returncode}"])[0].strip()


def check(systole, model_dir, work, forms, hws, backends, max_off_by_one, host_target="cpu"):
    """Yields one result dict per (form, hw, backend)."""
    manifest = json.load(open(os.path.join(model_dir, "manifest.json")))
    name = manifest["name"]
    in_name, out_name = manifest["input"]["name"], manifest["output"]["name"]
    scale = manifest["output"]["quant"]["scale"]
    os.makedirs(work, exist_ok=True)
    for form in forms:
        onnx_path = os.path.join(model_dir, f"{name}_int8_{form}.onnx")
        for hw in hws:
            npu = os.path.join(work, f"{name}_{form}_{hw}.npu")
            start = time.perf_counter()
            proc = run([systole, "compile", onnx_path, "-o", npu, "--hw", hw, "-q",
                        "--host-target", host_target])
            compile_s = time.perf_counter() - start
            if proc.returncode != 0:
                for backend in backends:
                    yield {"model": name, "form": form, "hw": hw, "backend": backend, "status": "COMPILE-FAIL",
                           "compile_s": compile_s, "message": first_error(proc)}
                continue
            for backend in backends:
                totals = [0, 0, 0, 0]
                status, message = "ok", ""
                start = time.perf_counter()
                for i, rel in enumerate(manifest["reference"]["inputs"]):
                    out_dir = os.path.join(work, f"{name}_{form}_{hw}_{backend}_{i}")
                    proc = run([systole, "run", npu, "--input", f"{in_name}={os.path.join(model_dir, rel)}",
                                "--out-dir", out_dir, "--backend", backend, "--quiet"])
                    if proc.returncode != 0:
                        status, message = "RUN-FAIL", first_error(proc)
                        break
                    got = np.load(os.path.join(out_dir, out_name + ".npy"))
                    want = np.load(os.path.join(model_dir, f"ref_{form}", f"output_{i}.npy"))
                    totals = [a + b for a, b in zip(totals, compare(got, want, scale))]
                run_s = time.perf_counter() - start
                values, differ, off1, worse = totals
                if status == "ok":
                    if differ == 0:
                        status = "bit-exact"
                    elif worse == 0 and off1 <= max_off_by_one * values:
                        status = "within-bound"
                    else:
                        status = "MISMATCH"
                yield {"model": name, "form": form, "hw": hw, "backend": backend, "status": status,
                       "values": values, "differ": differ, "off_by_one": off1, "off_by_more": worse,
                       "compile_s": compile_s, "run_s": run_s, "message": message}


def passed(result):
    return result["status"] in ("bit-exact", "within-bound")


def describe(r):
    if "values" not in r:
        return f"{r['model']} {r['form']} {r['hw']} {r['backend']}: {r['status']}: {r['message']}"
    text = (f"{r['model']} {r['form']} {r['hw']} {r['backend']}: {r['status']} ({r['differ']} of {r['values']} "
            f"values differ: {r['off_by_one']} by one step, {r['off_by_more']} by more; compile "
            f"{r['compile_s']:.1f} s, run {r['run_s']:.1f} s)")
    return text + (f": {r['message']}" if r["message"] else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("systole")
    parser.add_argument("model_dir")
    parser.add_argument("work")
    parser.add_argument("--forms", default="qdq,qop")
    parser.add_argument("--hw", default="default-32x32,edge-16x16")
    parser.add_argument("--backends", default="functional,cycle")
    parser.add_argument("--max-off-by-one", type=float, default=0.0)
    parser.add_argument("--host-target", default="cpu",
                        help="cpu, gpu or gpu-emulation (the GPU lowering run on the CPU)")
    parser.add_argument("--json")
    args = parser.parse_args()
    results = []
    for r in check(args.systole, args.model_dir, args.work, args.forms.split(","), args.hw.split(","),
                   args.backends.split(","), args.max_off_by_one, args.host_target):
        print(describe(r), flush=True)
        results.append(r)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    failed = sum(not passed(r) for r in results)
    print(f"bound: at most {args.max_off_by_one:.2%} of values one step off, none more")
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
