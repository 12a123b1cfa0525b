/**
 * A process's CPU time so far, from Linux's /proc/<pid>/stat: what tells a query that works hard
 * from one that waits for the CPU on a loaded machine (query-pool.ts's "heavy" rule). Null where
 * there is no /proc (the pool then goes by wall time).
 */
import { readFileSync } from 'node:fs';

/** /proc reports CPU time in USER_HZ ticks, 100 a second on every Linux architecture memd runs on. */
const TICK_MS = 10;
/** utime and stime: the 14th and 15th fields, the 12th and 13th after `(comm) state`. */
const UTIME_AFTER_COMM = 11;

/** Milliseconds of CPU (user and system) the process has used, or null when unknown. */
export function processCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name may hold spaces and parentheses: the fields start after its last `)`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[UTIME_AFTER_COMM]);
  const system = Number(fields[UTIME_AFTER_COMM + 1]);
  return Number.isFinite(user) && Number.isFinite(system) ? (user + system) * TICK_MS : null;
}
