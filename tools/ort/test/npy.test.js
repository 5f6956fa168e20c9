'use strict';
// Round trips of the .npy reader/writer; run with `node --test tools/ort/test`.

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { readNpy, writeNpy } = require('../npy');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'npy-test-'));

const CASES = [
  ['int8', Int8Array.from([-128, -1, 0, 127, 5, 6]), [2, 3]],
  ['uint8', Uint8Array.from([0, 255, 7]), [3]],
  ['int32', Int32Array.from([-(2 ** 31), 2 ** 31 - 1, 0, 42]), [2, 2]],
  ['int64', BigInt64Array.from([-(2n ** 63n), 2n ** 63n - 1n]), [2, 1]],
  ['float32', Float32Array.from([1.5, -0.25, NaN, Infinity]), [1, 1, 2, 2]],
  ['float32', Float32Array.from([3.25]), []],
];

for (const [type, data, dims] of CASES) {
  test(`${type} [${dims}] round trip`, () => {
    const file = path.join(tmp, `${type}_${dims.length}.npy`);
    writeNpy(file, type, dims, data);
    const bytes = fs.readFileSync(file);
    const headerLen = bytes.readUInt16LE(8);
    assert.strictEqual((10 + headerLen) % 64, 0, 'data must start 64-byte aligned');
    const t = readNpy(file);
    assert.strictEqual(t.type, type);
    assert.deepStrictEqual(t.dims, dims);
    assert.deepStrictEqual(Array.from(t.data), Array.from(data));
  });
}

test('rejects Fortran order and unknown dtypes', () => {
  const header = (h) => {
    const text = h.padEnd(117) + '\n';
    const pre = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length, 0]);
    return Buffer.concat([pre, Buffer.from(text, 'latin1'), Buffer.alloc(16)]);
  };
  const f = path.join(tmp, 'bad.npy');
  fs.writeFileSync(f, header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }"));
  assert.throws(() => readNpy(f), /Fortran/);
  fs.writeFileSync(f, header("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }"));
  assert.throws(() => readNpy(f), /unsupported dtype/);
});
