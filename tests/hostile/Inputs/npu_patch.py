"""Rewrites fields of a .npu in place of a hostile producer: the format
version (root table field 0, struct {uint16 major, minor}) or the file
identifier (bytes 4..8). Usage: npu_patch.py IN OUT version MAJOR MINOR
                               npu_patch.py IN OUT identifier XXXX"""
import struct
import sys

src, dst, what = sys.argv[1:4]
data = bytearray(open(src, "rb").read())
if what == "version":
    root = struct.unpack_from("<I", data, 0)[0]
    vtable = root - struct.unpack_from("<i", data, root)[0]
    vt_size = struct.unpack_from("<H", data, vtable)[0]
    assert vt_size >= 6, "no version field"
    field = struct.unpack_from("<H", data, vtable + 4)[0]
    assert field, "version field absent"
    struct.pack_into("<HH", data, root + field, int(sys.argv[4]), int(sys.argv[5]))
elif what == "identifier":
    data[4:8] = sys.argv[4].encode()[:4].ljust(4, b"\0")
else:
    sys.exit("unknown patch " + what)
open(dst, "wb").write(data)
