/**
 * The session-memory template (DESIGN.md §5) and what an earlier text carries into a new memory:
 * the template's sections, whether a text has them all, the lines of an earlier memory or
 * compaction summary by section, and how carried lines give way to new ones. Pure.
 */
import {
  CONTINUATION_CLOSING,
  CONTINUATION_OPENING,
  RECENT_PRESERVED,
  SUMMARY_SECTIONS,
  TRANSCRIPT_POINTER,
} from '../../shared/transcript/compaction-texts.js';
import { isCodeLine, isHeadingLine } from '../transcripts/line-shapes.js';
import { OMITTED } from './budget.js';

/**
 * The session-memory template (DESIGN.md §5): a heading and an italic line saying what belongs
 * there, per section. The extraction agent fills it in; a file holding only this has nothing to
 * compact with.
 */
export const SESSION_MEMORY_TEMPLATE = `# Session Title
_A short, distinctive title for the session in 5 to 10 words_

# Current State
_What is being worked on right now, what is still pending, and the immediate next steps_

# Task specification
_What the user asked for, with the design decisions and constraints they gave_

# Files and Functions
_The files and functions that matter, what they contain and why they are relevant_

# Workflow
_The commands that are run and in what order, and how to read their output_

# Errors & Corrections
_Errors met and how they were fixed, corrections from the user, approaches that failed_

# Codebase and System Documentation
_The components of the system, how they work and fit together_

# Learnings
_What worked, what did not, and what to avoid, not repeating the other sections_

# Key results
_Exact results the user asked for (answers, tables, documents), repeated in full_

# Worklog
_Step by step, what was tried and done, one terse line each_
`;

/** Italic lines as markdown writes them: `_text_` or `*text*`. */
const ITALIC_LINE = /^(?:_[^_].*_|\*[^*].*\*)$/;

/** Whether the memory holds nothing beyond headings and their italic descriptions. */
export function isBareTemplate(text: string): boolean {
  return text
    .split('\n')
    .map((line) => line.trim())
    .every((line) => line === '' || line.startsWith('#') || ITALIC_LINE.test(line));
}

/**
 * The memory without the template's instructions: a description line of the template (or of the
 * default one), or any italic line, that stands right under a heading goes. They guide the
 * anthropic extractor's prompt; in the written memory they would be sent to a model on every read
 * (MCP session_memory, a compaction's summary). Memories written before issue 32 have them: reading
 * strips them too.
 */
export function stripInstructions(text: string, template?: string): string {
  const descriptions = new Set(
    [...usableTemplate(template), ...templateSections()].flatMap((section) =>
      section.description.map((line) => line.trim()),
    ),
  );
  const kept: string[] = [];
  let underHeading = false;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    // A custom template's or Claude Code's own instructions are italic lines too.
    if (underHeading && (descriptions.has(trimmed) || ITALIC_LINE.test(trimmed))) continue;
    if (/^#{1,6}\s/.test(trimmed)) underHeading = true;
    else if (trimmed !== '') underHeading = false;
    kept.push(line);
  }
  return kept.join('\n');
}

/** Sections by their place in SESSION_MEMORY_TEMPLATE. */
export const [TITLE, CURRENT, TASK, FILES, WORKFLOW, ERRORS, CODEBASE, LEARNINGS, RESULTS, WORKLOG] = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
] as const;
const BOILERPLATE = [CONTINUATION_OPENING, TRANSCRIPT_POINTER, RECENT_PRESERVED, CONTINUATION_CLOSING].map((text) =>
  text.slice(0, 40),
);
/** Sections of a compaction summary (numbered from 1) and where their lines go; what was current then is labelled so. */
const FROM_COMPACTION: Record<number, { section: number; label?: string }> = {
  1: { section: TASK },
  2: { section: CODEBASE },
  3: { section: FILES },
  4: { section: ERRORS },
  5: { section: LEARNINGS },
  6: { section: TASK },
  7: { section: CURRENT, label: 'Pending at the last compaction' },
  8: { section: WORKLOG, label: 'Before the last compaction' },
};
/** A line's file or command, or its label ("Tools used:"). */
const SUBJECT = /^- (`[^`]+`|[^:`]+:)/;
/**
 * What makes two lines the same fact (the line itself where not listed): a request by its start
 * (older ones get shortened as the list grows), a turn by its prompt.
 */
const KEYS: Record<number, RegExp> = {
  [TASK]: /^- (?:First request|Then|Change of plan): ([^…]{1,40})/,
  [CURRENT]: /^- (Last request|Last assistant text):/,
  [FILES]: SUBJECT,
  [WORKFLOW]: SUBJECT,
  [CODEBASE]: SUBJECT,
  [RESULTS]: SUBJECT,
  [WORKLOG]: /^(.*?) — /,
};

export interface TemplateSection {
  heading: string;
  description: string[];
}

/** The template's sections: each `#` heading and the lines under it, kept exactly. */
export function templateSections(template: string = SESSION_MEMORY_TEMPLATE): TemplateSection[] {
  const sections: TemplateSection[] = [];
  for (const line of template.split('\n').map((text) => text.trimEnd())) {
    if (/^#{1,6}\s/.test(line)) sections.push({ heading: line, description: [] });
    else if (line.trim() !== '') sections.at(-1)?.description.push(line);
  }
  return sections;
}

/** The sections of a template, or of the default one when it has no headings (an empty override file). */
export function usableTemplate(template: string | undefined): TemplateSection[] {
  const sections = templateSections(template ?? SESSION_MEMORY_TEMPLATE);
  return sections.length > 0 ? sections : templateSections();
}

/**
 * Whether `text` has every heading of the template, in order. The description lines may follow a
 * heading (a model's reply keeps them) or not (the written memory drops them, stripInstructions).
 */
export function hasAllSections(text: string, template?: string): boolean {
  const lines = text.split('\n').map((line) => line.trim());
  let at = 0;
  for (const section of usableTemplate(template)) {
    const heading = lines.indexOf(section.heading.trim(), at);
    if (heading === -1) return false;
    at = heading + 1;
  }
  return true;
}

const DEFAULT_SECTIONS = templateSections();
const DEFAULT_HEADINGS = DEFAULT_SECTIONS.map((section) => normalizeHeading(section.heading));

function normalizeHeading(heading: string): string {
  return heading.replace(/^#+/, '').trim().toLowerCase();
}

/** Which of the 10 sections a template section holds: by its name, else by its place. */
export function sectionIds(template: readonly TemplateSection[]): (number | null)[] {
  return template.map((section, index) => {
    const byName = DEFAULT_HEADINGS.indexOf(normalizeHeading(section.heading));
    return byName !== -1 ? byName : index < DEFAULT_HEADINGS.length ? index : null;
  });
}

/** What a line of an earlier text opens: null when it is no heading; no section for a heading not known here. */
function headingSection(
  line: string,
  numbered: boolean,
  template: readonly TemplateSection[],
  ids: readonly (number | null)[],
): { section?: number | undefined; label?: string } | null {
  if (numbered) {
    const found = /^(\d)\.\s+(.*):$/.exec(line);
    return found !== null && SUMMARY_SECTIONS[Number(found[1]) - 1] === found[2]
      ? (FROM_COMPACTION[Number(found[1])] ?? {})
      : null;
  }
  if (!line.startsWith('#')) return null;
  const at = template.findIndex((section) => section.heading.trim() === line);
  const byName = DEFAULT_HEADINGS.indexOf(normalizeHeading(line));
  // A sub-heading of a section (a model's memory has them) stays in it.
  const depth = (heading: string) => /^#*/.exec(heading.trim())?.[0].length ?? 0;
  if (at === -1 && byName === -1 && depth(line) > Math.min(...template.map((section) => depth(section.heading))))
    return null;
  return { section: (at !== -1 ? ids[at] : byName !== -1 ? byName : undefined) ?? undefined };
}

/**
 * The lines of an earlier memory (headings of the template) or compaction summary (numbered
 * sections), by section. Text under no heading counts as part of the task.
 */
export function earlierLines(text: string, template: readonly TemplateSection[]): string[][] {
  const bySection: string[][] = DEFAULT_HEADINGS.map(() => []);
  const lines = text.split('\n').map((line) => line.trim());
  const numbered = lines.some((line) => SUMMARY_SECTIONS.some((title, index) => line === `${index + 1}. ${title}:`));
  const ids = sectionIds(template);
  const descriptions = new Set(
    [...template, ...DEFAULT_SECTIONS].flatMap((section) => section.description.map((line) => line.trim())),
  );
  let into: { section?: number | undefined; label?: string } = numbered ? {} : { section: TASK };
  let fenced = false;
  for (const line of lines) {
    // Code an earlier summary quoted (a compaction's "Files and Code Sections") is no fact to list.
    if (/^(?:```|~~~)/.test(line)) fenced = !fenced;
    if (fenced || /^(?:```|~~~)/.test(line)) continue;
    const opened = headingSection(line, numbered, template, ids);
    if (opened !== null) {
      into = opened;
      continue;
    }
    // A heading no section is named by (a model's sub-heading, a quoted summary's) is no item either.
    const unlisted = isHeadingLine(line) || (!/^(?:[-*+]|\d+\.)\s/.test(line) && isCodeLine(line));
    const noise =
      line === '' ||
      unlisted ||
      descriptions.has(line) ||
      OMITTED.test(line) ||
      /^-?\s*None(?: yet)?\.?$/.test(line) ||
      BOILERPLATE.some((start) => line.startsWith(start));
    if (into.section === undefined || noise) continue;
    const item = line.replace(/^- /, '');
    bySection[into.section]?.push(
      into.section === TITLE ? line : into.label !== undefined ? `- ${into.label}: ${item}` : `- ${item}`,
    );
  }
  return bySection;
}

/**
 * Carried lines first, then the new ones. A carried line goes when a new one has its key (a file's
 * new state), except for requests: a request does not change, and the carried one has its place.
 */
export function merge(section: number, carried: readonly string[], fresh: readonly string[]): string[] {
  const keyOf = (line: string) => KEYS[section]?.exec(line)?.[1] ?? line;
  if (section === TASK) {
    const carriedKeys = new Set(carried.map(keyOf));
    return [...new Set([...carried, ...fresh.filter((line) => !carriedKeys.has(keyOf(line)))])];
  }
  const freshKeys = new Set(fresh.map(keyOf));
  return [...new Set([...carried.filter((line) => !freshKeys.has(keyOf(line))), ...fresh])];
}
