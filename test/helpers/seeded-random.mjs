/**
 * mulberry32: a seeded generator, so that a randomized test that fails can be repeated. Plain JS,
 * so that child processes the tests spawn (which run without a TypeScript loader) share it.
 */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
