/**
 * Decoding another machine's synced archive file (daemon/sync/decoder.ts, gzip-members.ts): whole
 * members only, whatever an engine left of the file; an older copy takes nothing back; a file
 * started anew on its machine is decoded anew; bad bytes are a counted problem, not a crash.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeFile } from '../../../../daemon/sync/decoder.js';
import { firstMember } from '../../../../daemon/sync/gzip-members.js';
import type { ReceivedRow } from '../../../../daemon/sync/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function place() {
  const dir = mkdtempSync(join(tmpdir(), 'memd-decode-'));
  dirs.push(dir);
  return { source: join(dir, 'synced.jsonl.gz'), target: join(dir, 'decoded', 'p', 's.jsonl') };
}

const lines = (from: number, count: number) =>
  Array.from({ length: count }, (_, at) => `{"n":${from + at},"text":"${'x'.repeat(40)}"}\n`).join('');
const IDS = { device: '0123456789abcdef', rel: 'p/s/s.jsonl.gz' };

async function decode(source: string, target: string, row?: ReceivedRow) {
  return decodeFile(source, target, row, IDS, Number.POSITIVE_INFINITY);
}

describe('firstMember', () => {
  it('reads a member whose header names a file, and says torn for every cut of it', async () => {
    const member = gzipSync('hello\n');
    // FNAME: flags 0x08 and a zero-terminated name after the fixed header.
    const named = Buffer.concat([
      member.subarray(0, 3),
      Buffer.from([0x08]),
      member.subarray(4, 10),
      Buffer.from('a.jsonl\0'),
      member.subarray(10),
    ]);
    const read = await firstMember(named, 1024);
    expect(read).toMatchObject({ kind: 'member', length: named.length });
    expect(read.kind === 'member' && read.data.toString()).toBe('hello\n');
    for (let cut = 0; cut < named.length; cut++)
      expect((await firstMember(named.subarray(0, cut), 1024)).kind).toBe('torn');
  });

  it('refuses what is not a member, a bad CRC, and a member past the bound', async () => {
    expect(await firstMember(Buffer.from('{"not":"gzip"}'), 1024)).toMatchObject({ kind: 'bad' });
    const member = gzipSync('hello\n');
    const badCrc = Buffer.from(member);
    badCrc[badCrc.length - 8] = (badCrc[badCrc.length - 8] as number) ^ 0xff;
    expect(await firstMember(badCrc, 1024)).toMatchObject({ kind: 'bad', reason: expect.stringMatching(/CRC/) });
    expect(await firstMember(gzipSync('y'.repeat(5000)), 1024)).toMatchObject({
      kind: 'bad',
      reason: expect.stringMatching(/past 1024/),
    });
  });
});

describe('decodeFile', () => {
  it('decodes whole members only, and the rest once it arrives', async () => {
    const { source, target } = place();
    const first = gzipSync(lines(0, 50));
    const second = gzipSync(lines(50, 50));
    writeFileSync(source, Buffer.concat([first, second.subarray(0, second.length - 3)]));
    const partial = await decode(source, target);
    expect(partial.row).toMatchObject({
      archive_bytes: first.length,
      source_bytes: lines(0, 50).length,
      problem: null,
    });
    expect(readFileSync(target, 'utf8')).toBe(lines(0, 50));
    writeFileSync(source, Buffer.concat([first, second]));
    const whole = await decode(source, target, partial.row);
    expect(whole.changed).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(lines(0, 100));
    expect(whole.row.archive_bytes).toBe(first.length + second.length);
  });

  it('keeps what was decoded when an older copy comes back, and goes on when the file grows again', async () => {
    const { source, target } = place();
    const members = [gzipSync(lines(0, 10)), gzipSync(lines(10, 10)), gzipSync(lines(20, 10))];
    writeFileSync(source, Buffer.concat(members.slice(0, 2)));
    const two = await decode(source, target);
    writeFileSync(source, members[0] as Buffer);
    const rolledBack = await decode(source, target, two.row);
    expect(rolledBack.changed).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe(lines(0, 20));
    writeFileSync(source, Buffer.concat(members));
    await decode(source, target, rolledBack.row);
    expect(readFileSync(target, 'utf8')).toBe(lines(0, 30));
  });

  it('decodes a file started anew on its machine from its start, into the same place', async () => {
    const { source, target } = place();
    writeFileSync(source, gzipSync(lines(0, 20)));
    const before = await decode(source, target);
    writeFileSync(source, Buffer.concat([gzipSync(lines(500, 5)), gzipSync(lines(505, 40))]));
    const anew = await decode(source, target, before.row);
    expect(anew.changed).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(lines(500, 45));
  });

  it('cuts what a crash left past the book, and decodes again a decoded copy that lost bytes', async () => {
    const { source, target } = place();
    writeFileSync(source, Buffer.concat([gzipSync(lines(0, 10)), gzipSync(lines(10, 10))]));
    const done = await decode(source, target);
    writeFileSync(target, `${lines(0, 20)}torn`);
    writeFileSync(source, Buffer.concat([gzipSync(lines(0, 10)), gzipSync(lines(10, 10)), gzipSync(lines(20, 1))]));
    await decode(source, target, done.row);
    expect(readFileSync(target, 'utf8')).toBe(lines(0, 21));
    truncateSync(target, 5);
    const again = await decode(source, target, { ...done.row, archive_bytes: done.row.archive_bytes });
    expect(readFileSync(target, 'utf8')).toBe(lines(0, 21));
    expect(again.row.source_bytes).toBe(lines(0, 21).length);
  });

  it('records bad bytes as a problem, keeps the members before them, and looks again only when the file changes', async () => {
    const { source, target } = place();
    const good = gzipSync(lines(0, 10));
    writeFileSync(source, Buffer.concat([good, Buffer.from('garbage that is not gzip')]));
    const bad = await decode(source, target);
    expect(bad.row.problem).toMatch(/not a gzip member at byte/);
    expect(readFileSync(target, 'utf8')).toBe(lines(0, 10));
    expect((await decode(source, target, bad.row)).changed).toBe(false);
  });

  it('goes on after a budget stop, and does not inflate a torn tail again until the file changes', async () => {
    const { source, target } = place();
    const members = [gzipSync(lines(0, 30)), gzipSync(lines(30, 30)), gzipSync(lines(60, 30))];
    writeFileSync(source, Buffer.concat(members));
    let row: ReceivedRow | undefined;
    let calls = 0;
    for (let more = true; more; calls++) {
      const step = await decodeFile(source, target, row, IDS, 1);
      row = step.row;
      more = step.more;
    }
    expect(calls).toBe(3);
    expect(readFileSync(target, 'utf8')).toBe(lines(0, 90));
    const torn = gzipSync(lines(90, 5));
    writeFileSync(source, Buffer.concat([...members, torn.subarray(0, 10)]));
    const waiting = await decode(source, target, row);
    expect(waiting.consumed).toBe(0);
    expect((await decode(source, target, waiting.row)).row).toEqual(waiting.row);
  });
});
