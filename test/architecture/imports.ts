/**
 * The architecture rules of STYLE.md as a check on the import graph: which folder may import which.
 * Pure (no test runner) so that it can be run against the real tree and against a fake one.
 *
 * A file's folder: `shared` and `client` are one folder each; in `daemon/` the folder is the first
 * path segment (`daemon/memory/memdir/store.ts` is `memory`), and files directly in `daemon/` form
 * the folder `(main)`. Worker scripts started with `new Worker(url)` are not imports and are not seen.
 * Which daemon folder may import which is the table in may-call.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';
import { fileCircles } from './file-cycles.js';
import { DOMAINS, INFRASTRUCTURE, MAY_CALL, type MayCallTable } from './may-call.js';

type Area = 'daemon' | 'shared' | 'client';

/** Which files a rule speaks of: an area, optionally narrowed to some folders or to one file. */
interface Selector {
  area: Area;
  folders?: readonly string[];
  except?: readonly string[];
  file?: string;
}

type Rule =
  | { name: string; reason: string; kind: 'forbid'; from: Selector; to: readonly Selector[] }
  | { name: string; reason: string; kind: 'allow-only'; from: Selector; to: readonly Selector[] }
  | { name: string; reason: string; kind: 'acyclic'; area: 'daemon' }
  | { name: string; reason: string; kind: 'files-acyclic'; area: 'daemon' }
  | { name: string; reason: string; kind: 'classified'; area: 'daemon' }
  | { name: string; reason: string; kind: 'may-call'; area: 'daemon' }
  | { name: string; reason: string; kind: 'may-call-in-use'; area: 'daemon' };

export const RULES: readonly Rule[] = [
  {
    name: 'shared-is-pure',
    reason: 'shared/ is loaded by the daemon and the client alike, so it can depend on neither',
    kind: 'forbid',
    from: { area: 'shared' },
    to: [{ area: 'daemon' }, { area: 'client' }],
  },
  {
    name: 'client-speaks-protocol',
    reason: 'the client talks to the daemon over the socket only; shared/ holds everything they agree on',
    kind: 'allow-only',
    from: { area: 'client' },
    to: [{ area: 'shared' }, { area: 'client' }],
  },
  {
    name: 'rpc-is-the-edge',
    reason: 'rpc/ is the transport; domains expose functions and main.ts wires them to methods',
    kind: 'forbid',
    from: { area: 'daemon', except: ['(main)', 'rpc'] },
    to: [{ area: 'daemon', folders: ['rpc'] }],
  },
  {
    name: 'no-folder-cycles',
    reason: 'folders in a cycle can only be understood, tested and moved together',
    kind: 'acyclic',
    area: 'daemon',
  },
  {
    name: 'infrastructure-below-domains',
    reason: 'infrastructure serves the domains; reaching up into one ties it to memd',
    kind: 'forbid',
    from: { area: 'daemon', folders: INFRASTRUCTURE },
    to: [{ area: 'daemon', folders: DOMAINS }],
  },
  {
    name: 'main-is-wiring',
    reason: 'main.ts assembles the parts; a part that imports it imports everything',
    kind: 'forbid',
    from: { area: 'daemon', except: ['(main)'] },
    to: [{ area: 'daemon', file: 'daemon/main.ts' }],
  },
  {
    // Without it a new folder would silently escape the infrastructure rule and the table.
    name: 'every-folder-classified',
    reason: 'a daemon folder has a row in MAY_CALL (infrastructure or a domain), so that the rules above see it',
    kind: 'classified',
    area: 'daemon',
  },
  {
    name: 'may-call',
    reason:
      'a folder imports only the folders its MAY_CALL row names (test/architecture/may-call.ts): a new edge is decided there, with its reason, and docs/architecture.md shows it',
    kind: 'may-call',
    area: 'daemon',
  },
  {
    name: 'may-call-in-use',
    reason:
      'MAY_CALL says what the code does: an allowance no file uses, or a row for a folder that is gone, is taken out',
    kind: 'may-call-in-use',
    area: 'daemon',
  },
  {
    name: 'no-file-cycles',
    reason:
      'files in a circle (type-only imports count) load in an order that depends on who came first, and can only be moved together',
    kind: 'files-acyclic',
    area: 'daemon',
  },
];

const AREAS: readonly Area[] = ['daemon', 'shared', 'client'];
/** A cap on listed cycles: a dense tangle has exponentially many, and the first ones are enough to start on. */
const MAX_CYCLES_REPORTED = 50;

interface Place {
  area: Area;
  folder: string;
  file: string;
}

/** One import: root-relative posix paths of the importing and the imported file. */
export interface Import {
  from: string;
  to: string;
}

/** Where a root-relative path lives, or null outside daemon/, shared/ and client/. */
function placeOf(file: string): Place | null {
  const [top, ...rest] = file.split('/');
  const area = AREAS.find((a) => a === top);
  if (area === undefined || rest.length === 0) return null;
  if (area !== 'daemon') return { area, folder: area, file };
  const folder = rest.length === 1 ? '(main)' : (rest[0] ?? '(main)');
  return { area, folder, file };
}

/** The name of a folder in messages and tables: daemon folders by their own name, `shared/`, `client/`. */
function label(place: Place): string {
  return place.area === 'daemon' ? place.folder : `${place.area}/`;
}

function matches(place: Place, selector: Selector): boolean {
  if (place.area !== selector.area) return false;
  if (selector.folders !== undefined && !selector.folders.includes(place.folder)) return false;
  if (selector.except?.includes(place.folder)) return false;
  return selector.file === undefined || selector.file === place.file;
}

/** Every `.ts` file under the three areas, root-relative, sorted so that reports are stable. */
export function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const pending: string[] = AREAS.filter((area) => existsSync(join(root, area)));
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      // An editor extension's own dependencies (client/vscode/node_modules) are not memd's sources.
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') pending.push(path);
      } else if (entry.isFile() && entry.name.endsWith('.ts')) files.push(path);
    }
  }
  return files.sort();
}

/**
 * Relative specifiers of a file, from TypeScript's own pre-parser: it sees static, type-only,
 * re-export, side-effect and dynamic imports and ignores the ones in comments and strings.
 */
function relativeSpecifiers(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((s) => s.startsWith('./') || s.startsWith('../'));
}

/** NodeNext specifiers name the emitted `.js`; the source is the `.ts` beside it. */
function sourceOf(from: string, specifier: string): string {
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  if (target.endsWith('.js')) return `${target.slice(0, -3)}.ts`;
  if (target.endsWith('.mjs')) return `${target.slice(0, -4)}.mts`;
  return target;
}

/** Every relative import between source files, one entry per (importing, imported) pair. */
export function collectImports(root: string): Import[] {
  const imports: Import[] = [];
  for (const from of sourceFiles(root)) {
    const targets = new Set(relativeSpecifiers(readFileSync(join(root, from), 'utf8')).map((s) => sourceOf(from, s)));
    for (const to of [...targets].sort()) imports.push({ from, to });
  }
  return imports;
}

function describeImport(edge: Import): string {
  return `${edge.from} imports ${edge.to}`;
}

function edgeViolations(rule: Rule & { kind: 'forbid' | 'allow-only' }, imports: readonly Import[]): string[] {
  const found: string[] = [];
  for (const edge of imports) {
    const from = placeOf(edge.from);
    const to = placeOf(edge.to);
    if (from === null || !matches(from, rule.from)) continue;
    // An import leaving the three areas (a fixture, package.json) is outside what allow-only lists.
    const listed = to !== null && rule.to.some((s) => matches(to, s));
    const broken = rule.kind === 'forbid' ? listed : !listed;
    if (broken) found.push(`[${rule.name}] ${describeImport(edge)}: ${rule.reason}`);
  }
  return found;
}

/** Folder → folder → the first import (in file order) that makes the edge; same-folder imports left out. */
function folderGraph(imports: readonly Import[], area: Area): Map<string, Map<string, Import>> {
  const graph = new Map<string, Map<string, Import>>();
  for (const edge of imports) {
    const from = placeOf(edge.from);
    const to = placeOf(edge.to);
    if (from?.area !== area || to?.area !== area || from.folder === to.folder) continue;
    const targets = graph.get(from.folder) ?? new Map<string, Import>();
    if (!targets.has(to.folder)) targets.set(to.folder, edge);
    graph.set(from.folder, targets);
  }
  return graph;
}

/**
 * Every elementary cycle once: a cycle is found only from its smallest folder, and the walk from a
 * start never enters a folder smaller than the start. Recursive because its depth is at most the
 * number of folders.
 */
function elementaryCycles(graph: Map<string, Map<string, Import>>): string[][] {
  const cycles: string[][] = [];
  const starts = [...graph.keys()].sort();
  for (const start of starts) {
    const path = [start];
    const walk = (folder: string): void => {
      for (const next of [...(graph.get(folder)?.keys() ?? [])].sort()) {
        if (cycles.length >= MAX_CYCLES_REPORTED) return;
        if (next === start) cycles.push([...path, start]);
        else if (next > start && !path.includes(next)) {
          path.push(next);
          walk(next);
          path.pop();
        }
      }
    };
    walk(start);
  }
  return cycles;
}

function cycleViolations(rule: Rule & { kind: 'acyclic' }, imports: readonly Import[]): string[] {
  const graph = folderGraph(imports, rule.area);
  const cycles = elementaryCycles(graph);
  const found = cycles.map((cycle) => {
    const examples = cycle.slice(1).map((to, i) => {
      const from = cycle[i] ?? '';
      const edge = graph.get(from)?.get(to);
      return edge === undefined ? `${from} → ${to}` : describeImport(edge);
    });
    return `[${rule.name}] ${cycle.join(' → ')} (${examples.join('; ')}): ${rule.reason}`;
  });
  if (cycles.length >= MAX_CYCLES_REPORTED)
    found.push(`[${rule.name}] listing stopped at ${MAX_CYCLES_REPORTED} cycles; there may be more`);
  return found;
}

function classificationViolations(
  rule: Rule & { kind: 'classified' },
  files: readonly string[],
  table: MayCallTable,
): string[] {
  const unknown = new Map<string, string>();
  for (const file of files) {
    const place = placeOf(file);
    if (place?.area === rule.area && !Object.hasOwn(table, place.folder) && !unknown.has(place.folder))
      unknown.set(place.folder, file);
  }
  return [...unknown].map(
    ([folder, file]) => `[${rule.name}] ${rule.area}/${folder} (${file}) has no row in MAY_CALL: ${rule.reason}`,
  );
}

/** Each import between two daemon folders whose row does not name the imported one; a folder without a row is `classified`'s. */
function mayCallViolations(
  rule: Rule & { kind: 'may-call' },
  imports: readonly Import[],
  table: MayCallTable,
): string[] {
  const found: string[] = [];
  for (const edge of imports) {
    const from = placeOf(edge.from);
    const to = placeOf(edge.to);
    if (from?.area !== rule.area || to?.area !== rule.area || from.folder === to.folder) continue;
    const row = table[from.folder];
    if (row !== undefined && !Object.hasOwn(row.calls, to.folder))
      found.push(
        `[${rule.name}] ${describeImport(edge)}, and ${from.folder} may not call ${to.folder}: ${rule.reason}`,
      );
  }
  return found;
}

/** Each allowance that no import uses, and each row whose folder has no file. */
function inUseViolations(
  rule: Rule & { kind: 'may-call-in-use' },
  imports: readonly Import[],
  files: readonly string[],
  table: MayCallTable,
): string[] {
  const graph = folderGraph(imports, rule.area);
  const present = new Set(files.map(placeOf).flatMap((place) => (place?.area === rule.area ? [place.folder] : [])));
  return Object.entries(table).flatMap(([folder, row]) => {
    if (!present.has(folder))
      return [`[${rule.name}] MAY_CALL has a row for ${folder}, and ${rule.area}/ has no such folder: ${rule.reason}`];
    const unused = Object.keys(row.calls).filter((to) => !graph.get(folder)?.has(to));
    return unused.map(
      (to) =>
        `[${rule.name}] MAY_CALL lets ${folder} call ${to}, and no file of ${folder} imports ${to}: ${rule.reason}`,
    );
  });
}

function fileCycleViolations(rule: Rule & { kind: 'files-acyclic' }, imports: readonly Import[]): string[] {
  const inArea = imports.filter(
    (edge) => placeOf(edge.from)?.area === rule.area && placeOf(edge.to)?.area === rule.area,
  );
  return fileCircles(inArea).map(
    (circle) =>
      `[${rule.name}] ${circle.cycle.join(' → ')} (${circle.files.length} files in the circle: ${circle.files.join(', ')}): ${rule.reason}`,
  );
}

function violationsOf(rule: Rule, imports: readonly Import[], files: readonly string[], table: MayCallTable): string[] {
  switch (rule.kind) {
    case 'acyclic':
      return cycleViolations(rule, imports);
    case 'files-acyclic':
      return fileCycleViolations(rule, imports);
    case 'classified':
      return classificationViolations(rule, files, table);
    case 'may-call':
      return mayCallViolations(rule, imports, table);
    case 'may-call-in-use':
      return inUseViolations(rule, imports, files, table);
    default:
      return edgeViolations(rule, imports);
  }
}

/**
 * Every broken rule under root, one line each naming the rule, the importing file and the imported
 * file. `table` is MAY_CALL but for a fake tree, whose folders are not the real ones.
 */
export function checkImports(root: string, table: MayCallTable = MAY_CALL): string[] {
  const imports = collectImports(root);
  const files = sourceFiles(root);
  return RULES.flatMap((rule) => violationsOf(rule, imports, files, table));
}

/** Source files per folder (`shared/`, `client/`, daemon folders by name). */
export function filesPerFolder(root: string): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const place = placeOf(file);
    if (place === null) continue;
    const files = folders.get(label(place)) ?? [];
    files.push(file);
    folders.set(label(place), files);
  }
  return folders;
}

/** Importing folder → imported folder → number of distinct (file, file) imports between them. */
export function folderImportCounts(root: string): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  for (const edge of collectImports(root)) {
    const from = placeOf(edge.from);
    const to = placeOf(edge.to);
    if (from === null || to === null || label(from) === label(to)) continue;
    const targets = counts.get(label(from)) ?? new Map<string, number>();
    targets.set(label(to), (targets.get(label(to)) ?? 0) + 1);
    counts.set(label(from), targets);
  }
  return counts;
}

/** The counts as lines `from → to  n`, sorted, for a human to read. */
export function formatImportCounts(counts: Map<string, Map<string, number>>): string {
  const rows = [...counts].flatMap(([from, targets]) =>
    [...targets].map(([to, n]) => ({ edge: `${from} → ${to}`, n })),
  );
  rows.sort((a, b) => a.edge.localeCompare(b.edge));
  const width = Math.max(0, ...rows.map((r) => r.edge.length));
  return rows.map((r) => `${r.edge.padEnd(width)}  ${r.n}`).join('\n');
}
