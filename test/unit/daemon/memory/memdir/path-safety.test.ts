import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PathReason } from '../../../../../daemon/memory/memdir/path-reason.js';
import { realpathDeepestExisting } from '../../../../../daemon/memory/memdir/realpath-deepest.js';
import {
  readInside,
  removeInside,
  resolveInside,
  validateInside,
  type WriteHooks,
  writeInside,
} from '../../../../../daemon/memory/memdir/safe-path.js';
import { NameReason } from '../../../../../shared/memdir/names.js';
import { ErrorCode, RpcError } from '../../../../../shared/protocol/errors.js';

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'memd-safe-path-'));
  root = join(base, 'memory');
  outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
});

/** Every path under `dir`, links listed but never followed. */
function tree(dir: string): string[] {
  const found: string[] = [];
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      found.push(path);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return found;
}

afterEach(() => {
  try {
    // Whatever a test did, no write may leave its temp file anywhere.
    expect(tree(base).filter((path) => path.endsWith('.tmp'))).toEqual([]);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

async function rejection(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RpcError);
    const rpcError = error as RpcError;
    expect(rpcError.code).toBe(ErrorCode.PathRejected);
    expect(rpcError.kind).toBe('PathRejected');
    return rpcError;
  }
  throw new Error('expected a PathRejected error');
}

async function reason(promise: Promise<unknown>): Promise<unknown> {
  return (await rejection(promise)).data.reason;
}

describe('first pass', () => {
  it('resolves a nested name to its file under the root', () => {
    expect(resolveInside(root, 'testing/flaky-tests')).toBe(join(root, 'testing', 'flaky-tests.md'));
  });

  it.each([
    ['../x', NameReason.DotSegment],
    ['/etc/passwd', NameReason.Absolute],
    ['%2e%2e/x', NameReason.PercentEncoded],
    ['．．/x', NameReason.Lookalike],
    ['a\u0000b', NameReason.ControlCharacter],
  ])('rejects %j before touching the disk: the missing root is not created', async (name, expected) => {
    const missingRoot = join(base, 'not-yet');
    expect(() => resolveInside(missingRoot, name)).toThrow(RpcError);
    expect(await reason(writeInside(missingRoot, name, 'x'))).toBe(expected);
    expect(await reason(readInside(missingRoot, name))).toBe(expected);
    expect(await reason(removeInside(missingRoot, name))).toBe(expected);
    expect(existsSync(missingRoot)).toBe(false);
  });
});

describe('ordinary names', () => {
  it.each(['style', 'testing/flaky-tests', 'api/v2/auth notes', 'café', '日本語メモ/メモ'])(
    'writes, reads and removes %j',
    async (name) => {
      const path = await writeInside(root, name, `text of ${name}`);
      expect(path).toBe(join(realpathSync(root), `${name}.md`));
      expect(readFileSync(path, 'utf8')).toBe(`text of ${name}`);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(await readInside(root, name)).toBe(`text of ${name}`);
      expect(await validateInside(root, name)).toBe(path);
      expect(await removeInside(root, name)).toBe(true);
      expect(existsSync(path)).toBe(false);
      expect(await readInside(root, name)).toBeNull();
      expect(await removeInside(root, name)).toBe(false);
    },
  );

  it('creates missing dirs owner-only, and replaces a memory whole', async () => {
    await writeInside(root, 'a/b/c', 'first');
    await writeInside(root, 'a/b/c', 'second');
    expect(await readInside(root, 'a/b/c')).toBe('second');
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'a', 'b')).mode & 0o777).toBe(0o700);
  });

  it('creates a missing root on write; read and remove answer "nothing" without creating it', async () => {
    const fresh = join(base, 'fresh', 'memory');
    expect(await readInside(fresh, 'x')).toBeNull();
    expect(await removeInside(fresh, 'x')).toBe(false);
    expect(existsSync(fresh)).toBe(false);
    await writeInside(fresh, 'x', 'hello');
    expect(await readInside(fresh, 'x')).toBe('hello');
  });

  it('allows team/ in the team scope', async () => {
    await writeInside(root, 'team/x', 'shared', { scope: 'team' });
    expect(await readInside(root, 'team/x', { scope: 'team' })).toBe('shared');
    expect(await reason(readInside(root, 'team/x'))).toBe(NameReason.Reserved);
  });
});

describe('symlinked dirs', () => {
  it('rejects a write through a link to outside, and creates nothing there', async () => {
    symlinkSync(outside, join(root, 'link'));
    expect(await reason(writeInside(root, 'link/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(await reason(writeInside(root, 'link/deeper/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('rejects reading and removing through a link to outside', async () => {
    writeFileSync(join(outside, 'secret.md'), 'secret');
    symlinkSync(outside, join(root, 'link'));
    expect(await reason(readInside(root, 'link/secret'))).toBe(PathReason.SymlinkEscape);
    expect(await reason(removeInside(root, 'link/secret'))).toBe(PathReason.SymlinkEscape);
    expect(readFileSync(join(outside, 'secret.md'), 'utf8')).toBe('secret');
  });

  it('rejects a chain of links (a -> b -> outside)', async () => {
    symlinkSync(outside, join(root, 'b'));
    symlinkSync(join(root, 'b'), join(root, 'a'));
    expect(await reason(writeInside(root, 'a/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(await reason(writeInside(root, 'a/new/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('rejects a relative link that climbs out', async () => {
    symlinkSync('../outside', join(root, 'up'));
    expect(await reason(writeInside(root, 'up/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("rejects a link to a sibling dir whose name starts with the root's", async () => {
    const sibling = `${root}-other`;
    mkdirSync(sibling);
    symlinkSync(sibling, join(root, 'near'));
    expect(await reason(writeInside(root, 'near/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(readdirSync(sibling)).toEqual([]);
  });

  it('allows a link to another place inside, and writes to the real place', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    symlinkSync('real', join(root, 'relative-alias'));
    const path = await writeInside(root, 'alias/x', 'through the alias');
    expect(path).toBe(join(realpathSync(root), 'real', 'x.md'));
    expect(await readInside(root, 'relative-alias/x')).toBe('through the alias');
    expect(await readInside(root, 'real/x')).toBe('through the alias');
    expect(await removeInside(root, 'alias/x')).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it('rejects a link inside that leads to the index, to team/ or to a hidden dir', async () => {
    symlinkSync('.', join(root, 'self'));
    mkdirSync(join(root, '.hidden'));
    symlinkSync('.hidden', join(root, 'h'));
    expect(await reason(writeInside(root, 'self/MEMORY', 'index overwritten'))).toBe(NameReason.Reserved);
    expect(await reason(writeInside(root, 'self/team/x', 'into team'))).toBe(NameReason.Reserved);
    expect(await reason(writeInside(root, 'h/x', 'hidden'))).toBe(NameReason.HiddenSegment);
    expect(tree(root).sort()).toEqual([join(root, '.hidden'), join(root, 'h'), join(root, 'self')]);
    // The same link to a plain place inside is fine.
    expect(await writeInside(root, 'self/x', 'ok')).toBe(join(realpathSync(root), 'x.md'));
  });

  it('allows a root that is itself reached through a link', async () => {
    const rootLink = join(base, 'root-link');
    symlinkSync(root, rootLink);
    const path = await writeInside(rootLink, 'a/b', 'via the root link');
    expect(path).toBe(join(realpathSync(root), 'a', 'b.md'));
    expect(await readInside(rootLink, 'a/b')).toBe('via the root link');
    expect(await removeInside(rootLink, 'a/b')).toBe(true);
  });
});

describe('symlink loops', () => {
  it('rejects a loop a -> b -> a with its own reason, for every operation', async () => {
    symlinkSync(join(root, 'b'), join(root, 'a'));
    symlinkSync(join(root, 'a'), join(root, 'b'));
    expect(await reason(writeInside(root, 'a/x', 'x'))).toBe(PathReason.SymlinkLoop);
    expect(await reason(writeInside(root, 'a/deep/x', 'x'))).toBe(PathReason.SymlinkLoop);
    expect(await reason(readInside(root, 'a/x'))).toBe(PathReason.SymlinkLoop);
    expect(await reason(removeInside(root, 'b/x'))).toBe(PathReason.SymlinkLoop);
    await expect(realpathDeepestExisting(join(root, 'a', 'x.md'))).rejects.toMatchObject({
      data: { reason: PathReason.SymlinkLoop },
    });
  });

  it('rejects a link to itself', async () => {
    symlinkSync('self', join(root, 'self'));
    expect(await reason(writeInside(root, 'self/x', 'x'))).toBe(PathReason.SymlinkLoop);
  });
});

describe('dangling symlinks', () => {
  it('rejects a dangling link whose target would be outside, and creates nothing there', async () => {
    symlinkSync(join(outside, 'missing', 'deeper'), join(root, 'd'));
    expect(await reason(writeInside(root, 'd/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(await reason(writeInside(root, 'd/more/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('rejects a chain of dangling links that ends outside', async () => {
    symlinkSync(join(outside, 'nowhere'), join(root, 'd2'));
    symlinkSync('d2', join(root, 'd1'));
    expect(await reason(writeInside(root, 'd1/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('rejects a dangling link that climbs from a missing dir back onto a link to outside', async () => {
    // Lexically `missing/../esc` is `esc`, which is a link out; it must be resolved, not trusted.
    symlinkSync(outside, join(root, 'esc'));
    symlinkSync('missing/../esc', join(root, 'd'));
    writeFileSync(join(outside, 'x.md'), 'secret');
    expect(await reason(writeInside(root, 'd/x', 'pwned'))).toBe(PathReason.SymlinkEscape);
    expect(await reason(readInside(root, 'd/x'))).toBe(PathReason.SymlinkEscape);
    expect(readdirSync(outside)).toEqual(['x.md']);
    expect(readFileSync(join(outside, 'x.md'), 'utf8')).toBe('secret');
  });

  it('follows a dangling link whose target is inside, creating the target there', async () => {
    symlinkSync(join(root, 'later'), join(root, 'd'));
    expect(await realpathDeepestExisting(join(root, 'd', 'x.md'))).toBe(join(realpathSync(root), 'later', 'x.md'));
    const path = await writeInside(root, 'd/x', 'through a dangling link');
    expect(path).toBe(join(realpathSync(root), 'later', 'x.md'));
    expect(await readInside(root, 'd/x')).toBe('through a dangling link');
  });

  it('rejects a dangling link that leads back through itself via a missing dir', async () => {
    // The kernel would stop at `missing`; resolving the tail lexically would go round for ever.
    symlinkSync('missing/../d/x', join(root, 'd'));
    expect(await reason(writeInside(root, 'd/y', 'x'))).toBe(PathReason.SymlinkLoop);
    expect(await reason(readInside(root, 'd/y'))).toBe(PathReason.SymlinkLoop);
  });

  it('rejects a long chain of dangling links as a loop', async () => {
    const hops = 45;
    for (let i = 0; i < hops; i += 1) symlinkSync(`l${i + 1}`, join(root, `l${i}`));
    expect(await reason(writeInside(root, 'l0/x', 'x'))).toBe(PathReason.SymlinkLoop);
  });
});

describe('the memory file itself is a symlink', () => {
  beforeEach(() => {
    writeFileSync(join(outside, 'secret.md'), 'secret');
    symlinkSync(join(outside, 'secret.md'), join(root, 't.md'));
  });

  it('read refuses to follow it', async () => {
    expect(await reason(readInside(root, 't'))).toBe(PathReason.SymlinkTarget);
  });

  it('read refuses it even when it points inside', async () => {
    writeFileSync(join(root, 'real.md'), 'inside');
    symlinkSync(join(root, 'real.md'), join(root, 'inner.md'));
    expect(await reason(readInside(root, 'inner'))).toBe(PathReason.SymlinkTarget);
  });

  it('write replaces the link and leaves the outside file untouched', async () => {
    await writeInside(root, 't', 'mine');
    expect(lstatSync(join(root, 't.md')).isFile()).toBe(true);
    expect(await readInside(root, 't')).toBe('mine');
    expect(readFileSync(join(outside, 'secret.md'), 'utf8')).toBe('secret');
  });

  it('write replaces a dangling link instead of creating its target', async () => {
    symlinkSync(join(outside, 'new.md'), join(root, 'dangling.md'));
    await writeInside(root, 'dangling', 'mine');
    expect(lstatSync(join(root, 'dangling.md')).isFile()).toBe(true);
    expect(existsSync(join(outside, 'new.md'))).toBe(false);
  });

  it('remove unlinks the link, never its target', async () => {
    expect(await removeInside(root, 't')).toBe(true);
    expect(existsSync(join(root, 't.md'))).toBe(false);
    expect(readFileSync(join(outside, 'secret.md'), 'utf8')).toBe('secret');
  });
});

describe('things that are not memory files', () => {
  it("rejects a dir in the memory file's place", async () => {
    mkdirSync(join(root, 'd.md'));
    expect(await reason(writeInside(root, 'd', 'x'))).toBe(PathReason.NotAFile);
    expect(await reason(readInside(root, 'd'))).toBe(PathReason.NotAFile);
    expect(await reason(removeInside(root, 'd'))).toBe(PathReason.NotAFile);
    expect(statSync(join(root, 'd.md')).isDirectory()).toBe(true);
  });

  it('rejects a file where a dir is needed; reading there finds nothing', async () => {
    writeFileSync(join(root, 'f'), 'plain file');
    expect(await reason(writeInside(root, 'f/x', 'x'))).toBe(PathReason.NotADirectory);
    expect(await readInside(root, 'f/x')).toBeNull();
    expect(await removeInside(root, 'f/x')).toBe(false);
  });

  it("rejects a FIFO in the memory file's place without hanging", async () => {
    const made = spawnSync('mkfifo', [join(root, 'fifo.md')]);
    expect(made.status).toBe(0);
    expect(await reason(readInside(root, 'fifo'))).toBe(PathReason.NotAFile);
  });
});

describe('a dir swapped for a symlink during a write', () => {
  function swapTo(dir: string, destination: string, how: 'move' | 'delete'): WriteHooks & { calls: number } {
    const hooks = {
      calls: 0,
      beforeRename: () => {
        hooks.calls += 1;
        if (how === 'move') renameSync(dir, `${dir}-moved`);
        else rmSync(dir, { recursive: true });
        symlinkSync(destination, dir);
      },
    };
    return hooks;
  }

  it.each(['move', 'delete'] as const)(
    'rejects the write when an existing dir is swapped (%s), leaving nothing outside and no temp file',
    async (how) => {
      mkdirSync(join(root, 'sub'));
      const hooks = swapTo(join(root, 'sub'), outside, how);
      expect(await reason(writeInside(root, 'sub/x', 'pwned', { hooks }))).toBe(PathReason.Swapped);
      expect(hooks.calls).toBe(1);
      expect(readdirSync(outside)).toEqual([]);
    },
  );

  it('rejects the write when a dir it just created is swapped', async () => {
    const hooks = swapTo(join(root, 'new'), outside, 'move');
    expect(await reason(writeInside(root, 'new/deeper/x', 'pwned', { hooks }))).toBe(PathReason.Swapped);
    expect(hooks.calls).toBe(1);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('rejects the write when the dir is swapped for a link to another place inside', async () => {
    mkdirSync(join(root, 'sub'));
    mkdirSync(join(root, 'elsewhere'));
    const hooks = swapTo(join(root, 'sub'), join(root, 'elsewhere'), 'move');
    expect(await reason(writeInside(root, 'sub/x', 'x', { hooks }))).toBe(PathReason.Swapped);
    expect(readdirSync(join(root, 'elsewhere'))).toEqual([]);
  });

  it('lets the same write through when nothing is swapped (the hook runs, the file lands)', async () => {
    mkdirSync(join(root, 'sub'));
    let calls = 0;
    const hooks: WriteHooks = { beforeRename: () => void (calls += 1) };
    await writeInside(root, 'sub/x', 'fine', { hooks });
    expect(calls).toBe(1);
    expect(await readInside(root, 'sub/x')).toBe('fine');
  });

  it('rejects the write when the hook itself fails, and removes the temp file', async () => {
    const hooks: WriteHooks = {
      beforeRename: () => {
        throw new Error('disk on fire');
      },
    };
    await expect(writeInside(root, 'x', 'x', { hooks })).rejects.toThrow('disk on fire');
    expect(existsSync(join(root, 'x.md'))).toBe(false);
  });
});

describe('realpathDeepestExisting', () => {
  it('is realpath for a path that exists', async () => {
    mkdirSync(join(root, 'a'));
    expect(await realpathDeepestExisting(join(root, 'a'))).toBe(realpathSync(join(root, 'a')));
  });

  it('puts a missing tail back after the resolved ancestor', async () => {
    symlinkSync(outside, join(root, 'link'));
    expect(await realpathDeepestExisting(join(root, 'link', 'm1', 'm2.md'))).toBe(
      join(realpathSync(outside), 'm1', 'm2.md'),
    );
  });

  it('resolves `..` after a link the way the kernel does, not lexically', async () => {
    mkdirSync(join(outside, 'deep'));
    symlinkSync(join(outside, 'deep'), join(root, 'link'));
    expect(await realpathDeepestExisting(`${join(root, 'link')}/../x`)).toBe(join(realpathSync(outside), 'x'));
  });
});

describe('reading while another writer replaces the file', () => {
  it('reads again after an atomic replacement between open and check, and returns the new text', async () => {
    await writeInside(root, 'busy', 'old\n');
    let replaced = 0;
    const read = await readInside(root, 'busy', {
      hooks: {
        afterOpen: async () => {
          if (replaced++ === 0) await writeInside(root, 'busy', 'new\n');
        },
      },
    });
    expect(read).toBe('new\n');
    expect(replaced).toBe(2);
  });

  it('takes a file that keeps changing under every read for a swap, after a bounded number of tries', async () => {
    await writeInside(root, 'busy', 'v0\n');
    let replaced = 0;
    const read = readInside(root, 'busy', {
      hooks: { afterOpen: () => writeInside(root, 'busy', `v${++replaced}\n`).then(() => undefined) },
    });
    await expect(read).rejects.toMatchObject({ code: ErrorCode.PathRejected, data: { reason: PathReason.Swapped } });
    expect(replaced).toBeGreaterThan(1);
    expect(replaced).toBeLessThan(20);
  });
});
