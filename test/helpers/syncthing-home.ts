/**
 * A Syncthing instance's home for the tests (test/helpers/syncthing.ts): its key and certificate
 * from `syncthing generate`, and a config.xml that keeps it on loopback with one shared folder.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { join } from 'node:path';

/** The syncthing the tests run (MEMD_SYNCTHING), else the one on PATH (Debian's is v1.19.2). */
export const SYNCTHING_BIN = process.env.MEMD_SYNCTHING ?? 'syncthing';

/** `--version`, `generate` and `--device-id` answer in tens of milliseconds; more means a broken binary. */
const COMMAND_DEADLINE_MS = 10_000;
/** The watcher's delay, its minimum in v1.19 (an integer): a change is scanned about a second after it. */
const FS_WATCHER_DELAY_S = 1;
/** The dialling side retries a peer it could not reach (the loop itself waits at least 5 s in v1.19). */
const RECONNECT_INTERVAL_S = 1;

/** A fresh key and certificate in `home`; returns its device id. */
export async function generateHome(home: string): Promise<string> {
  await run([SYNCTHING_BIN, 'generate', '--home', home, '--no-default-folder'], syncthingEnv(home));
  const id = (await run([SYNCTHING_BIN, 'serve', '--home', home, '--device-id'], syncthingEnv(home))).trim();
  if (!/^[A-Z2-7]{7}(-[A-Z2-7]{7}){7}$/.test(id)) throw new Error(`syncthing --device-id said ${JSON.stringify(id)}`);
  return id;
}

export interface InstanceConfig {
  name: string;
  deviceId: string;
  listenPort: number;
  guiPort: number;
  apiKey: string;
  peer: { name: string; deviceId: string; address: string };
  folder: { id: string; path: string; rescanIntervalS: number };
}

/**
 * Replaces the generated config.xml with one that holds only what differs from Syncthing's
 * defaults here (it fills in every element left out): editing the generated file would hang on the
 * shape of one version's output, and a config posted over REST takes a restart for some options.
 * Beyond loopback only: no free-space floor (a nearly full CI disk would stop the folder without a
 * word) and no lowered priority (a niced instance falls behind on a loaded machine).
 */
export function writeConfig(home: string, config: InstanceConfig): void {
  const path = join(home, 'config.xml');
  // The binary's own schema version, as generate wrote it: a newer Syncthing migrates an older number.
  const version = /<configuration version="(\d+)"/.exec(readFileSync(path, 'utf8'))?.[1] ?? '36';
  const { folder, peer } = config;
  writeFileSync(
    path,
    `<configuration version="${version}">
    <folder id="${xml(folder.id)}" label="${xml(folder.id)}" path="${xml(folder.path)}" type="sendreceive"
            rescanIntervalS="${folder.rescanIntervalS}" fsWatcherEnabled="true" fsWatcherDelayS="${FS_WATCHER_DELAY_S}">
        <device id="${config.deviceId}"></device>
        <device id="${peer.deviceId}"></device>
        <minDiskFree unit="%">0</minDiskFree>
    </folder>
    <device id="${config.deviceId}" name="${xml(config.name)}"><address>dynamic</address></device>
    <device id="${peer.deviceId}" name="${xml(peer.name)}"><address>${xml(peer.address)}</address></device>
    <gui enabled="true" tls="false"><address>127.0.0.1:${config.guiPort}</address><apikey>${config.apiKey}</apikey></gui>
    <options>
        <listenAddress>tcp://127.0.0.1:${config.listenPort}</listenAddress>
        <globalAnnounceEnabled>false</globalAnnounceEnabled>
        <localAnnounceEnabled>false</localAnnounceEnabled>
        <relaysEnabled>false</relaysEnabled>
        <natEnabled>false</natEnabled>
        <urAccepted>-1</urAccepted>
        <crashReportingEnabled>false</crashReportingEnabled>
        <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
        <startBrowser>false</startBrowser>
        <reconnectionIntervalS>${RECONNECT_INTERVAL_S}</reconnectionIntervalS>
        <minHomeDiskFree unit="%">0</minHomeDiskFree>
        <setLowPriority>false</setLowPriority>
    </options>
</configuration>
`,
  );
}

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** `count` distinct ports free on loopback now: all held open at once, then released for Syncthing. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let n = 0; n < count; n++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((server) => (server.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** The test's environment for Syncthing: no proxy (it would dial loopback through one), no default folder. */
export function syncthingEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/_proxy$/i.test(key)) env[key] = value;
  return Object.assign(env, {
    HOME: home,
    STNODEFAULTFOLDER: '1',
    STNOUPGRADE: '1',
    STNORESTART: '1',
    // v1.19 runs as a monitor that starts a child of the same command line, even with --no-restart;
    // this hidden variable, which the monitor sets for its child, makes the first process the server.
    STMONITORED: '1',
    // Skips the second-long benchmark that picks a SHA-256 implementation; test files are tiny.
    STHASHING: 'standard',
  });
}

/** Runs a short syncthing command; its stdout, or an error with its stderr. */
export function run(argv: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const [command, ...args] = argv as [string, ...string[]];
  return new Promise((resolve, reject) =>
    execFile(command, args, { env, timeout: COMMAND_DEADLINE_MS, encoding: 'utf8' }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${argv.join(' ')}: ${error.message}\n${stderr}`)),
    ),
  );
}
