/** Versions of a memory across machines, and the manifest that carries them (issue 35). */
import { describe, expect, it } from 'vitest';
import { checkManifest, MAX_SYNCED_MEMORIES, manifestText } from '../../../../daemon/sync/memdir-manifest.js';
import { compareVersions, covers, mergeVersions, parseVersion } from '../../../../daemon/sync/memdir-version.js';

const A = 'aaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbb';
const ETAG = '0123456789abcdef0123456789abcdef';

const entry = (overrides: Record<string, unknown> = {}) => ({
  project: '-home-user-src-app',
  scope: 'private',
  name: 'style',
  etag: ETAG,
  base: null,
  version: { [A]: 2 },
  seq: 2,
  ...overrides,
});

const manifest = (memories: unknown[], overrides: Record<string, unknown> = {}) => ({
  format: 1,
  device: A,
  counter: 3,
  memories,
  ...overrides,
});

describe('versions', () => {
  it('orders a descendant after its ancestor however many versions lie between, and two branches as concurrent', () => {
    expect(compareVersions({ [A]: 5 }, { [A]: 2 })).toBe('after');
    expect(compareVersions({ [A]: 2 }, { [A]: 2, [B]: 1 })).toBe('before');
    expect(compareVersions({ [A]: 3 }, { [A]: 2, [B]: 1 })).toBe('concurrent');
    expect(compareVersions({}, {})).toBe('equal');
    expect(covers(mergeVersions({ [A]: 3 }, { [A]: 2, [B]: 1 }), { [A]: 2, [B]: 1 })).toBe(true);
  });

  it('takes only device ids with positive whole counters', () => {
    expect(parseVersion({ [A]: 1 })).toEqual({ [A]: 1 });
    for (const bad of [{ x: 1 }, { [A]: 0 }, { [A]: 1.5 }, { [A]: '1' }, [], null, { ['__proto__']: 1 }])
      expect(parseVersion(bad), JSON.stringify(bad)).toBeNull();
  });
});

describe('a manifest', () => {
  it('reads back as written', async () => {
    const checked = await checkManifest(JSON.parse(manifestText(manifest([entry()]) as never)), A);
    expect(checked).toMatchObject({ ok: true, manifest: { counter: 3, memories: [{ name: 'style', etag: ETAG }] } });
  });

  it('is refused whole for any field out of place, a newer format, or another device', async () => {
    const refusals = [
      manifest([entry({ name: '../escape' })]),
      manifest([entry({ name: 'team/x' })]),
      manifest([entry({ project: '../x' })]),
      manifest([entry({ etag: 'nothex' })]),
      manifest([entry({ version: {} })]),
      manifest([entry(), entry()]),
      manifest([entry()], { counter: -1 }),
      manifest([entry()], { device: B }),
      manifest(Array.from({ length: MAX_SYNCED_MEMORIES + 1 }, () => entry())),
    ];
    for (const value of refusals) expect((await checkManifest(value, A)).ok).toBe(false);
    expect(await checkManifest(manifest([entry()], { format: 2 }), A)).toMatchObject({ ok: false, newer: true });
    expect(await checkManifest(null, A)).toMatchObject({ ok: false });
  });
});
