// `npm run docs:screenshot`: docs/report-example.png, the HTML report of the recorded `compactions`
// session (two compactions) as memctl exports it from a real memd, rendered by Debian's headless
// Chromium offline (test/helpers/chromium.mjs). Not part of the tests: run it after changing how
// the report looks, and commit the picture.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_PATH, chromiumAvailable, launchChromium, openOffline } from '../test/helpers/chromium.mjs';
import { MEMCTL_MAIN, makeSandbox, ROOT, STEP_DEADLINE_MS } from './lib.js';
import { caughtUp, startDaemon } from './scale.js';

const SCENARIO = join(ROOT, 'test/fixtures/claude-code/compactions');
const SESSION = 'cf9834e4';
const OUTPUT = join(ROOT, 'docs/report-example.png');
/** Wide enough for the two-column parts, tall enough for the figures and the conversation's start. */
const VIEWPORT = { width: 1100, height: 1750 };

if (!chromiumAvailable()) {
  console.error(`docs:screenshot: no Chromium at ${CHROMIUM_PATH}; apt-get install chromium (or set MEMD_CHROMIUM)`);
  process.exit(2);
}
const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
const sandbox = makeSandbox();
mkdirSync(sandbox.env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
cpSync(join(SCENARIO, 'projects'), sandbox.env.MEMD_PROJECTS_DIR, { recursive: true });
let running;
let browser;
try {
  running = await startDaemon(createClient, sandbox.env);
  await caughtUp(running.client, 1);
  const report = join(sandbox.root, 'report.html');
  const run = spawnSync(process.execPath, [MEMCTL_MAIN, 'export', SESSION, '--format', 'html', '--out', report], {
    env: sandbox.env,
    encoding: 'utf8',
    timeout: STEP_DEADLINE_MS,
  });
  if (run.status !== 0) throw new Error(`memctl export failed (${run.status}): ${run.stderr}`);
  browser = await launchChromium();
  const url = pathToFileURL(report).href;
  const { page, seen } = await openOffline(browser, url, { viewport: VIEWPORT });
  if (seen.consoleErrors.length > 0 || seen.blocked.length > 0)
    throw new Error(`the report did not load cleanly: ${JSON.stringify(seen)}`);
  const temp = `${OUTPUT}.${process.pid}.tmp.png`;
  await page.screenshot({ path: temp });
  renameSync(temp, OUTPUT);
  console.log(`wrote ${OUTPUT}`);
} finally {
  await browser?.close();
  running?.client.close();
  await running?.daemon.stop();
  sandbox.cleanup();
}
