/**
 * V8's heap sizing, tuned for a daemon whose live data is small and whose garbage is not. Measured
 * over a 2.4 GB backfill: ~20 MB survive each full GC, but the default growing factor let the
 * old generation fill to ~110 MB of garbage before the next one, and each isolate (this one and
 * the parse worker's) keeps 16 MB semi-spaces; RSS followed the garbage (250–270 MB). With these
 * it stays under 200 MB at the same backfill speed (docs/architecture.md). Set at start, before the
 * parse worker exists: a worker's isolate takes the flags it is created with, and the growing
 * factor is read at every full GC, so it applies to this isolate too.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_FLAGS = ['--heap-growing-percent=20', '--max-semi-space-size=4'] as const;

export function tuneHeap(): void {
  for (const flag of HEAP_FLAGS) setFlagsFromString(flag);
}
