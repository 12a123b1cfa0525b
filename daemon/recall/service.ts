/**
 * Recall (issue 33, items 3 and 4): on each prompt, the few best passages from other sessions and
 * the project's memory; after a failed tool call, where the same error was seen before and what
 * fixed it. Quiet unless it has something good to say: a passage must hold enough of the question's
 * weight (terms.ts), never comes from the asking session or memd's own traffic, and goes into a
 * session once (injected.ts). Each answer is due by the hook's deadline: what is not found by then
 * is not waited for.
 */
import type { MemdConfig } from '../../shared/config.js';
import type { MemdirListResult } from '../../shared/protocol/memdir.js';
import {
  MEMD_RECALL_HEAD,
  type RecallResult,
  type RecallSkip,
  type RecallSource,
} from '../../shared/protocol/recall.js';
import { DEFAULT_SEARCH_KINDS, type SearchKind } from '../../shared/protocol/search.js';
import type { Logger } from '../log/logger.js';
import type { MemdirStore } from '../memory/memdir/store.js';
import type { SearchOwner } from '../search/query-pool.js';
import { errorKeyLine } from '../transcripts/facts.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { courseAfter, type FailureCourse } from './failure.js';
import { clip, type FramedPassage, frameRecall, tokensOf, whereOf } from './frame.js';
import type { InjectedBook } from './injected.js';
import { type RecallPassage, type RecallPassages, uuidOfRef } from './passages.js';
import { coverage, type QuestionTerm, questionTerms, type TermWeights } from './terms.js';

/** Passages a prompt gets at most: a few good ones; more would be read as the task. */
export const MAX_PROMPT_PASSAGES = 3;
/** Candidates looked at for them: each session's best passage. */
const PROMPT_CANDIDATES = 12;
/**
 * A passage recalled for a prompt scores at least this share of the best one's relevance: below
 * it, the passage shares words with the prompt but is about something else. Chosen on the recall
 * benchmark (docs/recall.md): 0.8 injected 504 passages, 74.6 % from an answer session; 0.95, 410
 * passages, 89.5 %; 275 of 403 prompts got passages with either.
 */
const RELATIVE_RELEVANCE = 0.95;
/** A prompt needs this many informative words to be a question at all (`yes`, `go on` are not). */
const MIN_PROMPT_TERMS = 2;
/** Nor does a passage answer it with fewer of them. */
const MIN_MATCHED_TERMS = 2;
/** An error line must match more closely than a prompt: error lines share many words (`error`, `failed`). */
const MIN_ERROR_COVERAGE = 0.7;
/** One short note after a failure, whatever the prompt budget. */
export const FAILURE_NOTE_TOKENS = 400;
/** The kinds an error's key line is looked for in: the key lines of failed calls, and outputs. */
const ERROR_KINDS: readonly SearchKind[] = ['error', 'output'];
/** Text that is memd's own: a recalled block or a quote of one, indexed before memd knew it for its own. */
const OWN_TEXT = new RegExp(`${MEMD_RECALL_HEAD}|memd-data|memd: context for this session`);
/** Characters of a memory file's body matched against the prompt. */
const MEMORY_MATCH_CHARS = 4_000;

export interface RecallDeps {
  config: Pick<MemdConfig, 'recallPromptTokens' | 'recallFailure' | 'recallMinCoverage'>;
  passages: RecallPassages;
  weights: TermWeights;
  transcripts: Pick<Transcripts, 'mainEntries' | 'read'>;
  memdir: Pick<MemdirStore, 'list' | 'read'>;
  injected: InjectedBook;
  log: Logger;
}

export interface RecallCall {
  sessionId: string;
  cwd?: string | undefined;
  deadlineMs: number;
  owner: SearchOwner;
  signal?: AbortSignal | undefined;
}

const skip = (skipped: RecallSkip): RecallResult => ({ additionalContext: null, tokens: 0, sources: [], skipped });

/** `work` or null when the deadline comes first; the work goes on to its end, unanswered. */
async function within<T>(deadlineMs: number, work: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), deadlineMs);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Candidate extends FramedPassage {
  key: string;
  source: RecallSource;
}

export function createRecallService(deps: RecallDeps) {
  const { config, injected, log } = deps;

  const passesThreshold = (terms: readonly QuestionTerm[], text: string, min: number) => {
    const held = coverage(terms, text);
    return { ok: held.share >= min && held.matched >= Math.min(MIN_MATCHED_TERMS, terms.length), share: held.share };
  };

  /** The project's memories whose name, description and body hold enough of the prompt. */
  async function memories(cwd: string, terms: readonly QuestionTerm[]): Promise<Candidate[]> {
    const found: Candidate[] = [];
    for (const scope of ['private', 'team'] as const) {
      const listed: MemdirListResult | null = await deps.memdir.list(cwd, scope).catch(() => null);
      for (const memory of listed?.memories ?? []) {
        const read = await deps.memdir.read(cwd, scope, memory.name).catch(() => null);
        if (read === null) continue;
        const body = read.content.slice(0, MEMORY_MATCH_CHARS);
        const held = passesThreshold(terms, `${memory.name} ${memory.description} ${body}`, config.recallMinCoverage);
        if (!held.ok) continue;
        const sessionId = `memory:${scope}:${memory.name}`;
        found.push({
          key: sessionId,
          where: `project memory "${memory.name}" (${scope})${memory.description === '' ? '' : `: ${clip(memory.description, 120)}`}`,
          text: body,
          source: { sessionId, uuid: null, field: 'memory', coverage: round(held.share) },
        });
      }
    }
    return found;
  }

  function candidateOf(passage: RecallPassage, share: number): Candidate {
    const uuid = uuidOfRef(passage.ref);
    return {
      key: passage.ref,
      where: whereOf({ ...passage, ref: uuid === null ? null : shortRef(passage.sessionId, uuid) }),
      text: passage.text,
      source: { sessionId: passage.sessionId, uuid, field: passage.field, coverage: round(share) },
    };
  }

  async function promptCandidates(call: RecallCall, terms: readonly QuestionTerm[], question: string) {
    const [passages, memory] = await Promise.all([
      // Not the request's signal: a hook that stops waiting closes its connection, and a search
      // stopped then kills its process (query-pool.ts), so that every late recall would make the
      // next one start a process again. The search ends on its own, within searchDeadlineMs.
      deps.passages(
        { question, kinds: DEFAULT_SEARCH_KINDS, excludeSessions: [call.sessionId], limit: PROMPT_CANDIDATES },
        call.owner,
      ),
      call.cwd === undefined ? Promise.resolve([]) : memories(call.cwd, terms),
    ]);
    const weighed = passages
      .filter((passage) => !OWN_TEXT.test(passage.text))
      .map((passage) => ({ passage, held: passesThreshold(terms, passage.text, config.recallMinCoverage) }));
    // In the search's order (relevance, issue 33 item 1), one per session; a passage well below the
    // best one's relevance answers another question than the prompt's, and is left out.
    const held = bestPerSession(weighed);
    const top = held[0]?.passage.score ?? 0;
    const fromSessions = held
      .filter(({ passage }) => passage.score >= top * RELATIVE_RELEVANCE)
      .map(({ passage, held: kept }) => candidateOf(passage, kept.share));
    return [...memory, ...fromSessions];
  }

  /** The framed answer from the candidates not yet injected in the session, and the book updated. */
  function answer(sessionId: string, heading: string, found: Candidate[], budget: number, max: number): RecallResult {
    if (found.length === 0) return skip('below-threshold');
    const fresh = found.filter((candidate) => !injected.has(sessionId, candidate.key)).slice(0, max);
    if (fresh.length === 0) return skip('already-injected');
    const framed = frameRecall(heading, fresh, budget);
    if (framed === null) return skip('below-threshold');
    const kept = fresh.slice(0, framed.kept);
    injected.add(
      sessionId,
      kept.map((candidate) => candidate.key),
    );
    return {
      additionalContext: framed.text,
      tokens: tokensOf(framed.text),
      sources: kept.map((candidate) => candidate.source),
      skipped: null,
    };
  }

  return {
    async forPrompt(call: RecallCall & { prompt: string }): Promise<RecallResult> {
      const budget = config.recallPromptTokens;
      if (budget === 0) return skip('off');
      const terms = questionTerms(call.prompt, deps.weights);
      if (terms.length < MIN_PROMPT_TERMS) return skip('too-short');
      const found = await within(
        call.deadlineMs,
        promptCandidates(call, terms, call.prompt).catch((error: unknown) => {
          log.debug('prompt recall failed', { sessionId: call.sessionId, error });
          return [];
        }),
      );
      if (found === null) return skip('deadline');
      return answer(
        call.sessionId,
        'passages from other sessions that may bear on this prompt (check them before relying on them).',
        found,
        budget,
        MAX_PROMPT_PASSAGES,
      );
    },

    async forFailure(call: RecallCall & { toolName: string; error: string; command?: string }): Promise<RecallResult> {
      if (!config.recallFailure) return skip('off');
      const keyLine = errorKeyLine(call.error);
      const terms = questionTerms(keyLine, deps.weights);
      if (terms.length < MIN_PROMPT_TERMS) return skip('too-short');
      const min = Math.max(config.recallMinCoverage, MIN_ERROR_COVERAGE);
      const lookup = async (): Promise<Candidate[]> => {
        const passages = await deps.passages(
          { question: keyLine, kinds: ERROR_KINDS, excludeSessions: [call.sessionId], limit: PROMPT_CANDIDATES },
          call.owner,
        );
        const [best] = bestPerSession(
          passages
            .filter((passage) => uuidOfRef(passage.ref) !== null && !OWN_TEXT.test(passage.text))
            .map((passage) => ({ passage, held: passesThreshold(terms, passage.text, min) })),
        );
        if (best === undefined) return [];
        const { passage, held } = best;
        const course = await courseAfter(
          deps.transcripts,
          passage.sessionId,
          uuidOfRef(passage.ref) as string,
          call.signal,
        );
        return [{ ...candidateOf(passage, held.share), text: courseText(course, passage.text) }];
      };
      const found = await within(
        call.deadlineMs,
        lookup().catch((error: unknown) => {
          log.debug('failure recall failed', { sessionId: call.sessionId, error });
          return [];
        }),
      );
      if (found === null) return skip('deadline');
      return answer(
        call.sessionId,
        'this error was seen before in another session; what came after it there:',
        found,
        FAILURE_NOTE_TOKENS,
        1,
      );
    },
  };
}

const round = (share: number) => Math.round(share * 1000) / 1000;

/** `memctl search --context` takes a session's first 8 characters, as memctl prints them. */
const shortRef = (sessionId: string, uuid: string) => `${sessionId.slice(0, 8)}:${uuid}`;

/** The passages that pass, most of the question first, one per session (a session's best). */
function bestPerSession<T extends { passage: RecallPassage; held: { ok: boolean; share: number } }>(found: T[]): T[] {
  const seen = new Set<string>();
  return found
    .filter(({ held }) => held.ok)
    .filter(({ passage }) => !seen.has(passage.sessionId) && seen.add(passage.sessionId) !== undefined);
}

/** The note's body: the failure there, and what followed it (or the line alone when its call was not found). */
export function courseText(course: FailureCourse | null, line: string): string {
  if (course === null) return `It failed there with: ${line}`;
  return [
    `${course.failed} failed there with: ${course.keyLine}`,
    course.steps.length === 0 ? null : `Then: ${course.steps.join('; ')}.`,
    course.passed === null
      ? 'No later run of it passed in the lines that followed.'
      : `After that, ${course.passed} passed.`,
  ]
    .filter((part) => part !== null)
    .join('\n');
}

export type RecallService = ReturnType<typeof createRecallService>;
