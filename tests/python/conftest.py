"""Shared fixtures of the Python API tests (ctest: python.*).

The package is imported from PYTHONPATH (build/python, set by ctest); a
missing package is a failure, not a skip."""
import os

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIGITS = os.path.join(ROOT, "models", "digits")


@pytest.fixture(scope="session")
def digits_qdq():
    return os.path.join(DIGITS, "digits_int8_qdq.onnx")


@pytest.fixture(scope="session")
def digits_inputs():
    return [np.load(os.path.join(DIGITS, "inputs", "input_%d.npy" % i))
            for i in range(3)]


@pytest.fixture(scope="session")
def digits_refs():
    return [np.load(os.path.join(DIGITS, "ref_qdq", "output_%d.npy" % i))
            for i in range(3)]


@pytest.fixture(scope="session")
def digits_program(digits_qdq):
    import systole
    return systole.compile(digits_qdq, hw="default-32x32")
