#!/usr/bin/python3
"""Models outside the zoo, built with the zoo's recipe and checked like it.

usage: /usr/bin/python3 bench/unseen_models.py [--systole BIN] [--out DIR] [NAME ...]

The zoo (models/build_models.py) is what the project develops against; these
torchvision architectures were never compiled before their first run here
(2026-11-25), so they stand for "a user's model": random weights with
re-estimated BatchNorm statistics, quantized by models/systole_models (QDQ
and QOperator), ORT references, then tests/e2e/check_zoo_model.py (both
forms, default-32x32 and edge-16x16, functional and cycle; bit-exact).
Then tests/e2e/check_placement.py requires at least 99% of each model's
MACs on the NPU (issue 16's figure for CNNs, detectors and segmentation).
unet_tiny and deconv_head are written here (no torchvision model upsamples
with ConvTranspose): a two-level U-Net whose decoder upsamples by
ConvTranspose 2/2 and concatenates the skips, and a CenterNet-style head,
a ResNet-18 trunk with two ConvTranspose 4/2 (pads 1) + ReLU upsamplings.
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
import torch  # noqa: E402
import torchvision  # noqa: E402
from systole_models import torchvision_models as tvm  # noqa: E402

tv = torchvision.models
nn = torch.nn


def conv_bn_relu(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())


class UNetTiny(nn.Module):
    """Ronneberger et al.'s U-Net at two levels and 16 base channels."""

    def __init__(self):
        super().__init__()
        self.e1, self.e2, self.mid = conv_bn_relu(3, 16), conv_bn_relu(16, 32), conv_bn_relu(32, 64)
        self.pool = nn.MaxPool2d(2)
        self.up2, self.d2 = nn.ConvTranspose2d(64, 32, 2, stride=2), conv_bn_relu(64, 32)
        self.up1, self.d1 = nn.ConvTranspose2d(32, 16, 2, stride=2), conv_bn_relu(32, 16)
        self.head = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        e1 = self.e1(x)
        e2 = self.e2(self.pool(e1))
        m = self.mid(self.pool(e2))
        d2 = self.d2(torch.cat([self.up2(m), e2], 1))
        return self.head(self.d1(torch.cat([self.up1(d2), e1], 1)))


class DeconvHead(nn.Module):
    """CenterNet's ResNet variant: a trunk to layer3, ConvTranspose 4/2 upsampling."""

    def __init__(self):
        super().__init__()
        r = tv.resnet18(weights=None)
        self.trunk = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool, r.layer1, r.layer2, r.layer3)
        self.up = nn.Sequential(nn.ConvTranspose2d(256, 128, 4, stride=2, padding=1, bias=False), nn.ReLU(),
                                nn.ConvTranspose2d(128, 64, 4, stride=2, padding=1, bias=False), nn.ReLU())
        self.head = nn.Sequential(nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 4, 1))

    def forward(self, x):
        return self.head(self.up(self.trunk(x)))


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
    "unet_tiny": (UNetTiny, 64, "bench/unseen_models.py UNetTiny()"),
    "deconv_head": (DeconvHead, 64, "bench/unseen_models.py DeconvHead()"),
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
        failed |= subprocess.run([sys.executable, str(ROOT / "tests" / "e2e" / "check_placement.py"),
                                  args.systole, str(folder), str(args.out / f"placement_{name}"),
                                  "--min-npu-mac-percent", "99"]).returncode
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
