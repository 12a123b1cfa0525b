/**
 * Deletions on the record (issue 31): the sentence `memctl status` and `memctl doctor` say of the
 * latest burst, and `memctl archive deleted`'s listing.
 */
import type { ArchiveDeletedResult, DeletedSession, DeletionEvent } from '../../../shared/protocol/archive.js';
import { formatBytes, type Output, plural } from '../output.js';

/** `Dec 3` (the user's time zone), with the year when it is not this one's. */
function day(iso: string, now: number): string {
  const at = new Date(iso);
  const sameYear = at.getFullYear() === new Date(now).getFullYear();
  return at.toLocaleDateString('en-US', { month: 'short', day: 'numeric', ...(sameYear ? {} : { year: 'numeric' }) });
}

/** What memd holds of a burst, in words: `all 12 kept, verified`, `9 kept, verified; 3 not held`. */
function heldWords(event: DeletionEvent): string {
  if (event.kept === event.sessions)
    return event.sessions === 1 ? 'kept, verified' : `all ${event.sessions} kept, verified`;
  const parts = [];
  if (event.kept > 0) parts.push(`${event.kept} kept, verified`);
  if (event.notHeld > 0) parts.push(`${event.notHeld} not held by memd`);
  if (event.checking > 0) parts.push(`${event.checking} being checked`);
  return parts.join('; ');
}

/** `Claude Code deleted 12 sessions on Dec 3; all 12 kept, verified`. */
export function deletionSentence(event: DeletionEvent, now: number): string {
  return `Claude Code deleted ${plural(event.sessions, 'session')} on ${day(event.to, now)}; ${heldWords(event)}`;
}

const STATE_WORDS: Record<DeletedSession['state'], string> = {
  kept: 'kept, verified',
  partial: 'partly held',
  lost: 'not held',
  checking: 'being checked',
};

function sessionLine(session: DeletedSession, out: Output): string {
  const state = STATE_WORDS[session.state];
  const shown = session.state === 'kept' ? out.green(state) : session.state === 'checking' ? state : out.yellow(state);
  const why = session.problem === null ? '' : out.dim(` (${session.problem})`);
  return `  ${session.sessionId}  ${session.projectName}  ${session.title ?? out.dim('(untitled)')}  ${plural(session.files, 'file')}  ${formatBytes(session.bytes)}  ${session.goneAt.slice(0, 16).replace('T', ' ')}  ${shown}${why}`;
}

export function renderDeleted(result: ArchiveDeletedResult, out: Output, now: number): string[] {
  if (result.events.length === 0) return ['no deletion of a transcript on the record'];
  const lines: string[] = [];
  let rest = result.sessions;
  for (const event of result.events) {
    const sentence = `${deletionSentence(event, now)} (${event.projects.join(', ')}; ${plural(event.files, 'file')}, ${formatBytes(event.bytes)})`;
    lines.push(event.notHeld > 0 ? out.yellow(sentence) : sentence);
    const mine = rest.filter((session) => session.goneAt >= event.from && session.goneAt <= event.to);
    rest = rest.filter((session) => !mine.includes(session));
    for (const session of mine) lines.push(sessionLine(session, out));
  }
  if (result.truncated) lines.push(out.dim('more sessions: --limit N'));
  return lines;
}
