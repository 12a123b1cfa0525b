/**
 * A memory file: YAML-style frontmatter (`name`, `description`, `type`, `created`, `updated`)
 * between `---` lines, then the markdown body. Only the subset memd writes is read back: one
 * `key: value` per line, the value plain or a JSON double-quoted string. Anything else is not a
 * memory file, and says why, so that a hand-edited file is reported instead of guessed at.
 */
import type { MemoryType } from '../protocol/memdir.js';

export const MEMORY_TYPES: readonly MemoryType[] = ['user', 'feedback', 'project', 'reference'];

export interface MemoryFrontmatter {
  name: string;
  description: string;
  type: MemoryType;
  /** ISO times. */
  created: string;
  updated: string;
}

export interface MemoryDocument extends MemoryFrontmatter {
  content: string;
}

export type ParsedMemory = { ok: true; memory: MemoryDocument } | { ok: false; reason: string };

const FENCE = '---';
const KEYS = ['name', 'description', 'type', 'created', 'updated'] as const;

/** Plain when it reads back as itself; quoted when YAML would see something else in it. */
function scalar(value: string): string {
  const plain =
    value !== '' &&
    value === value.trim() &&
    !/[\n\r\t"]|: |\s#|:$/.test(value) &&
    !/^[-?:,[\]{}#&*!|>'%@`]/.test(value);
  return plain ? value : JSON.stringify(value);
}

function unscalar(raw: string): string | null {
  if (!raw.startsWith('"')) return raw;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function serializeMemory(memory: MemoryDocument): string {
  const head = KEYS.map((key) => `${key}: ${scalar(memory[key])}`);
  const body = memory.content.endsWith('\n') || memory.content === '' ? memory.content : `${memory.content}\n`;
  return `${FENCE}\n${head.join('\n')}\n${FENCE}\n${body}`;
}

export function parseMemory(text: string): ParsedMemory {
  const lines = text.split('\n');
  if (lines[0]?.replace(/\r$/, '') !== FENCE)
    return { ok: false, reason: 'no frontmatter (the file does not start with ---)' };
  const end = lines.findIndex((line, index) => index > 0 && line.replace(/\r$/, '') === FENCE);
  if (end === -1) return { ok: false, reason: 'the frontmatter is not closed by ---' };
  const fields = new Map<string, string>();
  for (const line of lines.slice(1, end)) {
    const match = /^([A-Za-z_][\w-]*):\s?(.*?)\r?$/.exec(line);
    if (match === null) {
      if (line.trim() === '') continue;
      return { ok: false, reason: `a frontmatter line is not "key: value": ${JSON.stringify(line.slice(0, 80))}` };
    }
    const value = unscalar(match[2] ?? '');
    if (value === null)
      return { ok: false, reason: `the frontmatter value of ${match[1]} is not a valid quoted string` };
    fields.set(match[1] as string, value);
  }
  const type = fields.get('type');
  if (type === undefined || !MEMORY_TYPES.includes(type as MemoryType)) {
    return {
      ok: false,
      reason: `type must be one of ${MEMORY_TYPES.join(', ')}, got ${type === undefined ? 'none' : JSON.stringify(type)}`,
    };
  }
  const name = fields.get('name');
  if (name === undefined || name === '') return { ok: false, reason: 'the frontmatter has no name' };
  return {
    ok: true,
    memory: {
      name,
      description: fields.get('description') ?? '',
      type: type as MemoryType,
      // Files written by hand may lack the times: they read as unknown, the epoch.
      created: fields.get('created') ?? new Date(0).toISOString(),
      updated: fields.get('updated') ?? fields.get('created') ?? new Date(0).toISOString(),
      content: lines.slice(end + 1).join('\n'),
    },
  };
}
