/** The circle finder on graphs small enough to check by eye. */
import { describe, expect, it } from 'vitest';
import { fileCircles } from './file-cycles.js';

const edges = (...pairs: [string, string][]) => pairs.map(([from, to]) => ({ from, to }));

describe('fileCircles', () => {
  it('finds none in a chain or a diamond', () => {
    expect(fileCircles(edges(['a', 'b'], ['b', 'c'], ['a', 'c'], ['c', 'd']))).toEqual([]);
  });

  it('reports a tangle once, with all its files and one shortest circle', () => {
    // b→c→d→b and b→e→b share b: one component; a leads into it and is not part of it.
    const found = fileCircles(
      edges(['a', 'b'], ['b', 'c'], ['c', 'd'], ['d', 'b'], ['b', 'e'], ['e', 'b'], ['d', 'f']),
    );
    expect(found).toEqual([{ files: ['b', 'c', 'd', 'e'], cycle: ['b', 'e', 'b'] }]);
  });

  it('reports separate circles apart, and a file importing itself', () => {
    const found = fileCircles(edges(['x', 'y'], ['y', 'x'], ['y', 'p'], ['p', 'q'], ['q', 'p'], ['s', 's']));
    expect(found).toEqual([
      { files: ['p', 'q'], cycle: ['p', 'q', 'p'] },
      { files: ['s'], cycle: ['s', 's'] },
      { files: ['x', 'y'], cycle: ['x', 'y', 'x'] },
    ]);
  });
});
