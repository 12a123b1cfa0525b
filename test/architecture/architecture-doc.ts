/**
 * docs/architecture.md held to the tree (issue 30): a paragraph for every daemon folder, no word
 * that a folder which exists is not built yet, no folder named that does not exist, and the "who
 * may call whom" block equal to MAY_CALL as rendered here. Pure, so that its test can show each
 * check failing on a fake doc.
 */
import type { MayCallTable } from './may-call.js';

export const MAY_CALL_BEGIN =
  '<!-- MAY_CALL begin: generated from test/architecture/may-call.ts; `MEMD_FIX_DOCS=1 npx vitest run test/architecture/architecture-doc.test.ts` rewrites it -->';
export const MAY_CALL_END = '<!-- MAY_CALL end -->';

/** Words saying a part is still to come: stale once its folder exists. */
const NOT_BUILT =
  /\bnot\s+(?:yet\s+)?(?:built|written|implemented)\b|\b(?:is|are)\s+(?:planned|to\s+come)\b|\bcoming\s+soon\b/i;
/** The areas, which the doc's first bullets describe beside the daemon's folders. */
const AREAS = ['daemon', 'shared', 'client'];

/** How a folder is named in the doc: `main.ts` for the files directly in daemon/, else `name/`. */
export function docName(folder: string): string {
  return folder === '(main)' ? 'main.ts' : `${folder}/`;
}

/** The block's lines: one per row, in the table's order. */
export function renderMayCall(table: MayCallTable): string {
  const rows = Object.entries(table).map(([folder, row]) => {
    const calls = Object.entries(row.calls).map(([to, why]) => (why === '' ? to : `${to} (${why})`));
    const what = calls.length === 0 ? 'calls no other daemon folder' : `may call ${calls.join(', ')}`;
    return `- \`${docName(folder)}\` (${row.layer}) ${what}.`;
  });
  return [MAY_CALL_BEGIN, ...rows, MAY_CALL_END].join('\n');
}

/** The doc with its block rendered afresh from the table, or null when it has no block to replace. */
export function withMayCall(doc: string, table: MayCallTable): string | null {
  const begin = doc.indexOf(MAY_CALL_BEGIN);
  const end = doc.indexOf(MAY_CALL_END);
  if (begin < 0 || end < begin) return null;
  return `${doc.slice(0, begin)}${renderMayCall(table)}${doc.slice(end + MAY_CALL_END.length)}`;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Clauses, roughly: a stale phrase is judged with the folders its own clause names. */
function clauses(doc: string): string[] {
  return doc.split(/(?<=[.;:!?])\s+|\n\s*\n|\n(?=\s*- )/);
}

/**
 * What the doc says wrong about daemon/, one line each. `folders` are daemon/'s folders as the
 * architecture check names them (`(main)` for main.ts).
 */
export function docViolations(doc: string, folders: readonly string[], table: MayCallTable): string[] {
  const found: string[] = [];
  for (const folder of folders) {
    if (!new RegExp(`^- \\*\\*${escaped(docName(folder))}\\*\\*`, 'm').test(doc))
      found.push(`no paragraph \`- **${docName(folder)}**\` for daemon/${folder === '(main)' ? 'main.ts' : folder}`);
  }
  const known = new Set([...folders, ...AREAS]);
  const named = [
    ...doc.matchAll(/\bdaemon\/([a-z][a-z0-9-]*)\//g),
    ...doc.matchAll(/^- \*\*([a-z][a-z0-9-]*)\/\*\*/gm),
  ];
  for (const name of new Set(named.map((match) => match[1] ?? ''))) {
    if (!known.has(name)) found.push(`names daemon/${name}/, which does not exist`);
  }
  for (const clause of clauses(doc)) {
    if (!NOT_BUILT.test(clause)) continue;
    for (const folder of folders) {
      if (folder !== '(main)' && new RegExp(`\\b${escaped(folder)}\\b`).test(clause))
        found.push(
          `says ${folder} is not there, and daemon/${folder}/ exists: "${clause.replace(/\s+/g, ' ').trim()}"`,
        );
    }
  }
  const rendered = withMayCall(doc, table);
  if (rendered === null) found.push(`has no MAY_CALL block (between "${MAY_CALL_BEGIN}" and "${MAY_CALL_END}")`);
  else if (rendered !== doc)
    found.push('its MAY_CALL block differs from test/architecture/may-call.ts (MEMD_FIX_DOCS=1 rewrites it)');
  return found;
}
