"""Differential testing of the toolchain against ONNX Runtime (issue 17): random
quantized QDQ graphs (graphgen), random hardware configs (hwgen), the
compile/run/compare harness (harness) and delta debugging of failures (reduce)."""
