// The benchmarks' transcript lines: the recorded Claude Code transcripts in test/fixtures, replayed
// line by line into sessions (new session ids and uuids per copy; scale-corpus.js lays them out)
// until they reach the size asked for, with a 1 MB tool result every so often (real tool output, repeated). Real lines keep
// the JSON shape honest: escapes, nesting and string lengths as Claude Code writes them.
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.js';

const FIXTURES = join(ROOT, 'test/fixtures/claude-code');
/** One line in this many is a 1 MB tool result, as a `cat` of a big file writes. */
const HUGE_EVERY = 1_000;
const HUGE_BYTES = 1024 * 1024;
const FLUSH_BYTES = 4 * 1024 * 1024;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export function fixtureLines() {
  const lines = [];
  for (const scenario of readdirSync(FIXTURES, { withFileTypes: true })) {
    if (!scenario.isDirectory()) continue;
    const projects = join(FIXTURES, scenario.name, 'projects');
    for (const project of readdirSync(projects)) {
      for (const name of readdirSync(join(projects, project))) {
        if (!name.endsWith('.jsonl')) continue;
        for (const line of readFileSync(join(projects, project, name), 'utf8').split('\n')) if (line) lines.push(line);
      }
    }
  }
  return lines;
}

/** A tool-result user line whose content is real tool output repeated to about 1 MB. */
export function hugeLine(lines) {
  const source = lines
    .map((line) => JSON.parse(line))
    .find(
      (entry) =>
        entry.type === 'user' &&
        Array.isArray(entry.message?.content) &&
        entry.message.content[0]?.type === 'tool_result' &&
        typeof entry.message.content[0].content === 'string' &&
        entry.message.content[0].content.length > 2_000,
    );
  const text = source.message.content[0].content;
  source.message.content[0].content = text.repeat(Math.ceil(HUGE_BYTES / text.length)).slice(0, HUGE_BYTES);
  return JSON.stringify(source);
}

/**
 * Writes one session of about `targetBytes` replaying the fixture lines; returns what it wrote.
 * With `startMs`, a real history's session (the usage bench): its lines are stamped from then on,
 * a second apart, and every replay's responses get message and request ids of their own (else
 * every copy is the same API response, counted once).
 */
export function writeSession(path, sessionId, targetBytes, copy, lines, huge, { startMs } = {}) {
  let bytes = 0;
  let buffer = [];
  let buffered = 0;
  let index = 0;
  let lastUuid = null;
  writeFileSync(path, '');
  while (bytes < targetBytes) {
    const source = index % HUGE_EVERY === HUGE_EVERY - 1 ? huge : lines[index % lines.length];
    const round = Math.floor(index / lines.length);
    // Fresh ids per session and per replay, so that no two lines are the same entry.
    let line = `${source.replace(UUID, (uuid) => `${uuid.slice(0, 24)}${(copy * 4096 + round).toString(16).padStart(12, '0')}`).replace(/"sessionId":"[^"]*"/g, `"sessionId":"${sessionId}"`)}\n`;
    if (startMs !== undefined) {
      line = line
        .replace(/"timestamp":"[^"]*"/g, `"timestamp":"${new Date(startMs + index * 1_000).toISOString()}"`)
        .replace(
          /"(id|requestId)":"((?:msg|req)_[^"]*)"/g,
          (_match, key, id) => `"${key}":"${id}_${sessionId.slice(-12)}_${copy}_${round}"`,
        );
    }
    const uuid = /"uuid":"([^"]+)"/.exec(line);
    if (uuid) lastUuid = uuid[1];
    buffer.push(line);
    buffered += line.length;
    bytes += Buffer.byteLength(line);
    if (buffered > FLUSH_BYTES) {
      appendFileSync(path, buffer.join(''));
      buffer = [];
      buffered = 0;
    }
    index++;
  }
  appendFileSync(path, buffer.join(''));
  return { bytes, lastUuid };
}
