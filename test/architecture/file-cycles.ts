/**
 * Import circles between files: the strongly connected components of the file graph (Tarjan's
 * algorithm), each reported once with its files and one circle through them, so that a tangle of
 * many files reads as one finding rather than every elementary cycle in it.
 */

export interface FileCircle {
  /** Every file of the component, sorted. */
  files: string[];
  /** One shortest circle from the component's first file back to it. */
  cycle: string[];
}

type Graph = Map<string, string[]>;

function graphOf(edges: readonly { from: string; to: string }[]): Graph {
  const graph: Graph = new Map();
  for (const { from, to } of edges) {
    graph.set(from, [...(graph.get(from) ?? []), to]);
    if (!graph.has(to)) graph.set(to, []);
  }
  for (const targets of graph.values()) targets.sort();
  return graph;
}

/** Tarjan's components, iteratively: a file chain may be longer than a comfortable recursion. */
function components(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { file: string; child: number }[] = [{ file: root, child: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { file: string; child: number };
      const targets = graph.get(frame.file) ?? [];
      const target = targets[frame.child++];
      if (target !== undefined) {
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, child: 0 });
        } else if (onStack.has(target)) low.set(frame.file, Math.min(low.get(frame.file) ?? 0, index.get(target) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.file, Math.min(low.get(parent.file) ?? 0, low.get(frame.file) ?? 0));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
        onStack.delete(file);
        component.push(file);
        if (file === frame.file) break;
      }
      found.push(component.sort());
    }
  }
  return found;
}

/** The shortest way from `start` back to itself inside `members` (breadth first). */
function shortestCircle(graph: Graph, start: string, members: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i] as string;
    for (const target of graph.get(file) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const between: string[] = [];
        for (let at: string | undefined = file; at !== undefined && at !== start; at = cameFrom.get(at))
          between.unshift(at);
        return [start, ...between, start];
      }
      if (!cameFrom.has(target) && target !== start) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** Every import circle among the edges' files, ordered by their first file. */
export function fileCircles(edges: readonly { from: string; to: string }[]): FileCircle[] {
  const graph = graphOf(edges);
  return components(graph)
    .filter((files) => files.length > 1 || (graph.get(files[0] ?? '') ?? []).includes(files[0] ?? ''))
    .map((files) => ({ files, cycle: shortestCircle(graph, files[0] ?? '', new Set(files)) }))
    .sort((a, b) => (a.files[0] ?? '').localeCompare(b.files[0] ?? ''));
}
