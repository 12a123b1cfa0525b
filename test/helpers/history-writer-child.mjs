/**
 * Another process appending to Claude Code's history.jsonl as Claude Code does: one whole line per
 * appendFileSync (test/unit/daemon/memory/history/concurrent.test.ts). Plain JS, so it runs without a build.
 *
 *   node history-writer-child.mjs <file> <writer> <lines>
 *     Prints "started" once its first line is written, appends historyLine(writer, 0 .. lines - 1),
 *     then prints the number of lines written and exits.
 */
import { appendFileSync } from 'node:fs';

/** The display of line `index`: its size varies up to 4 KB, so a reader often meets a write in flight. */
export function historyDisplay(writer, index) {
  const pad = String.fromCharCode(97 + (index % 26)).repeat((index * 7_919) % 4_000);
  return `writer ${writer} prompt ${index} ${pad} end ${index}`;
}

export function historyLine(writer, index) {
  const entry = {
    display: historyDisplay(writer, index),
    pastedContents: {},
    timestamp: Date.now(),
    project: `/w/${writer}`,
    sessionId: `writer-${writer}`,
  };
  return `${JSON.stringify(entry)}\n`;
}

function main() {
  const [file, writer, linesText] = process.argv.slice(2);
  const lines = Number(linesText);
  for (let index = 0; index < lines; index++) {
    appendFileSync(file, historyLine(writer, index));
    if (index === 0) process.stdout.write('started\n');
  }
  process.stdout.write(`${lines}\n`);
}

if (process.argv[1] === new URL(import.meta.url).pathname) main();
