'use strict';
// Saves the graph ONNX Runtime builds at graphOptimizationLevel 'basic':
// constant folding (shape arithmetic of static shapes included), redundant
// node elimination and Conv+BatchNormalization/Add/Mul folding, all in
// standard ONNX ops. It plays the part of onnx-simplifier (not installable
// here) for models other toolchains exported.
// usage: node ort_simplify.js IN.onnx OUT.onnx

const path = require('path');
const { loadOrt } = require(path.join(__dirname, '..', '..', 'tools', 'ort', 'ort_locate.js'));

async function main() {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    process.stderr.write('usage: node ort_simplify.js IN.onnx OUT.onnx\n');
    process.exit(2);
  }
  const { ort } = loadOrt();
  await ort.InferenceSession.create(path.resolve(input), {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'basic',
    optimizedModelFilePath: path.resolve(output),
  });
}

main().catch((e) => {
  process.stderr.write(`ort_simplify: ${e.message || e}\n`);
  process.exit(1);
});
