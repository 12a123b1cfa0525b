// `npm run bench -- archive [--size 2.4G]`: the archive on the heavy-user corpus of the scale bench
// (issue 18). The backfill with and without it (MEMD_ARCHIVE=off), the time it then takes to
// archive the history (it waits for the backfill), its size against the transcripts, the worst
// `daemon.status` meanwhile, a 50 MB session deleted and restored in place, and every session
// restored under a temp dir and compared by sha256 with the files it came from.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fmt, makeSandbox, ROOT } from './lib.js';
import { caughtUp, startDaemon, startProbe, until } from './scale.js';
import { parseSize, writeScaleCorpus } from './scale-corpus.js';

const MB = 1024 * 1024;
const TARGETS = { sizeRatio: 0.2, overhead: 0.15, restoreMs: 1_000 };
const pass = (ok) => (ok ? 'PASS' : 'FAIL');
const sha = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A corpus file's session and its path under the project folder (`<id>.jsonl`, `<id>/subagents/…`). */
function sessionFile(projectsDir, path) {
  const project = relative(projectsDir, path).split('/')[0];
  const rel = relative(join(projectsDir, project), path);
  return { sessionId: rel.split('/')[0].replace(/\.jsonl$/, ''), rel };
}

export async function benchArchive(options = {}) {
  const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
  const sandbox = makeSandbox();
  const env = { ...sandbox.env, MEMD_BACKFILL_EXTRACTIONS: '0' };
  mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  const results = [];
  const report = (line, ok) => {
    console.log(`  ${line}${ok === undefined ? '' : `: ${pass(ok)}`}`);
    if (ok !== undefined) results.push(ok);
  };
  let running;
  let probe;
  try {
    const corpus = writeScaleCorpus(
      env.MEMD_PROJECTS_DIR,
      options.size === undefined ? undefined : parseSize(options.size),
    );
    console.log(`archive: ${fmt(corpus.bytes / MB)} MB, ${corpus.sessions} sessions, ${corpus.files.length} files`);
    spawnSync('cat', corpus.files, { stdio: 'ignore', maxBuffer: 1 });

    const off = await startDaemon(createClient, { ...env, MEMD_ARCHIVE: 'off' });
    await caughtUp(off.client, corpus.bytes);
    const offMs = (await off.client.daemonStatus()).ingest.progress.backfillMs;
    off.client.close();
    await off.daemon.stop();
    rmSync(env.XDG_STATE_HOME, { recursive: true, force: true });

    running = await startDaemon(createClient, env);
    const { client } = running;
    await caughtUp(client, corpus.bytes);
    const onMs = (await client.daemonStatus()).ingest.progress.backfillMs;
    const overhead = onMs / offMs - 1;
    report(
      `backfill without the archive ${fmt(offMs / 1000, 2)} s, with it ${fmt(onMs / 1000, 2)} s: +${fmt(overhead * 100)} % (target <= ${TARGETS.overhead * 100} %)`,
      overhead <= TARGETS.overhead,
    );
    probe = startProbe(env);
    await probe.worst();
    const started = performance.now();
    await until(async () => {
      const { archive } = await client.daemonStatus();
      return archive.state === 'live' && archive.pendingBytes === 0 && archive.sourceBytes >= corpus.bytes;
    }, 'the archive to catch up');
    const catchUpMs = performance.now() - started;
    const worst = await probe.worst();
    await probe.stop();
    probe = undefined;
    const { archive } = await client.daemonStatus();
    report(
      `then the history archived in ${fmt(catchUpMs / 1000, 1)} s (${fmt(corpus.bytes / MB / (catchUpMs / 1000))} MB/s), worst daemon.status meanwhile ${fmt(worst)} ms`,
    );
    const ratio = archive.archiveBytes / corpus.bytes;
    report(
      `archive ${fmt(archive.archiveBytes / MB)} MB for ${fmt(corpus.bytes / MB)} MB of transcripts: ${fmt(ratio * 100)} % (target <= ${TARGETS.sizeRatio * 100} %)`,
      ratio <= TARGETS.sizeRatio,
    );

    // The 50 MB session deleted as Claude Code's cleanup would, and restored where it was.
    const target = corpus.appendTarget;
    const hash = sha(target.path);
    rmSync(target.path);
    await until(async () => (await client.sessionsGet({ sessionId: target.id })).gone, 'the session to be gone');
    const restoreStarted = performance.now();
    await client.archiveRestore({ sessionId: target.id });
    const restoreMs = performance.now() - restoreStarted;
    const same = sha(target.path) === hash;
    report(
      `restore of the ${fmt(target.bytes / MB)} MB session in place: ${fmt(restoreMs)} ms, ${same ? 'identical' : 'DIFFERENT'} (target <= ${TARGETS.restoreMs} ms)`,
      restoreMs <= TARGETS.restoreMs && same,
    );

    // Every session restored under a dir of its own and compared file by file.
    const sessions = new Map();
    for (const path of corpus.files) {
      const { sessionId, rel } = sessionFile(env.MEMD_PROJECTS_DIR, path);
      if (!sessions.has(sessionId)) sessions.set(sessionId, []);
      sessions.get(sessionId).push({ path, rel });
    }
    const out = join(sandbox.root, 'restored');
    let files = 0;
    let different = 0;
    const allStarted = performance.now();
    for (const [sessionId, list] of sessions) {
      const to = join(out, sessionId);
      await client.archiveRestore({ sessionId, to });
      for (const { path, rel } of list) {
        files += 1;
        if (sha(join(to, rel)) !== sha(path)) different += 1;
      }
      rmSync(to, { recursive: true, force: true });
    }
    report(
      `every session restored and compared: ${files} files in ${sessions.size} sessions, ${different} different, ${fmt((performance.now() - allStarted) / 1000, 1)} s`,
      different === 0 && files === corpus.files.length,
    );
    return results.every(Boolean);
  } finally {
    await probe?.stop();
    running?.client.close();
    await running?.daemon.stop();
    sandbox.cleanup();
  }
}
