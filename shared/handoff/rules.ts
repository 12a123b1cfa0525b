/**
 * The user's standing rules and the approaches they ruled out, as sentences quoted verbatim from
 * what they typed ("never use regex to parse HTML", "always run npm test before committing").
 * The words are the ones the offline session memory treats as corrections (offline-memory.ts).
 * Pure.
 */

/** A rule is a sentence; a longer "sentence" is a pasted log or code, not something to pin. */
export const MAX_RULE_CHARS = 400;
/** Words that make a sentence a standing rule; "instead" only as the whole sentence's turn ("Use X instead."), not "a table instead of a list". */
const RULE =
  /\b(?:never|always|don['’]t|do not|must(?:n['’]t| not)?|avoid|from now on|only ever|make sure to)\b|^instead\b|\binstead[.!]?$/i;
/** Words that make it an approach the user rejected. */
const RULED_OUT =
  /\b(?:never use|don['’]t use|do not use|stop using|no longer use|(?:doesn['’]t|didn['’]t|won['’]t|does not|did not) work|not (?:that|this) (?:way|approach))\b|^(?:no|nope)\b\s*[,—–-]/i;
/** Sentence ends: `.`, `!` or `?` before space and a capital, quote or bracket; and line breaks. */
const SENTENCE_END = /(?<=[.!?])\s+(?=[A-Z"'“‘`([])|\n+/;

export interface UserRules {
  constraints: string[];
  ruledOut: string[];
}

export function sentencesOf(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

/** From the user's prompts in order: each rule once, in the order first said. */
export function userRules(prompts: readonly string[]): UserRules {
  const constraints = new Set<string>();
  const ruledOut = new Set<string>();
  for (const prompt of prompts) {
    for (const sentence of sentencesOf(prompt)) {
      if (sentence.length > MAX_RULE_CHARS) continue;
      if (RULED_OUT.test(sentence)) ruledOut.add(sentence);
      else if (RULE.test(sentence)) constraints.add(sentence);
    }
  }
  return { constraints: [...constraints], ruledOut: [...ruledOut] };
}

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Rules a model quoted, kept only when they are verbatim in a prompt (whitespace aside) and not
 * already known: a model's paraphrase must never pass for the user's words.
 */
export function verbatimRules(
  quoted: readonly string[],
  prompts: readonly string[],
  known: readonly string[],
): string[] {
  const said = prompts.map(normalized);
  const have = known.map(normalized);
  const kept: string[] = [];
  for (const rule of quoted.map(normalized)) {
    if (rule === '' || rule.length > MAX_RULE_CHARS || !said.some((prompt) => prompt.includes(rule))) continue;
    if (have.some((other) => other.includes(rule) || rule.includes(other))) continue;
    have.push(rule);
    kept.push(rule);
  }
  return kept;
}
