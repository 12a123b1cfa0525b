/**
 * The HTML report in a real browser (issue 18's acceptance): a real memd exports a session with
 * two compactions and a prompt that tries to run a script; `memctl export --format html --out`
 * writes the file, and Debian's headless Chromium, offline, loads it from file://. No console
 * error, no request for anything else, the chart with its threshold and compaction marks, the
 * conversation with tool calls that open and close, and the prompt's script inert, with
 * JavaScript on and off.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { CHROMIUM_PATH, chromiumAvailable, launchChromium, openOffline } from '../helpers/chromium.mjs';
import { createClient } from '../helpers/client.js';
import { type Manifest, manifest } from '../helpers/fixtures.js';
import { appendPrompt, copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

/** The scenario's manifest, with the prompts its recording typed. */
const compactions = manifest('compactions') as Manifest & { prompts: { text: string }[] };
/** A script that would change the title, and an image whose error handler would mark the page. */
const HOSTILE_PROMPT =
  'Please check <script>document.title = "pwned"</script> and <img src=x onerror="document.body.dataset.pwned = 1"> too.';
const BROWSER_TEST_MS = 90_000;

if (!chromiumAvailable()) {
  process.stderr.write(
    `export-report.test.ts: skipped, no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, as .ci/run does, or set MEMD_CHROMIUM)\n`,
  );
}

describe.skipIf(!chromiumAvailable())('the HTML report in headless Chromium', () => {
  let sandbox: Sandbox;
  let browser: Browser;
  let url: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['compactions']);
    const transcript = join(sandbox.projectsDir, compactions.transcript.replace(/^projects\//, ''));
    appendPrompt(transcript, compactions.sessionId, HOSTILE_PROMPT, '00000000-0000-4000-8000-00000000e0e1');
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    const client: Client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(async () => {
        const { ingest } = await client.daemonStatus();
        return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
      }, 'ingest to catch up');
    } finally {
      client.close();
    }
    const out = join(sandbox.root, 'report.html');
    const run = await runMemctl(sandbox, [
      'export',
      compactions.sessionId.slice(0, 8),
      '--format',
      'html',
      '--out',
      out,
    ]);
    expect(run, run.stderr).toMatchObject({ code: 0 });
    url = pathToFileURL(out).href;
    browser = await launchChromium();
  }, BROWSER_TEST_MS);

  afterAll(async () => {
    await browser?.close();
  });

  it(
    'loads offline with no console error and no request for anything but itself',
    async () => {
      const { context, page, seen } = await openOffline(browser, url);
      try {
        expect(seen.consoleErrors).toEqual([]);
        expect(seen.pageErrors).toEqual([]);
        expect(seen.blocked).toEqual([]);
        expect(seen.requests).toEqual([url]);
        // Nothing in the document could load anything.
        expect(await page.locator('script, link, img, iframe, object, embed, [src], [href]').count()).toBe(0);
        expect(await page.title()).toContain('memd report');
      } finally {
        await context.close();
      }
    },
    BROWSER_TEST_MS,
  );

  it(
    'draws the chart: a point per response, the threshold line, a mark at each compaction',
    async () => {
      const { context, page } = await openOffline(browser, url);
      try {
        const chart = page.locator('svg#context-chart');
        expect(await chart.isVisible()).toBe(true);
        const box = await chart.boundingBox();
        expect(box?.width).toBeGreaterThan(400);
        expect(await chart.locator('circle.context-dot').count()).toBe(compactions.usage.main.assistantMessages);
        expect(await chart.locator('line.threshold').count()).toBe(1);
        // claude-opus-4-8: 1M by default, no auto-compact window: Claude Code compacts when the API refuses, at the window (issue 28).
        expect(await chart.locator('line.threshold').getAttribute('data-tokens')).toBe('1000000');
        expect(await chart.locator('text.threshold-label').textContent()).toBe('window 1M');
        expect(await page.locator('figure.chart figcaption').textContent()).toContain(
          'window 1,000,000 tokens (compacts when the API refuses the request)',
        );
        expect(await chart.locator('line.compaction').count()).toBe(compactions.compactions.count);
        // The marks stand between the responses around them, within the plot.
        const xs = await chart
          .locator('line.compaction')
          .evaluateAll((lines) => lines.map((line) => Number(line.getAttribute('x1'))));
        const dots = await chart
          .locator('circle.context-dot')
          .evaluateAll((circles) => circles.map((circle) => Number(circle.getAttribute('cx'))));
        for (const x of xs) {
          expect(x).toBeGreaterThan(Math.min(...dots));
          expect(x).toBeLessThan(Math.max(...dots));
        }
      } finally {
        await context.close();
      }
    },
    BROWSER_TEST_MS,
  );

  it(
    'shows the conversation with tool calls that open on a click, and the prompt with <script> as text',
    async () => {
      const { context, page } = await openOffline(browser, url);
      try {
        const conversation = page.locator('#conversation');
        expect(await conversation.locator('article.msg.user').count()).toBeGreaterThanOrEqual(
          compactions.prompts.length,
        );
        expect(await conversation.locator('.compaction-marker').count()).toBe(2);
        const tool = conversation.locator('details.tool').first();
        expect(await tool.getAttribute('open')).toBeNull();
        expect(await tool.locator('pre').first().isVisible()).toBe(false);
        await tool.locator('summary').click();
        expect(await tool.getAttribute('open')).toBe('');
        expect(await tool.locator('pre').first().isVisible()).toBe(true);
        // The prompt reads as typed; its script never ran and its image never existed.
        const prompt = conversation.locator('article.msg.user').last();
        expect(await prompt.locator('.text').textContent()).toBe(HOSTILE_PROMPT);
        expect(await page.title()).not.toBe('pwned');
        expect(await page.locator('body').getAttribute('data-pwned')).toBeNull();
        expect(await page.locator('script, img').count()).toBe(0);
      } finally {
        await context.close();
      }
    },
    BROWSER_TEST_MS,
  );

  it(
    'works with JavaScript off: the same content, tool calls still fold',
    async () => {
      const { context, page, seen } = await openOffline(browser, url, { javaScriptEnabled: false });
      try {
        expect(seen.consoleErrors).toEqual([]);
        expect(await page.locator('svg#context-chart line.threshold').count()).toBe(1);
        const tool = page.locator('#conversation details.tool').first();
        await tool.locator('summary').click();
        expect(await tool.getAttribute('open')).toBe('');
        expect(await page.locator('#conversation').textContent()).toContain(
          compactions.prompts[0]?.text ?? '(no prompt)',
        );
      } finally {
        await context.close();
      }
    },
    BROWSER_TEST_MS,
  );

  it('is one file that names no URL', () => {
    const html = readFileSync(new URL(url), 'utf8');
    expect(html).not.toMatch(/https?:\/\/|url\(|@import/i);
  });
});
