/** Checks for values that arrive as `unknown` (from sockets, files and models). Pure. */

/** A plain object (not null, not an array): the shape of a JSON object once parsed. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
