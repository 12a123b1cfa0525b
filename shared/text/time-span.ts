/** Times as users give them to filters: an ISO time, or a span back from now (`7d`, `12h`, `30m`, `2w`). Pure. */
import { invalidParams } from '../protocol/errors.js';

const SPAN = /^(\d+)\s*([mhdw])$/;
const SPAN_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** An ISO time, or a span back from now (`7d`, `12h`, `30m`, `2w`), as an ISO string. */
export function timeBound(value: string, now: number, name: string): string {
  const span = SPAN.exec(value.trim());
  if (span !== null) return new Date(now - Number(span[1]) * (SPAN_MS[span[2] as string] as number)).toISOString();
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw invalidParams(`${name} must be an ISO time or a span such as 7d, 12h or 30m`, { [name]: value });
  return new Date(ms).toISOString();
}
