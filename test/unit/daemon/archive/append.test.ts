import { appendFileSync, mkdtempSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ArchiveDamagedError, appendMember, compress, cutTornTail } from '../../../../daemon/archive/append.js';
import { relativeToProject } from '../../../../daemon/archive/layout.js';
import { compareWithFile, inflate } from '../../../../daemon/archive/read.js';

const temp = () => mkdtempSync('/tmp/memd-archive-');

async function inflated(path: string, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of inflate(path, bytes)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('archive files', () => {
  it('appends gzip members that inflate, with zlib or zcat, to the bytes in order', async () => {
    const dir = temp();
    const path = join(dir, 'deep', 'session.jsonl.gz');
    let length = await appendMember(path, 0, await compress(Buffer.from('{"a":1}\n')));
    length = await appendMember(path, length, await compress(Buffer.from('{"b":2}\n')));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'deep')).mode & 0o777).toBe(0o700);
    expect(gunzipSync(readFileSync(path)).toString()).toBe('{"a":1}\n{"b":2}\n');
    expect((await inflated(path, length)).toString()).toBe('{"a":1}\n{"b":2}\n');
    const source = join(dir, 'session.jsonl');
    writeFileSync(source, '{"a":1}\n{"b":2}\n{"c":3}\n');
    expect(await compareWithFile(path, length, source, false)).toEqual({ equal: true, inflated: 16 });
    expect((await compareWithFile(path, length, source, true)).equal).toBe(false);
  });

  it('cuts a torn tail before appending and at start, and refuses a file shorter than its book', async () => {
    const dir = temp();
    const path = join(dir, 'a.gz');
    const length = await appendMember(path, 0, await compress(Buffer.from('one\n')));
    appendFileSync(path, 'torn');
    expect(await cutTornTail(path, length)).toBe('cut');
    expect(statSync(path).size).toBe(length);
    appendFileSync(path, 'torn again');
    const next = await appendMember(path, length, await compress(Buffer.from('two\n')));
    expect(gunzipSync(readFileSync(path)).toString()).toBe('one\ntwo\n');
    truncateSync(path, 5);
    await expect(appendMember(path, next, await compress(Buffer.from('three\n')))).rejects.toBeInstanceOf(
      ArchiveDamagedError,
    );
    expect(await cutTornTail(path, next)).toBe('short');
    expect(await cutTornTail(join(dir, 'none.gz'), 10)).toBe('missing');
    expect(await cutTornTail(join(dir, 'none.gz'), 0)).toBe('ok');
  });

  it('never writes through a symlink', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'target'), 'keep');
    symlinkSync(join(dir, 'target'), join(dir, 'link.gz'));
    await expect(appendMember(join(dir, 'link.gz'), 0, await compress(Buffer.from('x')))).rejects.toMatchObject({
      code: 'ELOOP',
    });
    expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('keep');
  });

  it("keeps a file's path under its project folder, and nothing outside it", () => {
    expect(relativeToProject('/p', '-home-x', '/p/-home-x/abc.jsonl')).toBe('abc.jsonl');
    expect(relativeToProject('/p', '-home-x', '/p/-home-x/abc/subagents/agent-1.jsonl')).toBe(
      'abc/subagents/agent-1.jsonl',
    );
    expect(relativeToProject('/p', '-home-x', '/p/-home-y/abc.jsonl')).toBeNull();
    expect(relativeToProject('/p', '-home-x', '/p/-home-x')).toBeNull();
  });
});
