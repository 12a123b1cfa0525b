/**
 * `archive.verify`: every archived file inflated (gzip's CRC checks each member) to exactly the
 * length the book says, and compared with its source where that still exists: a transcript must
 * still start with the archived bytes, a tool result must equal them.
 */
import type { ArchiveVerifyResult } from '../../shared/protocol/archive.js';
import { archivePathOf } from './layout.js';
import { compareWithFile, inflate } from './read.js';
import type { ArchiveRow } from './store.js';

/** What is wrong with one archived file, or null when it inflates whole and agrees with its source. */
export async function checkArchived(stateDir: string, row: ArchiveRow): Promise<string | null> {
  const archivePath = archivePathOf(stateDir, row);
  try {
    const compared = await compareWithFile(archivePath, row.archive_bytes, row.path, row.kind === 'file').catch(
      (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && (error as NodeJS.ErrnoException).path === row.path)
          return null;
        throw error;
      },
    );
    if (compared === null) {
      // The source is gone: the archive is the only copy; it must inflate whole.
      let inflated = 0;
      for await (const chunk of inflate(archivePath, row.archive_bytes)) inflated += chunk.length;
      return inflated === row.source_bytes ? null : `inflates to ${inflated} bytes, not ${row.source_bytes}`;
    }
    if (compared.inflated !== row.source_bytes)
      return `inflates to ${compared.inflated} bytes, not ${row.source_bytes}`;
    return compared.equal
      ? null
      : row.kind === 'file'
        ? 'differs from the file'
        : 'differs from the start of the transcript';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'the archive file is missing';
    return `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export async function verifyArchive(stateDir: string, rows: readonly ArchiveRow[]): Promise<ArchiveVerifyResult> {
  const result: ArchiveVerifyResult = { checked: 0, ok: 0, problems: [] };
  for (const row of rows) {
    if (row.pruned_at !== null) continue;
    result.checked += 1;
    const problem = await checkArchived(stateDir, row);
    if (problem === null) result.ok += 1;
    else result.problems.push({ path: row.path, archivePath: archivePathOf(stateDir, row), problem });
  }
  return result;
}
