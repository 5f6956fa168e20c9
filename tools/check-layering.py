#!/usr/bin/python3
"""Fails when an #include goes from a lower layer of the project to a higher one.

usage: tools/check-layering.py [ROOT]

The libraries form layers; a file may include headers of its own layer and
of the layers below it, never above (that is what keeps the library graph
free of cycles):

  top level   isa  <  simulator  <  runtime          isa  <  compiler  <  tools
              (rtl's C++ model sits on simulator; tools/ -- the CLI and the
              Python package -- and tests/, bench/ may include anything)
  compiler    Dialect  <  Conversion  <  Frontend, Target  <  Driver

A header's layer is its include path: systole/ISA and systole/Support are
isa/, systole/Simulator simulator/, systole/Runtime runtime/,
systole/{Dialect,Conversion,Frontend,Target,Driver} compiler/. Prints every
offending include with its file and line; exits 1 if there is one.
"""
import re
import sys
from pathlib import Path

# compiler/ and simulator/ are side by side above isa: neither may include the other.
TOP_OK = {
    "isa": {"isa"},
    "simulator": {"isa", "simulator"},
    "rtl": {"isa", "simulator", "rtl"},
    "runtime": {"isa", "simulator", "rtl", "runtime"},
    "compiler": {"isa", "compiler"},
}
INCLUDE_TOP = {"ISA": "isa", "Support": "isa", "Simulator": "simulator", "Rtl": "rtl",
               "Runtime": "runtime", "Dialect": "compiler", "Conversion": "compiler",
               "Frontend": "compiler", "Target": "compiler", "Driver": "compiler"}
COMPILER_RANK = {"Dialect": 0, "Conversion": 1, "Frontend": 2, "Target": 2, "Driver": 3}
# Frontend and Target are side by side: neither may include the other.
COMPILER_SIDE = {("Frontend", "Target"), ("Target", "Frontend")}

INCLUDE = re.compile(r'^\s*#\s*include\s+"systole/([A-Za-z]+)/')


def compiler_area(path):
    parts = path.parts
    if parts[1] == "lib":
        return parts[2]
    if parts[1] == "include" and len(parts) > 3:
        return parts[3]
    return None


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    bad = []
    for top, allowed in TOP_OK.items():
        for f in sorted((root / top).rglob("*")):
            if f.suffix not in (".cpp", ".h", ".inc") or not f.is_file():
                continue
            rel = f.relative_to(root)
            area = compiler_area(rel) if top == "compiler" else None
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m or m[1] not in INCLUDE_TOP:
                    continue
                target = INCLUDE_TOP[m[1]]
                if target not in allowed:
                    bad.append(f"{rel}:{n}: {top}/ includes systole/{m[1]}/ ({target}/, not below {top}/)")
                elif area in COMPILER_RANK and m[1] in COMPILER_RANK:
                    if (COMPILER_RANK[m[1]] > COMPILER_RANK[area] or (area, m[1]) in COMPILER_SIDE):
                        bad.append(f"{rel}:{n}: compiler {area} includes systole/{m[1]}/ "
                                   f"(not below {area})")
    for b in bad:
        print(b)
    print(f"{len(bad)} include(s) against the layering" if bad else "layering: no include goes upward")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
