#!/usr/bin/python3
"""Replays the reduced graphs tools/fuzz-models wrote (issue 17): each case
directory under DIR (model.onnx, input_*.npy, ref_*.npy = ONNX Runtime's
outputs, case.json, hw.json) is compiled for its config, run on the
functional backend and on the backend it failed on, and compared with the
stored ORT outputs (bit-exact; 1 LSB where case.json marks an output bounded).
A case whose correct outcome is a compile error (a config too small for the
graph, where the compiler used to crash) says so in case.json: "info":
{"expect_error": TEXT}; compiling it must then fail with exit status 1 (no
signal, no crash) and print TEXT.

usage: check_regressions.py SYSTOLE DIR WORK  (cases are copied to WORK first)
"""
import shutil
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
from fuzz_models import harness  # noqa: E402


def expect_compile_error(case, systole, hw, text):
    """None if `systole compile` exits 1 with `text` in its output, else why not."""
    rc, err = harness._run([systole, "compile", str(case / "model.onnx"), "-o",
                            str(case / "model.npu"), "--hw", hw, "-q"])
    if rc == 1 and text in err:
        return None
    return f"expected compile to fail (exit 1) with '{text}', got rc={rc}: {harness._last_line(err)}"


def main():
    systole, root, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    cases = []
    for src in sorted(p.parent for p in root.glob("*/case.json")):
        dst = work / src.name
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst)
        cases.append(dst)
    passed = failed = 0
    for case in cases:
        rec, _, hw = harness.load_case(case)
        expect = rec["info"].get("expect_error")
        if expect:
            why = expect_compile_error(case, systole, hw, expect)
            if why:
                failed += 1
                print(f"FAIL {case.name} (compile) [expect-error]: {why}")
            else:
                passed += 1
            continue
        refs = {p.name[len("ref_"):-4]: np.load(p) for p in sorted(case.glob("ref_*.npy"))}
        backends = ["functional"]
        be = rec["info"].get("failure", {}).get("backend", "functional")
        if be != "functional":
            backends.append(be)
        for be in backends:
            res = harness.check_case(case, systole, be, refs=refs, float_ops=[])
            if res.status == "passed":
                passed += 1
            else:
                failed += 1
                print(f"FAIL {case.name} ({be}) [{res.kind}]: {res.msg}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
