/** The sections of a handoff file, for tests. */
import { expect } from 'vitest';
import { HANDOFF_SECTIONS } from '../../../../shared/handoff/render.js';

/** Section bodies by heading, checking that every section is there, once, in order. */
export function sectionsOf(text: string): Map<string, string> {
  const headings = [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
  expect(headings).toEqual([...HANDOFF_SECTIONS]);
  const bodies = new Map<string, string>();
  for (const part of text.split(/^## /m).slice(1))
    bodies.set(part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1));
  return bodies;
}
