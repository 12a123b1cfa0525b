/** `memctl watch`: every event, live, one line each, across daemon restarts. */
import { EVENT_TOPICS } from '../../../shared/protocol/events.js';
import type { Command } from '../context.js';

export const watch: Command = async (ctx) => {
  const client = ctx.client({ keepAlive: true });
  for (const topic of EVENT_TOPICS) {
    await client.on(topic, (payload) => {
      if (ctx.json) ctx.out.out(JSON.stringify({ topic, payload }));
      else ctx.out.out(`${new Date().toISOString()} ${ctx.out.bold(topic)} ${JSON.stringify(payload)}`);
    });
  }
  ctx.out.err(ctx.out.dim(`watching ${EVENT_TOPICS.length} topics on ${client.socketPath}; Ctrl-C to stop`));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  client.close();
  return 0;
};
