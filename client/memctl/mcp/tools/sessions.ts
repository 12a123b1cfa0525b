/** `list_sessions` (sessions.list): a project's sessions, most recent first, a few lines each. */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { SessionList, SessionSummary } from '../../../../shared/protocol/sessions.js';
import { formatAge, formatTokens, projectLabels } from '../../views/sessions.js';
import { joinWithinBudget, OUTPUT_BUDGET_CHARS, oneLine } from '../budget.js';
import { count, formatTime, list, plural, quoted, respond, type ToolContext } from './context.js';

/** Sessions a model gets without asking: the recent ones, where the work it resumes usually is. */
const DEFAULT_SESSIONS = 20;
/** Each session renders in at most ~400 characters, so this many fit the output budget whole. */
const MAX_SESSIONS = 40;
/** What `project` takes to list every project's sessions. */
const ALL_PROJECTS = 'all';
const TITLE_CHARS = 120;
const ID_CHARS = 100;
const PATH_CHARS = 160;
/** The daemon's cursors are opaque and short; sessions.list allows 8 KiB. */
const CURSOR_CHARS = 8_192;

const listInput = {
  project: z.string().min(1).max(4_096).optional().describe(`"${ALL_PROJECTS}"`),
  limit: z.number().int().min(1).max(MAX_SESSIONS).optional(),
  cursor: z.string().min(1).max(CURSOR_CHARS).optional(),
};

function costOf(session: SessionSummary): string {
  const cost = session.usage?.total?.costUsd;
  return typeof cost === 'number' ? `$${cost.toFixed(2)}` : 'cost unknown';
}

function memoryOf(session: SessionSummary): string {
  const at = session.sessionMemory?.extractedAt;
  return typeof at === 'string' ? `session memory from ${formatTime(at)}` : 'no session memory yet';
}

/**
 * `2% used of auto-compact at 967K, window 1.0M`: the share used, in the status line's words
 * (shared/statusline/format.ts percentText), and the window the session runs with (issues 28, 29).
 */
function contextShare(session: SessionSummary): string {
  const threshold = session.threshold;
  // Reactive mode (Claude Code compacts only once the API refuses): the share of the window, in Claude Code's words.
  const reactive = threshold?.autoCompactEnabled === true && threshold.autoCompactMode === 'reactive';
  const off = threshold?.autoCompactEnabled === false;
  const percent = `${count(threshold?.percentUsed)}% ${reactive ? 'context used' : off ? 'of window used' : 'used of auto-compact'}`;
  if (typeof threshold?.window !== 'number' || typeof threshold.autoCompactAt !== 'number') return percent;
  const window = `window ${formatTokens(count(threshold.window))}`;
  return reactive || off
    ? `${percent}, ${window}`
    : `${percent} at ${formatTokens(count(threshold.autoCompactAt))}, ${window}`;
}

/** The name memctl's tables give each session's project, for the sessions whose fields allow one. */
function labelsOf(sessions: readonly SessionSummary[]): Map<string, string> {
  return projectLabels(
    sessions.filter(
      (session) =>
        typeof session.sessionId === 'string' &&
        typeof session.project === 'string' &&
        (session.cwd === null || typeof session.cwd === 'string'),
    ),
  );
}

function renderSession(
  session: SessionSummary,
  withProject: boolean,
  now: number,
  labels: ReadonlyMap<string, string>,
): string {
  const title =
    session.hasMainTranscript === false
      ? '(main transcript missing)'
      : session.title === null
        ? '(untitled)'
        : quoted(session.title, TITLE_CHARS);
  const where = [
    // The name tables, search and usage show, and the folder list_sessions takes (sessions.list does not resolve names).
    withProject
      ? `project ${oneLine(labels.get(session.sessionId) ?? session.project, PATH_CHARS)} (${oneLine(session.project, PATH_CHARS)})`
      : '',
    typeof session.cwd === 'string' ? `cwd ${oneLine(session.cwd, PATH_CHARS)}` : '',
    typeof session.gitBranch === 'string' ? `branch ${oneLine(session.gitBranch, 80)}` : '',
  ].filter((part) => part !== '');
  const activity = `last active ${formatTime(session.lastActivity)} (${formatAge(session.lastActivity, now)}) · started ${formatTime(session.firstActivity)}${typeof session.model === 'string' ? ` · ${oneLine(session.model, 60)}` : ''}`;
  const figures = `context ${formatTokens(count(session.contextTokens))} tokens (${contextShare(session)}) · ${plural(count(session.usage?.main?.assistantMessages), 'response')} · ${costOf(session)} · ${plural(count(session.compactions?.count), 'compaction')} · ${memoryOf(session)}${session.gone ? ' · transcript deleted' : ''}`;
  return `- ${oneLine(session.sessionId, ID_CHARS)} ${title}\n  ${activity}${where.length > 0 ? `\n  ${where.join(' · ')}` : ''}\n  ${figures}`;
}

export function renderSessionList(result: SessionList, scope: string, withProject: boolean, now = Date.now()): string {
  const sessions = list<SessionSummary>(result.sessions);
  const labels = withProject ? labelsOf(sessions) : new Map<string, string>();
  const hidden =
    count(result.hidden) > 0
      ? ` (${plural(count(result.hidden), 'session')} without entries or with deleted files not listed)`
      : '';
  if (sessions.length === 0)
    return `No sessions in ${scope}${hidden}.${withProject ? '' : ` list_sessions with project: "${ALL_PROJECTS}" lists every project's.`}`;
  const total = typeof result.total === 'number' ? ` of ${result.total.toLocaleString('en-US')}` : '';
  const head = `Sessions in ${scope}, most recent first: ${sessions.length}${total}${hidden}.`;
  const tail =
    typeof result.nextCursor === 'string'
      ? `Older sessions: call list_sessions again with the same project and cursor: ${quoted(result.nextCursor, CURSOR_CHARS)}.`
      : 'No older sessions.';
  return joinWithinBudget(
    head,
    sessions.map((session) => renderSession(session, withProject, now, labels)),
    `${tail}\nsession_memory reads a session's summary; search_sessions with session searches within one.`,
    (left) =>
      `(${plural(left, 'more session')} of this page left out to fit the output budget: ask with a lower limit.)`,
    OUTPUT_BUDGET_CHARS,
    "sessions with their titles, each a session's first prompt unless renamed",
  );
}

export function registerSessionTools(server: McpServer, context: ToolContext): Record<string, RegisteredTool> {
  const sessions = server.registerTool(
    'list_sessions',
    {
      title: 'List Claude Code sessions',
      description: 'Sessions, newest first.',
      inputSchema: listInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      respond(async () => {
        const all = args.project === ALL_PROJECTS;
        const project = all ? undefined : (args.project ?? context.project);
        const result = await context.memd.sessionsList({
          limit: args.limit ?? DEFAULT_SESSIONS,
          ...(project === undefined ? {} : { project }),
          ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
        });
        const scope = all
          ? 'every project'
          : args.project === undefined
            ? `the current project (${oneLine(context.project, PATH_CHARS)})`
            : `project ${oneLine(args.project, PATH_CHARS)}`;
        return renderSessionList(result, scope, all);
      }),
  );
  return { list_sessions: sessions };
}
