/**
 * The user's prompts read straight from transcript JSONL text, for the PreCompact hook's fallback
 * without a daemon (issue 29): the rules in them are pinned for the compaction even then. The
 * daemon reads the same prompts from its index (daemon/transcripts/facts.ts) by the same rule:
 * user entries that are no meta entry, no compaction summary, no command plumbing and no notice
 * of an interruption. Pure.
 */
import { textOf } from '../transcript/content-text.js';
import { parseTranscriptJson } from '../transcript/depth.js';
import { isRecord } from '../values.js';

/** User text that is Claude Code's command plumbing, not something the user wrote. */
const COMMAND_PLUMBING =
  /^<(?:command-name|command-message|command-args|local-command-[\w-]+|bash-stdout|bash-stderr)>/;
/** Prompts that are Claude Code's notice of an interruption, not a request. */
export const INTERRUPTED = /^\[Request interrupted by user/;

/** Slash-command names and arguments, local-command output and caveats, bash-mode output. */
export function isCommandPlumbing(text: string): boolean {
  return COMMAND_PLUMBING.test(text.trimStart());
}

/** The prompt one JSONL line holds; null for any other line (a broken one included). */
function promptOf(line: string): string | null {
  let value: unknown;
  try {
    value = parseTranscriptJson(line);
  } catch {
    return null;
  }
  if (
    !isRecord(value) ||
    value.type !== 'user' ||
    value.isMeta === true ||
    value.isCompactSummary === true ||
    value.isSidechain === true
  )
    return null;
  const text = textOf(isRecord(value.message) ? value.message.content : undefined).trim();
  return text === '' || isCommandPlumbing(text) || INTERRUPTED.test(text) ? null : text;
}

/** The user's prompts in a transcript's text, in order. */
export function userPromptsOf(jsonl: string): string[] {
  const prompts: string[] = [];
  for (const line of jsonl.split('\n')) {
    if (!line.includes('"user"')) continue; // most lines are the assistant's or tools': not parsed
    const prompt = promptOf(line);
    if (prompt !== null) prompts.push(prompt);
  }
  return prompts;
}
