/**
 * `usage_status` (usage.status, issue 31): where a session stands against auto-compact, the 5-hour
 * plan window and the prompt cache's expiry, each figure with whose it is and its basis, so that
 * the agent itself can compact or hand off before a limit instead of being cut off by it.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { UsageStatusResult } from '../../../../shared/protocol/forecast.js';
import { usageStatusResultSchema } from '../../../../shared/protocol/forecast.js';
import type { ReportedState } from '../../../../shared/protocol/reports.js';
import { answerOrNull } from '../../../../shared/protocol/schema.js';
import { plainOutput } from '../../output.js';
import { forecastFigures, utcClock } from '../../views/forecasts.js';
import { reportedLines } from '../../views/reported.js';
import { oneLine } from '../budget.js';
import { ToolInputError } from '../errors.js';
import { respond, type ToolContext } from './context.js';

const ID_CHARS = 100;
/**
 * A model's id as the API names them (`claude-sonnet-4-5-20250929`): the one transcript-borne
 * string this answer prints, so it is shown only when it cannot carry a sentence (issue 27).
 */
const MODEL_ID = /^[\w.:@/[\]-]{1,80}$/;
/** A basis is one sentence of memd's; more than this is not one. */
const BASIS_CHARS = 600;
/** Auto-compact this many turns away or fewer is near: a handoff written now still has the context to draw on. */
const NEAR_COMPACT_TURNS = 2;
/** The 5-hour window running out within this is near: time for one or two more turns, not a new task. */
const NEAR_LIMIT_MS = 30 * 60_000;
/** A cache expiring within this is worth answering before: about one turn of reading and thinking. */
const NEAR_EXPIRY_MS = 5 * 60_000;
/** A rebuild cheaper than this is not worth changing course for. */
const COSTLY_REBUILD_USD = 0.1;

const statusInput = {
  sessionId: z.string().min(4).max(200).optional(),
};

/** What to do about the limits that are near; none when none is. */
export function suggestions(status: UsageStatusResult): string[] {
  const { autoCompact, limit, cacheRebuild, at } = status;
  const said: string[] = [];
  if (autoCompact.tokensLeft <= 0 || (autoCompact.turns !== null && autoCompact.turns <= NEAR_COMPACT_TURNS)) {
    const what = autoCompact.autoCompactEnabled ? 'auto-compact' : 'the blocking limit';
    said.push(
      `Suggestion: ${what} is ${autoCompact.tokensLeft <= 0 || autoCompact.turns === 0 ? 'at the next turn' : `within ${autoCompact.turns} turns`}: consider writing a handoff (the user can run memctl handoff) or compacting now (/compact), while you still choose what the summary keeps.`,
    );
  }
  if (limit.reachedAt !== null && limit.reachedAt - at <= NEAR_LIMIT_MS) {
    const reset = limit.resetsAt === null ? '' : ` It resets at ${utcClock(limit.resetsAt)}.`;
    said.push(
      `Suggestion: the 5-hour plan limit is near (about ${utcClock(limit.reachedAt)} at this pace): finish the current step, and leave a handoff rather than starting a long task.${reset}`,
    );
  }
  const expiresIn = cacheRebuild.expiresAt === null ? null : cacheRebuild.expiresAt - at;
  if (
    expiresIn !== null &&
    expiresIn > 0 &&
    expiresIn <= NEAR_EXPIRY_MS &&
    cacheRebuild.costUsd !== null &&
    cacheRebuild.costUsd >= COSTLY_REBUILD_USD
  ) {
    said.push(
      `Suggestion: the prompt cache expires in ${Math.max(1, Math.round(expiresIn / 60_000))} min and rebuilding it costs $${cacheRebuild.costUsd.toFixed(2)}: answer before it expires rather than waiting.`,
    );
  }
  return said;
}

/** What Claude Code's status line last reported, in the lines memctl status shows. */
function reportedText(reported: ReportedState, sessionId: string, now: number): string[] {
  return reportedLines(reported, sessionId, plainOutput(), now).map((line) => `- ${line.trim().replace(/\s+/g, ' ')}`);
}

export function renderUsageStatus(status: UsageStatusResult, now = Date.now()): string {
  const session = oneLine(status.sessionId, ID_CHARS);
  const model = status.model === null || !MODEL_ID.test(status.model) ? '' : `, model ${status.model}`;
  const figures = forecastFigures(status, now).map(
    (figure) =>
      `- ${figure.label}: ${figure.text} [${figure.provenance}]\n  basis: ${oneLine(figure.basis, BASIS_CHARS)}`,
  );
  const advice = suggestions(status);
  return [
    `Usage status of session ${session}${model}, computed at ${utcClock(status.at)}. Each figure says whose it is: official = Claude Code reported it; estimated = memd computed it from its index.`,
    '',
    'Forecasts:',
    ...figures,
    '',
    "As Claude Code's status line last reported:",
    ...reportedText(status.reported, status.sessionId, now),
    '',
    ...(advice.length === 0 ? ['No limit is near.'] : advice),
  ].join('\n');
}

/** The session to answer for: the one asked about, the one Claude Code started this server for, else the project's latest. */
async function sessionOf(context: ToolContext, asked: string | undefined): Promise<string> {
  if (asked !== undefined) return asked;
  if (context.session !== undefined) return context.session;
  const { sessions } = await context.memd.sessionsList({ project: context.project, limit: 1 });
  const latest = sessions[0]?.sessionId;
  if (typeof latest !== 'string')
    throw new ToolInputError(
      `memd knows no session of the current project (${oneLine(context.project, 200)}): pass sessionId (list_sessions with project: "all" gives the ids).`,
    );
  return latest;
}

export function registerUsageStatusTool(server: McpServer, context: ToolContext): Record<string, RegisteredTool> {
  const status = server.registerTool(
    'usage_status',
    {
      title: 'Forecast auto-compact, the plan limit and the cache',
      description: 'Turns to auto-compact, 5-hour limit, cache rebuild cost: to hand off in time.',
      inputSchema: statusInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      respond(
        async () => {
          const sessionId = await sessionOf(context, args.sessionId);
          const answer = answerOrNull(
            usageStatusResultSchema,
            await context.memd.usageStatus({ sessionId }),
            'usage.status',
          );
          if (answer === null)
            return 'The memd daemon running answered usage.status in a shape this memctl does not read: it is another version. The user can restart it with: memctl stop && memctl start.';
          return renderUsageStatus(answer);
        },
        { notFound: 'list_sessions (project: "all" for every project) gives the ids memd knows.' },
      ),
  );
  return { usage_status: status };
}
