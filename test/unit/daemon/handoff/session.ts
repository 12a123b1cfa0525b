/**
 * A Claude Code transcript written by hand for handoff tests: prompts, replies and tool calls with
 * their results, as Claude Code 2.1 writes them (a failed Bash result starts "Exit code N" and has
 * is_error; Write's toolUseResult says create or update).
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface SessionWriter {
  readonly lines: Record<string, unknown>[];
  prompt(text: string): SessionWriter;
  reply(text: string): SessionWriter;
  tool(name: string, input: Record<string, unknown>, result?: string, meta?: unknown): SessionWriter;
  /** The JSONL text. */
  text(): string;
  /** Writes the transcript (creating its dir), or appends lines written since the last write. */
  write(path: string): void;
}

export function session(sessionId: string, cwd: string): SessionWriter {
  const lines: Record<string, unknown>[] = [];
  let written = 0;
  let serial = 0;
  let parent: string | null = null;
  const push = (type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) => {
    const uuid = `00000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`;
    const message =
      type === 'assistant'
        ? {
            id: `msg_${serial}`,
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-6',
            content,
            usage: { input_tokens: 10, output_tokens: 5 },
          }
        : { role: 'user', content };
    lines.push({
      type,
      uuid,
      parentUuid: parent,
      sessionId,
      cwd,
      gitBranch: 'main',
      isSidechain: false,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, serial)).toISOString(),
      message,
      ...extra,
    });
    parent = uuid;
  };
  const writer: SessionWriter = {
    lines,
    prompt(text) {
      push('user', text);
      return writer;
    },
    reply(text) {
      push('assistant', [{ type: 'text', text }]);
      return writer;
    },
    tool(name, input, result = 'ok', meta) {
      const id = `toolu_${String(serial).padStart(6, '0')}`;
      push('assistant', [{ type: 'tool_use', id, name, input }]);
      const failed = /^(?:Error: )?Exit code [1-9]|^<tool_use_error>/.test(result);
      push(
        'user',
        [{ type: 'tool_result', tool_use_id: id, content: result, ...(failed ? { is_error: true } : {}) }],
        meta === undefined ? {} : { toolUseResult: meta },
      );
      return writer;
    },
    text: () => lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
    write(path) {
      mkdirSync(dirname(path), { recursive: true });
      const fresh = lines
        .slice(written)
        .map((line) => `${JSON.stringify(line)}\n`)
        .join('');
      if (written === 0) writeFileSync(path, fresh);
      else appendFileSync(path, fresh);
      written = lines.length;
    },
  };
  return writer;
}
