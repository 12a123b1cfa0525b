/** `memctl mcp` spawned as Claude Code spawns it (stdio, in the project's dir), for security tests. */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MEMCTL_MAIN, type Sandbox } from './sandbox.js';

/** `extraEnv`: what Claude Code adds to the server's environment (CLAUDE_CODE_SESSION_ID). */
export async function serveMcp(sandbox: Sandbox, cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<McpClient> {
  const env = Object.fromEntries(
    Object.entries({ ...sandbox.env, ...extraEnv }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MEMCTL_MAIN, 'mcp'],
    env,
    cwd,
    stderr: 'pipe',
  });
  const mcp = new McpClient({ name: 'memd-security-test', version: '1.0.0' });
  await mcp.connect(transport);
  return mcp;
}

/** A tool's answer as text. */
export async function callText(mcp: McpClient, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await mcp.callTool({ name, arguments: args });
  return (result.content as { type: string; text?: string }[]).map((block) => block.text ?? '').join('');
}
