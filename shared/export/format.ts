/**
 * How reports write numbers, money, times and untrusted text. Deterministic: no locale and no
 * time zone of the machine that renders (a report made twice from one transcript is the same).
 */

/** `&`, `<`, `>` and both quotes: enough for text and for attribute values in double or single quotes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** 1234567 → `1,234,567`. */
export function formatCount(value: number): string {
  const sign = value < 0 ? '-' : '';
  return `${sign}${String(Math.round(Math.abs(value))).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

/** Token figures as memctl shows them: `950`, `21K`, `1.2M`. */
export function formatTokens(value: number): string {
  if (value < 1_000) return String(Math.round(value));
  if (value < 1_000_000) return `${Math.round(value / 1_000)}K`;
  return `${(value / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** Cents above a cent; four decimals below, so that a cheap session does not read as free. */
export function formatUsd(value: number | null): string {
  if (value === null) return 'no price';
  if (value === 0 || value >= 0.01) return `$${value.toFixed(2)}`;
  return `$${value.toFixed(4)}`;
}

export function formatPercent(rate: number | null): string {
  return rate === null ? '–' : `${(rate * 100).toFixed(1)}%`;
}

/** `2026-12-02 10:26:08 UTC`; the timestamp as written when it is no date; `–` when absent. */
export function formatTime(timestamp: string | null): string {
  if (timestamp === null) return '–';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return timestamp;
  return `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `10:26:08` within one day of `reference`, else the full time. */
export function formatClock(timestamp: string | null, reference: string | null): string {
  const full = formatTime(timestamp);
  if (timestamp === null || reference === null || formatTime(reference).slice(0, 10) !== full.slice(0, 10)) return full;
  return full.slice(11, 19);
}

/** `1 file`, `2 files`. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${formatCount(count)} ${count === 1 ? noun : nouns}`;
}
