/**
 * The user's standing rules and the approaches they ruled out, as sentences quoted verbatim from
 * what they typed ("never use regex to parse HTML", "always run npm test before committing").
 * Rules are the user's constraints, never the request: a sentence asking for work is left out
 * unless one of its clauses opens with a rule word. Pure.
 */

/** A rule is a sentence; a longer "sentence" is a pasted log or code, not something to pin. */
export const MAX_RULE_CHARS = 400;
/** Words that make a sentence a standing rule; "instead" only as the whole sentence's turn ("Use X instead."), not "a table instead of a list". */
const RULE =
  /\b(?:never|always|don['’]t|do not|must(?:n['’]t| not)?|avoid|from now on|only ever|make sure to|prefer(?:ably)?)\b|^instead\b|\binstead[.!]?$|^(?:please\s+)?only\b|\b(?:use|touch|change|edit|modify|run) only\b/i;
/**
 * A sentence that opens by asking for work ("Check that …", "Can you fix …") is the request, not a
 * rule, even with a rule word inside ("Fix the total so it always rounds to cents."); unless a
 * clause of its own opens with one (CLAUSE_RULE).
 */
const REQUEST =
  /^\W*(?:(?:please|ok(?:ay)?|so|now|hi|hey)[,!]?\s+)*(?:(?:can|could|would|will) you|I (?:want|need|would like) you to|I['’]d like you to|let['’]s|help me|check|fix|add|write|implement|create|make(?! sure)|update|refactor|build|look|find|investigate|explain|review|debug|set up|migrate|rename|remove|delete|move|port|convert|figure out|see|tell me|show me|go through|read|open|test|verify|ensure|compute|calculate|summari[sz]e|plan|design|start|continue|finish|resume)\b/i;
/** A clause opening with a rule word: after a comma, semicolon, colon, dash or a joining word. */
const CLAUSE_RULE =
  /(?:[,;:—–(]|\s-|\b(?:and|but|or|so|then|also|though|however))\s*(?:(?:please|also|just|and|but)\s+)*(?:(?:you|we|I)\s+)?(?:never|always|don['’]t|do not|must(?:n['’]t| not)|should(?:n['’]t| not| never| always)|avoid|only|prefer|make sure to|from now on)\b/i;
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
      const request = REQUEST.test(sentence) && !CLAUSE_RULE.test(sentence);
      if (RULED_OUT.test(sentence) && !request) ruledOut.add(sentence);
      else if (RULE.test(sentence) && !request) constraints.add(sentence);
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
