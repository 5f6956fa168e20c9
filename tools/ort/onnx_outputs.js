'use strict';
// Adds graph outputs to a serialized ONNX ModelProto by editing the protobuf
// wire format directly. This lets ort_run.js expose intermediate tensors
// (--all-outputs for calibration, --output NAME for single tensors) without a
// protobuf library or a Python round trip.
//
// Only the fields we need are understood:
//   ModelProto.graph = 7            GraphProto.node = 1, .input = 11, .output = 12
//   NodeProto.input = 1, .output = 2, .op_type = 4, .domain = 7
//   ValueInfoProto.name = 1
// Everything else is copied byte for byte. Appending new entries to the end of
// GraphProto is valid protobuf: repeated fields may be split across the message.
// The new ValueInfoProto entries carry only a name; ONNX Runtime infers their
// type and shape from the producing node. Sub-graphs (If/Loop bodies) are not
// visited: only top-level node outputs can be exposed.

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

function readVarint(buf, pos) {
  let value = 0;
  let mul = 1;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated protobuf varint');
    const b = buf[pos++];
    value += (b & 0x7f) * mul; // arithmetic, not bit ops: lengths may exceed 2^31
    if ((b & 0x80) === 0) return [value, pos];
    mul *= 128;
  }
}

function encodeVarint(value) {
  const bytes = [];
  while (value >= 0x80) {
    bytes.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  bytes.push(value);
  return Buffer.from(bytes);
}

/** Iterates the fields of one message: {field, wire, start, valueStart, end}. */
function* fields(buf) {
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Math.floor(key / 8);
    const wire = key % 8;
    let valueStart = pos;
    if (wire === WIRE_VARINT) {
      [, pos] = readVarint(buf, pos);
    } else if (wire === WIRE_FIXED64) {
      pos += 8;
    } else if (wire === WIRE_FIXED32) {
      pos += 4;
    } else if (wire === WIRE_LEN) {
      let len;
      [len, valueStart] = readVarint(buf, pos);
      pos = valueStart + len;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
    if (pos > buf.length) throw new Error('truncated protobuf message');
    yield { field, wire, start, valueStart, end: pos };
  }
}

function lenField(field, payload) {
  return Buffer.concat([encodeVarint(field * 8 + WIRE_LEN), encodeVarint(payload.length), payload]);
}

function stringsOf(msg, fieldNo) {
  const out = [];
  for (const f of fields(msg)) {
    if (f.field === fieldNo && f.wire === WIRE_LEN) out.push(msg.toString('utf8', f.valueStart, f.end));
  }
  return out;
}

function findGraph(model) {
  let graph = null;
  for (const f of fields(model)) {
    if (f.field === 7 && f.wire === WIRE_LEN) graph = f;
  }
  if (!graph) throw new Error('ONNX model has no graph');
  return graph;
}

/**
 * Describes the top-level graph: {inputs, outputs, nodes: [{opType, domain, inputs, outputs}],
 * nodeOutputs} with nodes and nodeOutputs in graph order.
 */
function graphNames(modelBytes) {
  const g = findGraph(modelBytes);
  const graph = modelBytes.subarray(g.valueStart, g.end);
  const inputs = [];
  const outputs = [];
  const nodes = [];
  for (const f of fields(graph)) {
    if (f.wire !== WIRE_LEN) continue;
    const sub = graph.subarray(f.valueStart, f.end);
    if (f.field === 11) inputs.push(stringsOf(sub, 1)[0]);
    else if (f.field === 12) outputs.push(stringsOf(sub, 1)[0]);
    else if (f.field === 1) {
      nodes.push({
        opType: stringsOf(sub, 4)[0] || '',
        domain: stringsOf(sub, 7)[0] || '',
        inputs: stringsOf(sub, 1),
        outputs: stringsOf(sub, 2).filter((n) => n.length > 0),
      });
    }
  }
  const nodeOutputs = nodes.flatMap((n) => n.outputs);
  return { inputs, outputs, nodes, nodeOutputs };
}

/** Returns new model bytes whose graph also outputs `names` (already-present outputs are skipped). */
function addGraphOutputs(modelBytes, names) {
  const { outputs, nodeOutputs } = graphNames(modelBytes);
  const known = new Set(nodeOutputs);
  const present = new Set(outputs);
  const extra = [];
  for (const name of names) {
    if (present.has(name)) continue;
    if (!known.has(name)) throw new Error(`tensor '${name}' is not produced by any top-level node`);
    present.add(name);
    extra.push(lenField(12, lenField(1, Buffer.from(name, 'utf8'))));
  }
  if (extra.length === 0) return modelBytes;
  const g = findGraph(modelBytes);
  const graph = Buffer.concat([modelBytes.subarray(g.valueStart, g.end), ...extra]);
  return Buffer.concat([modelBytes.subarray(0, g.start), lenField(7, graph), modelBytes.subarray(g.end)]);
}

module.exports = { graphNames, addGraphOutputs };
