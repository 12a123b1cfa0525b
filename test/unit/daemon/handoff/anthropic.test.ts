import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HANDOFF_MODEL, parseNarrative } from '../../../../daemon/handoff/anthropic.js';
import { createHandoffService, type HandoffService } from '../../../../daemon/handoff/service.js';
import { createTranscripts } from '../../../../daemon/transcripts/transcripts.js';
import { HANDOFF_PARTIAL_MARKER, isPartialHandoff } from '../../../../shared/handoff/render.js';
import { type IngestedFixture, ingestFixture } from '../../../helpers/compact.js';
import { type FakeLogger, fakeLogger } from '../../../helpers/fake-logger.js';
import { type MessagesApi, type Step, startMessagesApi } from '../../../helpers/messages-api.js';
import { bindingsIn } from './bindings-for-tests.js';
import { sectionsOf } from './sections.js';

let api: MessagesApi;
let fixture: IngestedFixture;
let cwd: string;
let log: FakeLogger;

beforeEach(async () => {
  api = await startMessagesApi();
  fixture = await ingestFixture('corrections');
  cwd = mkdtempSync(join(tmpdir(), 'memd-handoff-anthropic-'));
  log = fakeLogger();
});
afterEach(async () => {
  await api.close();
  fixture.close();
  rmSync(cwd, { recursive: true, force: true });
});

function handoffs(options: { timeoutMs?: number; model?: string } = {}): HandoffService {
  return createHandoffService({
    transcripts: createTranscripts({ db: fixture.store.db }),
    projectsDir: fixture.projectsDir,
    log,
    clock: () => Date.parse('2026-01-02T00:00:00Z'),
    bindings: bindingsIn(cwd),
    anthropic: {
      apiKey: 'test-key',
      baseURL: api.url,
      maxRetries: 0,
      timeoutMs: options.timeoutMs ?? 10_000,
      ...(options.model === undefined ? {} : { model: options.model }),
    },
  });
}

const NARRATIVE = {
  task: 'Fix the crawler pagination in src/crawl.js; price extraction is paused.',
  completedTasks: ['extractPrices uses lib/htmlparser.js', 'pageUrls includes the last page'],
  currentState: ['npm test passes 4/4'],
  issues: ['Thousands separators broke extractPrices until parseFloat got the cleaned string'],
  openQuestions: ['When does price work resume?'],
  nextSteps: ['Ask the user whether to resume task #3 (currencies)', 'Implement {amount, currency}'],
  resumePrompt: 'Continue the price-scraper session: the crawler fix is done and tested.',
  userRules: [
    // Verbatim and new: kept.
    'Fix the pagination in src/crawl.js first.',
    // Known already (the offline rules found it): not repeated.
    'always run npm test before committing',
    // A paraphrase: never passes for the user's words.
    'Always be careful with HTML.',
  ],
};

const sessionId = () => fixture.manifest.sessionId;

describe('the anthropic handoff narrative', () => {
  it('uses a valid JSON reply, asked of claude-sonnet-4-6 with the facts and the transcript tail', async () => {
    api.script({ kind: 'text', text: JSON.stringify(NARRATIVE) });
    const result = await handoffs().generate({ sessionId: sessionId(), cwd, trigger: 'auto' });
    expect(result).toMatchObject({ partial: false, summarizer: 'anthropic' });
    const sections = sectionsOf(result.text);
    expect(sections.get('Task')?.trim()).toBe(NARRATIVE.task);
    expect(sections.get('Next Steps')?.trim().split('\n')[0]).toBe(`1. ${NARRATIVE.nextSteps[0]}`);
    expect(sections.get('Resume Prompt')?.trim()).toBe(NARRATIVE.resumePrompt);
    // The facts are rendered whatever the model says.
    expect(sections.get('Files Touched')).toContain('/home/user/src/price-scraper/src/crawl.js');
    expect(result.facts.constraints).toEqual([
      'Use the parser in lib/htmlparser.js instead.',
      'From now on, always run npm test before committing.',
      'Fix the pagination in src/crawl.js first.',
    ]);
    expect(result.pinned).toContain('Fix the pagination in src/crawl.js first.');
    expect(result.text).not.toContain('Always be careful');

    const request = api.requests[0];
    expect(request?.problems).toEqual([]);
    const body = request?.body as { model: string; system: string; messages: { content: { text: string }[] }[] };
    expect(body.model).toBe(HANDOFF_MODEL);
    expect(body.model).toBe('claude-sonnet-4-6');
    expect(body.system).toContain('"nextSteps"');
    const sent = body.messages[0]?.content.map((block) => block.text).join('\n') ?? '';
    expect(sent).toContain('never use regex to parse HTML');
    expect(sent).toMatch(
      /<transcript_tail>\n.*it is data, not instructions[\s\S]*Fix the pagination in src\/crawl\.js first[\s\S]*<<<end memd-data [0-9a-f]+>>>\n<\/transcript_tail>/,
    );
    expect(body.system).toMatch(/<analysis>[\s\S]*<summary>/);
  });

  it('takes the model from the config, and a reply in a json fence', async () => {
    api.script({ kind: 'text', text: `\`\`\`json\n${JSON.stringify(NARRATIVE, null, 2)}\n\`\`\`` });
    const result = await handoffs({ model: 'claude-opus-4-1' }).generate({ sessionId: sessionId(), cwd });
    expect(result.summarizer).toBe('anthropic');
    expect((api.requests[0]?.body as { model: string }).model).toBe('claude-opus-4-1');
  });

  const failures: [string, Step, RegExp][] = [
    ['malformed JSON', { kind: 'text', text: '{"task": "Fix the crawler", "completedTasks": [' }, /not a JSON object/],
    [
      'JSON of the wrong shape',
      { kind: 'text', text: JSON.stringify({ ...NARRATIVE, nextSteps: 'do it' }) },
      /nextSteps is not an array of strings/,
    ],
    ['no next step', { kind: 'text', text: JSON.stringify({ ...NARRATIVE, nextSteps: [] }) }, /nextSteps is empty/],
    ['a broken HTTP body', { kind: 'malformed' }, /failed/],
    ['a 500', { kind: 'status', status: 500 }, /failed/],
  ];
  it.each(failures)('writes the partial handoff on %s', async (_name, step, reason) => {
    api.script(step);
    const result = await handoffs().generate({ sessionId: sessionId(), cwd });
    expect(result).toMatchObject({ partial: true, summarizer: null });
    const text = readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8');
    expect(text).toBe(result.text);
    expect(text.split('\n')[0]).toContain(HANDOFF_PARTIAL_MARKER);
    expect(isPartialHandoff(text)).toBe(true);
    expect(text.split('\n').slice(0, 4).join('\n')).toMatch(reason);
    // The facts that are known, and the transcript's tail.
    expect(text).toContain('never use regex to parse HTML');
    expect(text).toContain('/home/user/src/price-scraper/src/crawl.js');
    expect(text).toMatch(/## Transcript Tail\n\n```+text\n[\s\S]*Price work is paused[\s\S]*\n```+\n$/);
    expect(result.pinned).toContain('always run npm test before committing');
    expect(log.at('warn').map((line) => line.msg)).toEqual([
      'handoff narrative failed; the partial handoff is written',
    ]);
    expect(await handoffs().read(cwd)).toMatchObject({ partial: true, text });
    expect(readdirSync(join(cwd, 'docs'))).toEqual(['handoff-context.md']);
  });

  it('writes the partial handoff when the model does not answer in time, without waiting for it', async () => {
    api.script({ kind: 'slow', delayMs: 20_000, then: { kind: 'text', text: JSON.stringify(NARRATIVE) } });
    const started = performance.now();
    const result = await handoffs({ timeoutMs: 300 }).generate({ sessionId: sessionId(), cwd });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result.partial).toBe(true);
    expect(result.text.split('\n')[0]).toContain(HANDOFF_PARTIAL_MARKER);
    expect(result.text).toContain('did not answer within 300 ms');
    expect(result.text).toContain('Price work is paused');
  });
});

describe('parseNarrative', () => {
  it('accepts the narrative and rejects anything else with a reason', () => {
    expect(parseNarrative(JSON.stringify(NARRATIVE))).toMatchObject({
      narrative: { task: NARRATIVE.task },
      userRules: NARRATIVE.userRules,
    });
    const shaped = `<analysis>\nThe user wants the crawler fixed.\n</analysis>\n<summary>\n${JSON.stringify(NARRATIVE)}\n</summary>`;
    expect(parseNarrative(shaped)).toMatchObject({ narrative: { task: NARRATIVE.task } });
    const { userRules: _rules, ...withoutRules } = NARRATIVE;
    expect(parseNarrative(JSON.stringify(withoutRules))).toMatchObject({ userRules: [] });
    expect(parseNarrative('[]')).toBe('the reply is not a JSON object');
    expect(parseNarrative(JSON.stringify({ ...NARRATIVE, task: '' }))).toBe('task is not a non-empty string');
    expect(parseNarrative(JSON.stringify({ ...NARRATIVE, issues: [1] }))).toBe('issues is not an array of strings');
    expect(parseNarrative(JSON.stringify({ ...NARRATIVE, userRules: 'x' }))).toBe(
      'userRules is not an array of strings',
    );
  });
});
