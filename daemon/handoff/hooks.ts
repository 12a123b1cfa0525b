/**
 * The daemon's side of Claude Code's hooks (issue 7). SessionStart: the context to inject (the
 * handoff file and the project's feedback memories, capped), and a record that it is expected, so
 * that the next entries of the transcript can show whether it arrived (`injected`). PostCompact:
 * the compaction's summary and what it lost of the conversation before it. StopFailure and
 * InstructionsLoaded (issue 31): why a turn failed, which instruction files are in context.
 */
import { randomBytes } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { handoffContextBlock, SESSION_START_MAX_CHARS } from '../../shared/handoff/context.js';
import { HANDOFF_RELATIVE_PATH } from '../../shared/handoff/gitignore.js';
import { HANDOFF_FILE } from '../../shared/paths.js';
import type { Survival } from '../../shared/protocol/compaction.js';
import { ErrorCode, invalidParams, RpcError } from '../../shared/protocol/errors.js';
import type { CompactRecord, HandoffStatusResult, SessionStartResult } from '../../shared/protocol/handoff.js';
import type { MemdirListResult } from '../../shared/protocol/memdir.js';
import { redactSecrets } from '../../shared/text/redact.js';
import { activeConversation } from '../../shared/transcript/conversation.js';
import { attachmentTexts, CHARS_PER_TOKEN } from '../../shared/transcript/tokens.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { lostItems } from '../compaction/lost.js';
import { sessionFacts, survivalOf } from '../compaction/survival.js';
import { readInWorkTree, type WorkTreeRead } from '../fs/work-tree.js';
import type { Logger } from '../log/logger.js';
import type { MemdirStore } from '../memory/memdir/store.js';
import { readTranscript } from '../transcripts/facts.js';
import { buildMessages } from '../transcripts/messages.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import type { HandoffBindings } from './bindings.js';
import { type BoundaryRecord, createCompactionWatch, lastBoundary } from './compaction-watch.js';
import { createHookMemory } from './hook-memory.js';
import type { HookRecords } from './hook-records.js';
import { lostFactsBlock } from './lost-facts.js';

/**
 * Claude Code writes the SessionStart attachment after the hook returns; clocks of the hook
 * process and the transcript can differ a little, so entries from slightly before still count.
 */
const INJECTION_SLACK_MS = 5_000;
/**
 * One compaction reported twice (PostCompact in print mode, and the transcript, issue 31) is recorded
 * once: the second report comes seconds after the first, and no conversation compacts twice a minute.
 */
const SAME_COMPACTION_MS = 60_000;
/**
 * A record this close to a boundary's time is that boundary's: the transcript's watch records the
 * boundary's own time, PostCompact its arrival, a second or two later; compactions a few seconds
 * apart (a scripted session) stay apart.
 */
const SAME_BOUNDARY_MS = 5_000;
/** SessionStart(compact) follows its compaction within seconds; an older record is another compaction's. */
const RECENT_COMPACTION_MS = 10 * 60_000;

export interface HookServiceDeps {
  transcripts: Transcripts;
  records: HookRecords;
  memdir: MemdirStore;
  log: Logger;
  clock: () => number;
  /** Which handoff files memd wrote, for which session (issue 27). */
  bindings: HandoffBindings;
}

const cut = (text: string, chars: number, note: string) =>
  text.length <= chars ? text : `${text.slice(0, Math.max(0, chars - note.length - 2))}\n\n${note}`;

export function createHookService(deps: HookServiceDeps) {
  const { transcripts, records, log, clock } = deps;
  const heard = createHookMemory();

  const mainEntries = async (sessionId: string): Promise<{ path: string; entries: IndexedEntry[] }> => {
    const { file, entries } = await transcripts.mainEntries(sessionId);
    return { path: file.path, entries };
  };

  async function feedbackMemories(cwd: string): Promise<{ name: string; text: string }[]> {
    const found: { name: string; text: string }[] = [];
    for (const scope of ['private', 'team'] as const) {
      const listed: MemdirListResult | null = await deps.memdir.list(cwd, scope).catch(() => null);
      for (const memory of listed?.memories ?? []) {
        if (memory.type !== 'feedback') continue;
        const read = await deps.memdir.read(cwd, scope, memory.name).catch(() => null);
        if (read === null) continue;
        const title = `### ${memory.name}${memory.description === '' ? '' : ` — ${memory.description}`}`;
        found.push({ name: `${scope}:${memory.name}`, text: `${title}\n${read.content.trim()}` });
      }
    }
    return found;
  }

  /**
   * What the conversation before the compaction at `boundary` (the whole conversation so far when
   * the boundary is not indexed yet: -1) lost in `summary`, and which of its facts the summary kept
   * (its survival score).
   */
  async function lostBefore(
    path: string,
    entries: readonly IndexedEntry[],
    boundary: number,
    summary: string,
    signal?: AbortSignal,
  ): Promise<{ lost: CompactRecord['lost']; survival: Survival }> {
    const compacted = activeConversation(boundary === -1 ? entries : entries.slice(0, boundary)).entries;
    const loaded = await transcripts.read(path, compacted, signal);
    return {
      lost: lostItems(buildMessages(loaded, attachmentTexts), [{ role: 'user', content: summary }], loaded),
      survival: survivalOf(sessionFacts(readTranscript(loaded)), summary),
    };
  }

  /**
   * A compaction's record with what it lost; `at` is when it happened (the boundary's time, or now
   * for PostCompact). A live report (`past` false) within SAME_COMPACTION_MS of the latest record is
   * that record's: the hook and the transcript report one compaction twice.
   */
  async function recordCompaction(
    sessionId: string,
    trigger: string,
    summary: string,
    at: number,
    scored: () => Promise<Awaited<ReturnType<typeof lostBefore>>>,
    past = false,
  ): Promise<CompactRecord> {
    const [latest] = records.compactions(sessionId);
    if (!past && latest !== undefined && Math.abs(at - Date.parse(latest.recordedAt)) < SAME_COMPACTION_MS)
      return latest;
    let found: Awaited<ReturnType<typeof lostBefore>> | null = null;
    try {
      found = await scored();
    } catch (error) {
      log.warn('could not tell what the compaction lost', { sessionId, error });
    }
    return records.addCompact(sessionId, trigger, at, summary, found?.lost ?? null, found?.survival ?? null);
  }

  /** PostCompact: the latest compaction, its boundary perhaps not indexed yet. */
  async function postCompact(
    sessionId: string,
    trigger: string,
    summary: string,
    signal?: AbortSignal,
  ): Promise<CompactRecord> {
    return recordCompaction(sessionId, trigger, summary, clock(), async () => {
      const { path, entries } = await mainEntries(sessionId);
      return lostBefore(path, entries, lastBoundary(entries), summary, signal);
    });
  }

  /** The survival score of the compaction just recorded, for SessionStart(compact); null when none is that recent. */
  function recentSurvival(sessionId: string): Survival | null {
    const [latest] = records.compactions(sessionId);
    if (latest === undefined || clock() - Date.parse(latest.recordedAt) > RECENT_COMPACTION_MS) return null;
    return latest.survival;
  }

  const compactions = createCompactionWatch({
    transcripts,
    clock,
    record: (found: BoundaryRecord, past: boolean, signal?: AbortSignal) =>
      recordCompaction(
        found.sessionId,
        found.trigger,
        found.summary,
        found.at,
        () => lostBefore(found.path, found.entries, found.boundary, found.summary, signal),
        past,
      ),
  });
  /** Sessions whose past compactions were scored (or are being scored) since memd started. */
  const histories = new Map<string, Promise<void>>();

  /**
   * Scores the session's compactions no hook or watch recorded (issue 32: every compaction gets its
   * survival score, those before memd ran too), once per session while memd runs.
   */
  function scoreHistory(sessionId: string): Promise<void> {
    let running = histories.get(sessionId);
    if (running === undefined) {
      const recorded = records.compactions(sessionId).map((record) => Date.parse(record.recordedAt));
      running = compactions
        .history(sessionId, (at) => recorded.some((when) => Math.abs(when - at) < SAME_BOUNDARY_MS))
        .then(
          () => undefined,
          (error: unknown) => {
            // A session the index does not hold has nothing to score: handoff.status answers for it all the same.
            if (!(error instanceof RpcError && error.code === ErrorCode.NotFound))
              log.warn('could not score the past compactions', { sessionId, error });
          },
        );
      histories.set(sessionId, running);
    }
    return running;
  }

  return {
    async sessionStart(sessionId: string, cwd: string, source: string): Promise<SessionStartResult> {
      if (!isAbsolute(cwd)) throw invalidParams('cwd must be an absolute path', { field: 'params.cwd' });
      const marker = randomBytes(4).toString('hex');
      const handoffPath = join(cwd, HANDOFF_FILE);
      // Never through a symlink: a cloned repo's docs/handoff-context.md may point at any file.
      const found = await readInWorkTree(cwd, HANDOFF_RELATIVE_PATH).catch((): WorkTreeRead => ({ kind: 'absent' }));
      if (found.kind === 'refused') log.warn('handoff not read for SessionStart', { cwd, reason: found.reason });
      // Only the handoff memd wrote for this very session, unchanged since (issue 27): a repository's own is absent.
      const realCwd = found.kind === 'file' ? await realpath(cwd).catch(() => null) : null;
      const trust =
        found.kind === 'file' && realCwd !== null ? await deps.bindings.judge(realCwd, found.text, sessionId) : null;
      if (trust?.trusted === false) deps.bindings.reportUntrusted('SessionStart', trust.reason);
      const handoff = trust?.trusted === true && found.kind === 'file' ? found.text : null;
      const untrusted = trust?.trusted === false ? trust.reason : null;
      const memories = await feedbackMemories(cwd);
      const lost = source === 'compact' ? lostFactsBlock(recentSurvival(sessionId), SESSION_START_MAX_CHARS / 4) : '';
      if (handoff === null && memories.length === 0 && lost === '')
        return { additionalContext: null, tokens: 0, sources: [], untrusted };
      // Claude Code keeps about 10,000 characters of it (issue 31); 10,000 tokens before.
      const maxChars = SESSION_START_MAX_CHARS;
      const head = `memd: context for this session after "${source}" (id ${marker}).`;
      // Standing rules first, in the cap and in the text: they are short and must survive; the handoff takes what is left.
      const rules =
        memories.length === 0
          ? ''
          : cut(
              `## Feedback memories\n${memories.map((memory) => memory.text).join('\n\n')}`,
              maxChars / 2,
              '[further feedback memories cut to fit]',
            );
      const room = maxChars - head.length - rules.length - lost.length - 12;
      const handoffBlock =
        handoff === null
          ? ''
          : handoffContextBlock(
              handoff,
              handoffPath,
              room,
              `[cut to fit ${maxChars} characters; the whole handoff is ${handoffPath}]`,
            );
      // Redacted (issue 27): the handoff file may be an older version's, memories are the user's own text.
      const additionalContext = redactSecrets(
        [head, rules, lost, handoffBlock].filter((part) => part !== '').join('\n\n'),
      );
      records.expect(sessionId, source, marker, clock());
      return {
        additionalContext,
        tokens: Math.ceil(additionalContext.length / CHARS_PER_TOKEN),
        sources: [...(handoff === null ? [] : [handoffPath]), ...memories.map((memory) => memory.name)],
        untrusted,
      };
    },

    postCompact,

    /**
     * The last recorded compaction's survival score, for sessions.get (the status line); null when
     * none was scored. A session that compacted (`compactions`, the index's count) with no score
     * has its past compactions scored in the background: the next answer has it.
     */
    lastSurvival(sessionId: string, compactions: number): { kept: number; lost: number; recordedAt: string } | null {
      const [latest] = records.compactions(sessionId);
      if (latest?.survival === null || latest?.survival === undefined) {
        if (compactions > 0) void scoreHistory(sessionId);
        return null;
      }
      return { kept: latest.survival.kept, lost: latest.survival.lost, recordedAt: latest.recordedAt };
    },

    /** The hook records of the session, its past compactions scored first (once while memd runs). */
    async status(sessionId: string): Promise<HandoffStatusResult> {
      await scoreHistory(sessionId);
      const live = heard.status(sessionId);
      return {
        sessionId,
        injection: records.injection(sessionId),
        compactions: records.compactions(sessionId),
        ...(live === null ? {} : live),
      };
    },

    /** StopFailure (issue 31): why the turn ended; the caller has released its lock. */
    turnFailed(sessionId: string, error: string, details: string | null): void {
      heard.turnFailed(sessionId, error, details, clock());
      log.info('a Claude Code turn ended on an API error', {
        sessionId,
        error,
        ...(details === null ? {} : { details }),
      });
    },

    /** InstructionsLoaded (issue 31): one instruction file in the session's context. */
    instructionsLoaded(sessionId: string, path: string, memoryType: string, loadReason: string): void {
      heard.instructionsLoaded(sessionId, { path, memoryType, loadReason, at: clock() });
    },

    /** After ingest changed a session: settles an expected injection once the transcript shows it, or shows it is missing. */
    async onSessionChanged(sessionId: string): Promise<void> {
      await compactions.check(sessionId).catch((error: unknown) => {
        log.warn('could not record the compaction from the transcript', { sessionId, error });
      });
      const pending = records.pending(sessionId);
      if (pending === null) return;
      try {
        const { path, entries } = await mainEntries(sessionId);
        const since = new Date(pending.expectedAt - INJECTION_SLACK_MS).toISOString();
        const after = entries.filter((entry) => entry.timestamp !== null && entry.timestamp >= since);
        const attachments = await transcripts.read(
          path,
          after.filter((entry) => entry.type === 'attachment'),
        );
        // Another commit's check may have settled it while this one read.
        if (records.pending(sessionId)?.marker !== pending.marker) return;
        const found = attachments.some(({ raw }) => {
          const attachment = raw.attachment as Record<string, unknown> | undefined;
          return (
            attachment?.type === 'hook_additional_context' &&
            JSON.stringify(attachment.content ?? '').includes(pending.marker)
          );
        });
        if (found) {
          records.settle(pending, true, clock());
          return;
        }
        // A message after the hook without the context: it did not reach the model.
        const laterTurn = after.some(
          (entry) =>
            (entry.type === 'user' || entry.type === 'assistant') &&
            !entry.isMeta &&
            entry.timestamp !== null &&
            Date.parse(entry.timestamp) > pending.expectedAt,
        );
        if (laterTurn) {
          records.settle(pending, false, clock());
          log.warn('the SessionStart context was not found in the transcript: it did not reach the model', {
            sessionId,
            marker: pending.marker,
          });
        }
      } catch (error) {
        log.warn('could not check the SessionStart injection', { sessionId, error });
      }
    },
  };
}

export type HookService = ReturnType<typeof createHookService>;
