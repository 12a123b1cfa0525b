/** `memctl memdir conflicts`: memories changed on two machines from one version, with where each version is. */
import type { MemdirConflict, MemdirConflictsResult } from '../../../shared/protocol/memdir.js';
import type { Output } from '../output.js';

/** Etags are 32 hex digits; 12 tell versions apart at a glance, as git's short hashes do. */
const SHORT_ETAG = 12;

const shortEtag = (etag: string | null): string => (etag === null ? 'deleted' : etag.slice(0, SHORT_ETAG));

/** Memory names may hold spaces and parentheses (never a quote: shared/memdir/names.ts): quoted for a shell. */
const shellWord = (word: string): string => (/^[\w./-]+$/.test(word) ? word : `'${word}'`);

function machine(conflict: MemdirConflict): string {
  return conflict.deviceName === null ? conflict.device : `${conflict.deviceName} (${conflict.device})`;
}

export function renderConflicts(result: MemdirConflictsResult, out: Output): string[] {
  const lines: string[] = [];
  if (!result.syncing) lines.push(out.dim('sync is off (no syncDir): nothing is published or received'));
  if (result.conflicts.length === 0) {
    lines.push('no memory conflicts');
    return lines;
  }
  for (const conflict of result.conflicts) {
    const team = conflict.scope === 'team' ? ' --team' : '';
    lines.push(
      out.bold(`${conflict.name}`) +
        `  ${conflict.scope} memory of ${conflict.project}, found ${conflict.foundAt.slice(0, 16).replace('T', ' ')}`,
      `  here         ${shortEtag(conflict.localEtag)}  ${conflict.path}`,
      `  ${machine(conflict)}`,
      `               ${shortEtag(conflict.theirEtag)}  ${conflict.theirPath ?? out.dim('(deleted there)')}`,
      out.dim(
        `  memctl memdir resolve ${conflict.project} ${shellWord(conflict.name)}${team} --keep local|theirs --device ${conflict.device}`,
      ),
    );
  }
  return lines;
}
