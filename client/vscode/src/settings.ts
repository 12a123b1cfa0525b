/**
 * The extension's settings (`memd.*` in the manifest's contributes.configuration), read through a
 * getter so that this stays pure: a value of the wrong type falls back to its default and is
 * reported, never passed on.
 */
import { isAbsolute } from 'node:path';

export const NOTIFICATION_SCOPES = ['workspace', 'all', 'off'] as const;
export type NotificationScope = (typeof NOTIFICATION_SCOPES)[number];

export interface Settings {
  autostart: boolean;
  startCommand: string[];
  /** Null: the socket memd's own rules give (shared/paths.ts). */
  socketPath: string | null;
  notifications: NotificationScope;
  statusBarColumns: number;
  pageSize: number;
}

export const DEFAULT_SETTINGS: Settings = {
  autostart: false,
  startCommand: ['memctl', 'start'],
  socketPath: null,
  notifications: 'workspace',
  // The full line (bar, percentage used, tokens left, compactions, memory age, cost) is about 80 characters.
  statusBarColumns: 82,
  // A screenful of sessions and then some; each is a small summary, so a page is cheap.
  pageSize: 50,
};

/** Bounds of the numeric settings, as the manifest declares them. */
const COLUMNS_RANGE = { min: 20, max: 200 };
const PAGE_SIZE_RANGE = { min: 1, max: 1_000 };

/** The keys under `memd.`, each as the manifest names it. */
export const SETTING_KEYS = [
  'autostart',
  'startCommand',
  'socketPath',
  'notifications',
  'statusBarColumns',
  'pageSize',
] as const satisfies readonly (keyof Settings)[];

export type SettingGetter = (key: string) => unknown;

function integerIn(value: unknown, range: { min: number; max: number }): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= range.min && value <= range.max
    ? value
    : null;
}

/** The settings, and a line per value that was not usable (shown once in the log). */
export function readSettings(get: SettingGetter): { settings: Settings; problems: string[] } {
  const problems: string[] = [];
  const pick = <T>(key: (typeof SETTING_KEYS)[number], parse: (value: unknown) => T | null, fallback: T): T => {
    const raw = get(key);
    if (raw === undefined || raw === null) return fallback;
    const parsed = parse(raw);
    if (parsed !== null) return parsed;
    problems.push(`memd.${key}: ${JSON.stringify(raw)} is not a valid value; using ${JSON.stringify(fallback)}`);
    return fallback;
  };
  const settings: Settings = {
    autostart: pick('autostart', (value) => (typeof value === 'boolean' ? value : null), DEFAULT_SETTINGS.autostart),
    startCommand: pick(
      'startCommand',
      (value) =>
        Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string') ? [...value] : null,
      DEFAULT_SETTINGS.startCommand,
    ),
    socketPath:
      pick(
        'socketPath',
        (value) =>
          typeof value === 'string' && (value.trim() === '' || isAbsolute(value.trim())) ? value.trim() : null,
        '',
      ) || null,
    notifications: pick(
      'notifications',
      (value) => (NOTIFICATION_SCOPES.includes(value as NotificationScope) ? (value as NotificationScope) : null),
      DEFAULT_SETTINGS.notifications,
    ),
    statusBarColumns: pick(
      'statusBarColumns',
      (value) => integerIn(value, COLUMNS_RANGE),
      DEFAULT_SETTINGS.statusBarColumns,
    ),
    pageSize: pick('pageSize', (value) => integerIn(value, PAGE_SIZE_RANGE), DEFAULT_SETTINGS.pageSize),
  };
  return { settings, problems };
}
