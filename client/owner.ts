/**
 * Who owns a path, in words a user recognises: `uid 1001 (alice)`. The name comes from
 * /etc/passwd, read only on this error path; without it (no such file, an LDAP user) the uid alone.
 */
import { readFileSync } from 'node:fs';

const PASSWD = '/etc/passwd';

function userName(uid: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(PASSWD, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [name, , id] = line.split(':');
    if (name !== undefined && name !== '' && id !== undefined && Number(id) === uid) return name;
  }
  return undefined;
}

export function describeOwner(uid: number): string {
  const name = userName(uid);
  return name === undefined ? `uid ${uid}` : `uid ${uid} (${name})`;
}
