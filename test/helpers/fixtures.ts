/** The manifests of the recorded Claude Code sessions in test/fixtures/claude-code (see its README). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from './ingest.js';

export interface ManifestUsage {
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
  title: string;
  model: string;
  cwd: string;
  /** Relative to the scenario dir: `projects/<project>/<sessionId>.jsonl`. */
  transcript: string;
  subagentTranscripts: string[];
  usage: { main: ManifestUsage; sidechain: ManifestUsage; total: ManifestUsage };
  contextTokens: number;
  compactions: { count: number; triggers: string[]; boundaries: { trigger: string; summary: string }[] };
  sidechain: { present: boolean; agents: { toolUseId: string; usage: ManifestUsage }[] };
  files: { read: string[]; edited: string[]; written: string[] };
  /** Tool results Claude Code moved to tool-results/ files. */
  persistedToolResults: { toolUseId: string; tool: string; step: number; originalChars: number }[];
  /** User-stated rules, verbatim substrings of a prompt. */
  constraints: { text: string }[];
}

export function manifest(scenario: string): Manifest {
  return JSON.parse(readFileSync(join(FIXTURES, scenario, 'manifest.json'), 'utf8')) as Manifest;
}
