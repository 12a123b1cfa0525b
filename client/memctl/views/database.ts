/** The database's incidents as `memctl status` and `memctl doctor` print them. */
import type { DatabaseIncident } from '../../../shared/protocol/daemon.js';

/** One line on the database file's last incident while memd ran. */
export function databaseIncidentText(incident: DatabaseIncident): string {
  const what = { deleted: 'was deleted', replaced: 'was replaced by another file', corrupt: 'was corrupt' }[
    incident.problem
  ];
  const done = {
    reopened: 'memd wrote its content back and reopened it',
    rebuilt: 'memd rebuilt it from the transcripts',
    failed: 'memd could not recover it (restart memd)',
  }[incident.action];
  const moved = incident.movedTo === null ? '' : `; the file found was kept as ${incident.movedTo}`;
  return `the database ${what} at ${incident.at} (${incident.detail}): ${done}${moved}`;
}
