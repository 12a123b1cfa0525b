import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  KEEP_INPUT_CHARS,
  KEEP_TEXT_CHARS,
  LAST_REPLIES,
  loadIndexed,
  loadTranscript,
  MAX_ENTRY_BYTES,
  readTail,
  scanFile,
} from '../../../../daemon/handoff/transcript.js';
import type { Store } from '../../../../daemon/store/db.js';
import { readTranscript } from '../../../../daemon/transcripts/facts.js';
import { loadFileEntries, sessionFiles } from '../../../../daemon/transcripts/queries.js';
import { indexProjects } from './index-projects.js';
import { type SessionWriter, session } from './session.js';

const SESSION = '7a11a11a-0000-4000-8000-000000000001';
let dir: string;
let path: string;
let store: Store | null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-handoff-transcript-'));
  path = join(dir, 'projects', '-repo', `${SESSION}.jsonl`);
  store = null;
});
afterEach(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

function work(): SessionWriter {
  return session(SESSION, '/repo')
    .prompt('Fix it.')
    .tool('Read', { file_path: '/repo/big.txt' }, 'x'.repeat(10_000))
    .tool('Bash', { command: 'npm test' }, 'Exit code 1\nFAIL: expected 1, got 2')
    .tool('Write', { file_path: '/repo/new.ts', content: 'n' }, 'File created', { type: 'create' })
    .tool('Bash', { command: 'npm test' }, 'all passed')
    .reply('Fixed.');
}

async function indexed() {
  store = await indexProjects(dir, join(dir, 'projects'));
  const file = sessionFiles(store.db, SESSION)[0];
  if (file === undefined) throw new Error('not indexed');
  return { file, entries: loadFileEntries(store.db, file.id) };
}

describe('loadIndexed', () => {
  it('reads prompts, calls, failures and Write results, and only stubs successful bulk results', async () => {
    work().write(path);
    const { entries } = await indexed();
    // Spoil the big Read result's line (same length): a stub never reads it.
    const text = readFileSync(path, 'utf8');
    const big = entries.find((entry) => entry.toolResults.length > 0);
    if (big === undefined) throw new Error('no result entry');
    writeFileSync(path, `${text.slice(0, big.offset)}${'#'.repeat(big.length)}${text.slice(big.offset + big.length)}`);
    const loaded = await loadIndexed(path, entries, false);
    expect(loaded.map((item) => item.entry.type)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const facts = readTranscript(loaded);
    expect(facts.calls.map((call) => [call.name, call.result?.exit ?? null, call.result?.failed])).toEqual([
      ['Read', null, false],
      ['Bash', 1, true],
      ['Write', null, false],
      ['Bash', 0, false],
    ]);
    expect(facts.calls[1]?.result?.text).toContain('expected 1, got 2');
    expect(facts.calls[2]?.result?.meta).toEqual({ type: 'create' });
    expect(facts.prompts.map((prompt) => prompt.text)).toEqual(['Fix it.']);
  });
});

describe('what is kept of an entry', () => {
  it('only the last replies without tool calls; no thinking; long inputs and texts cut in the middle', async () => {
    const writer = session(SESSION, '/repo').prompt(`Start. ${'p'.repeat(KEEP_TEXT_CHARS)} Never skip the tail.`);
    for (let n = 0; n < LAST_REPLIES + 5; n++) writer.reply(`reply ${n}`);
    writer.tool('Write', { file_path: '/repo/big.ts', content: 'c'.repeat(100_000) }, 'ok', {
      type: 'create',
      content: 'c'.repeat(100_000),
      originalFile: null,
    });
    writer.lines.push({
      type: 'assistant',
      uuid: 'thinking-1',
      message: {
        id: 'msg_t',
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't'.repeat(10_000), signature: 's' },
          { type: 'text', text: 'last words' },
        ],
      },
    });
    writer.write(path);
    const { entries } = await indexed();
    const facts = readTranscript(await loadIndexed(path, entries, false));
    expect(facts.replies.map((reply) => reply.text)).toEqual([
      ...Array.from({ length: LAST_REPLIES - 1 }, (_, n) => `reply ${n + 6}`),
      'last words',
    ]);
    const write = facts.calls[0];
    expect(String(write?.input.content).length).toBeLessThanOrEqual(KEEP_INPUT_CHARS + 3);
    expect(write?.input.file_path).toBe('/repo/big.ts');
    expect(write?.result?.meta).toEqual({ type: 'create' });
    const prompt = facts.prompts[0]?.text ?? '';
    expect(prompt.length).toBeLessThanOrEqual(KEEP_TEXT_CHARS + 3);
    expect(prompt.startsWith('Start.')).toBe(true);
    expect(prompt.endsWith('Never skip the tail.')).toBe(true);
  });
});

describe('scanFile', () => {
  it('reads as loadIndexed does, from an offset, leaving out an unfinished last line and lines over the limit', async () => {
    const writer = work();
    writer.write(path);
    const whole = await scanFile(path, 0, false);
    expect(readTranscript(whole).calls.map((call) => call.result?.exit ?? null)).toEqual([null, 1, null, 0]);
    const from = readFileSync(path).length;
    writer.prompt('Then this.');
    writer.write(path);
    appendFileSync(
      path,
      `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(MAX_ENTRY_BYTES) } })}\n`,
    );
    appendFileSync(path, '{"type":"user","message":{"role":"user","content":"half-writ');
    const rest = await scanFile(path, from, false);
    expect(readTranscript(rest).prompts.map((prompt) => prompt.text)).toEqual(['Then this.']);
  });

  it('stops when the signal is aborted', async () => {
    work().write(path);
    await expect(scanFile(path, 0, false, AbortSignal.abort())).rejects.toThrow();
  });
});

describe('loadTranscript', () => {
  it('scans the whole file when it changed under the index', async () => {
    work().write(path);
    const { file, entries } = await indexed();
    // A rewrite: other entries at the old offsets (Claude Code replaced the file).
    session(SESSION, '/repo')
      .prompt('A different session altogether, much longer than before.')
      .reply('Sure.')
      .write(path);
    const loaded = await loadTranscript(path, entries, file.committedOffset, false);
    expect(readTranscript(loaded).prompts.map((prompt) => prompt.text)).toEqual([
      'A different session altogether, much longer than before.',
    ]);
  });
});

describe('readTail', () => {
  it('returns the last bytes and whether they start inside a line', async () => {
    const small = join(dir, 'small.jsonl');
    writeFileSync(small, 'line one\nline two\n');
    expect(await readTail(small, 100)).toEqual({ text: 'line one\nline two\n', startsMidLine: false });
    expect(await readTail(small, 12)).toEqual({ text: 'ne\nline two\n', startsMidLine: true });
    expect(await readTail(small, 9)).toEqual({ text: 'line two\n', startsMidLine: false });
    expect(await readTail(join(dir, 'missing.jsonl'))).toEqual({ text: '', startsMidLine: false });
  });
});
