/**
 * Nesting bounds for transcript values. JSON.parse accepts a value a million levels deep, but
 * JSON.stringify, structured clone (worker messages) and every recursive walk overflow the stack
 * at a few thousand. So each transcript value memd parses is cut to MAX_ENTRY_DEPTH right after
 * JSON.parse, before anything walks it: the entry is kept (its usage and ids are shallow), and
 * only the too-deep part is replaced by CUT_VALUE. Pure.
 */

/**
 * Far deeper than anything Claude Code writes (tool inputs and results nest a few dozen levels
 * at most), far shallower than the depth at which a walk runs out of stack (~8,000 for
 * JSON.stringify on Node 20's default stack, less in a recursive walker with larger frames).
 */
export const MAX_ENTRY_DEPTH = 256;

/** What a container nested past the bound becomes: a string, so walkers see a plain leaf. */
export const CUT_VALUE = `[cut by memd: nested deeper than ${MAX_ENTRY_DEPTH} levels]`;

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * Replaces, in place, every array or object that sits deeper than `maxDepth` (the value itself
 * is level 1) with CUT_VALUE, and returns how many it replaced. Iterative: it cannot overflow.
 * The value must be fresh from JSON.parse (plain, acyclic, owned by the caller).
 */
export function cutDeepNesting(value: unknown, maxDepth = MAX_ENTRY_DEPTH): number {
  if (!isContainer(value)) return 0;
  // Two parallel stacks instead of [value, depth] pairs: no allocation per container.
  const containers: object[] = [value];
  const depths: number[] = [1];
  let cut = 0;
  while (containers.length > 0) {
    const container = containers.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop() as number;
    if (Array.isArray(container)) {
      for (let at = 0; at < container.length; at++) {
        const child = container[at];
        if (!isContainer(child)) continue;
        if (depth >= maxDepth) {
          container[at] = CUT_VALUE;
          cut += 1;
        } else {
          containers.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in container) {
      const child = container[key];
      if (!isContainer(child)) continue;
      if (depth >= maxDepth) {
        container[key] = CUT_VALUE;
        cut += 1;
      } else {
        containers.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return cut;
}

/** JSON.parse of a transcript line (or a stored tool result), cut to MAX_ENTRY_DEPTH. Throws as JSON.parse does. */
export function parseTranscriptJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  cutDeepNesting(value);
  return value;
}
