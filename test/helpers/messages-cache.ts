/**
 * Prompt-cache accounting for the scripted Messages API (messages-api.ts, option `cache`): as the
 * real API does, a request's prefix up to each `cache_control` block (in its order: tools,
 * system, messages) is written to the cache, and a later request whose prefix up to one of its
 * own breakpoints is the same, byte for byte, reads it. Tokens are estimated at 4 characters,
 * as the rest of the scripted usage is; no time-to-live (a test runs in seconds).
 */

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** Estimated tokens of a serialized prefix: the scripted API's 4 characters a token. */
const CHARS_PER_TOKEN = 4;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The blocks a request is read in, each with whether it carries a breakpoint. */
function blocksOf(body: Record<string, unknown>): { text: string; breakpoint: boolean }[] {
  const blocks: unknown[] = [];
  if (Array.isArray(body.tools)) blocks.push(...body.tools);
  if (typeof body.system === 'string') blocks.push({ type: 'text', text: body.system });
  else if (Array.isArray(body.system)) blocks.push(...body.system);
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isRecord(message)) continue;
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    // The role is part of what is cached: the same text from another speaker is another prefix.
    for (const block of Array.isArray(content) ? content : []) blocks.push({ role: message.role, block });
  }
  return blocks.map((block) => {
    const inner = isRecord(block) && isRecord(block.block) ? block.block : block;
    const { cache_control: mark, ...rest } = isRecord(inner) ? inner : { cache_control: undefined };
    const text = JSON.stringify(isRecord(block) && 'role' in block ? { role: block.role, block: rest } : rest);
    return { text, breakpoint: mark !== undefined };
  });
}

export interface PromptCache {
  /** The request's input split into uncached, written and read tokens; its breakpoints' prefixes are cached. */
  account(body: unknown, rawChars: number): CacheUsage;
}

export function createPromptCache(): PromptCache {
  const cached = new Set<string>();
  return {
    account(body, rawChars) {
      const total = Math.max(1, Math.ceil(rawChars / CHARS_PER_TOKEN));
      if (!isRecord(body)) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      let prefix = '';
      const prefixes: string[] = [];
      for (const block of blocksOf(body)) {
        prefix += `${block.text}\n`;
        if (block.breakpoint) prefixes.push(prefix);
      }
      const hit = prefixes.findLast((candidate) => cached.has(candidate)) ?? '';
      const last = prefixes.at(-1) ?? '';
      const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);
      const read = tokens(hit.length);
      const written = last.length > hit.length ? tokens(last.length) - read : 0;
      for (const candidate of prefixes) cached.add(candidate);
      return {
        input_tokens: Math.max(1, total - read - written),
        cache_creation_input_tokens: written,
        cache_read_input_tokens: read,
      };
    },
  };
}
