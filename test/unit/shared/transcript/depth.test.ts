import { describe, expect, it } from 'vitest';
import {
  CUT_VALUE,
  cutDeepNesting,
  MAX_ENTRY_DEPTH,
  parseTranscriptJson,
} from '../../../../shared/transcript/depth.js';

const deepArray = (depth: number, leaf = '"bottom"') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
const deepObject = (depth: number, leaf = '"bottom"') => `${'{"k":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

/** How deep `value` nests containers (the value itself is level 1); iterative. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

describe('cutDeepNesting', () => {
  it('cuts values 10,000 deep to the bound, so that JSON.stringify and structured clone work on them', () => {
    for (const text of [
      deepArray(10_000),
      deepObject(10_000),
      `{"a":[{"b":${deepObject(10_000, deepArray(10_000))}}]}`,
    ]) {
      const value: unknown = JSON.parse(text);
      expect(() => JSON.stringify(value)).toThrow(RangeError);
      expect(cutDeepNesting(value)).toBe(1);
      expect(depthOf(value)).toBe(MAX_ENTRY_DEPTH);
      expect(JSON.stringify(value)).toContain(JSON.stringify(CUT_VALUE));
      expect(structuredClone(value)).toEqual(value);
    }
  });

  it('keeps a value exactly at the bound whole, and cuts one level more', () => {
    const atBound: unknown = JSON.parse(deepArray(MAX_ENTRY_DEPTH));
    expect(cutDeepNesting(atBound)).toBe(0);
    expect(atBound).toEqual(JSON.parse(deepArray(MAX_ENTRY_DEPTH)));
    const past: unknown = JSON.parse(deepArray(MAX_ENTRY_DEPTH + 1));
    expect(cutDeepNesting(past)).toBe(1);
    expect(past).toEqual(JSON.parse(deepArray(MAX_ENTRY_DEPTH - 1, JSON.stringify([CUT_VALUE]))));
  });

  it('leaves shallow values, and the shallow siblings of a deep one, as they were', () => {
    const entry = {
      type: 'assistant',
      message: {
        content: [
          { type: 'text', text: 'hi' },
          { type: 'tool_use', input: { a: [1, { b: null }] } },
        ],
      },
    };
    const value = structuredClone(entry);
    expect(cutDeepNesting(value)).toBe(0);
    expect(value).toEqual(entry);
    const mixed = JSON.parse(
      `{"uuid":"u1","message":{"usage":{"output_tokens":7},"content":[{"type":"text","text":"kept"},${deepObject(5_000)}]}}`,
    ) as {
      uuid: string;
      message: { usage: unknown; content: unknown[] };
    };
    expect(cutDeepNesting(mixed, 4)).toBe(1);
    expect(mixed).toEqual({
      uuid: 'u1',
      message: { usage: { output_tokens: 7 }, content: [{ type: 'text', text: 'kept' }, { k: CUT_VALUE }] },
    });
  });

  it('counts each container it cuts; primitives and null are left alone', () => {
    expect(cutDeepNesting(JSON.parse('[[1],[2],[[3]]]'), 1)).toBe(3);
    for (const leaf of [null, 1, 'text', true]) expect(cutDeepNesting(leaf)).toBe(0);
  });
});

describe('parseTranscriptJson', () => {
  it('parses as JSON.parse does and throws as it does', () => {
    expect(parseTranscriptJson('{"a":[1,"b"]}')).toEqual({ a: [1, 'b'] });
    expect(() => parseTranscriptJson('{"a":')).toThrow(SyntaxError);
    expect(depthOf(parseTranscriptJson(deepObject(100_000)))).toBe(MAX_ENTRY_DEPTH);
  });
});
