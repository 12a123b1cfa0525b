/**
 * export.session and `memctl export` over a real daemon (issue 18): the jsonl export byte for byte,
 * in pages that never split a character; markdown with tool calls folded and compactions marked;
 * the report paged and joined; unknown sessions, bad formats and cursors; --out written atomically
 * and never through a symlink.
 */
import { spawn } from 'node:child_process';
import { lstatSync, readFileSync, readlinkSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { EXPORT_PAGE_BYTES, type ExportFormat, type ExportPage } from '../../shared/protocol/export.js';
import { createClient } from '../helpers/client.js';
import { type Manifest, manifest } from '../helpers/fixtures.js';
import { generateSession, writeGeneratedSession } from '../helpers/generated-sessions.js';
import { appendPrompt, copyFixtureProjects } from '../helpers/ingest.js';
import { mainPath } from '../helpers/real-shapes.js';
import {
  eventually,
  keepForFile,
  MEMCTL_MAIN,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

/** The scenario's manifest, with the prompts its recording typed. */
const compactions = manifest('compactions') as Manifest & { prompts: { text: string }[] };
const loop = manifest('coding-loop');
/** Untrusted and multi-byte: a page cut in the middle of any of these characters would show. */
const HOSTILE_PROMPT = `${'<script>alert("pwned")</script> naïve € 😀 日本語 '.repeat(60)}end of prompt`;
const PROCESS_DEADLINE_MS = 20_000;
/** Rounds of a generated session big enough for several default (1 MiB) pages. */
const BIG_ROUNDS = 1_500;
const big = generateSession({
  seed: 18,
  rounds: BIG_ROUNDS,
  compacted: true,
  prompts: true,
  bigReads: true,
  tokensPerEstimate: 1.3,
});

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

/** Every page of an export, in order. */
async function allPages(
  client: Client,
  sessionId: string,
  format: ExportFormat,
  maxBytes?: number,
): Promise<ExportPage[]> {
  const pages: ExportPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.exportSession({
      sessionId,
      format,
      ...(cursor === undefined ? {} : { cursor }),
      ...(maxBytes === undefined ? {} : { maxBytes }),
    });
    pages.push(page);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

const bytesOf = (page: ExportPage) => Buffer.from(page.content, page.encoding === 'base64' ? 'base64' : 'utf8');
const joined = (pages: readonly ExportPage[]) => Buffer.concat(pages.map(bytesOf));

/** memctl's stdout as bytes (runMemctl decodes chunk by chunk, which could split a character). */
function memctlBytes(
  sandbox: Sandbox,
  args: string[],
): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MEMCTL_MAIN, ...args], {
      env: sandbox.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_DEADLINE_MS);
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(chunks), stderr });
    });
  });
}

describe('export over a daemon', () => {
  let sandbox: Sandbox;
  let client: Client;
  let transcript: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['compactions', 'coding-loop']);
    transcript = join(sandbox.projectsDir, compactions.transcript.replace(/^projects\//, ''));
    appendPrompt(transcript, compactions.sessionId, HOSTILE_PROMPT, '00000000-0000-4000-8000-00000000e0e0');
    writeGeneratedSession(sandbox.projectsDir, big);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    return () => client.close();
  });

  it('jsonl: the main transcript byte for byte, in one page', async () => {
    const pages = await allPages(client, compactions.sessionId.slice(0, 8), 'jsonl');
    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({
      sessionId: compactions.sessionId,
      format: 'jsonl',
      encoding: 'utf8',
      offset: 0,
      nextCursor: null,
    });
    expect(joined(pages).equals(readFileSync(transcript))).toBe(true);
    expect(pages[0]?.totalBytes).toBe(statSync(transcript).size);
  });

  it('jsonl: small pages end on character boundaries and join to the same bytes', async () => {
    const file = readFileSync(transcript);
    const pages = await allPages(client, compactions.sessionId, 'jsonl', 1024);
    expect(pages.length).toBeGreaterThan(file.length / 1024);
    let offset = 0;
    for (const page of pages) {
      const bytes = bytesOf(page);
      expect(page.encoding).toBe('utf8');
      expect(page.offset).toBe(offset);
      expect(bytes.length).toBeLessThanOrEqual(1024);
      // Each page decodes alone: no replacement characters from a split one.
      expect(page.content).not.toContain('\uFFFD');
      offset += bytes.length;
    }
    // Some pages were cut short to keep a character whole (the prompt is full of them).
    expect(pages.slice(0, -1).some((page) => bytesOf(page).length < 1024)).toBe(true);
    expect(joined(pages).equals(file)).toBe(true);
  });

  it('a session of several MB: jsonl in default pages byte for byte, its reports bounded and within the frame', async () => {
    const file = readFileSync(mainPath(sandbox.projectsDir, big.cwd, big.sessionId));
    expect(file.length).toBeGreaterThan(8 * 1024 * 1024);
    const pages = await allPages(client, big.sessionId, 'jsonl');
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(
      pages
        .slice(0, -1)
        .every((page) => bytesOf(page).length <= EXPORT_PAGE_BYTES && bytesOf(page).length > EXPORT_PAGE_BYTES - 4),
    ).toBe(true);
    expect(joined(pages).equals(file)).toBe(true);
    for (const format of ['md', 'html'] as const) {
      const report = joined(await allPages(client, big.sessionId, format)).toString('utf8');
      // Tool outputs cut to 2,000 characters: far smaller than the transcript, and it says so.
      expect(report.length, format).toBeLessThan(file.length / 2);
      expect(report, format).toMatch(/more characters of this output were left out/);
    }
  });

  it('memctl export --format jsonl: the same bytes on stdout and in --out, which is 0600', async () => {
    const run = await memctlBytes(sandbox, ['export', compactions.sessionId.slice(0, 8), '--format', 'jsonl']);
    expect(run.code).toBe(0);
    expect(run.stdout.equals(readFileSync(transcript))).toBe(true);
    const out = join(sandbox.root, 'session.jsonl');
    const written = await runMemctl(sandbox, [
      'export',
      compactions.sessionId.slice(0, 8),
      '--format',
      'jsonl',
      '--out',
      out,
      '--json',
    ]);
    expect(written.code).toBe(0);
    expect(JSON.parse(written.stdout)).toMatchObject({
      sessionId: compactions.sessionId,
      format: 'jsonl',
      path: out,
      bytes: statSync(transcript).size,
      pages: 1,
    });
    expect(readFileSync(out).equals(readFileSync(transcript))).toBe(true);
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it('md: prompts quoted, tool calls folded with their results, compactions marked', async () => {
    const run = await memctlBytes(sandbox, ['export', compactions.sessionId.slice(0, 8)]);
    expect(run.code).toBe(0);
    const md = run.stdout.toString('utf8');
    const { title } = await client.sessionsGet({ sessionId: compactions.sessionId });
    expect(md.startsWith(`# ${title}\n`)).toBe(true);
    expect(md).toContain(`> ${compactions.prompts[0]?.text}`);
    expect(md).toContain('<details><summary>Bash: python3 -m unittest -q</summary>');
    expect(md).toContain('<details><summary>Read: /home/user/src/payments-api/payments/charges.py</summary>');
    expect(md.match(/^\*\*Compaction\*\* \((manual|auto), [\d,]+ tokens before\)/gm)).toHaveLength(2);
    expect(md).toContain('end of prompt');
    expect(md.split('\n').filter((line) => line.startsWith('<details>')).length).toBe(
      md.split('\n').filter((line) => line === '</details>').length,
    );
  });

  it('md and html in small pages join to the report of one page', async () => {
    for (const format of ['md', 'html'] as const) {
      const whole = joined(await allPages(client, compactions.sessionId, format));
      const pages = await allPages(client, compactions.sessionId, format, 1024);
      expect(pages.length, format).toBeGreaterThan(10);
      expect(pages.every((page) => page.encoding === 'utf8' && !page.content.includes('\uFFFD'))).toBe(true);
      expect(joined(pages).equals(whole), format).toBe(true);
    }
  });

  it('html: one self-contained file; the prompt with <script> is escaped text', async () => {
    const html = joined(await allPages(client, compactions.sessionId, 'html')).toString('utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.match(/<script/gi)).toBeNull();
    expect(html).toContain('&#60;script&#62;alert(&#34;pwned&#34;)&#60;/script&#62; naïve € 😀 日本語');
    expect(html).not.toMatch(/https?:\/\/|url\(/);
    expect(html.match(/<line class="compaction"/g)).toHaveLength(2);
  });

  it('answers NotFound for an unknown session, and memctl exits 1', async () => {
    await expect(
      client.exportSession({ sessionId: 'ffffffff-0000-4000-8000-000000000000', format: 'md' }),
    ).rejects.toMatchObject({ code: 1001, kind: 'NotFound' });
    const run = await runMemctl(sandbox, ['export', 'ffffffff-0000-4000-8000-000000000000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('NotFound');
  });

  it('refuses a bad format (-32602; memctl exits 2) and a cursor it did not give', async () => {
    await expect(client.callRaw('export.session', { sessionId: loop.sessionId, format: 'pdf' })).rejects.toMatchObject({
      code: -32602,
    });
    expect((await runMemctl(sandbox, ['export', loop.sessionId, '--format', 'pdf'])).code).toBe(2);
    await expect(
      client.exportSession({ sessionId: loop.sessionId, format: 'md', cursor: 'made-up' }),
    ).rejects.toMatchObject({ code: -32602, kind: 'BadCursor' });
    const other = await client.exportSession({ sessionId: compactions.sessionId, format: 'md', maxBytes: 1024 });
    await expect(
      client.exportSession({ sessionId: loop.sessionId, format: 'md', cursor: other.nextCursor ?? '' }),
    ).rejects.toMatchObject({ kind: 'BadCursor' });
  });

  it('--out refuses a symlink and leaves it and its target alone', async () => {
    const target = join(sandbox.root, 'target.md');
    writeFileSync(target, 'keep me');
    const link = join(sandbox.root, 'link.md');
    symlinkSync(target, link);
    const run = await runMemctl(sandbox, ['export', loop.sessionId.slice(0, 8), '--out', link]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is a symlink');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('says the session changed when its transcript is replaced between pages (run last: it rewrites coding-loop)', async () => {
    const path = join(sandbox.projectsDir, loop.transcript.replace(/^projects\//, ''));
    const first = await client.exportSession({ sessionId: loop.sessionId, format: 'jsonl', maxBytes: 1024 });
    const copy = `${path}.new`;
    writeFileSync(copy, readFileSync(path));
    renameSync(copy, path);
    await expect(
      client.exportSession({ sessionId: loop.sessionId, format: 'jsonl', cursor: first.nextCursor ?? '' }),
    ).rejects.toMatchObject({ code: 1002, kind: 'ExportChanged' });
  });
});
