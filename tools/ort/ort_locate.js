'use strict';
// Finds and loads the project's onnxruntime-node. It is not a global install:
// the project's setup script puts it under build/ort so that every machine
// (developers' and CI's) runs the very same ORT version as the reference.

const fs = require('fs');
const path = require('path');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const ORT_VERSION = '1.23.2';

function ortDir() {
  return process.env.SYSTOLE_ORT_DIR || path.join(REPO_ROOT, 'build', 'ort');
}

/** Returns the onnxruntime-node module, or exits with instructions when it is missing. */
function loadOrt() {
  const dir = ortDir();
  const pkg = path.join(dir, 'node_modules', 'onnxruntime-node');
  if (!fs.existsSync(path.join(pkg, 'package.json'))) {
    process.stderr.write(
      `error: onnxruntime-node not found in ${dir} (looked for ${pkg}).\n` +
        `Run tools/setup.sh (the project's setup script installs it into build/ort), or point SYSTOLE_ORT_DIR\n` +
        `at a directory where it is installed, e.g.:\n` +
        `  npm install --ignore-scripts --no-audit --no-fund --prefix ${dir} onnxruntime-node@${ORT_VERSION}\n`,
    );
    process.exit(2);
  }
  const ort = require(pkg);
  const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;
  return { ort, version, dir };
}

module.exports = { loadOrt, ortDir, ORT_VERSION, REPO_ROOT };
