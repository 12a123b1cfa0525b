/**
 * Claude Code's own session memory writes the same `<session>/session-memory/summary.md` as memd
 * (issue 31): once it has, memd reads it and writes no rival, and sessions.get and `memctl status
 * SESSION` say whose it is. The file's text here is the test's own.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { stripInstructions } from '../../daemon/extraction/template.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

/** What Claude Code's session memory might have written: the template's first heading and its own notes. */
const CLAUDE_CODE_SUMMARY =
  '# Session Title\n_A short and distinctive 5-10 word descriptive title_\n\nInvoice rounding fix (written by Claude Code)\n';

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

describe("Claude Code's own session memory", () => {
  let sandbox: Sandbox;
  let client: Client;
  const loop = manifest('coding-loop');

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
  });

  it("is memd's summary after memd extracts, and says so", async () => {
    expect((await client.sessionsGet({ sessionId: loop.sessionId })).sessionMemory.writer).toBeNull();
    await client.memoryExtract({ sessionId: loop.sessionId });
    expect((await client.sessionsGet({ sessionId: loop.sessionId })).sessionMemory.writer).toBe('memd');
    const status = await runMemctl(sandbox, ['status', loop.sessionId]);
    expect(status.stdout).toMatch(/summary +memd's/);
    // memd's own file again: a second extraction writes it.
    await client.memoryExtract({ sessionId: loop.sessionId });
  });

  it('once Claude Code wrote the file, memd keeps its text, extracts none, and says whose it is', async () => {
    const path = (await client.memoryExtract({ sessionId: loop.sessionId })).path;
    writeFileSync(path, CLAUDE_CODE_SUMMARY);
    await expect(client.memoryExtract({ sessionId: loop.sessionId })).rejects.toMatchObject({
      code: 1002,
      data: { kind: 'WrittenByClaudeCode' },
    });
    expect(readFileSync(path, 'utf8')).toBe(CLAUDE_CODE_SUMMARY);
    expect((await client.sessionsGet({ sessionId: loop.sessionId })).sessionMemory.writer).toBe('claude-code');
    // memd reads it: memory.summary serves Claude Code's text, without its template's instructions (issue 32).
    expect((await client.memorySummary({ sessionId: loop.sessionId })).text).toBe(
      stripInstructions(CLAUDE_CODE_SUMMARY),
    );
    const status = await runMemctl(sandbox, ['status', loop.sessionId]);
    expect(status.stdout).toMatch(/summary +Claude Code's own session memory/);
    // Still not memd's on the next try (no rival written later either).
    await expect(client.memoryExtract({ sessionId: loop.sessionId })).rejects.toMatchObject({ code: 1002 });
    expect(readFileSync(path, 'utf8')).toBe(CLAUDE_CODE_SUMMARY);
  });
});
