/** The archive's one line in `memctl status` and at the head of `memctl archive list`. */
import type { ArchiveStatus } from '../../../shared/protocol/archive.js';
import { formatBytes, type Output } from '../output.js';

/** memctl's one byte formatter (B, KiB, MiB), so that `memctl status` has one set of units. */
const size = formatBytes;

/** One line on the archive as a whole. */
export function renderArchiveStatus(status: ArchiveStatus, out: Output): string {
  if (!status.enabled) return 'archive   off (archiveEnabled in config.json, or MEMD_ARCHIVE=on)';
  const ratio =
    status.sourceBytes === 0
      ? ''
      : ` (${Math.round((status.archiveBytes / status.sourceBytes) * 100)} % of ${size(status.sourceBytes)})`;
  const pending = status.pendingBytes > 0 ? `, ${size(status.pendingBytes)} to archive` : '';
  const state = status.state === 'stopped' ? out.red(`stopped: ${status.reason ?? 'unknown reason'}`) : status.state;
  return `archive   ${state}, ${status.sessions} sessions, ${status.files} files, ${size(status.archiveBytes)}${ratio}${pending}`;
}
