import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigFileRefusal,
  findConfigFile,
  readOnlyRefusal,
  replaceConfigFile,
} from '../../../../client/memctl/config-file.js';

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-config-file-'));
  path = join(dir, 'settings.json');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const withKey = (bytes: Buffer | null, key: string) =>
  `${JSON.stringify({ ...(bytes === null ? {} : (JSON.parse(bytes.toString()) as object)), [key]: true })}\n`;

describe('replaceConfigFile', () => {
  it('merges again from the new bytes when a writer without the lock changed the file between read and rename', async () => {
    writeFileSync(path, '{"theirs":1}\n');
    const seen: string[] = [];
    const { backup } = await replaceConfigFile(path, (bytes) => {
      seen.push(bytes?.toString() ?? 'none');
      // The first time, another program rewrites the file right after memctl read it.
      if (seen.length === 1) writeFileSync(path, '{"theirs":1,"late":2}\n');
      return {
        write: true,
        content: withKey(bytes, 'memd'),
        mode: 0o644,
        backup: (old) => {
          writeFileSync(`${path}.bak`, old);
          return `${path}.bak`;
        },
      };
    });
    expect(seen).toEqual(['{"theirs":1}\n', '{"theirs":1,"late":2}\n']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ theirs: 1, late: 2, memd: true });
    expect(readFileSync(backup ?? '', 'utf8')).toBe('{"theirs":1,"late":2}\n');
    expect(readdirSync(dir).sort()).toEqual(['settings.json', 'settings.json.bak']);
  });

  it('does not replace a file that appeared while it created one; merges into it instead', async () => {
    let calls = 0;
    await replaceConfigFile(path, (bytes) => {
      calls++;
      if (calls === 1) writeFileSync(path, '{"created":"meanwhile"}\n');
      return { write: true, content: withKey(bytes, 'memd'), mode: 0o600 };
    });
    expect(calls).toBe(2);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ created: 'meanwhile', memd: true });
  });

  it('gives up after a bounded number of rounds when the file never holds still, leaving it as the writer left it', async () => {
    writeFileSync(path, '{}\n');
    let round = 0;
    const attempt = replaceConfigFile(path, (bytes) => {
      writeFileSync(path, `{"round":${++round}}\n`);
      return { write: true, content: withKey(bytes, 'memd'), mode: 0o644 };
    });
    await expect(attempt).rejects.toThrow(ConfigFileRefusal);
    expect(round).toBe(5);
    expect(readFileSync(path, 'utf8')).toBe('{"round":5}\n');
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('keeps an existing file mode and writes nothing when the revision says so', async () => {
    writeFileSync(path, '{}\n');
    chmodSync(path, 0o640);
    await replaceConfigFile(path, (bytes) => ({
      write: true,
      content: withKey(bytes, 'memd'),
      mode: statSync(path).mode & 0o777,
    }));
    expect(statSync(path).mode & 0o777).toBe(0o640);
    const before = statSync(path).ino;
    await replaceConfigFile(path, () => ({ write: false }));
    expect(statSync(path).ino).toBe(before);
  });
});

describe('the lock', () => {
  it("takes over a lock whose holder died (older than proper-lockfile's 10 s), and removes it after", async () => {
    writeFileSync(path, '{}\n');
    mkdirSync(`${path}.lock`);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, minuteAgo, minuteAgo);
    await replaceConfigFile(path, (bytes) => ({ write: true, content: withKey(bytes, 'memd'), mode: 0o644 }));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ memd: true });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});

describe('readOnlyRefusal', () => {
  it('refuses a file with no write bit even for root, and says how to go on', () => {
    writeFileSync(path, '{}\n');
    chmodSync(path, 0o444);
    const found = findConfigFile(path);
    if (!found.exists) throw new Error('the file is there');
    const refusal = readOnlyRefusal(path, found);
    expect(refusal?.sentence()).toBe(
      `${path} is read-only (mode 0444); nothing was changed: make it writable (chmod u+w ${path}) and run memctl again, or make the change yourself`,
    );
    chmodSync(path, 0o644);
    const writable = findConfigFile(path);
    expect(writable.exists && readOnlyRefusal(path, writable)).toBe(null);
  });

  it('finds a missing file absent, without creating its directory', () => {
    const nested = join(dir, 'a', 'b.json');
    expect(findConfigFile(nested)).toEqual({ exists: false });
    expect(existsSync(join(dir, 'a'))).toBe(false);
  });
});
