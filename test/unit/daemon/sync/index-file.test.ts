/** A device's index.json as another machine wrote it (daemon/sync/index-file.ts, reader.ts): read as hostile input. */
import { describe, expect, it } from 'vitest';
import { isSafeRel, parseDeviceFile, parseIndex } from '../../../../daemon/sync/index-file.js';
import { splitArchiveRel } from '../../../../daemon/sync/reader.js';
import { tombstoneKey } from '../../../../shared/sync/tombstone.js';

const DEVICE = '0123456789abcdef';
const file = (rel: string) => ({ rel, kind: 'transcript', sourceBytes: 10, archiveBytes: 5 });

describe('parseIndex', () => {
  it('keeps the sessions and files a device may list, and drops paths that would leave their folder', () => {
    const index = parseIndex(
      JSON.stringify({
        format: 1,
        device: DEVICE,
        writtenAt: '2026-12-06T00:00:00Z',
        sessions: [
          {
            sessionId: 's1',
            project: '-home-u-app',
            files: [file('s1.jsonl'), file('s1/subagents/agent-a.jsonl'), file('../../etc/passwd'), file('/abs')],
          },
          { sessionId: '..', project: '-home-u-app', files: [file('x.jsonl')] },
          { sessionId: 's2', project: 'a/b', files: [file('s2.jsonl')] },
        ],
        tombstones: [
          { sessionHash: tombstoneKey('s9'), device: DEVICE, at: 5, deleteTranscripts: true },
          { sessionHash: tombstoneKey('s8'), device: 'not-a-device', at: 5 },
          { sessionHash: 's7', device: DEVICE, at: 5 },
        ],
      }),
      DEVICE,
      1,
    );
    expect(index).toMatchObject({
      sessions: [{ sessionId: 's1', files: [{ rel: 's1.jsonl' }, { rel: 's1/subagents/agent-a.jsonl' }] }],
      tombstones: [{ sessionHash: tombstoneKey('s9'), deleteTranscripts: true }],
    });
  });

  it('ignores a torn copy, another device, and a newer format whole', () => {
    const good = JSON.stringify({ format: 1, device: DEVICE, writtenAt: '', sessions: [], tombstones: [] });
    expect(parseIndex(good.slice(0, 30), DEVICE, 1)).toMatch(/not JSON/);
    expect(parseIndex(good, 'fedcba9876543210', 1)).toMatch(/another device/);
    expect(parseIndex(good.replace('"format":1', '"format":2'), DEVICE, 1)).toMatch(/newer/);
    expect(parseDeviceFile(JSON.stringify({ format: 1, id: DEVICE, name: 'lap\u0007top' }), DEVICE, 1)).toMatchObject({
      name: 'laptop',
    });
  });
});

describe('archive paths', () => {
  it('splits <project>/<session>/<rel>.gz and refuses anything else', () => {
    expect(splitArchiveRel('-home-u-app/s1/s1.jsonl.gz')).toEqual({
      project: '-home-u-app',
      sessionId: 's1',
      source: 's1.jsonl',
    });
    expect(splitArchiveRel('-home-u-app/s1/s1/tool-results/t.txt.gz')?.source).toBe('s1/tool-results/t.txt');
    for (const bad of ['p/s/../../x.gz', 'p/s/x.jsonl', '../s/x.gz', 'p/s/.gz', 'p/..//x.gz'])
      expect(splitArchiveRel(bad)).toBeNull();
    expect(isSafeRel('a/./b')).toBe(false);
  });
});
