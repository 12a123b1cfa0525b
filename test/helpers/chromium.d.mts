import type { Browser, BrowserContext, Page } from 'playwright-core';

export const CHROMIUM_PATH: string;
export const BROWSER_STEP_MS: number;
export function chromiumAvailable(): boolean;
export function launchChromium(): Promise<Browser>;

export interface Seen {
  /** Every request the page made, the report's own URL included. */
  requests: string[];
  /** Requests for anything but the report, aborted. */
  blocked: string[];
  consoleErrors: string[];
  pageErrors: string[];
}

export function openOffline(
  browser: Browser,
  url: string,
  options?: { javaScriptEnabled?: boolean; viewport?: { width: number; height: number } },
): Promise<{ context: BrowserContext; page: Page; seen: Seen }>;
