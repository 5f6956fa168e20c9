"""A small CNN trained on scikit-learn's 8x8 digits: the project's real-data model.

The data set ships inside scikit-learn (no download), trains in seconds on a
CPU, and gives a meaningful accuracy to check int8 inference against. The net
covers the ops of the bigger models at toy size: Conv+ReLU, MaxPool, a
residual Add, Flatten and Gemm.
"""

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import nn

from . import torch_export

INPUT_SHAPE = (1, 1, 8, 8)
SPLIT_SEED = 0
TRAIN_SEED = 0
TEST_FRACTION = 0.2
EPOCHS = 40
BATCH = 64


class DigitsNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)                       # 8x8 -> 4x4
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
        self.conv3 = nn.Conv2d(16, 32, 3, padding=1, stride=2)  # 4x4 -> 2x2
        self.fc = nn.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = torch.relu(x + self.conv2(x))                # residual: exercises Add(+ReLU)
        x = torch.relu(self.conv3(x))
        return self.fc(torch.flatten(x, 1))


def load_split():
    """Deterministic stratified split; images are float32 NCHW in [0, 1], labels int64."""
    data = load_digits()
    images = (data.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = data.target.astype(np.int64)
    return train_test_split(images, labels, test_size=TEST_FRACTION,
                            random_state=SPLIT_SEED, stratify=labels)


def train(x_train, y_train):
    torch.manual_seed(TRAIN_SEED)
    net = DigitsNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    x, y = torch.from_numpy(x_train), torch.from_numpy(y_train)
    gen = torch.Generator().manual_seed(TRAIN_SEED)
    for _ in range(EPOCHS):
        net.train()
        for idx in torch.randperm(len(x), generator=gen).split(BATCH):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
        sched.step()
    return net.eval()


def accuracy(logits, labels):
    return float((np.argmax(logits.reshape(len(labels), -1), axis=1) == labels).mean())


def build(path):
    """Trains and exports the float model; returns (onnx model, split, torch accuracy)."""
    x_train, x_test, y_train, y_test = load_split()
    net = train(x_train, y_train)
    with torch.no_grad():
        torch_acc = accuracy(net(torch.from_numpy(x_test)).numpy(), y_test)
    model = torch_export.export(net, INPUT_SHAPE, path)
    return model, (x_train, x_test, y_train, y_test), torch_acc


def describe():
    return (f"DigitsNet trained on sklearn load_digits (stratified {1 - TEST_FRACTION:.0%}/"
            f"{TEST_FRACTION:.0%} split, random_state={SPLIT_SEED}), Adam, {EPOCHS} epochs, "
            f"torch.manual_seed({TRAIN_SEED})")
