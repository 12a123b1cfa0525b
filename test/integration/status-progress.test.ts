/**
 * `memctl status` says where ingest stands from the first moment: `starting` before the projects
 * dir is scanned (not `live` with nothing pending), a progress bar while backfilling. The states
 * are rendered on a real daemon's status, changed only in `progress`.
 */
import { describe, expect, it } from 'vitest';
import { plainOutput } from '../../client/memctl/output.js';
import { renderStatus } from '../../client/memctl/views/status.js';
import { createClient } from '../helpers/client.js';
import { makeSandbox, startDaemon } from '../helpers/sandbox.js';

const plain = plainOutput();

describe('memctl status while ingest starts', () => {
  it('renders starting, then the backfill bar, then nothing once live', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const status = await client.daemonStatus();
      const at = (progress: Partial<typeof status.ingest.progress>) =>
        renderStatus(
          { ...status, ingest: { ...status.ingest, progress: { ...status.ingest.progress, ...progress } } },
          plain,
        );
      expect(at({ state: 'starting', filesTotal: 0 })).toContain('  backfill  starting: scanning the projects dir');
      const backfilling = at({
        state: 'backfilling',
        filesDone: 1,
        filesTotal: 4,
        bytesDone: 250,
        bytesTotal: 1000,
      }).find((line) => line.startsWith('  backfill'));
      expect(backfilling).toMatch(/^ {2}backfill {2}▕[█░]+▏ 25% · 1\/4 files/);
      expect(backfilling).not.toContain('left');
      const withEta = at({ state: 'backfilling', bytesDone: 250, bytesTotal: 1000, backfillEtaMs: 95_000 });
      expect(withEta.find((line) => line.startsWith('  backfill'))).toMatch(/ · about 1m 35s left$/);
      expect(at({ state: 'live' }).some((line) => line.startsWith('  backfill'))).toBe(false);
      // The search index's build after a big first backfill (issue 34), shown only while it builds.
      expect(status.search.index).toEqual({ state: 'ready', filesDone: 0, filesTotal: 0 });
      expect(renderStatus(status, plain).some((line) => line.startsWith('  search'))).toBe(false);
      const building = {
        ...status,
        search: { ...status.search, index: { state: 'building' as const, filesDone: 120, filesTotal: 1015 } },
      };
      expect(renderStatus(building, plain)).toContain(
        '  search    index being built: 120/1015 files read; searches find what is read so far',
      );
    } finally {
      client.close();
    }
  });

  it('names each row once (process RSS apart from memory extraction) and sizes everything in B, KiB, MiB', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const status = await client.daemonStatus();
      const extraction = { ...status.extraction, jobs: { ...status.extraction.jobs, done: 2 } };
      const archive =
        status.archive === undefined
          ? undefined
          : { ...status.archive, enabled: true, sourceBytes: 18_022, archiveBytes: 0, pendingBytes: 18_022 };
      const lines = renderStatus({ ...status, extraction, ...(archive === undefined ? {} : { archive }) }, plain);
      const labels = lines
        .slice(1)
        .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
        .filter((label) => label !== undefined && label !== 'warning');
      expect(new Set(labels).size, labels.join(', ')).toBe(labels.length);
      expect(lines.find((line) => line.startsWith('  process '))).toMatch(/ RSS, /);
      expect(lines.find((line) => line.startsWith('  memory '))).toMatch(/2 extractions done/);
      const text = lines.join('\n');
      expect(text).not.toMatch(/\d (KB|MB|GB)\b/);
      if (archive !== undefined) expect(text).toContain('17.6 KiB');
    } finally {
      client.close();
    }
  });
});
