'use strict';
// Graph-output editing on the committed digits models; run with `node --test tools/ort/test`.

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { graphNames, addGraphOutputs } = require('../onnx_outputs');

const DIGITS = path.join(__dirname, '..', '..', '..', 'models', 'digits');
const qdq = fs.readFileSync(path.join(DIGITS, 'digits_int8_qdq.onnx'));

test('lists inputs, outputs and nodes', () => {
  const g = graphNames(qdq);
  assert.deepStrictEqual(g.inputs, ['input']);
  assert.deepStrictEqual(g.outputs, ['output']);
  assert.ok(g.nodes.some((n) => n.opType === 'QuantizeLinear' && n.outputs[0] === 'output_quantized'));
  assert.strictEqual(g.nodeOutputs.length, g.nodes.reduce((k, n) => k + n.outputs.length, 0));
});

test('adds outputs once and keeps everything else', () => {
  const edited = addGraphOutputs(qdq, ['output_quantized', 'input_quantized', 'output_quantized', 'output']);
  const before = graphNames(qdq);
  const after = graphNames(edited);
  assert.deepStrictEqual(after.outputs, ['output', 'output_quantized', 'input_quantized']);
  assert.deepStrictEqual(after.nodes, before.nodes);
  assert.strictEqual(addGraphOutputs(qdq, ['output']), qdq);
});

test('rejects tensors no node produces', () => {
  assert.throws(() => addGraphOutputs(qdq, ['no_such_tensor']), /not produced/);
});
