/** `memctl sync status [--json]`: what this machine shares through the sync folder, and what the others shared (issue 35). */
import { parseAnswer } from '../../../shared/protocol/schema.js';
import { type SyncStatus, syncStatusSchema } from '../../../shared/protocol/sync.js';
import { type Command, UsageError } from '../context.js';
import { formatBytes, type Output, plural } from '../output.js';
import { formatAge } from '../views/sessions.js';

export function renderSyncStatus(status: SyncStatus, out: Output, now = Date.now()): string[] {
  if (!status.enabled)
    return ['sync      off: nothing leaves this machine (set syncDir to a folder a sync engine carries; docs/sync.md)'];
  const lines = [`sync      ${status.state}${status.reason === null ? '' : `: ${status.reason}`}  ${status.dir}`];
  const self = status.self;
  if (self !== null) {
    const behind = self.behind > 0 ? `, ${plural(self.behind, 'file')} not mirrored yet` : '';
    lines.push(
      `shared    ${self.name} (${self.id}): ${plural(self.sessions, 'session')}, ${plural(self.files, 'file')}, ${formatBytes(self.bytes)}${behind}; ${plural(self.tombstones, 'tombstone')}; last written ${formatAge(self.publishedAt, now)}`,
    );
  }
  if (status.devices.length === 0)
    lines.push(out.dim('others    none yet: no other machine has written to the sync folder'));
  for (const device of status.devices) {
    const state = device.gone ? out.yellow('gone (its sessions stay here)') : `seen ${formatAge(device.lastSeen, now)}`;
    const behind = device.behind > 0 ? `, ${plural(device.behind, 'file')} arriving` : '';
    const problems = device.problems > 0 ? out.red(`, ${plural(device.problems, 'file')} cannot be decoded`) : '';
    const problem = device.problem === null ? '' : out.yellow(` (${device.problem})`);
    lines.push(
      `from      ${device.name} (${device.id}, memd ${device.version || '?'}): ${state}; ${plural(device.sessions, 'session')}, ${plural(device.files, 'file')}, ${formatBytes(device.sourceBytes)} of transcripts${behind}${problems}${problem}`,
    );
  }
  return lines;
}

export const sync: Command = async (ctx) => {
  const [action = 'status', ...rest] = ctx.args;
  if (action !== 'status' || rest.length > 0) throw new UsageError('sync takes status');
  const client = ctx.client();
  try {
    const answer = await client.syncStatus({});
    if (ctx.json) ctx.out.out(JSON.stringify(answer));
    else
      for (const line of renderSyncStatus(parseAnswer(syncStatusSchema, answer, 'sync.status'), ctx.out))
        ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
