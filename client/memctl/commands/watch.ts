/**
 * `memctl watch`: on a terminal, the sessions table redrawn live from `session.updated` events;
 * otherwise (or with --json) every event, one line each. Survives daemon restarts.
 */
import { EVENT_TOPICS } from '../../../shared/protocol/events.js';
import type { SessionSummary } from '../../../shared/protocol/sessions.js';
import type { Command, CommandContext } from '../context.js';
import { renderSessionTable } from '../views/sessions.js';

/** Redraws at most this often, however fast events come. */
const REDRAW_INTERVAL_MS = 100;
/** ANSI: cursor home, clear screen. */
const CLEAR = '\x1b[H\x1b[2J';

function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

async function printEvents(ctx: CommandContext): Promise<number> {
  const client = ctx.client({ keepAlive: true });
  for (const topic of EVENT_TOPICS) {
    await client.on(topic, (payload) => {
      if (ctx.json) ctx.out.out(JSON.stringify({ topic, payload }));
      else ctx.out.out(`${new Date().toISOString()} ${ctx.out.bold(topic)} ${JSON.stringify(payload)}`);
    });
  }
  ctx.out.err(ctx.out.dim(`watching ${EVENT_TOPICS.length} topics on ${client.socketPath}; Ctrl-C to stop`));
  await untilInterrupted();
  client.close();
  return 0;
}

async function redrawTable(ctx: CommandContext): Promise<number> {
  const client = ctx.client({ keepAlive: true });
  const sessions = new Map<string, SessionSummary>();
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    timer = undefined;
    const ordered = [...sessions.values()].sort((a, b) => (b.lastActivity ?? '').localeCompare(a.lastActivity ?? ''));
    const lines = renderSessionTable(ordered, ctx.out);
    process.stdout.write(
      `${CLEAR}${lines.join('\n')}\n${ctx.out.dim(`live from ${client.socketPath}; Ctrl-C to stop`)}\n`,
    );
  };
  const scheduleDraw = () => {
    timer ??= setTimeout(draw, REDRAW_INTERVAL_MS);
  };
  await client.on('session.updated', (session) => {
    sessions.set(session.sessionId, session);
    scheduleDraw();
  });
  // An event that arrived while the list was on its way is newer than the list's row.
  for (const session of (await client.sessionsList()).sessions)
    if (!sessions.has(session.sessionId)) sessions.set(session.sessionId, session);
  draw();
  await untilInterrupted();
  clearTimeout(timer);
  client.close();
  return 0;
}

export const watch: Command = (ctx) =>
  ctx.json || process.stdout.isTTY !== true ? printEvents(ctx) : redrawTable(ctx);
