/**
 * One line of Claude Code's `history.jsonl`, validated: `{display, pastedContents, timestamp,
 * project, sessionId?}`. The file is written by another program (and by several of its processes
 * at once), so every field is checked before it is trusted.
 */
import { sanitizeProjectDirName } from '../../../shared/paths.js';
import { isRecord } from '../../../shared/values.js';

export type PasteType = 'text' | 'image';

/** A paste as the line records it; content from paste-cache is resolved later. */
export interface PasteRef {
  id: number;
  type: PasteType;
  content: string | null;
  contentHash: string | null;
}

export interface HistoryRecord {
  display: string;
  timestampMs: number;
  project: string;
  sessionId: string | null;
  pastes: PasteRef[];
}

export interface HistoryFilter {
  /** The project's root path, or its folder name under projects/. */
  project?: string;
  sessionId?: string;
  /** Only entries strictly older than this (epoch ms). */
  beforeMs?: number;
}

function optionalString(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : undefined;
}

function parsePaste(value: unknown): PasteRef | null {
  if (!isRecord(value)) return null;
  const { id, type } = value;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) return null;
  if (type !== 'text' && type !== 'image') return null;
  const content = optionalString(value.content);
  const contentHash = optionalString(value.contentHash);
  if (content === undefined || contentHash === undefined) return null;
  return { id, type, content, contentHash };
}

/** Null when any paste is malformed: a half-valid entry is not shown as if it were whole. */
function parsePastes(value: unknown): PasteRef[] | null {
  // Lines written before Claude Code recorded pastes have no field at all.
  if (value === undefined) return [];
  if (!isRecord(value)) return null;
  const pastes: PasteRef[] = [];
  for (const item of Object.values(value)) {
    const paste = parsePaste(item);
    if (paste === null) return null;
    pastes.push(paste);
  }
  return pastes.sort((a, b) => a.id - b.id);
}

/** A timestamp `Date` can turn into an ISO string. */
function isValidTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(new Date(value).getTime());
}

/** The line's entry, or null when it is not one (corrupt JSON, missing or mistyped fields). */
export function parseHistoryLine(text: string): HistoryRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const { display, timestamp, project } = value;
  if (typeof display !== 'string' || typeof project !== 'string' || !isValidTime(timestamp)) return null;
  const sessionId = optionalString(value.sessionId);
  const pastes = parsePastes(value.pastedContents);
  if (sessionId === undefined || pastes === null) return null;
  return { display, timestampMs: timestamp, project, sessionId, pastes };
}

/**
 * Matches entries against a filter. Folder names are computed once per distinct project path:
 * a history holds thousands of lines but only a handful of projects.
 */
export function createMatcher(filter: HistoryFilter): (record: HistoryRecord) => boolean {
  const folderNames = new Map<string, string>();
  const folderName = (project: string): string => {
    let name = folderNames.get(project);
    if (name === undefined) {
      name = sanitizeProjectDirName(project);
      folderNames.set(project, name);
    }
    return name;
  };
  return (record) => {
    if (filter.beforeMs !== undefined && !(record.timestampMs < filter.beforeMs)) return false;
    if (filter.sessionId !== undefined && record.sessionId !== filter.sessionId) return false;
    if (
      filter.project !== undefined &&
      record.project !== filter.project &&
      folderName(record.project) !== filter.project
    )
      return false;
    return true;
  };
}
