/**
 * Fitting the session memory within its limits (DESIGN.md §5): each section within
 * SESSION_SECTION_MAX_TOKENS, the whole within SESSION_MEMORY_MAX_TOKENS, the oldest lines going
 * first and a marker saying how many went. Pure.
 */

import { CHARS_PER_TOKEN } from '../../shared/transcript/tokens.js';
import { LINE_CHARS, oneLine } from '../transcripts/facts.js';

export const SESSION_SECTION_MAX_TOKENS = 2_000; // DESIGN.md §5: no one section crowds out the others
export const SESSION_MEMORY_MAX_TOKENS = 12_000; // DESIGN.md §5: the memory must leave room when it replaces the conversation
const WORKLOG_SHORT_CHARS = 80; // what an old worklog line keeps when the memory is over budget
const MIN_WORKLOG_LINES = 5; // the latest turns stay while other sections give way
/** The marker renderSection writes for the lines it left out; an earlier memory's marker is not carried. */
export const OMITTED = /^- \(\d+ older entr(?:y|ies) left out\)$/;

export interface BudgetLine {
  text: string;
  /** Lines the section is pointless without: the title, the first request. */
  keep: boolean;
}

export interface BudgetSection {
  head: string;
  lines: BudgetLine[];
  omitted: number;
  worklog: boolean;
}

const marker = (omitted: number) => `- (${omitted} older entr${omitted === 1 ? 'y' : 'ies'} left out)`;
const markerChars = (omitted: number) => (omitted === 0 ? 0 : marker(omitted).length + 1);

function renderSection(section: BudgetSection): string {
  const lines = section.lines.map((line) => line.text);
  if (section.omitted > 0) {
    const first = section.lines.findIndex((line) => !line.keep);
    lines.splice(first === -1 ? lines.length : first, 0, marker(section.omitted));
  }
  return `${section.head}\n${lines.join('\n')}`;
}

/** Drops the oldest lines that may go until the section is down to `maxChars` or `minLines` of them. */
function shedOldest(section: BudgetSection, maxChars: number, minLines = 0): void {
  let chars = renderSection(section).length;
  const droppable = section.lines.filter((line) => !line.keep);
  const gone = new Set<BudgetLine>();
  for (const line of droppable) {
    if (chars <= maxChars || droppable.length - gone.size <= minLines) break;
    const omitted = section.omitted + gone.size;
    chars += -(line.text.length + 1) - markerChars(omitted) + markerChars(omitted + 1);
    gone.add(line);
  }
  section.lines = section.lines.filter((line) => !gone.has(line));
  section.omitted += gone.size;
}

/** The longest line cut in half, for a section over its limit with nothing left to drop. */
function halveLongest(section: BudgetSection): boolean {
  const longest = section.lines.reduce<BudgetLine | undefined>(
    (best, line) => (best === undefined || line.text.length > best.text.length ? line : best),
    undefined,
  );
  if (longest === undefined || longest.text.length < LINE_CHARS) return false;
  longest.text = oneLine(longest.text, Math.floor(longest.text.length / 2));
  return true;
}

/**
 * Each section within SESSION_SECTION_MAX_TOKENS (oldest lines out first), then the whole within
 * SESSION_MEMORY_MAX_TOKENS: the oldest worklog lines shortened, then dropped down to the latest
 * few, then the oldest lines of the largest other section, then the rest of the worklog.
 */
export function renderWithinLimits(sections: BudgetSection[]): string {
  const sectionMax = SESSION_SECTION_MAX_TOKENS * CHARS_PER_TOKEN;
  for (const section of sections) {
    shedOldest(section, sectionMax);
    while (renderSection(section).length > sectionMax && halveLongest(section));
  }
  const totalMax = SESSION_MEMORY_MAX_TOKENS * CHARS_PER_TOKEN;
  // Sections joined by a blank line, and a final newline.
  const total = () => sections.reduce((chars, section) => chars + renderSection(section).length + 2, -1);
  const worklog = sections.find((section) => section.worklog);
  let chars = total();
  for (const line of worklog?.lines ?? []) {
    if (chars <= totalMax) break;
    const before = line.text.length;
    line.text = oneLine(line.text, WORKLOG_SHORT_CHARS);
    chars -= before - line.text.length;
  }
  if (worklog !== undefined && chars > totalMax)
    shedOldest(worklog, renderSection(worklog).length - (chars - totalMax), MIN_WORKLOG_LINES);
  for (chars = total(); chars > totalMax; chars = total()) {
    const sizes = sections
      .filter((section) => !section.worklog && section.lines.some((line) => !line.keep))
      .map((section) => ({ section, chars: renderSection(section).length }));
    const largest = sizes.reduce<(typeof sizes)[number] | undefined>(
      (best, size) => (best === undefined || size.chars > best.chars ? size : best),
      undefined,
    );
    if (largest === undefined) break;
    shedOldest(largest.section, largest.chars - 1);
  }
  if (worklog !== undefined && chars > totalMax)
    shedOldest(worklog, renderSection(worklog).length - (chars - totalMax));
  return `${sections.map(renderSection).join('\n\n')}\n`;
}
