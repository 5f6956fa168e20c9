"""Writes hostile .npy files into argv[1]: headers a stranger could write."""
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def npy(name, header, payload=b"", major=1):
    h = header.encode("latin1")
    pad = 64 - (10 + len(h) + 1) % 64
    h += b" " * pad + b"\n"
    length = struct.pack("<H" if major == 1 else "<I", len(h))
    with open(os.path.join(out, name + ".npy"), "wb") as fh:
        fh.write(b"\x93NUMPY" + bytes([major, 0]) + length + h + payload)


# 2^40 x 2^40 elements declared, 16 bytes present.
npy("huge-shape", "{'descr': '|i1', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", b"\0" * 16)
# Product of the dimensions overflows 64 bits.
npy("overflow-shape", "{'descr': '|i1', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", b"\0" * 16)
npy("negative-shape", "{'descr': '|i1', 'fortran_order': False, 'shape': (-6, 4), }", b"\0" * 24)
npy("big-endian", "{'descr': '>i4', 'fortran_order': False, 'shape': (6, 4), }", b"\0" * 96)
npy("object-dtype", "{'descr': '|O', 'fortran_order': False, 'shape': (6, 4), }", b"\0" * 192)
npy("fortran", "{'descr': '|i1', 'fortran_order': True, 'shape': (6, 4), }", b"\0" * 24)
npy("short-payload", "{'descr': '|i1', 'fortran_order': False, 'shape': (6, 4), }", b"\0" * 5)
npy("not-a-dict", "[1, 2, 3]")
npy("header-past-eof", "{'descr': '|i1', 'fortran_order': False, 'shape': (6, 4), }", b"", major=2)
with open(os.path.join(out, "header-past-eof.npy"), "r+b") as fh:
    fh.seek(8)
    fh.write(struct.pack("<I", 0xFFFFFFF0))
