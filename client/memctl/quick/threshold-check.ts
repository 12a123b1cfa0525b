/**
 * The status line's check of a `sessions.get` threshold, by hand: the status line runs after every
 * assistant message and is held to about 1.3× a bare `node` start (`npm run bench hooks`), and
 * loading the result schemas (shared/protocol/schema.ts, sessions.ts and what they import) costs
 * it about 4 ms. It says what `thresholdResultSchema` says of the same value:
 * test/unit/client/memctl/quick/threshold-check.test.ts runs one table of answers through both.
 */
import type { ThresholdResult } from '../../../shared/protocol/sessions.js';

const STATES: ReadonlySet<unknown> = new Set(['ok', 'warning', 'error', 'autocompact', 'blocking']);
const MODES: ReadonlySet<unknown> = new Set(['threshold', 'reactive']);
const NUMBERS = [
  'tokens',
  'window',
  'effectiveWindow',
  'autoCompactAt',
  'warningAt',
  'errorAt',
  'blockingAt',
  'tokensLeft',
  'percentUsed',
] as const;

/** The threshold when `value` is one (extra fields kept), else null. */
export function thresholdOf(value: unknown): ThresholdResult | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if (typeof record.model !== 'string' || !STATES.has(record.state) || typeof record.autoCompactEnabled !== 'boolean') {
    return null;
  }
  if (!NUMBERS.every((key) => typeof record[key] === 'number' && Number.isFinite(record[key]))) return null;
  // A memd before Claude Code 2.1.197's reactive mode sent none: it compacted at the threshold.
  if (record.autoCompactMode === undefined) return { ...record, autoCompactMode: 'threshold' } as ThresholdResult;
  return MODES.has(record.autoCompactMode) ? (record as unknown as ThresholdResult) : null;
}
