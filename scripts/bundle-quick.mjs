/**
 * `npm run build`'s last step before the swap: the status line and the turn hooks (client/memctl/quick/run.ts
 * and every module it loads, statically or not) as one CommonJS file, `client/memctl/quick.cjs`; the
 * reports as another, and the daemon as a third (DAEMON_BUNDLE).
 * Claude Code starts these on every message and prompt; as ES modules they paid for node's ES module
 * loader (its own modules, compiled at each start, and an asynchronous read per file) and a read and
 * compile per module: more than half of what the status line added to node's own start, and the
 * difference between missing and meeting its target (1.3x `node -e 0`, bench/hooks.js).
 *
 * Each module is the compiler's own ES output in dist/, turned into CommonJS by TypeScript
 * (transpileModule: imports become require calls, nothing else changes) and wrapped in a function
 * that runs on its first require, as node runs a module: a command's modules load only when it runs.
 * Only relative imports inside dist/ and `node:` built-ins are allowed: anything else fails the build,
 * so that the bundle cannot take in a dependency the quick path must not load.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { join, posix } from 'node:path';
import vm from 'node:vm';

/** The bundle's entry, relative to dist/. */
export const QUICK_ENTRY = 'client/memctl/quick/run.js';
/** Where the bundle goes, relative to dist/; main.ts and bin/memctl.cjs load it from there. */
export const QUICK_BUNDLE = 'client/memctl/quick.cjs';
/**
 * The reports users type (`usage`, `status`, `sessions`, `search`, issue 34) as a bundle of their
 * own: in quick.cjs they made every status line and hook read and compile their views and schemas.
 */
export const REPORTS_ENTRY = 'client/memctl/quick/reports-run.js';
export const REPORTS_BUNDLE = 'client/memctl/reports.cjs';

/** `require("x")` and `require('x')` as transpileModule writes them (static and dynamic imports alike). */
const REQUIRE_CALL = /\brequire\((["'])([^"']+)\1\)/g;

/** `import.meta.url` in a daemon module: the module's own dist/ URL, given by the bundle's wrapper (DAEMON_KIND). */
const IMPORT_META_URL = /\bimport\.meta\.url\b/g;

function transpile(source, key, moduleUrl) {
  const ts = createRequire(import.meta.url)('typescript');
  const { outputText } = ts.transpileModule(source, {
    fileName: key,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2023,
      esModuleInterop: true,
      sourceMap: false,
      // A smaller file to read and scan at every start; the sources keep the comments.
      removeComments: true,
    },
  });
  const text = moduleUrl ? outputText.replace(IMPORT_META_URL, '__moduleUrl') : outputText;
  if (/\bimport\.meta\b/.test(text)) throw new Error(`bundle-quick: ${key} uses import.meta, which CommonJS has not`);
  // A shebang is a syntax error inside the wrapper's function.
  return text.replace(/^#!.*\n/, '').replace(/^\/\/# sourceMappingURL=.*$/m, '');
}

/**
 * How a bundle is made. The client's take only client/, shared/ and built-ins (a dependency there
 * would cost every hook its load); the daemon's take all of dist/ and leave npm packages to
 * `require()`, and give each module its own dist/ URL for `import.meta.url` (worker scripts are
 * found beside the module that starts them).
 */
const CLIENT_KIND = { areas: /^(client|shared)\//, packages: false, moduleUrls: false };
export const DAEMON_KIND = { areas: /^(client|shared|daemon)\//, packages: true, moduleUrls: true };

/** Every module the entry reaches, each with its CommonJS text and its relative imports resolved to keys. */
function collect(dist, entry, kind) {
  const modules = new Map();
  const pending = [entry];
  while (pending.length > 0) {
    const key = pending.pop();
    if (modules.has(key)) continue;
    const text = transpile(readFileSync(join(dist, key), 'utf8'), key, kind.moduleUrls);
    const imports = {};
    for (const [, , specifier] of text.matchAll(REQUIRE_CALL)) {
      if (specifier.startsWith('node:') && isBuiltin(specifier)) continue;
      if (kind.packages && !specifier.startsWith('.')) continue;
      const target = posix.join(posix.dirname(key), specifier);
      if (!specifier.startsWith('.') || !kind.areas.test(target))
        throw new Error(
          `bundle-quick: ${key} imports ${specifier}, which this bundle may not load (the quick paths: only client/, shared/ and node: built-ins)`,
        );
      imports[specifier] = target;
      pending.push(target);
    }
    modules.set(key, { text, imports });
  }
  return modules;
}

/** The bundle's source: its modules by key, and a loader that runs each once, on its first require. */
export function bundleSource(dist, entry = QUICK_ENTRY, kind = CLIENT_KIND) {
  const modules = collect(dist, entry, kind);
  const keys = [...modules.keys()].sort();
  const entries = keys.map((key) => {
    const { text, imports } = modules.get(key);
    const params = kind.moduleUrls ? 'exports, require, module, __moduleUrl' : 'exports, require, module';
    return `${JSON.stringify(key)}: [${JSON.stringify(imports)}, function (${params}) {\n${text}}],`;
  });
  // The bundle sits in dist/<its folder>/: dist/ is that many levels up.
  const distFromBundle = kind.moduleUrls ? posix.relative(posix.dirname(DAEMON_BUNDLE), '.') : '.';
  return `'use strict';
// Built by scripts/bundle-quick.mjs from ${entry} and the modules it loads; do not edit.
const MODULES = {
${entries.join('\n')}
};
const loaded = new Map();
${kind.moduleUrls ? `const DIST = require('node:path').join(__dirname, ${JSON.stringify(distFromBundle)});\nconst moduleUrl = (key) => require('node:url').pathToFileURL(require('node:path').join(DIST, key)).href;\n` : ''}function load(key) {
  let module = loaded.get(key);
  if (module !== undefined) return module.exports;
  module = { exports: {} };
  loaded.set(key, module);
  const [imports, run] = MODULES[key];
  run.call(module.exports, module.exports, (specifier) => (specifier in imports ? load(imports[specifier]) : require(specifier)), module${kind.moduleUrls ? ', moduleUrl(key)' : ''});
  return module.exports;
}
module.exports = { ...load(${JSON.stringify(entry)}), bundled: Object.keys(MODULES) };
`;
}

/**
 * The daemon as one CommonJS file, `daemon/memd.cjs` (issue 34): as ES modules its ~320 files took
 * node ~0.1 s to load at every start, a tenth of the second in which a cold start owes the newest
 * sessions. bin/memd.cjs runs it (else daemon/main.js, where node cannot require ES modules:
 * chokidar is one).
 */
export const DAEMON_ENTRY = 'daemon/main.js';
export const DAEMON_BUNDLE = 'daemon/memd.cjs';

/** Writes dist/client/memctl/quick.cjs, reports.cjs and dist/daemon/memd.cjs, after checking that node can compile them. */
export function bundleQuick(dist) {
  for (const [entry, bundle, kind] of [
    [QUICK_ENTRY, QUICK_BUNDLE, CLIENT_KIND],
    [REPORTS_ENTRY, REPORTS_BUNDLE, CLIENT_KIND],
    [DAEMON_ENTRY, DAEMON_BUNDLE, DAEMON_KIND],
  ]) {
    const source = bundleSource(dist, entry, kind);
    new vm.Script(source, { filename: bundle });
    writeFileSync(join(dist, bundle), source);
  }
}
