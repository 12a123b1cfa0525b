/**
 * Transcripts whose sub-agents' API responses sit inside the main transcript (issue 28 item 4):
 * Claude Code 2.1.3x-2.1.4x writes each of a sub-agent's entries into the main transcript too, as
 * a `progress` entry (`data.type: "agent_progress"`, `data.message` = the sub-agent's entry:
 * `{type, requestId, uuid, timestamp, message: {id, model, usage}}`), one response split over
 * several such entries with placeholder output tokens, as in the sub-agent's own file. Some
 * sessions keep `<session>/subagents/agent-*.jsonl` beside (the same responses twice), some have
 * only the main transcript (a tool that checkpoints it, a user who copies it), one keeps part of
 * the sub-agent's file. Written by the tests themselves; ccusage 20.0.24's figures for these files
 * are in test/integration/usage-nested.test.ts.
 */
import { type Line, mainPath, subagentPath, TranscriptWriter, writeTranscript } from './real-shapes.js';

export const NESTED_CWD = '/home/u/src/agents';
export const OTHER_CWD = '/home/u/work/reports';
/** Only the main transcript: the sub-agent's responses are only in its progress entries. */
export const ONLY_PROGRESS_SESSION = '2c3d4e5f-4444-4a5b-8c6d-1e2f3a4b5c6d';
/** The sub-agent's file beside: every nested response is in it too. */
export const BOTH_SESSION = '3d4e5f6a-5555-4b6c-9d7e-2f3a4b5c6d7e';
/** The sub-agent's file holds its first responses only (a copy taken mid-run). */
export const PARTIAL_SESSION = '4e5f6a7b-6666-4c7d-8e9f-3a4b5c6d7e8f';
export const SUBAGENT_MODEL = 'claude-haiku-4-5-20251001';
export const NESTED_SESSIONS = [ONLY_PROGRESS_SESSION, BOTH_SESSION, PARTIAL_SESSION] as const;

const usage = (n: number, output: number) => ({
  input: 3 + n,
  cacheWrite: 700 + 90 * n,
  cacheRead: 11_000 + 1_300 * n,
  output,
});
/**
 * Claude Code writes the progress entry a moment after the sub-agent's own entry; here 1.5 s, so
 * that an entry at 23:59:59 has its progress entry the next day (which of the two times counts).
 */
const PROGRESS_LAG_MS = 1_500;

export interface Run {
  main: TranscriptWriter;
  agent: TranscriptWriter;
  agentId: string;
}

/**
 * A session whose main thread calls a sub-agent (Task) that answers in `rounds` responses of
 * three entries each; every sub-agent entry is also written into the main transcript as a
 * progress entry. The main thread's first response is at `startMs`.
 */
export function nestedSession(
  sessionId: string,
  cwd: string,
  startMs: number,
  rounds: number,
  agentId: string,
  seed: number,
): Run {
  const main = new TranscriptWriter({ sessionId, cwd, version: '2.1.41', startMs });
  main.prompt('Audit the release notes with a sub-agent');
  const taskId = `toolu_task_${sessionId.slice(0, 8)}`;
  main.response(
    [
      { type: 'text', text: 'Delegating.' },
      {
        type: 'tool_use',
        id: taskId,
        name: 'Task',
        input: { description: 'audit', prompt: 'Audit the notes', subagent_type: 'general-purpose' },
      },
    ],
    usage(seed, 120 + seed),
  );
  const agent = new TranscriptWriter({
    sessionId,
    cwd,
    version: '2.1.41',
    model: SUBAGENT_MODEL,
    isSidechain: true,
    agentId,
    startMs: startMs + 5_000,
  });
  agent.prompt('Audit the notes');
  for (let n = 0; n < rounds; n++) {
    const u = usage(seed + n + 1, 200 + 37 * n + seed);
    agent.response(
      [
        { type: 'thinking', thinking: 'Which file first?', signature: 'sig' },
        { type: 'text', text: `Reading part ${n}.` },
        { type: 'tool_use', id: `toolu_${agentId}_${n}`, name: 'Read', input: { file_path: `${cwd}/NOTES-${n}.md` } },
      ],
      u,
    );
    agent.toolResult(`toolu_${agentId}_${n}`, `notes part ${n}`);
  }
  for (const line of agent.lines) {
    const inner = line.message as Line;
    const at = new Date(Date.parse(line.timestamp as string) + PROGRESS_LAG_MS).toISOString();
    const nested: Line =
      line.type === 'assistant'
        ? { type: 'assistant', message: inner, requestId: line.requestId, uuid: line.uuid, timestamp: line.timestamp }
        : { type: 'user', message: inner, uuid: line.uuid, timestamp: line.timestamp };
    main.raw({
      parentUuid: main.lastUuid,
      isSidechain: false,
      userType: 'external',
      cwd,
      sessionId,
      version: '2.1.41',
      gitBranch: 'main',
      type: 'progress',
      data: { message: nested, normalizedMessages: [], type: 'agent_progress', prompt: 'Audit the notes', agentId },
      toolUseID: `agent_msg_${line.uuid as string}`,
      parentToolUseID: taskId,
      uuid: `${(line.uuid as string).slice(0, 8)}-1111-4000-8000-${(line.uuid as string).slice(-12)}`,
      timestamp: at,
    });
  }
  // A progress entry of another kind: no usage.
  main.raw({
    type: 'progress',
    data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Task' },
    sessionId,
    cwd,
    uuid: `${sessionId.slice(0, 8)}-2222-4000-8000-000000000001`,
    timestamp: new Date(startMs + 600_000).toISOString(),
  });
  main.toolResult(taskId, 'The notes are fine.');
  main.response([{ type: 'text', text: 'Audited.' }], usage(seed + 9, 90 + seed));
  return { main, agent, agentId };
}

/** Writes the three sessions under `projectsDir`, over 2026-04-01 to 2026-04-03 (UTC). */
export function writeNestedUsage(projectsDir: string): void {
  // Both sub-agents run across midnight UTC: the second response's last entry is at 23:59:59, its
  // progress entry at 00:00:00.5, the third response the next day.
  const only = nestedSession(
    ONLY_PROGRESS_SESSION,
    NESTED_CWD,
    Date.parse('2026-04-01T23:59:46.000Z'),
    3,
    'a1b2c3d4e5f6a7b8c',
    1,
  );
  writeTranscript(mainPath(projectsDir, NESTED_CWD, ONLY_PROGRESS_SESSION), only.main);

  const both = nestedSession(
    BOTH_SESSION,
    NESTED_CWD,
    Date.parse('2026-04-02T23:59:46.000Z'),
    4,
    'b2c3d4e5f6a7b8c9d',
    5,
  );
  writeTranscript(mainPath(projectsDir, NESTED_CWD, BOTH_SESSION), both.main);
  writeTranscript(subagentPath(projectsDir, NESTED_CWD, BOTH_SESSION, `agent-${both.agentId}`), both.agent);

  const partial = nestedSession(
    PARTIAL_SESSION,
    OTHER_CWD,
    Date.parse('2026-04-03T15:00:00.000Z'),
    4,
    'c3d4e5f6a7b8c9d0e',
    9,
  );
  writeTranscript(mainPath(projectsDir, OTHER_CWD, PARTIAL_SESSION), partial.main);
  // Cut after the second response's last entry and its tool result.
  const cut = partial.agent.lines.findIndex(
    (line, at) =>
      at > 0 && line.type === 'user' && partial.agent.lines.slice(0, at).filter((l) => l.type === 'user').length === 2,
  );
  const kept = partial.agent.lines.slice(0, cut + 1);
  writeTranscript(
    subagentPath(projectsDir, OTHER_CWD, PARTIAL_SESSION, `agent-${partial.agentId}`),
    `${kept.map((line) => JSON.stringify(line)).join('\n')}\n`,
  );
}
