#!/usr/bin/python3
"""CNNs at their real input resolution (issue 32): builds them, compiles them and prints their figures.

usage: /usr/bin/python3 bench/cnns.py [--systole BIN] [--out DIR] [--hw PRESET] [--check]
                                      [--backend functional|cycle] [NAME ...]

The zoo (models/build_models.py) builds most of its CNNs at 64x64 or 96x96
so that CI stays fast; this bench builds them, and a few more, at the
resolution they are made for: 1x3x224x224 (the ImageNet classifiers),
inception_v3 at 1x3x299x299. Each is torchvision.models.<name>(weights=None)
(googlenet and inception_v3 with aux_logits=False, init_weights=True, as the
zoo's googlenet) built by the zoo's own path, build_models.build_torchvision
with this file's entries in torchvision_models.ARCHITECTURES:
torch.manual_seed(0) weights, BatchNorm statistics re-estimated on 2x8
random inputs of the real size, eval-mode export at opset 13 with BN folded
(densenet121's pre-activation BN stays, as in the zoo), int8 QDQ with the
zoo's recipe (4 calibration, 3 reference inputs, ORT references).

Per model it does what bench/transformers.py does, with its helpers: the
package is built into OUT/<name>/ (skipped when the folder already holds a
complete one), `systole compile <name>_int8_qdq.onnx --hw PRESET --report`
is timed (wall seconds) and its JSON read: the estimate's cycles
(model_bound.run_cycles), the model bound (max(MACs / PEs, compulsory
bytes / DRAM bytes per cycle)) and which resource sets it, cycles / bound,
MACs, host ops of all ops. --check runs the binary on the functional
backend (--backend cycle: the cycle-accurate one) on each reference input
and counts output values that differ from ORT's (tests/e2e/
check_zoo_model.py's comparison; bit-exact is 0). A model that fails to
build, compile or run keeps its error in the table. The geometric mean of
cycles / bound is over the models that compiled. Logs and binaries go to
OUT/work_<name>/; OUT/results.json keeps the rows per preset (a run
replaces the rows of the models it measured). Exits 1 if any model failed
or (--check) was not bit-exact.
"""
import json
import sys
import traceback
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
import transformers as tb  # noqa: E402  (bench/transformers.py; it puts models/ and tests/e2e/ on the path)
import zoo_perf  # noqa: E402
import build_models  # noqa: E402
import torchvision  # noqa: E402
from systole_models import torchvision_models as tvm  # noqa: E402

tv = torchvision.models

# name: (constructor, input height/width, how it was made), as torchvision_models.ARCHITECTURES
CNNS = {
    "efficientnet_b0": (lambda: tv.efficientnet_b0(weights=None), 224, "efficientnet_b0(weights=None)"),
    "mobilenet_v2": (lambda: tv.mobilenet_v2(weights=None), 224, "mobilenet_v2(weights=None)"),
    "mobilenet_v3_large": (lambda: tv.mobilenet_v3_large(weights=None), 224, "mobilenet_v3_large(weights=None)"),
    "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(weights=None), 224, "mobilenet_v3_small(weights=None)"),
    "mnasnet0_5": (lambda: tv.mnasnet0_5(weights=None), 224, "mnasnet0_5(weights=None)"),
    "shufflenet_v2_x0_5": (lambda: tv.shufflenet_v2_x0_5(weights=None), 224, "shufflenet_v2_x0_5(weights=None)"),
    "regnet_x_400mf": (lambda: tv.regnet_x_400mf(weights=None), 224, "regnet_x_400mf(weights=None)"),
    "regnet_y_400mf": (lambda: tv.regnet_y_400mf(weights=None), 224, "regnet_y_400mf(weights=None)"),
    "resnet50": (lambda: tv.resnet50(weights=None), 224, "resnet50(weights=None)"),
    "googlenet": (lambda: tv.googlenet(weights=None, aux_logits=False, init_weights=True), 224,
                  "googlenet(weights=None, aux_logits=False, init_weights=True)"),
    "densenet121": (lambda: tv.densenet121(weights=None), 224, "densenet121(weights=None)"),
    "squeezenet1_1": (lambda: tv.squeezenet1_1(weights=None), 224, "squeezenet1_1(weights=None)"),
    "resnext50_32x4d": (lambda: tv.resnext50_32x4d(weights=None), 224, "resnext50_32x4d(weights=None)"),
    "inception_v3": (lambda: tv.inception_v3(weights=None, aux_logits=False, init_weights=True), 299,
                     "inception_v3(weights=None, aux_logits=False, init_weights=True)"),
    "vgg11": (lambda: tv.vgg11(weights=None), 224, "vgg11(weights=None)"),
}
MODELS = list(CNNS)
COLUMNS = ["model", "input", "MACs", "cycles", "bound", "cycles/bound", "limited by", "host ops", "compile s",
           "differing outputs"]


def build(name, folder):
    """bench/transformers.py's build() with the zoo's build_torchvision at the real resolution."""
    tvm.ARCHITECTURES[name] = CNNS[name]  # the zoo's entry (64x64 or 96x96 for most) at the real size
    return tb.build(name, folder, build_models.build_torchvision)


def measure(name, args):
    try:
        return tb.measure(name, args, build)
    except Exception as e:  # noqa: BLE001 (anything tb.measure does not catch still leaves a row)
        traceback.print_exc()
        return {"model": name, "input": "-", "error": f"{type(e).__name__}: {e}"}


def cells(row):
    if "cycles" not in row:
        return [row["model"], row["input"]] + ["-"] * 7 + [tb.short(row.get("error", ""))]
    diff = tb.differ_cell(row)
    return [row["model"], row["input"], f"{row['macs'] / 1e9:.2f} G", tb.number(row["cycles"]),
            tb.number(row["bound"]), f"{row['cycles_over_bound']:.2f}", row["limited_by"],
            f"{row['host_ops']} / {row['ops']}", f"{row['compile_s']:.1f}", diff]


def geomean(rows):
    """(geometric mean of cycles / bound, how many models) over the rows that compiled."""
    ratios = [r["cycles_over_bound"] for r in rows if "cycles" in r]
    return zoo_perf.geomean(ratios), len(ratios)


def print_table(rows, hw):
    print(f"\nCNNs at real resolution on {hw} (bench/cnns.py)\n")
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + " --- |" * len(COLUMNS))
    for row in rows:
        print("| " + " | ".join(cells(row)) + " |")
    mean, count = geomean(rows)
    print(f"\ngeometric mean of cycles/bound over the {count} of {len(rows)} models that compiled: {mean:.2f}")
    for row in rows:
        if row.get("build_s") is not None:
            print(f"{row['model']}: package built in {row['build_s']:.0f} s")


def save(path, hw, rows):
    """OUT/results.json: {preset: {model: row}}, this run's rows replacing earlier ones."""
    try:
        results = json.loads(path.read_text())
    except (OSError, ValueError):
        results = {}
    results.setdefault(hw, {}).update({r["model"]: r for r in rows})
    path.write_text(json.dumps(results, indent=1) + "\n")


def main():
    args = tb.parse_args(__doc__, ROOT / "build" / "cache" / "cnns", MODELS)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.names or MODELS:
        rows.append(measure(name, args))
        save(args.out / "results.json", args.hw, rows)
    print_table(rows, args.hw)
    sys.exit(1 if any("error" in r or r.get("differ") for r in rows) else 0)


if __name__ == "__main__":
    main()
