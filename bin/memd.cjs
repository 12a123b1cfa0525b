#!/usr/bin/env node
/**
 * The daemon's command: package.json's `memd` and `npm start`, the systemd unit's ExecStart and
 * memctl's autostart run this. It runs dist/daemon/memd.cjs, the daemon as one CommonJS file
 * (scripts/bundle-quick.mjs, issue 34): as ~320 ES modules it took node a tenth of a second more to
 * load at every start, out of the second in which a first start owes the newest sessions. Where
 * node cannot require an ES module (before 20.19: chokidar is one) or the bundle is absent, it
 * runs the same daemon from its ES modules, dist/daemon/main.js.
 */
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const DAEMON = join(__dirname, '..', 'dist', 'daemon');
const BUNDLE = join(DAEMON, 'memd.cjs');
const MAIN = join(DAEMON, 'main.js');

function notBuilt(why) {
  process.stderr.write(`memd is not built: ${why} (run npm run build in ${join(__dirname, '..')})\n`);
  process.exitCode = 1;
}

if (process.features.require_module === true && existsSync(BUNDLE)) require(BUNDLE);
else if (existsSync(MAIN)) import(pathToFileURL(MAIN).href).catch((error) => notBuilt(String(error)));
else notBuilt(`${MAIN} is missing`);
