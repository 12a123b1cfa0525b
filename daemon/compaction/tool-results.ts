/**
 * Persisted tool results on disk (DESIGN.md §2): memd's own at
 * `<projects>/<project>/<sessionId>/tool-results/<toolUseId>.txt` (`.json` for block arrays), and
 * Claude Code's, wherever its `toolUseResult.persistedOutputPath` says. Writes are atomic (a temp
 * file in the same dir, fsync, rename), so a reader sees the whole result or none. Reads never
 * leave the projects dir: the path comes from a transcript, and transcripts are input.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { toolResultsDir } from '../../shared/paths.js';
import type { ToolResultContent } from '../../shared/protocol/compaction.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { ContentBlock, ToolResultBlock } from '../../shared/protocol/messages.js';
import { parseTranscriptJson } from '../../shared/transcript/depth.js';
import { isRecord } from '../../shared/values.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { isInside } from '../fs/inside.js';
import { openIfPresent, readTextIfPresent } from '../fs/read.js';
import type { SessionConversation } from '../transcripts/conversation.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import { isSafeToolUseId, type PersistItem, toolResultFile } from './micro.js';
import { type Page, pageOfFile, pageOfText, pageRequest, textForm } from './tool-result-page.js';
import { claudePersisted, contentChars } from './tool-result-text.js';

const DIR_MODE = 0o700; // transcripts' outputs can hold secrets: owner only
/** Claude Code's persisted paths are absolute under its projects dir; this is where they start there. */
const PROJECTS_SEGMENT = '/projects/';

/** What `toolResults.get` answers. */

function pathRejected(message: string, data: Record<string, unknown>): RpcError {
  return new RpcError(ErrorCode.PathRejected, 'PathRejected', message, data);
}

/** Writes each item (skipping files that already hold the same text); the paths, in item order. */
export async function persistToolResults(
  projectsDir: string,
  project: string,
  sessionId: string,
  items: readonly PersistItem[],
): Promise<string[]> {
  const dir = toolResultsDir(projectsDir, project, sessionId);
  if (!isInside(resolve(projectsDir), resolve(dir)))
    throw pathRejected(`tool results of ${project}/${sessionId} would be written outside ${projectsDir}`, {
      project,
      sessionId,
    });
  if (items.length === 0) return [];
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  const paths: string[] = [];
  for (const item of items) {
    if (!isSafeToolUseId(item.toolUseId))
      throw pathRejected(`tool use id ${JSON.stringify(item.toolUseId)} cannot name a file`, {
        toolUseId: item.toolUseId,
      });
    const path = toolResultFile(dir, item.toolUseId, item.ext);
    if ((await readTextIfPresent(path)) !== item.text) await writeFileAtomic(path, item.text);
    paths.push(path);
  }
  return paths;
}

/**
 * Claude Code's path, as a file under `projectsDir`: the part after its `/projects/` resolved here
 * (the transcript may come from another machine or a copy). Null when it would leave projectsDir,
 * also through a symlink, or does not exist.
 */
async function underProjects(projectsDir: string, claudePath: string): Promise<string | null> {
  const root = resolve(projectsDir);
  const at = claudePath.lastIndexOf(PROJECTS_SEGMENT);
  const direct = isAbsolute(claudePath) && isInside(root, resolve(claudePath));
  const candidate = direct
    ? resolve(claudePath)
    : at < 0
      ? null
      : resolve(root, claudePath.slice(at + PROJECTS_SEGMENT.length));
  if (candidate === null || !isInside(root, candidate)) return null;
  try {
    return isInside(await realpath(root), await realpath(candidate)) ? candidate : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** A `.json` file holds a block array; anything else in it is returned as text. */
function parseStored(path: string, text: string): string | ContentBlock[] {
  if (!path.endsWith('.json')) return text;
  try {
    const value = parseTranscriptJson(text);
    if (Array.isArray(value) && value.every((block) => isRecord(block) && typeof block.type === 'string'))
      return value as ContentBlock[];
  } catch {
    // Not JSON after all: the text is still the result.
  }
  return text;
}

interface FoundResult {
  block: ToolResultBlock;
  raw: Record<string, unknown>;
  tool: string | null;
}

function findResult(loaded: readonly LoadedEntry[], toolUseId: string): FoundResult | null {
  const tool = loaded.flatMap(({ entry }) => entry.toolUses).find((use) => use.id === toolUseId)?.name ?? null;
  for (const { entry, raw } of loaded) {
    if (!entry.toolResults.some((result) => result.id === toolUseId)) continue;
    const content =
      isRecord(raw.message) && Array.isArray(raw.message.content) ? (raw.message.content as unknown[]) : [];
    const block = content.find(
      (item): item is ToolResultBlock =>
        isRecord(item) && item.type === 'tool_result' && item.tool_use_id === toolUseId,
    );
    if (block !== undefined) return { block, raw, tool };
  }
  return null;
}

async function persistedFile(
  projectsDir: string,
  project: string,
  sessionId: string,
  toolUseId: string,
  found: FoundResult,
): Promise<string | null> {
  const claude = claudePersisted(found.raw, found.block.content);
  if (claude?.path !== undefined) {
    const path = await underProjects(projectsDir, claude.path);
    if (path !== null) return path;
  }
  if (!isSafeToolUseId(toolUseId)) return null;
  const dir = toolResultsDir(projectsDir, project, sessionId);
  for (const ext of ['txt', 'json'] as const) {
    const path = await underProjects(projectsDir, toolResultFile(dir, toolUseId, ext));
    if (path !== null) return path;
  }
  return null;
}

/**
 * One tool call's result, from the file it was persisted to when there is one, else as the
 * transcript holds it; whole when it fits in the page asked for (the first page by default),
 * else that page of its text form (tool-result-page.ts). NotFound when no result has that id.
 */
export async function readToolResult(
  projectsDir: string,
  project: string,
  sessionId: string,
  toolUseId: string,
  conversation: { loaded: readonly LoadedEntry[] },
  range: { offset?: number; length?: number } = {},
): Promise<ToolResultContent> {
  const found = findResult(conversation.loaded, toolUseId);
  if (found === null)
    throw new RpcError(
      ErrorCode.NotFound,
      'NotFound',
      `no tool result ${toolUseId} in the active conversation of session ${sessionId}`,
      { toolUseId },
    );
  const base = { toolUseId, tool: found.tool, isError: found.block.is_error === true };
  const request = pageRequest(range.offset, range.length);
  const path = await persistedFile(projectsDir, project, sessionId, toolUseId, found);
  const handle = path === null ? null : await openIfPresent(path);
  if (path !== null && handle !== null) {
    try {
      const { size } = await handle.stat();
      if (request.offset === 0 && size <= request.length) {
        const content = parseStored(path, await handle.readFile('utf8'));
        return { ...base, content, chars: contentChars(content), source: 'persisted', path, ...whole(size) };
      }
      const page = await pageOfFile(handle, size, request);
      return {
        ...base,
        content: page.text,
        chars: null,
        source: 'persisted',
        path,
        ...paged(page, path.endsWith('.json') ? 'json' : 'text'),
      };
    } finally {
      await handle.close();
    }
  }
  const content = found.block.content ?? '';
  const { text, form } = textForm(content);
  const totalBytes = Buffer.byteLength(text);
  if (request.offset === 0 && totalBytes <= request.length)
    return { ...base, content, chars: contentChars(content), source: 'transcript', ...whole(totalBytes) };
  const page = pageOfText(text, request);
  return { ...base, content: page.text, chars: contentChars(content), source: 'transcript', ...paged(page, form) };
}

/** What `toolResults.get` asks for: a tool call of a session, and optionally a page of its result. */
export interface ToolResultRequest {
  sessionId: string;
  toolUseId: string;
  offset?: number;
  length?: number;
}

/**
 * `toolResults.get`: the result read from the session's active conversation (the compaction
 * service's, cached) and its tool-results dir. `signal` stops the conversation's first load.
 */
export async function getToolResult(
  compaction: { conversation(sessionId: string, signal?: AbortSignal): Promise<SessionConversation> },
  projectsDir: string,
  request: ToolResultRequest,
  signal?: AbortSignal,
): Promise<ToolResultContent> {
  const conversation = await compaction.conversation(request.sessionId, signal);
  return readToolResult(
    projectsDir,
    conversation.file.project,
    request.sessionId,
    request.toolUseId,
    conversation,
    request,
  );
}

function whole(
  totalBytes: number,
): Pick<ToolResultContent, 'offset' | 'bytes' | 'totalBytes' | 'nextOffset' | 'paged' | 'form'> {
  return { offset: 0, bytes: totalBytes, totalBytes, nextOffset: null, paged: false, form: null };
}

function paged(
  page: Page,
  form: 'text' | 'json',
): Pick<ToolResultContent, 'offset' | 'bytes' | 'totalBytes' | 'nextOffset' | 'paged' | 'form'> {
  return {
    offset: page.offset,
    bytes: page.bytes,
    totalBytes: page.totalBytes,
    nextOffset: page.nextOffset,
    paged: true,
    form,
  };
}
