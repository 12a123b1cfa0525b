// Debian's Chromium, headless and offline, for the HTML report's tests and its screenshot
// (bench/report-screenshot.js): plain JS so that both the tests and the bench scripts load it.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

/** Debian's package (.ci/run installs it when missing); MEMD_CHROMIUM names another binary. */
export const CHROMIUM_PATH = process.env.MEMD_CHROMIUM || '/usr/bin/chromium';
/** Every step with the browser is bounded: a stuck Chromium fails the test instead of hanging it. */
export const BROWSER_STEP_MS = 30_000;

/**
 * As root (CI) Chromium needs --no-sandbox. The networking flags stop its own background traffic
 * (updates, sync, field trials): the machine's network is closed, and the report must load nothing.
 */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
];

export function chromiumAvailable() {
  return existsSync(CHROMIUM_PATH);
}

export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, headless: true, timeout: BROWSER_STEP_MS });
}

/**
 * Opens `url` (a file:// URL) in a new offline context. Every request that is not for the file
 * itself is aborted and recorded, as are console errors and uncaught page errors.
 */
export async function openOffline(
  browser,
  url,
  { javaScriptEnabled = true, viewport = { width: 1100, height: 900 } } = {},
) {
  const context = await browser.newContext({ offline: true, javaScriptEnabled, viewport, deviceScaleFactor: 1 });
  context.setDefaultTimeout(BROWSER_STEP_MS);
  const seen = { requests: [], blocked: [], consoleErrors: [], pageErrors: [] };
  await context.route('**/*', (route) => {
    const requested = route.request().url();
    if (requested === url) return route.continue();
    seen.blocked.push(requested);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('request', (request) => seen.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') seen.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => seen.pageErrors.push(String(error)));
  await page.goto(url, { waitUntil: 'load', timeout: BROWSER_STEP_MS });
  return { context, page, seen };
}
