/**
 * memctl and the client library are thin: they load only client/, shared/ and Node built-ins,
 * never the daemon or its dependencies (native SQLite, file watchers, the LLM SDK).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DAEMON_MAIN,
  eventually,
  MEMCTL_MAIN,
  makeSandbox,
  ROOT,
  runNode,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

/** What memctl must never load, by resolved URL or path. */
const FORBIDDEN = /better-sqlite3|chokidar|@anthropic-ai\/sdk|json-rpc-2\.0|\/daemon\//;

const DIST = join(ROOT, 'dist');
/** The command Claude Code runs (what `memctl install-*` registers). */
const MEMCTL_COMMAND = join(ROOT, 'bin/memctl.cjs');
/** The status line and the turn hooks as `npm run build` bundles them (scripts/bundle-quick.mjs). */
const QUICK_BUNDLE = 'dist/client/memctl/quick.cjs';
const REPORTS_BUNDLE = 'dist/client/memctl/reports.cjs';
const CLIENT_ENTRY_POINTS = [join(DIST, 'client/index.js'), join(DIST, 'client/memctl/main.js')];

/**
 * `memctl mcp` alone loads packages: the MCP SDK (its stdio server) and what that server loads,
 * zod for the tool schemas and ajv (with its helpers) for JSON Schema. Nothing else may, and
 * nothing of them is the daemon's.
 */
const MCP_PACKAGES = [
  '@modelcontextprotocol/sdk',
  'zod',
  'zod-to-json-schema',
  'ajv',
  'ajv-formats',
  'fast-deep-equal',
  'fast-uri',
  'json-schema-traverse',
];
/** The sources that may import them: the MCP server's modules. */
const MCP_SOURCES = /^client\/memctl\/mcp\//;
/** What those sources import: the SDK's server modules and zod. */
const MCP_SPECIFIER = /^(@modelcontextprotocol\/sdk\/[a-z/]+\.js|zod)$/;

/** The package a loaded module belongs to (a URL or a require.cache path), or undefined outside node_modules. */
function packageOf(entry: string): string | undefined {
  return /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(entry)?.[1];
}

const tempDirs: string[] = [];
afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A `--import` preload that records every module the process loads into $MEMD_TEST_LOAD_LOG:
 * ES modules through a resolve hook (module.register), CommonJS ones from require.cache at exit
 * (a native addon such as better-sqlite3 is reached through require).
 */
function writeLoadRecorder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memd-load-'));
  tempDirs.push(dir);
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(process.env.MEMD_TEST_LOAD_LOG, resolved.url + '\\n');
  return resolved;
}
`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register('./hooks.mjs', import.meta.url);
const require = createRequire(import.meta.url);
process.on('exit', () => {
  const loaded = Object.keys(require.cache);
  if (loaded.length > 0) appendFileSync(process.env.MEMD_TEST_LOAD_LOG, loaded.join('\\n') + '\\n');
});
`,
  );
  return join(dir, 'register.mjs');
}

/** The package's files among those loaded, relative to its root, whether the recorder saw a URL (ES modules) or a path (require.cache). */
function oursOf(entries: readonly string[]): string[] {
  const rootUrl = pathToFileURL(ROOT).href;
  return entries
    .map((entry) => (entry.startsWith(`${rootUrl}/`) ? entry.slice(rootUrl.length + 1) : relative(ROOT, entry)))
    .filter((file) => /^(bin|dist)\//.test(file));
}

/** Runs `node --import <recorder> SCRIPT ARGS` and returns its result and every module it loaded. */
async function runRecorded(sandbox: Sandbox, script: string, args: string[]) {
  const recorder = writeLoadRecorder();
  const log = join(dirname(recorder), 'loaded.txt');
  writeFileSync(log, '');
  const result = await runNode(['--import', pathToFileURL(recorder).href, script, ...args], {
    ...sandbox.env,
    MEMD_TEST_LOAD_LOG: log,
  });
  const loaded = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  return { ...result, loaded };
}

/** `import x from '...'`, `export ... from '...'`, `import '...'` and `import('...')` specifiers. */
function importSpecifiers(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\s[^'"]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1] ?? ''));
}

function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') && builtinModules.includes(specifier.slice('node:'.length));
}

function filesUnder(dir: string, extension: string): string[] {
  // An editor extension's own dependencies (client/vscode/node_modules) are not memd's sources.
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(
      (entry) =>
        entry.isFile() && entry.name.endsWith(extension) && !entry.parentPath.split('/').includes('node_modules'),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('memctl loads no daemon code', () => {
  it('memctl status, call, doctor and install-service --dry-run load only client, shared and node: modules', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const loaded = new Set<string>();
    for (const args of [
      ['status'],
      ['status', '--json'],
      ['call', 'daemon.version'],
      ['doctor'],
      ['install-service', '--dry-run'],
    ]) {
      const run = await runRecorded(sandbox, MEMCTL_MAIN, ['--no-autostart', ...args]);
      expect(run.code, `memctl ${args.join(' ')}: ${run.stderr}`).toBe(0);
      for (const entry of run.loaded) loaded.add(entry);
    }
    const urls = [...loaded];
    // The recorder saw memctl itself and the modules each command loads lazily.
    for (const file of [
      'client/memctl/main.js',
      'client/client.js',
      'client/connection.js',
      'client/memctl/commands/doctor.js',
      'shared/paths.js',
    ]) {
      expect(urls, file).toContain(pathToFileURL(join(DIST, file)).href);
    }
    expect(urls.filter((url) => FORBIDDEN.test(url))).toEqual([]);
    // Anything that is not a built-in is a file of this package's dist/client or dist/shared.
    const foreign = urls.filter(
      (url) =>
        !url.startsWith('node:') &&
        !url.startsWith(`${pathToFileURL(join(DIST, 'client')).href}/`) &&
        !url.startsWith(`${pathToFileURL(join(DIST, 'shared')).href}/`),
    );
    expect(foreign).toEqual([]);
  });

  it('memctl mcp, answering tool calls through the MCP SDK client, loads only client, shared, node: modules and the MCP packages', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const recorder = writeLoadRecorder();
    const log = join(dirname(recorder), 'loaded.txt');
    writeFileSync(log, '');
    const env = Object.fromEntries(
      Object.entries({ ...sandbox.env, MEMD_TEST_LOAD_LOG: log }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', pathToFileURL(recorder).href, MEMCTL_MAIN, '--no-autostart', 'mcp'],
      env,
      stderr: 'pipe',
    });
    const mcp = new McpClient({ name: 'thin-client-test', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
      for (const [name, args] of [
        ['list_sessions', { project: 'all' }],
        ['search_sessions', { query: 'anything' }],
        ['recall', { question: 'what broke the build?' }],
        ['project_memory', { action: 'list', project: '/no/such/project' }],
      ] as const) {
        const result = await mcp.callTool({ name, arguments: args });
        // Answered by the daemon (an empty list, or NotFound for the project), not refused for want of one.
        expect(JSON.stringify(result.content), name).not.toContain('is not running');
      }
    } finally {
      await mcp.close();
    }
    // The recorder writes require.cache (paths, not URLs: ajv is CommonJS) when the server exits at the end of its stdin.
    await eventually(() => /^\//m.test(readFileSync(log, 'utf8')), 'the server to exit and write what it required');
    const loaded = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    for (const file of ['client/memctl/commands/mcp.js', 'client/memctl/mcp/server.js', 'client/client.js']) {
      expect(loaded, file).toContain(pathToFileURL(join(DIST, file)).href);
    }
    expect(loaded.filter((entry) => FORBIDDEN.test(entry))).toEqual([]);
    const ours = (entry: string) =>
      entry.startsWith('node:') ||
      entry.startsWith(`${pathToFileURL(join(DIST, 'client')).href}/`) ||
      entry.startsWith(`${pathToFileURL(join(DIST, 'shared')).href}/`);
    const foreign = loaded.filter((entry) => !ours(entry));
    expect(foreign.filter((entry) => !MCP_PACKAGES.includes(packageOf(entry) ?? ''))).toEqual([]);
    expect(new Set(foreign.map(packageOf))).toContain('@modelcontextprotocol/sdk');
  });

  it('the status line and the turn hooks load only quick.cjs, whose modules are their own small ones, not the command line or the client library', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const input = JSON.stringify({
      session_id: 'no-such-session',
      model: { id: 'claude-sonnet-4-5' },
      context_window: { current_usage: { input_tokens: 1000 } },
    });
    for (const args of [
      ['statusline'],
      ['hook', 'turn-start'],
      ['hook', 'turn-end'],
      ['hook', 'turn-failed'],
      ['hook', 'instructions-loaded'],
    ]) {
      // As Claude Code runs them (bin/memctl.cjs, what install-* registers) and as main.js is run directly.
      for (const [entry, expected] of [
        [MEMCTL_COMMAND, ['bin/memctl.cjs', QUICK_BUNDLE]],
        [MEMCTL_MAIN, ['dist/client/memctl/main.js', QUICK_BUNDLE]],
      ] as const) {
        const recorder = writeLoadRecorder();
        const log = join(dirname(recorder), 'loaded.txt');
        writeFileSync(log, '');
        const run = await runNode(
          ['--import', pathToFileURL(recorder).href, entry, ...args],
          { ...sandbox.env, MEMD_TEST_LOAD_LOG: log },
          input,
        );
        expect(run, `${relative(ROOT, entry)} ${args.join(' ')}`).toMatchObject({ code: 0, stderr: '' });
        const loaded = readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line !== '');
        expect(new Set(oursOf(loaded)), `${relative(ROOT, entry)} ${args.join(' ')}`).toEqual(new Set(expected));
      }
    }
    // What the bundle holds: the quick path's modules, and the small shared ones they use.
    const { bundled } = createRequire(import.meta.url)(join(ROOT, QUICK_BUNDLE)) as { bundled: string[] };
    expect(
      bundled.filter(
        (file) =>
          !/^client\/memctl\/quick\/[a-z-]+\.js$|^shared\/(paths|statusline\/format|protocol\/window|protocol\/recall-hook|transcript\/(thresholds|models))\.js$/.test(
            file,
          ),
      ),
    ).toEqual([]);
    // The reports' bundle: their pages, views and the protocol's schemas, never the command line,
    // the client library or a dependency.
    const reports = (createRequire(import.meta.url)(join(ROOT, REPORTS_BUNDLE)) as { bundled: string[] }).bundled;
    expect(
      reports.filter(
        (file) =>
          !/^client\/memctl\/(quick\/[a-z-]+|output|usage-args|search-page|sessions-page|views\/[a-z-]+)\.js$|^shared\/(paths|protocol\/[a-z-]+|text\/[a-z-]+|usage\/[a-z-]+|statusline\/format|transcript\/[a-z-]+)\.js$/.test(
            file,
          ),
      ),
    ).toEqual([]);
    expect(bundled).not.toContain('client/memctl/views/status.js');
    expect(bundled).toEqual(
      expect.arrayContaining(['client/memctl/quick/call.js', 'client/memctl/quick/statusline.js']),
    );
    expect(bundled).not.toContain('client/memctl/quick/session-start.js');
  });

  it('the reports users type (usage, status, sessions, search) load only reports.cjs while a daemon answers, and print what the full command prints (issue 34)', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    for (const args of [['usage'], ['status'], ['sessions'], ['sessions', '--json'], ['search', 'retry', 'timeout']]) {
      const quick = await runRecorded(sandbox, MEMCTL_COMMAND, args);
      expect(quick, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
      expect(new Set(oursOf(quick.loaded)), args.join(' ')).toEqual(new Set(['bin/memctl.cjs', REPORTS_BUNDLE]));
      // The command line prints the same (status's counters aside: each run is one more request).
      const full = await runNode([join(DIST, 'client/memctl/cli.js'), ...args], sandbox.env);
      const steady = (text: string) => text.replace(/up \S+|\d+ requests served|[\d.]+ MiB (RSS|heap)/g, '');
      expect(steady(quick.stdout), args.join(' ')).toBe(steady(full.stdout));
    }
  });

  it("SessionStart of a new session loads its quick module and memd's start, not the command line, the client library or the handoff code; a resumed one goes on to them", async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const dist = pathToFileURL(DIST).href;
    const loadedBy = async (source: string) => {
      const recorder = writeLoadRecorder();
      const log = join(dirname(recorder), 'loaded.txt');
      writeFileSync(log, '');
      const input = JSON.stringify({
        session_id: '5e55e55e-0000-4000-8000-00000000f126',
        cwd: sandbox.root,
        hook_event_name: 'SessionStart',
        source,
      });
      const run = await runNode(
        ['--import', pathToFileURL(recorder).href, MEMCTL_MAIN, 'hook', 'session-start'],
        { ...sandbox.env, MEMD_TEST_LOAD_LOG: log },
        input,
      );
      expect(run, `session-start ${source}`).toMatchObject({ code: 0 });
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith(`${dist}/`))
        .map((url) => url.slice(dist.length + 1));
    };
    const startup = await loadedBy('startup');
    expect(startup).toContain('client/memctl/quick/session-start.js');
    expect(
      startup.filter((file) =>
        /^client\/(memctl\/(cli|context|commands\/[a-z-]+)|client|index)\.js$|^shared\/handoff\//.test(file),
      ),
    ).toEqual([]);
    // The control: a resumed session is the full hook's (memd's context or the handoff file).
    expect(await loadedBy('resume')).toContain('client/memctl/commands/hook.js');
  });

  it('the recorder does see the daemon load its dependencies (control)', async () => {
    const sandbox = makeSandbox();
    // --check-db opens the database read-only and exits: it must reach better-sqlite3. The daemon's
    // ES modules (what bin/memd.cjs falls back to) import it, so both ways of recording are seen:
    // the resolve hook gives URLs, require.cache gives paths.
    const esMain = join(ROOT, 'dist/daemon/main.js');
    const run = await runRecorded(sandbox, esMain, ['--check-db']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.loaded).toContain(pathToFileURL(join(ROOT, 'node_modules/better-sqlite3/lib/index.js')).href);
    expect(run.loaded).toContain(join(ROOT, 'node_modules/better-sqlite3/lib/database.js'));
    expect(run.loaded.filter((entry) => /json-rpc-2\.0/.test(entry))).not.toEqual([]);
    expect(run.loaded).toContain(pathToFileURL(esMain).href);
    // The daemon's command (the bundle) requires them.
    const bundled = await runRecorded(sandbox, DAEMON_MAIN, ['--check-db']);
    expect(bundled.code, bundled.stderr).toBe(0);
    expect(bundled.loaded).toContain(join(ROOT, 'node_modules/better-sqlite3/lib/index.js'));
    expect(bundled.loaded).toContain(join(ROOT, 'dist/daemon/memd.cjs'));
  });
});

describe('the client import graph', () => {
  it('from dist/client/index.js and memctl reaches only dist/client, dist/shared and node: built-ins', () => {
    const seen = new Set<string>();
    const pending = [...CLIENT_ENTRY_POINTS];
    const offending: string[] = [];
    // Bounded: every file is visited once, and dist holds finitely many.
    while (pending.length > 0) {
      const file = pending.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
        if (isNodeBuiltin(specifier)) continue;
        if (MCP_SOURCES.test(relative(DIST, file)) && MCP_SPECIFIER.test(specifier)) continue;
        const target = resolve(dirname(file), specifier);
        const inPackage = specifier.startsWith('.') && /^(client|shared)\//.test(relative(DIST, target));
        if (!inPackage || !existsSync(target)) {
          offending.push(`${relative(DIST, file)} imports ${specifier}`);
          continue;
        }
        pending.push(target);
      }
    }
    expect(offending).toEqual([]);
    // The walk followed memctl's lazily loaded commands too.
    for (const command of ['status', 'lifecycle', 'watch', 'call', 'doctor', 'install-service', 'mcp', 'install-mcp']) {
      expect(seen, command).toContain(join(DIST, `client/memctl/commands/${command}.js`));
    }
    expect(seen).toContain(join(DIST, 'shared/protocol/methods.js'));
    expect(seen).toContain(join(DIST, 'client/memctl/mcp/server.js'));
  });

  it('no source under client/ or shared/ imports from daemon/, and shared/ imports nothing from client/', () => {
    const offending: string[] = [];
    for (const area of ['client', 'shared']) {
      for (const file of filesUnder(join(ROOT, area), '.ts')) {
        for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
          const target = relative(ROOT, resolve(dirname(file), specifier));
          const reachesDaemon = specifier.startsWith('.') && /^daemon(\/|$)/.test(target);
          const sharedReachesClient = area === 'shared' && specifier.startsWith('.') && /^client(\/|$)/.test(target);
          // The VS Code extension's host provides `vscode` at run time; nothing else comes from outside.
          const editorApi = specifier === 'vscode' && relative(ROOT, file).startsWith('client/vscode/');
          // memctl mcp's modules build on the MCP SDK and zod; no other source may.
          const mcpPackage = MCP_SOURCES.test(relative(ROOT, file)) && MCP_SPECIFIER.test(specifier);
          const external = !specifier.startsWith('.') && !isNodeBuiltin(specifier) && !editorApi && !mcpPackage;
          if (reachesDaemon || sharedReachesClient || external)
            offending.push(`${relative(ROOT, file)} imports ${specifier}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('the specifier scanner finds every form of import (control)', () => {
    const source = `import { a } from './a.js';
import type { B } from "./b.js";
export { c } from './c.js';
export * from './d.js';
import './e.js';
import {
  f,
  g,
} from './fg.js';
const h = await import('./h.js');
const url = new URL('../daemon/main.js', import.meta.url);
`;
    expect(importSpecifiers(source).sort()).toEqual([
      './a.js',
      './b.js',
      './c.js',
      './d.js',
      './e.js',
      './fg.js',
      './h.js',
    ]);
  });
});
