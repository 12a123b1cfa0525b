// The limit memd's ingest is measured against: read in chunks, split lines, JSON.parse each.
// Run as a script (`node bench/plain-parse.js FILE...`) it times one pass in this fresh process
// and prints {"seconds", "lines"}.
import { closeSync, openSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CHUNK_BYTES = 1024 * 1024;

export function plainParse(files) {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let lines = 0;
  for (const path of files) {
    const fd = openSync(path, 'r');
    let carry = null;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      let start = 0;
      let newline = buffer.indexOf(10, 0);
      while (newline !== -1 && newline < read) {
        let text;
        if (carry) {
          text = Buffer.concat([carry, buffer.subarray(0, newline)]).toString('utf8');
          carry = null;
        } else text = buffer.toString('utf8', start, newline);
        JSON.parse(text);
        lines++;
        start = newline + 1;
        newline = buffer.indexOf(10, start);
      }
      if (start < read)
        carry = carry
          ? Buffer.concat([carry, buffer.subarray(start, read)])
          : Buffer.from(buffer.subarray(start, read));
    }
    closeSync(fd);
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = process.hrtime.bigint();
  const lines = plainParse(process.argv.slice(2));
  console.log(JSON.stringify({ seconds: Number(process.hrtime.bigint() - started) / 1e9, lines }));
}
