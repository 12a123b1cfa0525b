/**
 * The handoff as SessionStart puts it in the model's context, from the daemon (daemon/handoff/hooks.ts)
 * and from the hook's fallback without one (client/memctl/commands/hook.ts): under memd's heading,
 * its text quoted as data (issue 27, item 6), since its prose is derived from transcripts.
 *
 * Claude Code cuts a SessionStart hook's context at about 10,000 characters (issue 31), from the end:
 * a handoff longer than that lost whatever came last (Next Steps, the Resume Prompt). A handoff that
 * does not fit is therefore shortened by whole sections, most useful first, and the context says
 * which sections it left out and where the whole file is.
 */
import { quoteAsData, quoteFrameChars } from '../text/quote.js';

/** What the quote of a handoff says it holds. */
export const HANDOFF_QUOTE_SOURCE = "memd's handoff, written from the earlier conversation's transcript";

/** Claude Code keeps about this much of a SessionStart hook's additionalContext and drops the rest. */
export const SESSION_START_MAX_CHARS = 10_000;

/**
 * The handoff's sections (shared/handoff/render.ts), most useful after a compaction first: the user's
 * rules, what to do next, where the work stands, then the rest. A section not named comes last.
 */
export const HANDOFF_SECTION_PRIORITY = [
  'Constraints',
  'Next Steps',
  'Current State',
  'Resume Prompt',
  'Task',
  'Issues Discovered',
  'Open Questions',
  'Files Touched',
  'Completed Tasks',
  'Transcript Tail',
  'Session Started',
] as const;

interface Section {
  title: string;
  text: string;
  order: number;
}

/** The text before the first `## ` heading, and each `## ` section with its heading. */
function splitSections(handoff: string): { preamble: string; sections: Section[] } {
  const parts = handoff.split(/\n(?=## )/);
  const preamble = parts[0]?.startsWith('## ') ? '' : (parts.shift() ?? '');
  const sections = parts.map((text, order) => ({ title: (text.split('\n', 1)[0] ?? '').slice(3).trim(), text, order }));
  return { preamble: preamble.trim(), sections };
}

const rank = (title: string) => {
  const index = (HANDOFF_SECTION_PRIORITY as readonly string[]).indexOf(title);
  return index === -1 ? HANDOFF_SECTION_PRIORITY.length : index;
};

/** The handoff shortened to `room` by whole sections, by priority, and the titles of those left out. */
export function fitHandoff(handoff: string, room: number): { text: string; omitted: string[] } {
  const text = handoff.trim();
  if (text.length <= room) return { text, omitted: [] };
  const { preamble, sections } = splitSections(text);
  // The header line names the session and the time; the intro after it is the first to go.
  const header = preamble.split('\n', 1)[0] ?? '';
  let used = header.length;
  const kept: Section[] = [];
  const omitted: string[] = [];
  for (const section of [...sections].sort((a, b) => rank(a.title) - rank(b.title) || a.order - b.order)) {
    if (used + 2 + section.text.length <= room) {
      kept.push(section);
      used += 2 + section.text.length;
    } else omitted.push(section.title);
  }
  // Back in the file's order: the model reads a handoff, not a ranking.
  kept.sort((a, b) => a.order - b.order);
  return { text: [header, ...kept.map((section) => section.text)].filter((part) => part !== '').join('\n\n'), omitted };
}

/**
 * `## Handoff (path)` and the quoted handoff, at most `maxChars` in all. A longer handoff keeps its
 * most useful whole sections (fitHandoff) and says after the quote which it left out and where the
 * whole file is; a single section longer than everything is cut inside the quote (ending with
 * `cutNote`), so that the closing delimiter always stays.
 */
export function handoffContextBlock(handoff: string, path: string, maxChars: number, cutNote: string): string {
  const heading = `## Handoff (${path})`;
  const frame = heading.length + 1 + quoteFrameChars(HANDOFF_QUOTE_SOURCE);
  const whole = handoff.trim();
  if (whole.length <= maxChars - frame) return `${heading}\n${quoteAsData(whole, HANDOFF_QUOTE_SOURCE)}`;
  // The note's length depends on the titles it names: room for the longest it can be.
  const noteRoom = omittedNote(HANDOFF_SECTION_PRIORITY, path).length + 1;
  const room = Math.max(0, maxChars - frame - noteRoom);
  const fitted = fitHandoff(whole, room);
  const keptASection = /^## /m.test(fitted.text);
  const body = keptASection ? fitted.text : `${whole.slice(0, Math.max(0, room - cutNote.length - 2))}\n\n${cutNote}`;
  const block = `${heading}\n${quoteAsData(body, HANDOFF_QUOTE_SOURCE)}`;
  return keptASection && fitted.omitted.length > 0 ? `${block}\n${omittedNote(fitted.omitted, path)}` : block;
}

/** What the context says it left out, and where to read it. */
export function omittedNote(titles: readonly string[], path: string): string {
  return `[memd left out of this context, to fit Claude Code's ${SESSION_START_MAX_CHARS.toLocaleString('en-US')} characters: ${titles.join(', ')}. Read them in ${path}.]`;
}
