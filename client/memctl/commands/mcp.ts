/**
 * `memctl mcp`: memd's MCP server on stdin and stdout, for Claude Code (`memctl install-mcp` sets it
 * up). stdout carries the protocol alone: this command prints nothing of its own there. The MCP SDK
 * is loaded here, on this command only.
 */
import { type Command, EXIT_OK, UsageError } from '../context.js';

/**
 * A model waits for a tool far longer than a shell waits for memctl: room for a cold start of the
 * daemon (autostart) and a search over a big index, still well inside Claude Code's tool timeout.
 */
const MCP_CALL_TIMEOUT_MS = 15_000;

export const mcp: Command = async (ctx) => {
  if (ctx.args.length > 0) throw new UsageError(`mcp takes no arguments (got ${ctx.args[0]})`);
  const { serveStdio } = await import('../mcp/server.js');
  const memd = ctx.client({ timeoutMs: MCP_CALL_TIMEOUT_MS });
  try {
    await serveStdio(memd, process.cwd());
  } finally {
    memd.close();
  }
  return EXIT_OK;
};
