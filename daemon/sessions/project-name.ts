/**
 * Projects as people type them (issue 28): the name memctl's tables show (`shop`, the end of the
 * session's cwd, or `acme/api` when two end alike), the cwd itself, or the folder name Claude Code
 * gives it (`-home-dev-src-shop`). One resolver for every method that takes a project, so that a
 * name accepted by one is accepted by all, and a name that matches nothing is said to, with the
 * candidates, instead of answering "no hits".
 */
import type Database from 'better-sqlite3';
import { projectPathOf, sanitizeProjectDirName } from '../../shared/paths.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';

/** Candidates listed in an error; more would not help anyone choose. */
const MAX_CANDIDATES = 20;

export interface KnownProject {
  /** The folder name under ~/.claude/projects. */
  project: string;
  /** The session's cwd as its entries say; null when none carried one. */
  cwd: string | null;
}

// A session's cwd lives in its aggregate's state (rows written by migration 8 hold '' until folded).
// One session per folder, the last aggregated: parsing every session's state costs 350 ms at 50,000
// sessions, this 20 ms (measured on 300 folders, 100,000 files).
const KNOWN_SQL = `
  SELECT project, CASE WHEN json_valid(state) THEN json_extract(state, '$.cwd') END AS cwd FROM session_aggregates
    WHERE rowid IN (SELECT max(rowid) FROM session_aggregates GROUP BY project)
  UNION ALL SELECT DISTINCT project, NULL FROM files WHERE project NOT IN (SELECT project FROM session_aggregates)`;

function knownProjects(db: Database.Database): KnownProject[] {
  return (db.prepare(KNOWN_SQL).all() as { project: string; cwd: unknown }[]).map((row) => ({
    project: row.project,
    // A session that moved into a subfolder names its project's root; one whose folder was named
    // after another path (copied, renamed) names where it ran, as memctl's tables do.
    cwd: projectPathOf(row.project, typeof row.cwd === 'string' ? row.cwd : null),
  }));
}

const parts = (path: string) => path.split('/').filter(Boolean);

/** Whether `name` (one or more trailing components) is the end of the project's cwd. */
function endsWith(known: KnownProject, name: string): boolean {
  const wanted = parts(name);
  if (wanted.length === 0) return false;
  if (known.cwd !== null) {
    const have = parts(known.cwd);
    return have.length >= wanted.length && have.slice(-wanted.length).join('/') === wanted.join('/');
  }
  // Without a cwd only the folder is known: its end, as Claude Code sanitizes a path.
  const tail = sanitizeProjectDirName(`/${wanted.join('/')}`);
  return known.project === tail || known.project.endsWith(tail);
}

/** What a candidate is shown as: the cwd when known, else the folder. */
const shown = (known: KnownProject) => known.cwd ?? known.project;

/**
 * Returns the project folder a name means. Throws NotFound (kind UnknownProject) with
 * `data.candidates` when it means none, and InvalidParams (kind AmbiguousProject) with the
 * candidates when a short name fits several.
 */
export function createProjectResolver(db: Database.Database): (project: string) => string {
  return (project) => {
    const known = knownProjects(db);
    const folders = new Map<string, KnownProject[]>();
    for (const row of known) folders.set(row.project, [...(folders.get(row.project) ?? []), row]);
    const folder = project.startsWith('/') ? sanitizeProjectDirName(project) : project;
    if (folders.has(folder)) return folder;
    const matching = project.startsWith('/')
      ? []
      : [...new Set(known.filter((row) => endsWith(row, project)).map((row) => row.project))];
    if (matching.length === 1) return matching[0] as string;
    if (matching.length > 1) {
      const candidates = matching
        .slice(0, MAX_CANDIDATES)
        .map((name) => ({ project: name, cwd: folders.get(name)?.find((row) => row.cwd !== null)?.cwd ?? null }));
      throw new RpcError(
        ErrorCode.InvalidParams,
        'AmbiguousProject',
        `project "${project}" is ambiguous: ${candidates.map((c) => c.cwd ?? c.project).join(', ')}; name more of its path`,
        {
          project,
          candidates,
        },
      );
    }
    const all = [...folders.values()].map((rows) => rows.find((row) => row.cwd !== null) ?? (rows[0] as KnownProject));
    const candidates = all.slice(0, MAX_CANDIDATES).map((row) => ({ project: row.project, cwd: row.cwd }));
    const more = all.length > MAX_CANDIDATES ? ', …' : '';
    const list =
      candidates.length === 0
        ? 'memd knows no project yet'
        : `known: ${all.slice(0, MAX_CANDIDATES).map(shown).join(', ')}${more}`;
    throw new RpcError(ErrorCode.NotFound, 'UnknownProject', `no project "${project}" in the index (${list})`, {
      project,
      candidates,
    });
  };
}

/** Rounds of widening: each adds one path component, and paths have few. */
const MAX_WIDENING = 64;

/**
 * The name tables show for each project folder, over every project the index knows: the last
 * component of its cwd, widened a component at a time while two cwds would read the same
 * (`shop`, `acme/api`), as memctl's sessions table names them (sessions-view.ts projectLabels).
 * The resolver takes each of these back to its folder.
 */
export function projectNames(db: Database.Database): Map<string, string> {
  const byFolder = new Map<string, string[]>();
  for (const row of knownProjects(db)) {
    if (!byFolder.has(row.project) || row.cwd !== null)
      byFolder.set(row.project, row.cwd === null ? [row.project] : parts(row.cwd));
  }
  const depth = new Map([...byFolder.keys()].map((folder) => [folder, 1]));
  const label = (folder: string) => (byFolder.get(folder) ?? []).slice(-(depth.get(folder) ?? 1)).join('/');
  for (let round = 0; round < MAX_WIDENING; round++) {
    const count = new Map<string, number>();
    for (const folder of byFolder.keys()) count.set(label(folder), (count.get(label(folder)) ?? 0) + 1);
    let widened = false;
    for (const [folder, path] of byFolder) {
      const current = depth.get(folder) ?? 1;
      if ((count.get(label(folder)) ?? 0) > 1 && current < path.length) {
        depth.set(folder, current + 1);
        widened = true;
      }
    }
    if (!widened) break;
  }
  return new Map([...byFolder.keys()].map((folder) => [folder, label(folder) || folder]));
}

/**
 * projectNames, computed again only after a write: every search and usage answer names its
 * projects, and reading every folder's last session costs ~2 ms at 3,500 sessions (a search's
 * whole budget is 50). A commit on this connection moves total_changes, one on another moves
 * data_version.
 */
export function createProjectNames(db: Database.Database): () => ReadonlyMap<string, string> {
  const version = db.prepare('SELECT total_changes()').pluck();
  const others = db.prepare('PRAGMA data_version').pluck();
  let cached: { key: string; names: Map<string, string> } | null = null;
  return () => {
    const key = `${version.get() as number}|${others.get() as number}`;
    if (cached?.key !== key) cached = { key, names: projectNames(db) };
    return cached.names;
  };
}
