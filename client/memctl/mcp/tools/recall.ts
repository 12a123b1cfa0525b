/**
 * `recall` (issue 33, item 5): a question in plain words, answered with the best passage of each
 * past session that holds it, best first, each short and with where it came from. search_sessions
 * is for exact words and syntax; this is for asking the way one asks a colleague.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { joinWithinBudget, OUTPUT_BUDGET_CHARS, oneLine } from '../budget.js';
import { type RecallPassage, recallPassages } from '../recall-passages.js';
import { plural, quoted, respond, type ToolContext } from './context.js';

/** Passages in an answer: one per session, a few sessions are what an agent reads before going on. */
const RECALL_PASSAGES = 5;
/** A passage is a snippet (~200 characters): longer is cut, not trusted. */
const PASSAGE_CHARS = 300;
const TITLE_CHARS = 80;
const PROJECT_CHARS = 60;
const QUESTION_CHARS = 200;

const recallInput = {
  question: z.string().min(1).max(1_000),
  project: z.string().min(1).max(4_096).optional(),
};

/** `2026-12-02`: a passage's day is enough to place it. */
function dayOf(timestamp: string | null): string {
  const ms = timestamp === null ? Number.NaN : Date.parse(timestamp);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : 'undated';
}

/** Two lines: where it is from (title, project, day, ref), then the passage itself. */
function renderPassage(passage: RecallPassage, rank: number): string {
  const title = passage.title === undefined ? '(untitled)' : quoted(passage.title, TITLE_CHARS);
  return `${rank}. ${title} · ${oneLine(passage.project, PROJECT_CHARS)} · ${dayOf(passage.timestamp)} · ${oneLine(passage.ref, 120)}\n   ${oneLine(passage.field, 20)}: ${oneLine(passage.text, PASSAGE_CHARS)}`;
}

export function renderRecall(question: string, passages: readonly RecallPassage[]): string {
  const asked = quoted(question, QUESTION_CHARS);
  if (passages.length === 0)
    return `No past session holds ${asked}. Try other words, or search_sessions for exact ones.`;
  return joinWithinBudget(
    `${plural(passages.length, 'past session')} for ${asked}, best first; ref is SESSION:UUID for session_context:`,
    passages.map((passage, index) => renderPassage(passage, index + 1)),
    '',
    (left) => `(${plural(left, 'more passage')} left out to fit the output budget.)`,
    OUTPUT_BUDGET_CHARS,
    'passages of past sessions and their titles',
  );
}

export function registerRecallTool(server: McpServer, context: ToolContext): Record<string, RegisteredTool> {
  const recall = server.registerTool(
    'recall',
    {
      title: 'Recall past sessions',
      description: 'Past sessions that answer a plain question; ask before asking the user.',
      inputSchema: recallInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      respond(
        async () => {
          const passages = await recallPassages(context.memd, {
            question: args.question,
            limit: RECALL_PASSAGES,
            ...(args.project === undefined ? {} : { project: args.project }),
            ...(context.session === undefined ? {} : { excludeSessions: [context.session] }),
          });
          return renderRecall(args.question, passages);
        },
        { notFound: 'list_sessions with project: "all" shows the projects memd knows.' },
      ),
  );
  return { recall };
}
