/**
 * Transcripts in the shapes real users' disks hold, written by the tests themselves (no
 * third-party transcript is copied): Claude Code 2.1.3x responses split over several entries
 * whose early `output_tokens` are message_start's placeholder, 1.0.x inline sidechains and
 * `summary` entries, 2.0.x top-level `agent-*.jsonl` files, compaction agents
 * (`agent-acompact-*`), titles, and first prompts that are commands, meta or hook messages.
 * Deterministic: the same arguments give the same bytes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type Line = Record<string, unknown>;

/** message_start's output_tokens in 2.1.3x transcripts (1-10); the figure the early entries carry. */
export const PLACEHOLDER_OUTPUT_TOKENS = 10;

export interface WriterOptions {
  sessionId: string;
  cwd: string;
  version: string;
  model?: string;
  /** Epoch ms of the first line; each line is one second later. */
  startMs?: number;
  isSidechain?: boolean;
  agentId?: string;
}

export interface ResponseUsage {
  input: number;
  cacheWrite: number;
  cacheRead: number;
  /** The final output_tokens (the last entry's). */
  output: number;
}

/** Builds one transcript's lines, chaining parentUuid as Claude Code does. */
export class TranscriptWriter {
  readonly lines: Line[] = [];
  private last: string | null = null;
  private counter = 0;
  private clock: number;

  constructor(private readonly options: WriterOptions) {
    this.clock = options.startMs ?? Date.parse('2026-03-02T09:00:00.000Z');
  }

  private id(prefix: string): string {
    this.counter += 1;
    // Message and request ids are unique across every file of every session, as the API's are.
    const tag = `${this.options.sessionId.replace(/[^a-z0-9]/gi, '').slice(0, 8)}${(this.options.agentId ?? '').replace(/[^a-z0-9]/gi, '').slice(0, 12)}`;
    return `${prefix}${tag}${String(this.counter).padStart(4, '0')}`;
  }

  /** A uuid of the 8-4-4-4-12 shape, unique in this transcript. */
  private uuid(): string {
    this.counter += 1;
    const tail = String(this.counter).padStart(12, '0');
    const head = (this.options.agentId ?? this.options.sessionId)
      .replace(/[^0-9a-f]/g, '')
      .padEnd(8, '0')
      .slice(0, 8);
    return `${head}-0000-4000-8000-${tail}`;
  }

  private base(type: string, extra: Line = {}): Line {
    this.clock += 1_000;
    const uuid = this.uuid();
    const line: Line = {
      parentUuid: this.last,
      isSidechain: this.options.isSidechain ?? false,
      userType: 'external',
      cwd: this.options.cwd,
      sessionId: this.options.sessionId,
      version: this.options.version,
      gitBranch: 'main',
      ...(this.options.agentId === undefined ? {} : { agentId: this.options.agentId }),
      type,
      uuid,
      timestamp: new Date(this.clock).toISOString(),
      ...extra,
    };
    this.last = uuid;
    this.lines.push(line);
    return line;
  }

  get lastUuid(): string | null {
    return this.last;
  }

  user(content: unknown, extra: Line = {}): Line {
    return this.base('user', { message: { role: 'user', content }, ...extra });
  }

  prompt(text: string): Line {
    return this.user(text);
  }

  toolResult(toolUseId: string, content: string, isError = false): Line {
    return this.user([{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }]);
  }

  /**
   * One API response written as one entry per content block, as 2.1.3x writes it: every entry
   * but the last carries the placeholder output_tokens; the last the final figure and
   * `server_tool_use`. With `final: false` the last entry was never written (a killed process):
   * the entries written all carry placeholders or partial figures.
   */
  response(
    blocks: Line[],
    usage: ResponseUsage,
    options: { final?: boolean; placeholders?: boolean } = {},
  ): { messageId: string; entries: Line[] } {
    const messageId = this.id('msg_');
    const requestId = this.id('req_');
    const final = options.final ?? true;
    const placeholders = options.placeholders ?? true;
    const entries = blocks.map((block, index) => {
      const isLast = index === blocks.length - 1 && final;
      const output = isLast || !placeholders ? usage.output : Math.min(PLACEHOLDER_OUTPUT_TOKENS, 1 + index * 3);
      const recorded: Line = {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cacheWrite,
        cache_read_input_tokens: usage.cacheRead,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: usage.cacheWrite },
        output_tokens: output,
        service_tier: 'standard',
        ...(isLast ? { server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 }, iterations: [] } : {}),
      };
      return this.base('assistant', {
        requestId,
        message: {
          model: this.options.model ?? 'claude-sonnet-4-5-20250929',
          id: messageId,
          type: 'message',
          role: 'assistant',
          content: [block],
          stop_reason: isLast ? (block.type === 'tool_use' ? 'tool_use' : 'end_turn') : null,
          stop_sequence: null,
          usage: recorded,
        },
      });
    });
    return { messageId, entries };
  }

  /** A tool call and its result in one round; returns the tool_use id. */
  toolRound(
    name: string,
    input: Line,
    result: string,
    usage: ResponseUsage,
    text = 'Let me check.',
    isError = false,
  ): string {
    const toolUseId = this.id('toolu_');
    this.response(
      [
        { type: 'text', text },
        { type: 'tool_use', id: toolUseId, name, input },
      ],
      usage,
    );
    this.toolResult(toolUseId, result, isError);
    return toolUseId;
  }

  /**
   * A background task's completion notice as Claude Code 2.1 writes it: a user entry whose content
   * is a string, the XML block, then the pointer to the task's output file.
   */
  taskNotification(taskId: string, description: string, exitCode = 0): Line {
    const output = `/tmp/claude-1000/${projectFolder(this.options.cwd)}/tasks/${taskId}.output`;
    return this.user(
      `<task-notification>\n<task-id>${taskId}</task-id>\n<tool-use-id>${this.id('toolu_')}</tool-use-id>\n<output-file>${output}</output-file>\n<status>completed</status>\n` +
        `<summary>Background command "${description}" completed (exit code ${exitCode})</summary>\n</task-notification>\nRead the output file to retrieve the result: ${output}`,
    );
  }

  /**
   * A compact boundary as Claude Code writes it (no parent; the entry before as its logical
   * parent; `compactMetadata` with preTokens only), the next line's parent.
   */
  compactBoundary(preTokens: number, uuid: string = this.uuid()): Line {
    const before = this.lines[this.lines.length - 1];
    return this.raw({
      parentUuid: null,
      logicalParentUuid: this.last,
      isSidechain: false,
      userType: 'external',
      cwd: this.options.cwd,
      sessionId: this.options.sessionId,
      version: this.options.version,
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      level: 'info',
      timestamp: before?.timestamp ?? new Date(this.clock).toISOString(),
      uuid,
      compactMetadata: { trigger: 'auto', preTokens },
    });
  }

  /** Any line, as given (titles, summaries, bookkeeping); one with a uuid is the next line's parent. */
  raw(line: Line): Line {
    this.lines.push(line);
    if (typeof line.uuid === 'string') this.last = line.uuid;
    return line;
  }

  text(): string {
    return `${this.lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
  }
}

/** The usage of the n-th response of a growing conversation (deterministic, priced by every model table). */
export function growingUsage(n: number, output = 200 + ((n * 137) % 400)): ResponseUsage {
  return { input: 3 + (n % 5), cacheWrite: 800 + n * 50, cacheRead: 12_000 + n * 900, output };
}

export function writeTranscript(path: string, writer: TranscriptWriter | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof writer === 'string' ? writer : writer.text());
}

/** Claude Code's project folder name for a cwd (DESIGN.md §2; short paths only). */
export function projectFolder(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

export function mainPath(projectsDir: string, cwd: string, sessionId: string): string {
  return join(projectsDir, projectFolder(cwd), `${sessionId}.jsonl`);
}

export function subagentPath(projectsDir: string, cwd: string, sessionId: string, agentFile: string): string {
  return join(projectsDir, projectFolder(cwd), sessionId, 'subagents', `${agentFile}.jsonl`);
}

export interface PlaceholderSession {
  sessionId: string;
  cwd: string;
  main: TranscriptWriter;
  /** Sub-agent files by file stem (`agent-<id>`). */
  agents: Map<string, TranscriptWriter>;
  /** Output tokens each response really produced, main and sub-agents (the final, or largest written, figure). */
  expectedOutput: number;
  /** Responses, each counted once. */
  expectedResponses: number;
}

/**
 * A 2.1.3x session: every response split over its content blocks with placeholder output tokens
 * on the early entries, a sub-agent with the same pattern, a compaction agent, and one response
 * whose final entry was never written (it must count the largest figure its entries carry).
 */
export function placeholderSession(sessionId: string, cwd: string, rounds = 6, version = '2.1.38'): PlaceholderSession {
  const main = new TranscriptWriter({ sessionId, cwd, version });
  let expectedOutput = 0;
  let expectedResponses = 0;
  main.prompt('Add retries to the upload client and make the tests pass');
  for (let n = 0; n < rounds; n++) {
    const usage = growingUsage(n);
    main.toolRound(
      'Read',
      { file_path: `${cwd}/src/upload-${n}.ts` },
      `export const x${n} = ${n};\n`.repeat(20),
      usage,
    );
    expectedOutput += usage.output;
    expectedResponses += 1;
  }
  // Thinking, text and two tool calls: six entries, output 10, 10, ... final (the example).
  const wide = growingUsage(rounds, 441);
  const ids = ['toolu_w1', 'toolu_w2'];
  main.response(
    [
      { type: 'thinking', thinking: 'The retry budget must be shared.', signature: 'sig' },
      { type: 'text', text: 'Two more files.' },
      { type: 'tool_use', id: ids[0], name: 'Grep', input: { pattern: 'retry' } },
      { type: 'tool_use', id: ids[1], name: 'Glob', input: { pattern: 'src/**/*.ts' } },
    ],
    wide,
  );
  for (const id of ids) main.toolResult(id as string, 'src/upload.ts');
  expectedOutput += wide.output;
  expectedResponses += 1;
  // Killed before message_delta: only placeholder entries were written.
  const cut = main.response(
    [
      { type: 'text', text: 'Now the' },
      { type: 'text', text: 'tests.' },
    ],
    growingUsage(rounds + 1),
    { final: false },
  );
  expectedOutput += Math.min(PLACEHOLDER_OUTPUT_TOKENS, 1 + 3);
  expectedResponses += 1;
  void cut;

  const agents = new Map<string, TranscriptWriter>();
  const explore = new TranscriptWriter({ sessionId, cwd, version, isSidechain: true, agentId: 'a1b2c3d4e5f6a7b8c' });
  explore.prompt('Find every caller of upload()');
  for (let n = 0; n < 3; n++) {
    const usage = { ...growingUsage(n, 150 + n * 40), cacheRead: 4_000 + n * 500 };
    explore.toolRound('Grep', { pattern: 'upload\\(' }, 'src/a.ts:3\nsrc/b.ts:9', usage);
    expectedOutput += usage.output;
    expectedResponses += 1;
  }
  agents.set('agent-a1b2c3d4e5f6a7b8c', explore);
  const compactor = new TranscriptWriter({
    sessionId,
    cwd,
    version,
    isSidechain: true,
    agentId: 'acompact-9f8e7d6c5b4a3210',
  });
  compactor.prompt('Your task is to create a detailed summary of the conversation so far');
  const summaryUsage = { input: 9, cacheWrite: 0, cacheRead: 30_000, output: 1_900 };
  compactor.response(
    [
      { type: 'text', text: '<analysis>a</analysis>' },
      { type: 'text', text: '<summary>1. Primary Request and Intent: retries</summary>' },
    ],
    summaryUsage,
  );
  expectedOutput += summaryUsage.output;
  expectedResponses += 1;
  agents.set('agent-acompact-9f8e7d6c5b4a3210', compactor);
  return { sessionId, cwd, main, agents, expectedOutput, expectedResponses };
}

export function writePlaceholderSession(projectsDir: string, session: PlaceholderSession): void {
  writeTranscript(mainPath(projectsDir, session.cwd, session.sessionId), session.main);
  for (const [stem, writer] of session.agents)
    writeTranscript(subagentPath(projectsDir, session.cwd, session.sessionId, stem), writer);
}

/**
 * A 2.1 session that runs its tests in the background, as the sessions of issue 12 did: each
 * round reads a file, starts a background test run, and gets its `<task-notification>` back as a
 * user message; reminders and a slash command come in between. About 1,400 tokens a round.
 */
export function backgroundTaskSession(
  sessionId: string,
  cwd: string,
  rounds: number,
  options: { startMs?: number; version?: string } = {},
): TranscriptWriter {
  const main = new TranscriptWriter({
    sessionId,
    cwd,
    version: options.version ?? '2.1.38',
    ...(options.startMs === undefined ? {} : { startMs: options.startMs }),
  });
  main.prompt('Make the SessionLive tests pass, then move the poller into its own module');
  backgroundTaskRounds(main, cwd, 0, rounds);
  return main;
}

/** Rounds `from` to `from + rounds - 1` of backgroundTaskSession, appended to `main`. */
export function backgroundTaskRounds(main: TranscriptWriter, cwd: string, from: number, rounds: number): void {
  for (let n = from; n < from + rounds; n++) {
    const file = `${cwd}/src/session-live-${n}.ts`;
    main.toolRound(
      'Read',
      { file_path: file },
      `export function poll${n}(session: Session): void {\n  session.tick(${n});\n}\n`.repeat(60),
      growingUsage(2 * n),
    );
    const taskId = `b${n}x${(n * 7) % 10}`;
    main.toolRound(
      'Bash',
      {
        command: `npx vitest run test/session-live-${n}.test.ts`,
        run_in_background: true,
        description: `Run SessionLive tests ${n}`,
      },
      `Command running in background with ID: ${taskId}`,
      growingUsage(2 * n + 1),
    );
    main.taskNotification(taskId, `Run SessionLive tests ${n}`);
    if (n % 5 === 2)
      main.prompt(
        `<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>\nNow check module ${n} for the race in tick()`,
      );
    if (n % 5 === 4)
      main.prompt(
        `<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>src/session-live-${n}.ts</command-args>`,
      );
    main.response([{ type: 'text', text: `The SessionLive tests of module ${n} pass.` }], growingUsage(2 * n + 2));
  }
}
