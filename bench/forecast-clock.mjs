// Loaded into memd by bench/forecast.js (`node --import`): shifts Date.now to the replayed
// session's time, which the harness writes (epoch ms, then the real epoch ms it wrote it at) to the
// file MEMD_BENCH_CLOCK_FILE names. A replay of hours of work runs in seconds, and usage.status
// reads `now` against the plan window's reset and the responses' timestamps; with the clock where
// the session was, it answers as it would have live. Never loaded outside the harness.
import { readFileSync } from 'node:fs';

/**
 * How often the file is read. fs.watch lost events here (a run waited a minute for one), so it is
 * polled; the harness asks memd for its clock until it reads the new time.
 */
const REREAD_MS = 10;
const file = process.env.MEMD_BENCH_CLOCK_FILE;
if (file !== undefined && file !== '') {
  const realNow = Date.now.bind(Date);
  let offset = 0;
  const reread = () => {
    try {
      const [at, writtenAt] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
      if (Number.isFinite(at) && Number.isFinite(writtenAt)) offset = at - writtenAt;
    } catch {
      // Gone at the end of the run: keep the last offset.
    }
  };
  reread();
  setInterval(reread, REREAD_MS).unref();
  Date.now = () => realNow() + offset;
}
