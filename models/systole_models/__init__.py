"""Tooling that makes Systole's test models: export, quantization, ORT references.

Run the entry points with Debian's /usr/bin/python3 (it has torch, torchvision,
onnx and scikit-learn); nothing here is part of the compiled product.
"""
