#!/usr/bin/python3
"""Transformers on the NPU (issue 31): builds them, compiles them and prints their figures.

usage: /usr/bin/python3 bench/transformers.py [--systole BIN] [--out DIR] [--hw PRESET] [--check] [NAME ...]

The models, each quantized to int8 QDQ by models/systole_models with the
zoo's recipe (random weights after torch.manual_seed(0), 4 calibration and 3
reference inputs, ORT references; models/build_models.py):
  swin_t          torchvision swin_t(weights=None), 1x3x224x224, opset 17
  vit_b_16        torchvision vit_b_16(weights=None), 1x3x224x224, opset 13 (the
                  zoo's torchvision opset), head weights N(0, 0.1) as vit_small's
  bert_mini       models/systole_models/bert.py: 4 layers, hidden 256, 4 heads,
                  sequence 128, vocabulary 4096; int64 input_ids and
                  attention_mask [1, 128], the mask made additive in the graph
                  as HF BERT does; GELU erf, LayerNorm; opset 17
  encoder13_base  torch.nn.TransformerEncoder, 4 x (d_model 256, 4 heads, ff 1024,
  encoder17_base  GELU), input 1x64x256, opset 13 / 17: encoders.py's models,
                  larger, shape arithmetic folded as encoders.export does
  convnext_tiny   torchvision convnext_tiny(weights=None), 1x3x224x224, opset 13
The torchvision models are exported as the zoo's are, nothing folded.
The zoo's build_torchvision() is not called as is because it exports every
torchvision model at opset 13 and only vit_small with autograd on (which
keeps nn.MultiheadAttention off its fused fast path, which has no ONNX
export); export() here takes both as arguments and the rest is the same
calls (quantize, write_package). None of these models has BatchNorm, so the
BN re-estimation of torchvision_models.export has nothing to do and is skipped.

Per model: the package is built into OUT/<name>/ (skipped when the folder
already holds a complete one: manifest.json and every file it names), then
`systole compile <name>_int8_qdq.onnx --hw PRESET --report` is timed (wall
seconds) and its JSON read: the estimate's cycles (model_bound.run_cycles,
the cycles compile, report and run print), the model bound and which
resource sets it, cycles / bound, MACs, host ops of all ops (placement).
Host cycles are those of the host segments in the same estimate: `systole
report --json` splits the total into NPU segments (compute + DMA + stall)
and the rest, which is the host segments' transfers and compute; with
--check the run's host_cycles must agree. --check runs the binary on the
functional backend (--backend cycle: the cycle-accurate one) on each
reference input and counts output
values that differ from ORT's (tests/e2e/check_zoo_model.py's comparison;
bit-exact is 0). A model that fails to build, compile or run keeps its
error in the table. Logs and binaries go to OUT/work_<name>/, all figures
to OUT/results.json. Exits 1 if any model failed or (--check) was not
bit-exact.
"""
import argparse
import json
import shutil
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "models"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
import build_models  # noqa: E402
import check_zoo_model  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402
from systole_models import bert, torch_export  # noqa: E402
from systole_models import torchvision_models as tvm  # noqa: E402
from systole_models.package import write_package  # noqa: E402
from systole_models.quantize import quantize, scheme  # noqa: E402
from systole_models.transformer import fold_shape_arithmetic  # noqa: E402

tv = torchvision.models


def _vit_b_16():
    vit = tv.vit_b_16(weights=None)
    # torchvision zero-initializes the head; as for the zoo's vit_small, give it random weights.
    torch.nn.init.normal_(vit.heads.head.weight, std=0.1)
    torch.nn.init.normal_(vit.heads.head.bias, std=0.1)
    return vit


def _encoder(layers=4, d_model=256, heads=4, ff=1024):
    layer = torch.nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0, activation="gelu", batch_first=True)
    return torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


# name: (constructor, input shape, opset, export with autograd on, fold shape arithmetic, description)
IMAGE = (1, 3, 224, 224)
ENCODER = ("torch.nn.TransformerEncoder(4 x TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, "
           "gelu, batch_first))")
TORCH_MODELS = {
    "swin_t": (lambda: tv.swin_t(weights=None), IMAGE, 17, False, False, "torchvision.models.swin_t(weights=None)"),
    "vit_b_16": (_vit_b_16, IMAGE, 13, True, False,
                 "torchvision.models.vit_b_16(weights=None), head weights N(0, 0.1)"),
    "encoder13_base": (_encoder, (1, 64, 256), 13, True, True, ENCODER),
    "encoder17_base": (_encoder, (1, 64, 256), 17, True, True, ENCODER),
    "convnext_tiny": (lambda: tv.convnext_tiny(weights=None), IMAGE, 13, False, False,
                      "torchvision.models.convnext_tiny(weights=None)"),
}
MODELS = ["swin_t", "vit_b_16", bert.NAME, "encoder13_base", "encoder17_base", "convnext_tiny"]
COLUMNS = ["model", "input", "MACs", "cycles", "bound", "cycles/bound", "host ops", "host cycle %", "compile s",
           "differing outputs"]


def export(name, path):
    """The float model of a TORCH_MODELS entry, as torchvision_models.export writes the zoo's."""
    make, shape, opset, grad, fold, _ = TORCH_MODELS[name]
    torch.manual_seed(tvm.WEIGHT_SEED)
    module = make()
    if any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in module.modules()):
        raise RuntimeError(f"{name} has BatchNorm: estimate its statistics as torchvision_models.export does")
    model = torch_export.export(module, shape, path, opset=opset, grad=grad)
    if fold:  # as encoders.export: the attention's Shape -> Gather -> ... bounds become constants
        fold_shape_arithmetic(model)
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
    return model


def random_inputs(name, count, seed):
    shape = TORCH_MODELS[name][1]
    return np.random.default_rng(seed).standard_normal((count, *shape[1:])).astype(np.float32)


def build_torch_model(name, folder):
    """build_models.build_torchvision's steps with this file's export()."""
    progress = build_models.Progress(name)
    fp32_path = folder / f"{name}_fp32.onnx"
    fp32 = export(name, fp32_path)
    progress.step(f"exported float model (opset {TORCH_MODELS[name][2]})")
    calib = random_inputs(name, build_models.TORCHVISION_CALIBRATION_SAMPLES, tvm.CALIBRATION_SEED)
    qdq, qop, plan = quantize(fp32, fp32_path, "input", calib)
    progress.step(f"calibrated on {len(calib)} inputs and quantized")
    info = {
        "description": f"{TORCH_MODELS[name][5]} after torch.manual_seed({tvm.WEIGHT_SEED}); exported in eval mode "
                       f"at opset {TORCH_MODELS[name][2]}" + (", shape arithmetic folded" if TORCH_MODELS[name][4] else "")
                       + " (bench/transformers.py)",
        "producer": "torch.onnx (PyTorch 1.13, torchvision 0.14)",
        "quantization": scheme(len(calib), f"standard normal inputs, numpy default_rng({tvm.CALIBRATION_SEED})"),
        "reference_inputs": f"standard normal, numpy default_rng({tvm.REFERENCE_SEED})",
    }
    refs = random_inputs(name, build_models.REFERENCE_SAMPLES, tvm.REFERENCE_SEED)
    manifest = write_package(folder, name, {"fp32": fp32, "int8_qdq": qdq, "int8_qop": qop}, plan, refs, info)
    progress.step("wrote ORT references")
    return manifest


def complete(folder):
    """True when folder holds a finished package (write_package writes manifest.json last)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    paths = list(manifest["files"].values()) + reference_files(manifest)
    return all((folder / p).is_file() for p in paths)


def reference_files(manifest):
    ref = manifest["reference"]
    files = [p for feeds in reference_feeds(manifest) for p in feeds.values()]
    return files + ref["int8_qdq"]["output"]


def reference_feeds(manifest):
    """[{input name: path}] per reference sample, for one-input (package.py) and many-input (bert.py) packages."""
    inputs = manifest["reference"]["inputs"]
    if "inputs" in manifest:
        return inputs
    return [{manifest["input"]["name"]: p} for p in inputs]


def describe_inputs(manifest):
    vis = manifest.get("inputs") or [manifest["input"]]
    return " + ".join(f"{v['dtype']} {'x'.join(str(d) for d in v['shape'])}" for v in vis)


def short(text, limit=400):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def build_package(name, folder):
    """This bench's packages: bert.py's for bert_mini, build_torch_model() for the others."""
    if name == bert.NAME:
        return bert.build(folder, build_models.Progress(name).step)
    return build_torch_model(name, folder)


def build(name, folder, make=build_package):
    """Builds the package with make(name, folder) unless it is there; returns (manifest, seconds or None when
    skipped)."""
    if complete(folder):
        print(f"{name}: package in {folder} is complete, build skipped", flush=True)
        return json.loads((folder / "manifest.json").read_text()), None
    if folder.exists():
        shutil.rmtree(folder)  # never mix files of two builds
    folder.mkdir(parents=True)
    print(f"{name}: building -> {folder}", flush=True)
    start = time.perf_counter()
    manifest = make(name, folder)
    seconds = time.perf_counter() - start
    print(f"{name}: built in {seconds:.0f} s; ORT ran the QDQ model as "
          f"{manifest['ort_executed_op_types']['int8_qdq']}", flush=True)
    return manifest, seconds


def compile_model(systole, qdq, work, hw):
    """Compiles and reads the compile report; returns a dict of figures (or raises RuntimeError)."""
    npu, report = work / f"{qdq.stem}_{hw}.npu", work / f"compile_{hw}.json"
    cmd = [systole, "compile", str(qdq), "-o", str(npu), "--hw", hw, "--report", str(report)]
    print("  $ " + " ".join(cmd), flush=True)
    start = time.perf_counter()
    proc = check_zoo_model.run(cmd)
    seconds = time.perf_counter() - start
    (work / f"compile_{hw}.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise RuntimeError(f"compile failed (exit {proc.returncode}, {seconds:.0f} s): "
                           f"{check_zoo_model.first_error(proc)}")
    rep = json.loads(report.read_text())
    bound, placement = rep["model_bound"], rep["placement"]
    if "estimate_error" in rep:
        raise RuntimeError(f"compiled in {seconds:.0f} s but no estimate: {rep['estimate_error']}")
    cmd = [systole, "report", str(npu), "--json", str(work / f"report_{hw}.json"), "-q"]
    proc = check_zoo_model.run(cmd)
    if proc.returncode != 0:
        raise RuntimeError(f"systole report failed: {check_zoo_model.first_error(proc)}")
    est = json.loads((work / f"report_{hw}.json").read_text())
    b = est["cycle_breakdown"]
    if est["total_cycles"] != bound["run_cycles"]:
        raise RuntimeError(f"systole report's estimate {est['total_cycles']} is not compile's {bound['run_cycles']}")
    return {"npu": str(npu), "compile_s": seconds, "macs": bound["macs"], "cycles": bound["run_cycles"],
            "bound": bound["cycles"], "limited_by": bound["limited_by"], "cycles_over_bound": bound["cycles_over_bound"],
            "host_ops": placement["host_ops"], "ops": placement["host_ops"] + placement["npu_ops"],
            "npu_mac_percent": placement["npu_mac_percent"],
            "host_cycles": est["total_cycles"] - (b["compute"] + b["dma"] + b["stall"])}


def check(systole, npu, folder, manifest, work, backend):
    """Runs on the reference inputs; returns (values, differing, by one step, by more, host cycles)."""
    scale = manifest["output"]["quant"]["scale"]
    out_name = manifest["output"]["name"]
    totals, host_cycles = [0, 0, 0, 0], set()
    for i, feeds in enumerate(reference_feeds(manifest)):
        out_dir = work / f"{backend}_{i}"
        cmd = [systole, "run", npu, "--out-dir", str(out_dir), "--backend", backend, "--quiet",
               "--report", str(work / f"{backend}_{i}.json")]
        for name, rel in feeds.items():
            cmd += ["--input", f"{name}={folder / rel}"]
        proc = check_zoo_model.run(cmd)
        if proc.returncode != 0:
            raise RuntimeError(f"{backend} run on reference input {i} failed: {check_zoo_model.first_error(proc)}")
        got = np.load(out_dir / f"{out_name}.npy")
        want = np.load(folder / manifest["reference"]["int8_qdq"]["output"][i])
        totals = [a + b for a, b in zip(totals, check_zoo_model.compare(got, want, scale))]
        host_cycles.add(json.loads((work / f"{backend}_{i}.json").read_text())["host_cycles"])
    return (*totals, host_cycles)


def measure(name, args, build=build):
    """Builds (build(name, folder) -> (manifest, seconds or None)), compiles and (--check) runs one model."""
    row = {"model": name, "input": "-"}
    folder, work = args.out / name, args.out / f"work_{name}"
    try:
        manifest, row["build_s"] = build(name, folder)
    except Exception as e:  # noqa: BLE001 (a model that fails to build stays in the table)
        traceback.print_exc()
        row["error"] = f"build failed: {type(e).__name__}: {e}"
        return row
    row["input"] = describe_inputs(manifest)
    work.mkdir(parents=True, exist_ok=True)
    try:
        row.update(compile_model(args.systole, folder / manifest["files"]["int8_qdq"], work, args.hw))
        print(f"{name}: compiled in {row['compile_s']:.1f} s: {row['cycles']} cycles, bound {row['bound']} "
              f"({row['limited_by']}-bound), {row['cycles_over_bound']:.2f} x bound; {row['macs']} MACs, "
              f"{row['npu_mac_percent']:.2f}% on the NPU; host {row['host_ops']} of {row['ops']} ops, "
              f"{row['host_cycles']} cycles", flush=True)
        if args.check:
            values, differ, off1, worse, host_cycles = check(args.systole, row["npu"], folder, manifest, work,
                                                             args.backend)
            row.update(values=values, differ=differ, off_by_one=off1, off_by_more=worse)
            print(f"{name}: {args.backend}: {differ} of {values} output values differ from ORT "
                  f"({off1} by one step, {worse} by more)", flush=True)
            if host_cycles != {row["host_cycles"]}:
                raise RuntimeError(f"host cycles: {args.backend} runs {sorted(host_cycles)}, estimate "
                                   f"{row['host_cycles']}")
    except Exception as e:  # noqa: BLE001
        row["error"] = str(e)
        print(f"{name}: {e}", flush=True)
    return row


def number(x):
    """Cycles are whole numbers; a bound may not be (MACs / PEs)."""
    return f"{int(x):,}" if x == int(x) else f"{x:,.2f}"


def differ_cell(row):
    """The "differing outputs" cell: values off ORT's (--check), or the error that stopped the run."""
    if "error" in row:
        return short(row["error"])
    if "differ" not in row:
        return "not checked"
    diff = f"{row['differ']} of {row['values']}"
    return diff + (f" ({row['off_by_one']} by 1 step)" if row["differ"] else "")


def cells(row):
    if "cycles" not in row:
        return [row["model"], row["input"]] + ["-"] * 7 + [short(row.get("error", ""))]
    diff = differ_cell(row)
    return [row["model"], row["input"], f"{row['macs'] / 1e9:.2f} G", number(row["cycles"]), number(row["bound"]),
            f"{row['cycles_over_bound']:.2f} ({row['limited_by']})", f"{row['host_ops']} / {row['ops']}",
            f"{100 * row['host_cycles'] / row['cycles']:.1f}", f"{row['compile_s']:.1f}", diff]


def print_table(rows, hw):
    print(f"\nTransformers on {hw} (bench/transformers.py)\n")
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + " --- |" * len(COLUMNS))
    for row in rows:
        print("| " + " | ".join(cells(row)) + " |")
    for row in rows:
        if row.get("build_s") is not None:
            print(f"{row['model']}: package built in {row['build_s']:.0f} s")


def parse_args(doc, out, models):
    """The command line of a model bench (this one, bench/cnns.py): packages in `out`, NAMEs of `models`."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--systole", default=str(ROOT / "build" / "bin" / "systole"))
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument("--hw", default="default-32x32", help="hardware preset or config file")
    parser.add_argument("--check", action="store_true",
                        help="run the binary on the reference inputs and compare with ORT")
    parser.add_argument("--backend", default="functional", choices=["functional", "cycle"],
                        help="the backend --check runs (default: functional)")
    parser.add_argument("names", nargs="*", choices=[[]] + models, default=[])
    return parser.parse_args()


def main():
    args = parse_args(__doc__, ROOT / "build" / "cache" / "transformers", MODELS)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.names or MODELS:
        rows.append(measure(name, args))
        (args.out / "results.json").write_text(json.dumps(rows, indent=1) + "\n")
    print_table(rows, args.hw)
    sys.exit(1 if any("error" in r or r.get("differ") for r in rows) else 0)


if __name__ == "__main__":
    main()
