/**
 * handoff.generate and handoff.read (issue 7): `<cwd>/docs/handoff-context.md`, so that the turn
 * after a compaction continues with nothing important lost. The facts are read from the session's
 * transcripts (through the index) and from git; the narrative is written offline, or by the model
 * when one is configured. When the model fails or does not answer in time, the file is the
 * partial handoff (HANDOFF_AUTO_PARTIAL: the facts and the transcript's tail) and says so.
 */
import { basename, isAbsolute, join } from 'node:path';
import { isPartialHandoff, renderHandoff, renderPartialHandoff, renderPinned } from '../../shared/handoff/render.js';
import { verbatimRules } from '../../shared/handoff/rules.js';
import { transcriptTailText } from '../../shared/handoff/tail.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { HandoffReadResult, HandoffResult, HandoffSummarizer } from '../../shared/protocol/handoff.js';
import { redactDeep, redactSecrets } from '../../shared/text/redact.js';
import { classifyTranscript } from '../../shared/transcript/layout.js';
import { WorkTreeRefusal } from '../fs/work-tree.js';
import type { Logger } from '../log/logger.js';
import type { IngestedFile } from '../store/rows.js';
import { mainTranscript } from '../transcripts/conversation.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import { readTranscript } from '../transcripts/facts.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import {
  type AnthropicHandoffOptions,
  createAnthropicNarrator,
  type HandoffNarrator,
  HandoffNarratorError,
} from './anthropic.js';
import type { HandoffBindings } from './bindings.js';
import { handoffFacts, requests } from './facts.js';
import { checkCwd, checkTranscriptPath, ensureIgnored, handoffPath, readHandoff, writeHandoff } from './files.js';
import { type GitOptions, gitFacts } from './git.js';
import { offlineNarrative } from './offline.js';
import { loadTranscript, readTail, scanFile } from './transcript.js';

/** A handoff asked for without a trigger: someone ran it by hand (memctl handoff, /handoff). */
export const DEFAULT_TRIGGER = 'manual';

/**
 * `writeFile: false` (issue 29): the caller writes the file, as the user, in the project: memd
 * under its systemd unit (ProtectHome=read-only) may not write there. memd still records it.
 */
interface GenerateOptions {
  trigger?: string | undefined;
  writeFile?: boolean | undefined;
}
export type HandoffGenerateParams = ({ sessionId: string; cwd: string } | { transcriptPath: string; cwd: string }) &
  GenerateOptions;

export interface HandoffDeps {
  transcripts: Transcripts;
  projectsDir: string;
  /** `~/.claude`; not read by handoffs yet, taken so the wiring matches the other services. */
  claudeRoot?: string;
  log: Logger;
  clock: () => number;
  /** The model that writes the narrative; absent or null: the offline narrative. */
  anthropic?: AnthropicHandoffOptions | HandoffNarrator | null;
  /** How git is run (tests: a git that is not there). */
  git?: GitOptions;
  /** Which handoff files memd wrote, for which session: only those are read back (issue 27). */
  bindings: HandoffBindings;
}

export interface HandoffService {
  generate(params: HandoffGenerateParams, signal?: AbortSignal): Promise<HandoffResult>;
  /** With `sessionId`, a handoff written for another session is absent too. */
  read(cwd: string, sessionId?: string): Promise<HandoffReadResult>;
}

/** The transcript a handoff is made from: the session's main file (or the one named), and its sub-agents'. */
interface Source {
  sessionId: string | null;
  path: string;
  /** Its index row; null when the index does not know the file (yet). */
  file: IngestedFile | null;
  subagents: IngestedFile[];
}

interface SessionEntries {
  main: LoadedEntry[];
  sidechains: LoadedEntry[][];
}

const isNarrator = (value: AnthropicHandoffOptions | HandoffNarrator): value is HandoffNarrator => 'narrate' in value;

export function createHandoffService(deps: HandoffDeps): HandoffService {
  const { transcripts, log } = deps;
  const narrator =
    deps.anthropic == null
      ? null
      : isNarrator(deps.anthropic)
        ? deps.anthropic
        : createAnthropicNarrator(deps.anthropic);
  // Writes to one cwd go one at a time: two at once could both find .gitignore without the line.
  const writing = new Map<string, Promise<unknown>>();

  function oneAtATime<T>(key: string, run: () => Promise<T>): Promise<T> {
    const result = (writing.get(key) ?? Promise.resolve()).then(run, run);
    const settled = result.catch(() => undefined);
    writing.set(key, settled);
    void settled.then(() => {
      if (writing.get(key) === settled) writing.delete(key);
    });
    return result;
  }

  function notFound(sessionId: string): RpcError {
    return new RpcError(ErrorCode.NotFound, 'NotFound', `the transcript of session ${sessionId} is gone`, {
      sessionId,
    });
  }

  function fromSession(sessionId: string): Source {
    const files = transcripts.files(sessionId);
    const file = mainTranscript(files, sessionId);
    if (file.gone) throw notFound(sessionId);
    return {
      sessionId,
      path: file.path,
      file,
      subagents: files.filter((candidate) => candidate.agentId !== null && !candidate.gone),
    };
  }

  async function fromPath(transcriptPath: string): Promise<Source> {
    const path = await checkTranscriptPath(deps.projectsDir, transcriptPath);
    const sessionId = classifyTranscript(deps.projectsDir, path)?.sessionId ?? basename(path, '.jsonl');
    const files = transcripts.files(sessionId);
    const file = files.find((candidate) => candidate.path === path && !candidate.gone) ?? null;
    // A sub-agent's file named directly is the whole source: its agents are not the session's.
    const subagents =
      file !== null && file.agentId !== null
        ? []
        : files.filter((candidate) => candidate.agentId !== null && !candidate.gone);
    return { sessionId, path, file, subagents };
  }

  async function loadSession(source: Source, signal?: AbortSignal): Promise<SessionEntries> {
    const { file } = source;
    if (file === null) return { main: await scanFile(source.path, 0, false, signal), sidechains: [] };
    // The rows, and the files' committed offsets as they were when the rows were read (in slices, cached).
    const session = await transcripts.sessionEntries(file.sessionId, signal);
    const at = (known: IngestedFile) => session.files.find((candidate) => candidate.id === known.id) ?? known;
    const rows = {
      current: at(file),
      main: (file.agentId === null ? session.main : session.byFile.get(file.id)) ?? [],
      subagents: source.subagents.map((agent) => ({ agent: at(agent), entries: session.byFile.get(agent.id) ?? [] })),
    };
    const main = await loadTranscript(
      source.path,
      rows.main,
      rows.current.committedOffset,
      file.agentId !== null,
      signal,
    );
    const sidechains: LoadedEntry[][] = [];
    for (const { agent, entries } of rows.subagents) {
      signal?.throwIfAborted();
      sidechains.push(await loadTranscript(agent.path, entries, agent.committedOffset, true, signal));
    }
    return { main, sidechains };
  }

  async function generate(params: HandoffGenerateParams, signal?: AbortSignal): Promise<HandoffResult> {
    const trigger = params.trigger?.trim() || DEFAULT_TRIGGER;
    const realCwd = await checkCwd(params.cwd);
    const source = 'sessionId' in params ? fromSession(params.sessionId) : await fromPath(params.transcriptPath);
    const [entries, git, tailBytes] = await Promise.all([
      loadSession(source, signal),
      gitFacts(realCwd, { ...deps.git, ...(signal === undefined ? {} : { signal }) }),
      readTail(source.path),
    ]);
    signal?.throwIfAborted();
    const main = readTranscript(entries.main);
    const unanswered = git !== null && 'unanswered' in git ? git.unanswered : null;
    // Redacted (issue 27) before the narrator or the file sees them.
    const facts = redactDeep(
      handoffFacts({
        main,
        sidechains: entries.sidechains.map(readTranscript),
        git: git !== null && 'top' in git ? git : null,
        cwd: params.cwd,
        realCwd,
      }),
    );
    if (unanswered !== null) {
      facts.gitProblem = unanswered;
      log.warn('handoff without git facts: git did not answer in time', { cwd: realCwd, problem: unanswered });
    }
    const tail = redactSecrets(transcriptTailText(tailBytes.text, tailBytes.startsMidLine));
    const generatedAt = new Date(deps.clock()).toISOString();
    const sessionStarted = entries.main.find((loaded) => loaded.entry.timestamp !== null)?.entry.timestamp ?? null;
    const header = { sessionId: source.sessionId, cwd: params.cwd, trigger, generatedAt };

    let text: string;
    let summarizer: HandoffSummarizer | null;
    if (narrator === null) {
      summarizer = 'offline';
      const narrative = offlineNarrative({ main, facts, sessionId: source.sessionId, cwd: params.cwd });
      text = renderHandoff({ ...header, sessionStarted, summarizer, narrative, facts });
    } else {
      try {
        const written = await narrator.narrate({
          sessionId: source.sessionId,
          cwd: params.cwd,
          facts,
          tail,
          ...(signal === undefined ? {} : { signal }),
        });
        facts.constraints.push(
          ...verbatimRules(written.userRules, requests(main), [...facts.constraints, ...facts.ruledOut]),
        );
        summarizer = 'anthropic';
        text = renderHandoff({ ...header, sessionStarted, summarizer, narrative: written.narrative, facts });
      } catch (error) {
        if (!(error instanceof HandoffNarratorError)) throw error;
        log.warn('handoff narrative failed; the partial handoff is written', {
          sessionId: source.sessionId,
          kind: error.kind,
          error: error.message,
        });
        summarizer = null;
        text = renderPartialHandoff({ ...header, reason: error.message, tail, facts });
      }
    }
    // The offline narrative quotes the transcript, a model may quote what it was told: the file
    // in the repo, and every answer made of it, hold no secret (issue 27).
    text = redactSecrets(text);
    signal?.throwIfAborted();
    if (params.writeFile === false) {
      // The binding first, in memd's state dir (the unit may write there): the caller writes these bytes next.
      await deps.bindings.record(realCwd, text, source.sessionId);
      return result({ path: handoffPath(realCwd), written: false, gitignoreUpdated: false, skipped: [] });
    }
    const { path, ignored } = await oneAtATime(realCwd, async () => {
      try {
        const written = await writeHandoff(realCwd, text);
        await deps.bindings.record(realCwd, text, source.sessionId);
        return { path: written, ignored: await ensureIgnored(realCwd) };
      } catch (error) {
        if (!(error instanceof WorkTreeRefusal)) throw error;
        log.warn('handoff not written: the working tree has a symlink or special file on its path', {
          cwd: realCwd,
          reason: error.reason,
        });
        throw new RpcError(ErrorCode.PathRejected, 'PathRejected', `the handoff was not written: ${error.reason}`, {
          path: error.path,
          reason: error.reason,
        });
      }
    });
    if (ignored.skipped !== null) log.warn('.gitignore left as it is', { cwd: realCwd, reason: ignored.skipped });
    const skipped = ignored.skipped === null ? [] : [{ path: join(realCwd, '.gitignore'), reason: ignored.skipped }];
    return result({ path, written: true, gitignoreUpdated: ignored.changed, skipped });

    function result(file: Pick<HandoffResult, 'path' | 'written' | 'gitignoreUpdated' | 'skipped'>): HandoffResult {
      return {
        sessionId: source.sessionId,
        cwd: params.cwd,
        ...file,
        partial: summarizer === null,
        summarizer,
        generatedAt,
        pinned: redactSecrets(renderPinned(facts)),
        facts: redactDeep(facts),
        text,
      };
    }
  }

  async function read(cwd: string, sessionId?: string): Promise<HandoffReadResult> {
    if (!isAbsolute(cwd)) await checkCwd(cwd); // InvalidParams, naming the field
    // A cwd that is gone has no handoff: answered, not refused (SessionStart asks in any dir).
    const realCwd = await checkCwd(cwd).catch(() => null);
    const path = handoffPath(cwd);
    const found = realCwd === null ? null : await readHandoff(realCwd);
    if (found?.kind === 'refused') log.warn('handoff not read', { cwd, reason: found.reason });
    const refused = found?.kind === 'refused' ? found.reason : null;
    // Only a handoff memd wrote (for the session asking, when one asks), unchanged since (issue 27).
    const trust =
      found?.kind === 'file' && realCwd !== null ? await deps.bindings.judge(realCwd, found.text, sessionId) : null;
    if (trust?.trusted === false) deps.bindings.reportUntrusted('handoff.read', trust.reason);
    // A handoff written by an older version may hold secrets (issue 27).
    const text = trust?.trusted === true && found?.kind === 'file' ? redactSecrets(found.text) : null;
    const writtenFor = trust?.trusted === true ? trust.binding.sessionId : null;
    return {
      cwd,
      path,
      text,
      partial: text !== null && isPartialHandoff(text),
      refused,
      untrusted: trust?.trusted === false ? trust.reason : null,
      sessionId: writtenFor,
    };
  }

  return { generate, read };
}
