#!/usr/bin/python3
"""Rewrites the README's measured status figures from the benches' output.

usage: tools/update-readme-status.py [--check] [--skip-zoo]

Runs bench/resnet50.sh (ResNet-50 int8 on default-32x32: compile time,
cycle-accurate simulation wall time, cycles over the model bound) and
bench/zoo.py --perf-only --no-tune (the geometric mean of cycles / bound
over the zoo's CNNs on default-32x32 and edge-16x16, from the models
tools/setup.sh builds into build/cache/models), and writes their figures
between the `<!-- status:begin -->` and `<!-- status:end -->` markers of
README.md, with the commit they were measured on. --check exits 1 instead
of writing when the README's figures differ from the benches' (timings are
compared too, so run it on the machine that wrote them). Run it before a
release commit.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- status:begin -->", "<!-- status:end -->"


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{p.stdout}{p.stderr}")
    return p.stdout


def resnet50():
    out = run(["bash", "bench/resnet50.sh"])
    comp = re.search(r"compile: best of 3 wall ([\d.]+) s", out)
    sim = re.search(r"simulate: cycle-accurate with values, wall ([\d.]+) s .*?, (\d+) cycles", out)
    bound = re.search(r"bound: (\d+) cycles .*?cycles / bound = ([\d.]+)", out)
    util = re.search(r"MAC utilization ([\d.]+)%", out)
    if not (comp and sim and bound and util):
        sys.exit(f"bench/resnet50.sh printed something unexpected:\n{out}")
    cycles, roof = int(sim[2]), int(bound[1])
    return (f"* ResNet-50 int8 on default-32x32 (`bench/resnet50.sh`): compile "
            f"{float(comp[1]):.1f} s wall (one core), cycle-accurate simulation with "
            f"values {float(sim[1]):.1f} s wall, {cycles:,} cycles = "
            f"{cycles / roof:.4f}x the model bound max(MACs / PEs, compulsory bytes / "
            f"bandwidth) = {int(bound[1]):,} cycles (docs/energy.md), "
            f"{float(util[1]):.1f}% MAC utilization, host segments included.")


def zoo():
    out = run([sys.executable, "bench/zoo.py", "--perf-only", "--no-tune",
               "--out", str(ROOT / "build" / "cache" / "models")])
    parts = []
    for hw, n, g in re.findall(r"^(\S+): geomean cycles / bound over (\d+) CNNs: default ([\d.]+)",
                               out, re.M):
        parts.append(f"{float(g):.3f} on {hw}")
        count = n
    if not parts:
        sys.exit(f"bench/zoo.py printed no geomean:\n{out}")
    return (f"* Zoo performance (`bench/zoo.py --perf-only --no-tune`): geometric mean of cycles / "
            f"bound over the zoo's {count} CNNs " + " and ".join(parts) +
            " (per-model tables and their history: docs/measurements.md).")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--skip-zoo", action="store_true", help="keep the README's zoo line as it is")
    a = ap.parse_args()
    readme = (ROOT / "README.md").read_text()
    if BEGIN not in readme or END not in readme:
        sys.exit(f"README.md has no {BEGIN} ... {END} block")
    head, rest = readme.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    commit = run(["git", "rev-parse", "--short", "HEAD"]).strip()
    lines = [resnet50()]
    if a.skip_zoo:
        lines += [ln for ln in old.splitlines() if ln.startswith("* Zoo performance")]
    else:
        lines.append(zoo())
    block = (f"\n<!-- written by tools/update-readme-status.py from the benches at {commit}; "
             f"do not edit by hand -->\n" + "\n".join(lines) + "\n")
    strip = lambda s: re.sub(r"<!-- written by .*? -->\n", "", s)
    if a.check:
        if strip(block) != strip(old):
            print("README status differs from the benches:\n--- README\n" + strip(old) +
                  "--- benches\n" + strip(block))
            return 1
        print("README status equals the benches' output")
        return 0
    (ROOT / "README.md").write_text(head + BEGIN + block + END + tail)
    print(block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
