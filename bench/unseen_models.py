#!/usr/bin/python3
"""Models outside the zoo, built with the zoo's recipe and checked like it.

usage: /usr/bin/python3 bench/unseen_models.py [--systole BIN] [--out DIR] [NAME ...]

The zoo (models/build_models.py) is what the project develops against; these
torchvision architectures were never compiled before their first run here
(2026-11-25), so they stand for "a user's model": random weights with
re-estimated BatchNorm statistics, quantized by models/systole_models (QDQ
and QOperator), ORT references, then tests/e2e/check_zoo_model.py (both
forms, default-32x32 and edge-16x16, functional and cycle; bit-exact).
Results in docs/models.md ("Models outside the zoo").
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "models"))
import build_models  # noqa: E402
import torchvision  # noqa: E402
from systole_models import torchvision_models as tvm  # noqa: E402

tv = torchvision.models
UNSEEN = {
    "regnet_x_400mf": (lambda: tv.regnet_x_400mf(weights=None), 64, "regnet_x_400mf(weights=None)"),
    "shufflenet_v2_x1_0": (lambda: tv.shufflenet_v2_x1_0(weights=None), 64,
                           "shufflenet_v2_x1_0(weights=None)"),
    "deeplabv3_mobilenet_v3_large": (
        lambda: tvm.FirstOutput(tv.segmentation.deeplabv3_mobilenet_v3_large(
            weights=None, weights_backbone=None, aux_loss=False)), 96,
        "segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None)['out']"),
    "efficientnet_b1": (lambda: tv.efficientnet_b1(weights=None), 64, "efficientnet_b1(weights=None)"),
    "resnet34": (lambda: tv.resnet34(weights=None), 64, "resnet34(weights=None)"),
    "mnasnet1_0": (lambda: tv.mnasnet1_0(weights=None), 64, "mnasnet1_0(weights=None)"),
    # 224: AdaptiveAvgPool2d(6) exports only when 6 divides the feature map.
    "alexnet": (lambda: tv.alexnet(weights=None), 224, "alexnet(weights=None)"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systole", default=str(ROOT / "build" / "bin" / "systole"))
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "cache" / "unseen")
    parser.add_argument("names", nargs="*", choices=[[]] + list(UNSEEN), default=[])
    args = parser.parse_args()
    tvm.ARCHITECTURES.update(UNSEEN)
    failed = 0
    for name in args.names or list(UNSEEN):
        folder = args.out / name
        folder.mkdir(parents=True, exist_ok=True)
        start = time.time()
        build_models.build_torchvision(name, folder)
        print(f"{name}: built in {time.time() - start:.0f} s", flush=True)
        failed |= subprocess.run([sys.executable, str(ROOT / "tests" / "e2e" / "check_zoo_model.py"),
                                  args.systole, str(folder), str(args.out / f"work_{name}")]).returncode
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
