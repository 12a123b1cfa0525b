/** systemd socket activation (sd_listen_fds(3)): the listening socket arrives as fd 3. */
import type { Env } from '../../shared/paths.js';

/** sd-daemon's SD_LISTEN_FDS_START: passed descriptors start here. */
const SD_LISTEN_FDS_START = 3;

export interface ActivatedSocket {
  fd: number;
  /** Descriptors passed beyond the first, which memd does not use. */
  ignored: number;
}

/**
 * Returns the passed socket when LISTEN_PID names this process, and removes the variables so
 * that children of the daemon do not mistake them for their own.
 */
export function takeActivatedSocket(env: NodeJS.ProcessEnv | Env, pid = process.pid): ActivatedSocket | undefined {
  const listenPid = Number.parseInt(env.LISTEN_PID ?? '', 10);
  const listenFds = Number.parseInt(env.LISTEN_FDS ?? '', 10);
  if (listenPid !== pid || !Number.isSafeInteger(listenFds) || listenFds < 1) return undefined;
  const mutable = env as Record<string, string | undefined>;
  delete mutable.LISTEN_PID;
  delete mutable.LISTEN_FDS;
  delete mutable.LISTEN_FDNAMES;
  return { fd: SD_LISTEN_FDS_START, ignored: listenFds - 1 };
}
