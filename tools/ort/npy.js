'use strict';
// Minimal reader/writer for NumPy .npy files (format versions 1.0-3.0 on
// read, 1.0 on write), limited to the C-ordered little-endian dtypes the
// project exchanges with ONNX Runtime. Kept dependency-free on purpose: the
// reference runner must work with nothing but node and onnxruntime-node.

const fs = require('fs');

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // "\x93NUMPY"

// npy descr <-> ORT tensor type <-> typed array constructor.
const DTYPES = [
  { descr: '|i1', ort: 'int8', array: Int8Array },
  { descr: '|u1', ort: 'uint8', array: Uint8Array },
  { descr: '<i4', ort: 'int32', array: Int32Array },
  { descr: '<i8', ort: 'int64', array: BigInt64Array },
  { descr: '<f4', ort: 'float32', array: Float32Array },
  { descr: '|b1', ort: 'bool', array: Uint8Array },
];

// NumPy spells single-byte types either with '|' or with '<'/'='.
function findByDescr(descr) {
  const norm = descr.length === 3 && descr[2] === '1' ? '|' + descr.slice(1) : descr.replace(/^=/, '<');
  return DTYPES.find((d) => d.descr === norm);
}

function findByOrtType(type) {
  return DTYPES.find((d) => d.ort === type);
}

// Parses the Python-literal header dict, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }
function parseHeader(text, file) {
  const descr = /'descr'\s*:\s*'([^']+)'/.exec(text);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text);
  if (!descr || !fortran || !shape) throw new Error(`${file}: malformed .npy header: ${text}`);
  if (fortran[1] === 'True') throw new Error(`${file}: Fortran-ordered arrays are not supported`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length > 0).map(Number);
  return { descr: descr[1], dims };
}

/** Reads a .npy file; returns {type (ORT type name), dims, data (typed array)}. */
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || !buf.subarray(0, 6).equals(MAGIC)) throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  let headerLen;
  let headerStart;
  if (major === 1) {
    headerLen = buf.readUInt16LE(8);
    headerStart = 10;
  } else if (major === 2 || major === 3) {
    headerLen = buf.readUInt32LE(8);
    headerStart = 12;
  } else {
    throw new Error(`${file}: unsupported .npy version ${major}`);
  }
  const { descr, dims } = parseHeader(buf.toString('latin1', headerStart, headerStart + headerLen), file);
  const dtype = findByDescr(descr);
  if (!dtype) throw new Error(`${file}: unsupported dtype '${descr}' (supported: ${DTYPES.map((d) => d.descr).join(' ')})`);
  const count = dims.reduce((a, b) => a * b, 1);
  const dataStart = headerStart + headerLen;
  const byteLen = count * dtype.array.BYTES_PER_ELEMENT;
  if (buf.length < dataStart + byteLen) throw new Error(`${file}: truncated data`);
  // Copy into a fresh, aligned buffer: typed arrays cannot view unaligned offsets.
  const data = new dtype.array(count);
  Buffer.from(data.buffer).set(buf.subarray(dataStart, dataStart + byteLen));
  return { type: dtype.ort, dims, data };
}

/** Writes a typed array with the given ORT type and dims as a version 1.0 .npy file. */
function writeNpy(file, type, dims, data) {
  const dtype = findByOrtType(type);
  if (!dtype) throw new Error(`cannot write tensor of type '${type}' to .npy`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${dtype.descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // Pad with spaces so that the data starts on a 64-byte boundary, then '\n'.
  const unpadded = MAGIC.length + 4 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const pre = Buffer.alloc(MAGIC.length + 4);
  MAGIC.copy(pre, 0);
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const typed = data instanceof dtype.array ? data : dtype.array.from(data);
  const body = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

module.exports = { readNpy, writeNpy, DTYPES };
