/**
 * `npm run build`'s last step before the swap: the status line and the turn hooks (client/memctl/quick/run.ts
 * and every module it loads, statically or not) as one CommonJS file, `client/memctl/quick.cjs`.
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

function transpile(source, key) {
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
  if (/\bimport\.meta\b/.test(outputText))
    throw new Error(`bundle-quick: ${key} uses import.meta, which CommonJS has not`);
  return outputText.replace(/^\/\/# sourceMappingURL=.*$/m, '');
}

/** Every module the entry reaches, each with its CommonJS text and its relative imports resolved to keys. */
function collect(dist, entry) {
  const modules = new Map();
  const pending = [entry];
  while (pending.length > 0) {
    const key = pending.pop();
    if (modules.has(key)) continue;
    const text = transpile(readFileSync(join(dist, key), 'utf8'), key);
    const imports = {};
    for (const [, , specifier] of text.matchAll(REQUIRE_CALL)) {
      if (specifier.startsWith('node:') && isBuiltin(specifier)) continue;
      const target = posix.join(posix.dirname(key), specifier);
      if (!specifier.startsWith('.') || !/^(client|shared)\//.test(target))
        throw new Error(
          `bundle-quick: ${key} imports ${specifier}; the quick path loads only dist/ and node: built-ins`,
        );
      imports[specifier] = target;
      pending.push(target);
    }
    modules.set(key, { text, imports });
  }
  return modules;
}

/** The bundle's source: its modules by key, and a loader that runs each once, on its first require. */
export function bundleSource(dist, entry = QUICK_ENTRY) {
  const modules = collect(dist, entry);
  const keys = [...modules.keys()].sort();
  const entries = keys.map((key) => {
    const { text, imports } = modules.get(key);
    return `${JSON.stringify(key)}: [${JSON.stringify(imports)}, function (exports, require, module) {\n${text}}],`;
  });
  return `'use strict';
// Built by scripts/bundle-quick.mjs from ${entry} and the modules it loads; do not edit.
const MODULES = {
${entries.join('\n')}
};
const loaded = new Map();
function load(key) {
  let module = loaded.get(key);
  if (module !== undefined) return module.exports;
  module = { exports: {} };
  loaded.set(key, module);
  const [imports, run] = MODULES[key];
  run.call(module.exports, module.exports, (specifier) => (specifier in imports ? load(imports[specifier]) : require(specifier)), module);
  return module.exports;
}
module.exports = { ...load(${JSON.stringify(entry)}), bundled: Object.keys(MODULES) };
`;
}

/** Writes dist/client/memctl/quick.cjs and reports.cjs, after checking that node can compile them. */
export function bundleQuick(dist) {
  for (const [entry, bundle] of [
    [QUICK_ENTRY, QUICK_BUNDLE],
    [REPORTS_ENTRY, REPORTS_BUNDLE],
  ]) {
    const source = bundleSource(dist, entry);
    new vm.Script(source, { filename: bundle });
    writeFileSync(join(dist, bundle), source);
  }
}
