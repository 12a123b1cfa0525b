/**
 * STYLE.md's architecture habits, checked on the import graph of the real tree; and a fake tree
 * that breaks each rule once, so that a passing check is known to be able to fail.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkImports, collectImports, filesPerFolder, folderImportCounts, formatImportCounts } from './imports.js';
import type { MayCallTable } from './may-call.js';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

describe('the real tree', () => {
  it('breaks no architecture rule', () => {
    const violations = checkImports(REPO_ROOT);
    // All of them at once: fixing one at a time through test reruns is slow.
    if (violations.length > 0) console.log(`${violations.length} architecture violations:\n${violations.join('\n')}`);
    expect(violations).toEqual([]);
  });

  it('has a folder import map to read', () => {
    const counts = folderImportCounts(REPO_ROOT);
    const files = filesPerFolder(REPO_ROOT);
    const sizes = [...files].map(([folder, list]) => `${folder} ${list.length}`).join(', ');
    console.log(`files per folder: ${sizes}\nfolder → folder imports:\n${formatImportCounts(counts)}`);
    expect(files.get('shared/')?.length).toBeGreaterThan(0);
    expect(counts.get('(main)')?.size).toBeGreaterThan(0);
  });
});

/** One file per broken rule, plus allowed imports that must stay silent. */
const FAKE_TREE: Record<string, string> = {
  // Cycle a → b → a, each edge through a different import form.
  'daemon/a/x.ts': "import { y } from '../b/y.js';\nexport const x = y;\n",
  'daemon/b/y.ts': "import type { X } from '../a/x.js';\nexport const y = 1;\n",
  // A domain reaching the transport.
  'daemon/compaction/z.ts': "export { dispatch } from '../rpc/dispatch.js';\n",
  // shared/ depending on the daemon.
  'shared/p.ts': "import '../daemon/a/x.js';\n",
  // The client reaching past the protocol, type-only.
  'client/c.ts': "import type { Dispatch } from '../daemon/rpc/dispatch.js';\nimport { q } from '../shared/q.js';\n",
  // Infrastructure reaching up into a domain.
  'daemon/log/l.ts': "export * from '../memory/m.js';\n",
  // A part importing the wiring file, dynamically.
  'daemon/handoff/h.ts': "export const h = async () => (await import('../main.js')).main;\n",
  // Allowed: main wires rpc, rpc uses domains and itself, shared uses shared; comments and strings are not imports.
  'daemon/main.ts': "import { dispatch } from './rpc/dispatch.js';\nexport const main = dispatch;\n",
  'daemon/rpc/dispatch.ts':
    "import { m } from '../memory/m.js';\nimport { s } from './server.js';\nexport const dispatch = [m, s];\n",
  'daemon/rpc/server.ts': 'export const s = 1;\n',
  'daemon/memory/m.ts': "// import { main } from '../main.js';\nexport const m = \"import '../rpc/dispatch.js'\";\n",
  'shared/q.ts': "import { p } from './p.js';\nexport const q = p;\n",
  // A domain calling one its row does not name.
  'daemon/export/e.ts': "import { h } from '../handoff/h.js';\nexport const e = h;\n",
  // Two files of one folder in a circle, one edge type-only.
  'daemon/memory/n.ts': "import { o } from './o.js';\nexport const n = o;\n",
  'daemon/memory/o.ts': "import type { N } from './n.js';\nexport const o = 1;\n",
};

/**
 * The fake tree's MAY_CALL. It allows the edges that the rules above forbid, to show that they still
 * fire whatever the table says; it names one allowance no file uses and one folder that is not there.
 */
const FAKE_MAY_CALL: MayCallTable = {
  log: { layer: 'infrastructure', calls: { memory: '' } },
  compaction: { layer: 'domain', calls: { rpc: '' } },
  memory: { layer: 'domain', calls: {} },
  handoff: { layer: 'domain', calls: { '(main)': '' } },
  export: { layer: 'domain', calls: { memory: 'never imported' } },
  rpc: { layer: 'domain', calls: { memory: '' } },
  '(main)': { layer: 'domain', calls: { rpc: '' } },
  gone: { layer: 'domain', calls: {} },
};

describe('a tree that breaks each rule once', () => {
  let root = '';
  let violations: string[] = [];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'memd-architecture-'));
    for (const [file, text] of Object.entries(FAKE_TREE)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    violations = checkImports(root, FAKE_MAY_CALL);
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  const find = (rule: string) => violations.filter((v) => v.startsWith(`[${rule}] `));

  it('sees every import form and none in comments or strings', () => {
    const edges = collectImports(root).map((i) => `${i.from} → ${i.to}`);
    expect(edges).toContain('daemon/b/y.ts → daemon/a/x.ts'); // import type
    expect(edges).toContain('daemon/compaction/z.ts → daemon/rpc/dispatch.ts'); // export from
    expect(edges).toContain('daemon/handoff/h.ts → daemon/main.ts'); // import()
    expect(edges).toContain('shared/p.ts → daemon/a/x.ts'); // side effect only
    expect(edges.filter((e) => e.startsWith('daemon/memory/m.ts'))).toEqual([]);
  });

  it('shared imports nothing from daemon or client', () => {
    expect(find('shared-is-pure')).toEqual([expect.stringContaining('shared/p.ts imports daemon/a/x.ts')]);
  });

  it('the client imports only shared', () => {
    expect(find('client-speaks-protocol')).toEqual([
      expect.stringContaining('client/c.ts imports daemon/rpc/dispatch.ts'),
    ]);
  });

  it('only main and rpc import rpc', () => {
    expect(find('rpc-is-the-edge')).toEqual([
      expect.stringContaining('daemon/compaction/z.ts imports daemon/rpc/dispatch.ts'),
    ]);
  });

  it('daemon folders form no cycle, reported once with an import per edge', () => {
    const cycles = find('no-folder-cycles');
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toContain('a → b → a');
    expect(cycles[0]).toContain('daemon/a/x.ts imports daemon/b/y.ts');
    expect(cycles[0]).toContain('daemon/b/y.ts imports daemon/a/x.ts');
  });

  it('infrastructure imports no domain', () => {
    expect(find('infrastructure-below-domains')).toEqual([
      expect.stringContaining('daemon/log/l.ts imports daemon/memory/m.ts'),
    ]);
  });

  it('nothing but main imports main.ts', () => {
    expect(find('main-is-wiring')).toEqual([expect.stringContaining('daemon/handoff/h.ts imports daemon/main.ts')]);
  });

  it('every daemon folder is infrastructure or a domain', () => {
    const unclassified = find('every-folder-classified');
    expect(unclassified).toEqual([
      expect.stringContaining('daemon/a (daemon/a/x.ts)'),
      expect.stringContaining('daemon/b (daemon/b/y.ts)'),
    ]);
  });

  it('a daemon folder imports only what its MAY_CALL row names', () => {
    expect(find('may-call')).toEqual([
      expect.stringContaining('daemon/export/e.ts imports daemon/handoff/h.ts, and export may not call handoff'),
    ]);
  });

  it('MAY_CALL names only imports the code makes, and folders that exist', () => {
    expect(find('may-call-in-use')).toEqual([
      expect.stringContaining('MAY_CALL lets export call memory, and no file of export imports memory'),
      expect.stringContaining('MAY_CALL has a row for gone, and daemon/ has no such folder'),
    ]);
  });

  it('no daemon files import each other in a circle, type-only imports included', () => {
    expect(find('no-file-cycles')).toEqual([
      expect.stringContaining('daemon/a/x.ts → daemon/b/y.ts → daemon/a/x.ts (2 files in the circle'),
      expect.stringContaining('daemon/memory/n.ts → daemon/memory/o.ts → daemon/memory/n.ts (2 files in the circle'),
    ]);
  });

  it('reports nothing else', () => {
    expect(violations).toHaveLength(13);
  });

  it('counts folder to folder imports', () => {
    const counts = folderImportCounts(root);
    expect(Object.fromEntries(counts.get('(main)') ?? [])).toEqual({ rpc: 1 });
    expect(Object.fromEntries(counts.get('client/') ?? [])).toEqual({ rpc: 1, 'shared/': 1 });
    expect(filesPerFolder(root).get('rpc')).toEqual(['daemon/rpc/dispatch.ts', 'daemon/rpc/server.ts']);
  });
});
