/**
 * The tool list as the model gets it (issue 33, item 5). Claude Code sends every tool's name
 * (`mcp__memd__` and ours), description and input schema to the API with every request of every
 * session, so each character of it is paid for on every turn. The schema listed is the SDK's JSON
 * Schema of the tool's zod shape less what the model does not need to call right: `$schema`, and
 * the bounds (lengths, minimum and maximum, array sizes), which zod still checks on each call: a
 * call past one is answered with an error that names it.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** What Claude Code puts before a tool's name when it sends an MCP server's tools to the model. */
export const CLAUDE_CODE_TOOL_PREFIX = 'mcp__memd__';

/** JSON Schema keys that only bound a value: checked by zod when the tool is called, not told to the model. */
const BOUNDS = new Set(['$schema', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems']);

/**
 * `schema` without BOUNDS' keys, at every depth, and without the `type` of an enum (its values say
 * it: `{"enum":["list","read"]}`).
 */
export function withoutBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutBounds);
  if (schema === null || typeof schema !== 'object') return schema;
  const isEnum = 'enum' in schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !BOUNDS.has(key) && !(isEnum && key === 'type'))
      .map(([key, value]) => [key, withoutBounds(value)]),
  );
}

function inputSchemaOf(tool: RegisteredTool): Tool['inputSchema'] {
  if (tool.inputSchema === undefined) return { type: 'object', properties: {} };
  const schema = z.toJSONSchema(tool.inputSchema as z.core.$ZodType, { io: 'input', target: 'draft-7' });
  return withoutBounds(schema) as Tool['inputSchema'];
}

/** The tools as `tools/list` lists them: each with its title and annotations (for the user), its lean schema. */
export function listedTools(tools: Readonly<Record<string, RegisteredTool>>): Tool[] {
  return Object.entries(tools)
    .filter(([, tool]) => tool.enabled)
    .map(([name, tool]) => ({
      name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: inputSchemaOf(tool),
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    }));
}

/** Answers `tools/list` with listedTools in place of the SDK's own listing (which keeps the bounds). */
export function serveLeanToolList(server: McpServer, tools: Readonly<Record<string, RegisteredTool>>): void {
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(tools) }));
}

/** One tool as Claude Code sends it in the Messages API's `tools` array: the title and annotations stay local. */
export interface SentTool {
  name: string;
  description: string;
  input_schema: unknown;
}

export function asClaudeCodeSends(tool: Pick<Tool, 'name' | 'description' | 'inputSchema'>): SentTool {
  return {
    name: `${CLAUDE_CODE_TOOL_PREFIX}${tool.name}`,
    description: tool.description ?? '',
    input_schema: tool.inputSchema,
  };
}
