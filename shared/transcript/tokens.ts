/** Claude Code's rough token estimate: characters / 4 (DESIGN.md §5). */

const CHARS_PER_TOKEN = 4;

export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Characters of what an entry puts in front of the model: the message content of user and
 * assistant entries, the attachment of attachment entries, as JSON text.
 */
export function contentChars(entry: Record<string, unknown>): number {
  if (entry.type === 'attachment') return isRecord(entry.attachment) ? JSON.stringify(entry.attachment).length : 0;
  const message = isRecord(entry.message) ? entry.message : null;
  const content = message?.content;
  if (typeof content === 'string') return content.length;
  if (Array.isArray(content)) return JSON.stringify(content).length;
  return 0;
}
