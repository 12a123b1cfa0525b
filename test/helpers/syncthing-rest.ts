/**
 * What the Syncthing harness (test/helpers/syncthing.ts) reads over an instance's REST API: whether
 * it is linked to its peer, its folder's state, and how complete it believes the peer's copy is.
 */

/** A REST call slower than this means the instance is stuck: a scan of a test folder takes milliseconds. */
const REQUEST_TIMEOUT_MS = 10_000;

/** An instance as its REST API is reached: `side` names it in errors, `peer` is the other's device id. */
export interface RestTarget {
  side: string;
  apiUrl: string;
  apiKey: string;
  peer: string;
}

/** One side's view of the folder, as the REST API reports it (`pullErrors` only for a timeout's report). */
export interface SyncState {
  side: string;
  connected: boolean;
  state: unknown;
  needTotalItems: unknown;
  pullErrors: unknown;
  peerCompletion: unknown;
  peerNeedItems: unknown;
  peerNeedDeletes: unknown;
}

/** In sync from this side: linked to the peer, idle, needing nothing, and the peer lacking no item and no delete. */
export function settled(s: SyncState): boolean {
  return (
    s.connected &&
    s.state === 'idle' &&
    s.needTotalItems === 0 &&
    s.peerCompletion === 100 &&
    s.peerNeedItems === 0 &&
    s.peerNeedDeletes === 0
  );
}

/** One side's view: its link to the peer, its folder, and how complete it believes the peer's copy is. */
export async function syncState(instance: RestTarget, folderId: string): Promise<SyncState> {
  const folder = encodeURIComponent(folderId);
  const [connections, status, completion] = await Promise.all([
    request(instance, 'GET', '/rest/system/connections'),
    request(instance, 'GET', `/rest/db/status?folder=${folder}`),
    request(instance, 'GET', `/rest/db/completion?folder=${folder}&device=${instance.peer}`),
  ]);
  const link = field(field(connections, 'connections'), instance.peer);
  return {
    side: instance.side,
    connected: field(link, 'connected') === true,
    state: field(status, 'state'),
    needTotalItems: field(status, 'needTotalItems'),
    pullErrors: field(status, 'pullErrors'),
    peerCompletion: field(completion, 'completion'),
    peerNeedItems: field(completion, 'needItems'),
    peerNeedDeletes: field(completion, 'needDeletes'),
  };
}

/** Scans the folder now; Syncthing answers when the scan is done. */
export async function rescan(instance: RestTarget, folderId: string): Promise<void> {
  await request(instance, 'POST', `/rest/db/scan?folder=${encodeURIComponent(folderId)}`);
}

/** A REST call; its JSON answer (null for an empty one), or an error naming the call and Syncthing's answer. */
export async function request(instance: RestTarget, method: 'GET' | 'POST', path: string): Promise<unknown> {
  const response = await fetch(`${instance.apiUrl}${path}`, {
    method,
    headers: { 'X-API-Key': instance.apiKey },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`syncthing ${instance.side}: ${method} ${path}: ${response.status} ${body}`);
  return body.trim() === '' ? null : (JSON.parse(body) as unknown);
}

export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
