/**
 * Issue 12 item 2: a compaction must never replace a conversation with a fragment. On real 2.1
 * sessions the offline summary quoted `<task-notification>` user messages verbatim, and the
 * `<summary>` extraction took the notice's own `<summary>` tag: 51K tokens became one line.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOfflineCompactionSummarizer } from '../../../../daemon/compaction/offline-summary.js';
import {
  type CompactionSummarizer,
  implausibleSummary,
  MIN_SUMMARY_TOKENS,
  stripAnalysis,
  summaryCompaction,
  summaryTokens,
} from '../../../../daemon/compaction/summary.js';
import { estimateMessageTokens, toMessageParams } from '../../../../daemon/transcripts/messages.js';
import { type IngestedSession, ingestWritten } from '../../../helpers/compact.js';
import { backgroundTaskSession, mainPath, writeTranscript } from '../../../helpers/real-shapes.js';

const NOTICE =
  '<task-notification>\n<task-id>b1x2</task-id>\n<output-file>/tmp/b1x2.output</output-file>\n<status>completed</status>\n<summary>Background command "Run SessionLive tests" completed (exit code 0)</summary>\n</task-notification>';
const RAW_XML =
  /<\/?(?:task-notification|task-id|output-file|system-reminder|command-name|command-message|command-args|local-command-stdout)>/;

let ingested: IngestedSession | undefined;
afterEach(() => {
  ingested?.close();
  ingested = undefined;
});

/** A background-task session of `rounds` rounds, written and indexed. */
async function backgroundSession(rounds: number): Promise<IngestedSession> {
  const dir = mkdtempSync(join(tmpdir(), 'memd-fragments-'));
  const sessionId = '5e551071-0000-4000-8000-00000000b9b9';
  const cwd = '/home/dev/poller';
  writeTranscript(mainPath(join(dir, 'projects'), cwd, sessionId), backgroundTaskSession(sessionId, cwd, rounds));
  ingested = await ingestWritten(dir, sessionId);
  return ingested;
}

describe('the summary the summarizer wrote', () => {
  it('is never a <summary> inside quoted content', () => {
    // The offline summary of the issue: no wrapper, the notice quoted in section 6.
    expect(
      stripAnalysis(`1. Primary Request and Intent:\n   Fix it\n\n6. All user messages:\n   - "${NOTICE}"`),
    ).toContain('1. Primary Request and Intent:');
    // A model quoting the notice inside its own summary.
    expect(
      stripAnalysis(
        `<analysis>a</analysis>\n<summary>\n1. Primary Request and Intent:\n   - "${NOTICE}"\n   - after\n</summary>`,
      ),
    ).toMatch(/^1\. Primary Request and Intent:[\s\S]*- after$/);
    // Tags in code, and an analysis that talks about the tag.
    expect(
      stripAnalysis(
        '<analysis>then I write <summary></analysis><summary>real `</summary>` text\n```\n</summary>\n```\nend</summary>',
      ),
    ).toBe('real `</summary>` text\n```\n</summary>\n```\nend');
  });

  it('is the last top-level <summary>, and an unclosed one runs to the end', () => {
    expect(stripAnalysis('<summary>draft</summary>\n<summary>final</summary>')).toBe('final');
    expect(stripAnalysis(`<analysis>x</analysis><summary>cut at the limit ${NOTICE} and more`)).toBe(
      `cut at the limit ${NOTICE} and more`,
    );
  });
});

describe('plausibility', () => {
  it('refuses under 1 % of the conversation, and under a few hundred tokens from 20K', () => {
    expect(implausibleSummary(205, 51_000)).not.toBeNull();
    expect(implausibleSummary(600, 51_000)).toBeNull();
    expect(implausibleSummary(MIN_SUMMARY_TOKENS - 1, 20_000)).not.toBeNull();
    expect(implausibleSummary(MIN_SUMMARY_TOKENS - 1, 19_999)).toBeNull();
    expect(implausibleSummary(60, 5_000)).toBeNull();
    expect(implausibleSummary(40, 5_000)).not.toBeNull();
  });

  it('a summarizer that returns a fragment fails the compaction (ImplausibleSummary)', async () => {
    const fixture = await backgroundSession(30);
    const fragment: CompactionSummarizer = {
      summarize: async () =>
        `<analysis>a</analysis><summary>Background command "Run SessionLive tests" completed (exit code 0)</summary>`,
    };
    await expect(summaryCompaction(fixture.conversation(), fragment)).rejects.toMatchObject({
      kind: 'ImplausibleSummary',
      data: { preTokens: expect.any(Number) },
    });
  });
});

describe('the offline summary of a session with background tasks', () => {
  it('is a whole summary, with each notice as one line and no generated XML', async () => {
    const fixture = await backgroundSession(30);
    const conversation = fixture.conversation();
    const done = await summaryCompaction(conversation, createOfflineCompactionSummarizer());
    const pre = estimateMessageTokens(toMessageParams(conversation.messages));
    const post = estimateMessageTokens(toMessageParams(done.messages));
    console.log(
      `background-task session, 30 rounds: compaction ${pre} → ${post} tokens (summary ${summaryTokens(done.summary)})`,
    );
    expect(pre).toBeGreaterThan(20_000);
    expect(implausibleSummary(summaryTokens(done.summary), pre)).toBeNull();
    expect(done.summary).toMatch(/^1\. Primary Request and Intent:\n {3}Make the SessionLive tests pass/);
    expect(done.summary).toContain('9. Optional Next Step:');
    expect(done.summary).not.toMatch(RAW_XML);
    expect(done.summary).not.toContain('Read the output file');
    expect(done.summary).toContain('- "[background task "Run SessionLive tests 29" completed, exit 0]"');
    // What the user typed after a reminder is a request; the notices are not.
    expect(done.summary).toContain('- "Now check module 27 for the race in tick()"');
    expect(done.summary).toContain('Last request: "Now check module 27 for the race in tick()"');
  });
});
