/**
 * The read model's loads on the main thread (issue 27 item 5): a session's first load proceeds in
 * slices with turns of the event loop between them, gives what a load at once gives, is shared by
 * the callers of one session, and stops between slices when its caller gives up.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConversation } from '../../../../daemon/transcripts/conversation.js';
import { createEntryCache, type EntryCache } from '../../../../daemon/transcripts/entry-cache.js';
import { createTranscripts } from '../../../../daemon/transcripts/transcripts.js';
import { turnEntryOf } from '../../../../shared/usage/turns.js';
import { type IngestedSession, ingestWritten } from '../../../helpers/compact.js';
import { generateSession, writeGeneratedSession } from '../../../helpers/generated-sessions.js';

const open: IngestedSession[] = [];
afterEach(() => {
  for (const session of open.splice(0)) session.close();
});

async function ingested(): Promise<IngestedSession> {
  const dir = mkdtempSync(join(tmpdir(), 'memd-transcripts-'));
  const generated = generateSession({
    seed: 27,
    rounds: 40,
    compacted: false,
    prompts: true,
    bigReads: false,
    tokensPerEstimate: 1,
  });
  writeGeneratedSession(join(dir, 'projects'), generated);
  const session = await ingestWritten(dir, generated.sessionId);
  open.push(session);
  return session;
}

/** Counts turns of the event loop (setImmediate callbacks) while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns += 1;
    setImmediate(spin);
  };
  setImmediate(spin);
  // Nothing may have run yet: a load that held the loop from here to its end would leave turns at 0.
  const value = await work();
  running = false;
  return { value, turns };
}

/** An entry cache that counts the sliced loads it runs. */
function countingCache(): { cache: EntryCache; loads: () => number } {
  const cache = createEntryCache();
  let loads = 0;
  const loadSliced: EntryCache['loadSliced'] = (...args) => {
    loads += 1;
    return cache.loadSliced(...args);
  };
  return { cache: { ...cache, loadSliced, load: cache.load, clear: cache.clear }, loads: () => loads };
}

describe('the first load of a session', () => {
  it('proceeds in slices, letting the event loop turn between them, and gives what a load at once gives', async () => {
    const session = await ingested();
    const transcripts = createTranscripts({ db: session.store.db, sliceMs: 0, pageRows: 8 });
    const { value: conversation, turns } = await turnsDuring(() => transcripts.conversation(session.sessionId));
    const whole = loadConversation(session.store.db, createEntryCache(), session.sessionId);
    // 40 rounds are hundreds of rows (pages of 8) and lines read back: a turn after each.
    expect(turns).toBeGreaterThan(20);
    expect(conversation.entries).toEqual(whole.entries);
    expect(conversation.messages).toEqual(whole.messages);
    // A second call of an unchanged session is served from what was loaded: no load, no turn needed.
    expect(await transcripts.conversation(session.sessionId)).toBe(conversation);
  });

  it('is shared by the callers of one session: one load for all', async () => {
    const session = await ingested();
    const { cache, loads } = countingCache();
    const transcripts = createTranscripts({ db: session.store.db, cache, sliceMs: 0, pageRows: 8 });
    const [a, b, c] = await Promise.all([
      transcripts.sessionEntries(session.sessionId),
      transcripts.sessionEntries(session.sessionId),
      transcripts.mainEntries(session.sessionId),
    ]);
    expect(loads()).toBe(1);
    expect(b.main).toEqual(a.main);
    expect(c.entries).toEqual(a.main);
    expect(a.main.length).toBeGreaterThan(100);
  });

  it('stops between slices when its only caller aborts, and another caller still gets the whole load', async () => {
    const session = await ingested();
    const transcripts = createTranscripts({ db: session.store.db, sliceMs: 0, pageRows: 8 });
    const abort = new AbortController();
    const alone = transcripts.conversation(session.sessionId, abort.signal);
    setImmediate(() => abort.abort(new Error('the client went away')));
    await expect(alone).rejects.toThrow('the client went away');

    const leaving = new AbortController();
    const left = transcripts.sessionEntries(session.sessionId, leaving.signal);
    const staying = transcripts.sessionEntries(session.sessionId);
    setImmediate(() => leaving.abort(new Error('gone')));
    await expect(left).rejects.toThrow('gone');
    const whole = loadConversation(session.store.db, createEntryCache(), session.sessionId);
    expect((await staying).main).toEqual(whole.entries);
  });

  it('reads again when the index changed under it (cleared meanwhile), keeping nothing stale', async () => {
    const session = await ingested();
    const transcripts = createTranscripts({ db: session.store.db, sliceMs: 0, pageRows: 8 });
    const loading = transcripts.sessionEntries(session.sessionId);
    setImmediate(() => transcripts.clear());
    const whole = loadConversation(session.store.db, createEntryCache(), session.sessionId);
    expect((await loading).main).toEqual(whole.entries);
  });
});

describe('the main transcript’s turn rows (usage.status)', () => {
  it('are read backwards a page at a time until enough, and are the whole entries’ tail in file order', async () => {
    const session = await ingested();
    const transcripts = createTranscripts({ db: session.store.db, sliceMs: 0 });
    const { entries } = await transcripts.mainEntries(session.sessionId);
    const pages: number[] = [];
    const rows = transcripts.mainTurnRows(
      session.sessionId,
      (newestFirst) => {
        pages.push(newestFirst.length);
        return newestFirst.length >= 25;
      },
      { pageRows: 10, maxRows: 1_000 },
    );
    expect(pages).toEqual([10, 20, 30]);
    expect(rows).toEqual(entries.slice(-30).map(turnEntryOf));
    const capped = transcripts.mainTurnRows(session.sessionId, () => false, { pageRows: 10, maxRows: 15 });
    expect(capped.map((row) => row.offset)).toEqual(entries.slice(-15).map((entry) => entry.offset));
    expect(transcripts.mainTurnRows('no-such-session', () => false, { pageRows: 10, maxRows: 15 })).toEqual([]);
  });
});
