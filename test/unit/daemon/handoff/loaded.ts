/** A hand-written session as loaded entries, for the pure parts (facts, offline narrative). */
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import { readTranscript, type TranscriptFacts } from '../../../../daemon/transcripts/facts.js';
import { parseEntry } from '../../../../shared/transcript/parse.js';
import type { SessionWriter } from './session.js';

export function loadedOf(writer: SessionWriter): LoadedEntry[] {
  return writer.lines.map((raw) => {
    const entry = parseEntry(raw, 0, 0);
    if (entry === null) throw new Error('not an entry');
    return { entry, raw };
  });
}

export const factsOf = (writer: SessionWriter): TranscriptFacts => readTranscript(loadedOf(writer));
