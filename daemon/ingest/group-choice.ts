/**
 * Which backfill files the ingestor reads together in one group pass (group-pass.ts): the ones
 * small when found, in backfill order, as many as always fit a lane's slots. A file a group left
 * to a pass of its own is not grouped again.
 */
import { GROUP_FILES_MAX, groupBytes, smallFileBytes } from './group-pass.js';
import type { PassQueue } from './pass-queue.js';

export interface GroupChoice {
  /** A backfill file was found with `left` bytes to read. */
  found(path: string, left: number): void;
  /** A group left the file to a pass of its own. */
  single(path: string): void;
  /** The file's backfill is over. */
  forget(path: string): void;
  /** The files to read with `first`, taken from the head of the backlog (just `first` when it is not small). */
  groupWith(first: string, queue: PassQueue): string[];
}

export function createGroupChoice(slotBytes: number): GroupChoice {
  const smallFile = smallFileBytes(slotBytes);
  const budget = groupBytes(slotBytes);
  /** Bytes left to read of the backfill files small when found. */
  const smallLeft = new Map<string, number>();
  const singles = new Set<string>();
  const leftOf = (path: string) => (singles.has(path) ? undefined : smallLeft.get(path));
  return {
    found(path, left) {
      if (left <= smallFile) smallLeft.set(path, left);
    },
    single: (path) => singles.add(path),
    forget(path) {
      smallLeft.delete(path);
      singles.delete(path);
    },
    groupWith(first, queue) {
      const firstLeft = leftOf(first);
      if (firstLeft === undefined) return [first];
      let bytes = firstLeft;
      const rest = queue.takeBackfill(GROUP_FILES_MAX - 1, (path) => {
        const left = leftOf(path);
        if (left === undefined || bytes + left > budget) return false;
        bytes += left;
        return true;
      });
      return [first, ...rest];
    },
  };
}
