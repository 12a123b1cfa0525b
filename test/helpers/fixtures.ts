/** The recorded Claude Code sessions in test/fixtures/claude-code and their manifests. */
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './sandbox.js';

export const FIXTURES_DIR = join(ROOT, 'test/fixtures/claude-code');

export interface UsageFigures {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  ephemeral_5m_input_tokens: number;
  ephemeral_1h_input_tokens: number;
  assistantMessages: number;
}

export interface Manifest {
  scenario: string;
  sessionId: string;
  /** Relative to the scenario dir: `projects/<project>/<sessionId>.jsonl`. */
  transcript: string;
  title: string;
  model: string;
  cwd: string;
  usage: { main: UsageFigures; sidechain: UsageFigures; total: UsageFigures };
  contextTokens: number;
  compactions: { count: number; triggers: string[] };
}

export function scenarios(): string[] {
  return readdirSync(FIXTURES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

export function manifest(scenario: string): Manifest {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, scenario, 'manifest.json'), 'utf8')) as Manifest;
}

/** Copies every scenario's `projects/*` into one projects dir, as ~/.claude/projects holds them. */
export function copyAllProjects(projectsDir: string): void {
  for (const scenario of scenarios()) {
    cpSync(join(FIXTURES_DIR, scenario, 'projects'), projectsDir, { recursive: true });
  }
}
