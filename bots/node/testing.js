// What the Node tests share: the project's `arena` binary (ARENA, or target/debug/arena, or
// target/release/arena). It lives outside test/ so that the test runner does not run it.
'use strict';

const assert = require('node:assert');
const fs = require('fs');
const path = require('path');

function arenaBinary() {
  const root = path.join(__dirname, '..', '..');
  const candidates = [process.env.ARENA, path.join(root, 'target/debug/arena'), path.join(root, 'target/release/arena')];
  const found = candidates.find((p) => p && fs.existsSync(p));
  assert.ok(found, `no arena binary: build it (cargo build -p arena) or set ARENA; tried ${candidates.join(', ')}`);
  return found;
}

module.exports = { arenaBinary };
