#!/usr/bin/env node
'use strict';
// The project's numerical reference: runs an ONNX model with onnxruntime-node
// (CPU) and writes every output as .npy.
//
// The session is configured the way the NPU's integer results are defined:
// ORT's default graph optimization level (all) plus the session config entry
// session.qdqisint8allowed=1. On x86, ORT only fuses QDQ graphs with int8
// (not uint8) activations into its integer kernels (QLinearConv, QGemm,
// QLinearAdd, ...) when that entry is set; otherwise it runs
// DequantizeLinear -> float op -> QuantizeLinear, which rounds differently.

const fs = require('fs');
const path = require('path');
const { readNpy, writeNpy } = require('./npy');
const { graphNames, addGraphOutputs } = require('./onnx_outputs');
const { loadOrt } = require('./ort_locate');

const USAGE = `usage: node tools/ort/ort_run.js MODEL.onnx --input NAME=FILE.npy [...] --out-dir DIR [options]

  --input NAME=FILE.npy  feed a model input (NAME= may be omitted for single-input models)
  --out-dir DIR          where to write <output>.npy files and outputs.json
  --all-outputs          also output every intermediate tensor of the top-level graph (for
                         float models: on a QDQ model this exposes the float tensors inside
                         the DQ -> op -> Q groups, which stops ORT from fusing them)
  --int8-outputs         also output the quantized tensors of an int8 model: every node output
                         except those of DequantizeLinear and of the float ops fed by one;
                         keeps ORT's QDQ fusion intact (QDQ and QOperator forms alike)
  --output NAME          also output this intermediate tensor (repeatable)
  --no-qdq-int8          do not set session.qdqisint8allowed=1 (ORT's x86 default)
  --split-batch          run once per index of axis 0 of the inputs (each slice keeps a
                         leading dim of 1) and concatenate the outputs along axis 0;
                         for batch-1 models fed with N samples
  --optimized-model F    save the graph ORT actually executes (after fusion) to F
  --quiet                print nothing on success

Output files are named after the outputs with every character outside [A-Za-z0-9._-]
replaced by '_'; outputs.json maps each output name to its file, type and shape.`;

function parseArgs(argv) {
  const opts = { inputs: [], outputs: [], allOutputs: false, int8Outputs: false, qdqInt8: true, splitBatch: false, quiet: false };
  const need = (i) => {
    if (i + 1 >= argv.length) fail(`${argv[i]} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--input') opts.inputs.push(need(i++));
    else if (a === '--out-dir') opts.outDir = need(i++);
    else if (a === '--output') opts.outputs.push(need(i++));
    else if (a === '--optimized-model') opts.optimizedModel = need(i++);
    else if (a === '--all-outputs') opts.allOutputs = true;
    else if (a === '--int8-outputs') opts.int8Outputs = true;
    else if (a === '--no-qdq-int8') opts.qdqInt8 = false;
    else if (a === '--split-batch') opts.splitBatch = true;
    else if (a === '--quiet') opts.quiet = true;
    else if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else if (a.startsWith('-')) fail(`unknown option ${a}`);
    else if (opts.model === undefined) opts.model = a;
    else fail(`unexpected argument ${a}`);
  }
  if (!opts.model) fail('missing MODEL.onnx');
  if (!opts.outDir) fail('missing --out-dir');
  if (opts.allOutputs && opts.int8Outputs) fail('--all-outputs and --int8-outputs exclude each other');
  return opts;
}

function fail(msg) {
  process.stderr.write(`ort_run: ${msg}\n\n${USAGE}\n`);
  process.exit(2);
}

function sanitize(name) {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Unique file stems: sanitizing can map two names onto one ("a/b", "a_b"). */
function fileStems(names) {
  const used = new Set();
  return names.map((name) => {
    const base = sanitize(name);
    let stem = base;
    for (let k = 1; used.has(stem.toLowerCase()); k++) stem = `${base}__${k}`;
    used.add(stem.toLowerCase());
    return stem;
  });
}

/**
 * Tensors to add as outputs. ORT refuses to fuse a QDQ group whose inner float tensors are
 * graph outputs, so --int8-outputs skips DequantizeLinear outputs and the outputs of nodes
 * that read them; what remains are the int8 tensors the integer kernels produce. It also
 * skips both QuantizeLinear outputs of a Q -> DQ -> (Dropout/Identity) -> Q chain: exposing
 * either stops ORT's DoubleQDQPairsRemover, which quantizes such a chain once, to other
 * parameters.
 */
function extraOutputs(names, opts) {
  const inputNames = new Set(names.inputs);
  let extra = [];
  if (opts.allOutputs) {
    extra = names.nodeOutputs.filter((n) => !inputNames.has(n));
  } else if (opts.int8Outputs) {
    const dqOutputs = new Set(names.nodes.filter((n) => n.opType === 'DequantizeLinear').flatMap((n) => n.outputs));
    const readers = new Map();
    for (const n of names.nodes) for (const i of n.inputs) readers.set(i, [...(readers.get(i) || []), n]);
    const only = (t) => (readers.get(t) || []).length === 1 ? readers.get(t)[0] : null;
    const doubled = new Set();
    for (const q1 of names.nodes.filter((n) => n.opType === 'QuantizeLinear')) {
      const dq1 = only(q1.outputs[0]);
      if (!dq1 || dq1.opType !== 'DequantizeLinear') continue;
      let q2 = only(dq1.outputs[0]);
      if (q2 && (q2.opType === 'Dropout' || q2.opType === 'Identity')) q2 = only(q2.outputs[0]);
      if (q2 && q2.opType === 'QuantizeLinear') {
        doubled.add(q1.outputs[0]);
        doubled.add(q2.outputs[0]);
      }
    }
    extra = names.nodes
      .filter((n) => n.opType !== 'DequantizeLinear' && !n.inputs.some((i) => dqOutputs.has(i)))
      .flatMap((n) => n.outputs)
      .filter((t) => !doubled.has(t));
  }
  return [...extra, ...opts.outputs];
}

function readFeeds(ort, specs, modelInputs) {
  const feeds = {};
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    let name;
    let file;
    if (eq < 0) {
      if (modelInputs.length !== 1) fail(`--input ${spec}: the model has ${modelInputs.length} inputs, use NAME=FILE`);
      [name, file] = [modelInputs[0], spec];
    } else {
      [name, file] = [spec.slice(0, eq), spec.slice(eq + 1)];
    }
    if (!modelInputs.includes(name)) fail(`model has no input '${name}' (inputs: ${modelInputs.join(', ')})`);
    const t = readNpy(file);
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  const missing = modelInputs.filter((n) => !(n in feeds));
  if (missing.length) fail(`no --input for model input(s): ${missing.join(', ')}`);
  return feeds;
}

/** Slices sample i (keeping a leading dim of 1) out of every feed. */
function sliceFeeds(ort, feeds, i) {
  const out = {};
  for (const [name, t] of Object.entries(feeds)) {
    const per = t.data.length / t.dims[0];
    out[name] = new ort.Tensor(t.type, t.data.slice(i * per, (i + 1) * per), [1, ...t.dims.slice(1)]);
  }
  return out;
}

function batchSize(feeds) {
  const sizes = new Set(Object.values(feeds).map((t) => t.dims[0]));
  if (sizes.size !== 1 || [...sizes][0] === undefined) fail('--split-batch needs inputs that share a leading dimension');
  return [...sizes][0];
}

/** Concatenates per-sample results along axis 0 (or stacks them if an output has no leading 1). */
function concatResults(perSample) {
  const merged = {};
  for (const name of Object.keys(perSample[0])) {
    const parts = perSample.map((r) => r[name]);
    const first = parts[0];
    const dims = first.dims[0] === 1 ? [parts.length, ...first.dims.slice(1)] : [parts.length, ...first.dims];
    const data = new first.data.constructor(first.data.length * parts.length);
    parts.forEach((p, i) => data.set(p.data, i * first.data.length));
    merged[name] = { type: first.type, dims, data };
  }
  return merged;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { ort, version } = loadOrt();

  let modelBytes = fs.readFileSync(opts.model);
  const extra = extraOutputs(graphNames(modelBytes), opts);
  if (extra.length) {
    try {
      modelBytes = addGraphOutputs(modelBytes, extra);
    } catch (e) {
      fail(`${opts.model}: ${e.message}`);
    }
  }

  const sessionOptions = {
    // ORT's warnings (e.g. about serializing an NCHWc-optimized model) would drown --quiet runs.
    logSeverityLevel: opts.quiet ? 3 : 2,
    // graphOptimizationLevel deliberately left at ORT's default ('all').
    executionProviders: ['cpu'],
    extra: opts.qdqInt8 ? { session: { qdqisint8allowed: '1' } } : {},
  };
  if (opts.optimizedModel) sessionOptions.optimizedModelFilePath = path.resolve(opts.optimizedModel);
  const session = await ort.InferenceSession.create(modelBytes, sessionOptions);

  const feeds = readFeeds(ort, opts.inputs, session.inputNames);
  let results;
  if (opts.splitBatch) {
    const perSample = [];
    for (let i = 0, n = batchSize(feeds); i < n; i++) perSample.push(await session.run(sliceFeeds(ort, feeds, i)));
    results = concatResults(perSample);
  } else {
    results = await session.run(feeds);
  }

  fs.mkdirSync(opts.outDir, { recursive: true });
  const outNames = session.outputNames;
  const stems = fileStems(outNames);
  const index = [];
  outNames.forEach((name, k) => {
    const t = results[name];
    const file = `${stems[k]}.npy`;
    writeNpy(path.join(opts.outDir, file), t.type, t.dims, t.data);
    index.push({ name, file, type: t.type, shape: t.dims });
    if (!opts.quiet) console.log(`${name}: ${t.type}[${t.dims.join('x')}] -> ${file}`);
  });
  const summary = {
    model: path.resolve(opts.model),
    onnxruntime_node_version: version,
    session_config: opts.qdqInt8 ? { 'session.qdqisint8allowed': '1' } : {},
    graph_optimization_level: 'default',
    split_batch: opts.splitBatch,
    outputs: index,
  };
  fs.writeFileSync(path.join(opts.outDir, 'outputs.json'), JSON.stringify(summary, null, 2) + '\n');
}

main().catch((e) => {
  process.stderr.write(`ort_run: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
