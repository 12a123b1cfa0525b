/** Reads `config.json` (optional) and merges it under the environment. */
import { readFileSync } from 'node:fs';
import { type ResolvedConfig, resolveConfig } from '../../shared/config.js';
import type { Env } from '../../shared/paths.js';

export function loadConfig(configPath: string, env: Env): ResolvedConfig {
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return resolveConfig(env, undefined);
    const resolved = resolveConfig(env, undefined);
    resolved.problems.push(`${configPath}: cannot read (${(error as Error).message})`);
    return resolved;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const resolved = resolveConfig(env, undefined);
    resolved.problems.push(`${configPath}: not valid JSON (${(error as Error).message})`);
    return resolved;
  }
  return resolveConfig(env, parsed);
}
