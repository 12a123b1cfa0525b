import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, describeConfigKeys, resolveConfig } from '../../../shared/config.js';

describe('resolveConfig', () => {
  it('uses the defaults when there is no file and no environment', () => {
    const { config, sources, problems } = resolveConfig({}, undefined);
    expect(problems).toEqual([]);
    expect(config).toEqual({
      logLevel: 'info',
      logMaxBytes: 5 * 1024 * 1024,
      logFiles: 3,
      logFormat: 'auto',
      shutdownGraceMs: 5_000,
      shutdownDeadlineMs: 10_000,
      socketCheckMs: 5_000,
      gitTimeoutMs: 5_000,
      maxConnections: 1_024,
      idleTimeoutMs: 600_000,
      frameTimeoutMs: 10_000,
      maxAnswerBytes: 64 * 1024 * 1024,
      maxHeavyRequests: 2,
      answerStallTimeoutMs: 30_000,
      summarizer: 'offline',
      microCompact: 'savings',
      backfillExtractions: 50,
      dbCheckMs: 30_000,
      ingestSweepMs: 30_000,
      extractionDailyBudgetUsd: 1,
      archiveEnabled: true,
      archiveMaxBytes: 20 * 1024 * 1024 * 1024,
      syncDir: '',
      syncDeviceName: '',
      syncScanMs: 5_000,
      searchProcesses: 2,
      searchDeadlineMs: 2_000,
      recallPromptTokens: 1_500,
      recallFailure: true,
      recallMinCoverage: 0.6,
      model: 'claude-haiku-4-5',
      handoffModel: 'claude-sonnet-4-6',
    });
    for (const key of CONFIG_KEYS) expect(sources[key]).toBe('default');
  });

  it('takes the file over the default and the environment over the file', () => {
    const { config, sources, problems } = resolveConfig(
      { MEMD_LOG_LEVEL: 'debug', MEMD_LOG_FILES: '7' },
      { logLevel: 'warn', logFiles: 5, maxConnections: 10, model: 'claude-x' },
    );
    expect(problems).toEqual([]);
    expect(config.logLevel).toBe('debug');
    expect(sources.logLevel).toBe('env');
    expect(config.logFiles).toBe(7);
    expect(sources.logFiles).toBe('env');
    expect(config.maxConnections).toBe(10);
    expect(sources.maxConnections).toBe('file');
    expect(config.model).toBe('claude-x');
    expect(sources.model).toBe('file');
    expect(config.summarizer).toBe('offline');
    expect(sources.summarizer).toBe('default');
  });

  it('ignores empty environment variables', () => {
    const { config, sources, problems } = resolveConfig({ MEMD_LOG_LEVEL: '' }, { logLevel: 'warn' });
    expect(problems).toEqual([]);
    expect(config.logLevel).toBe('warn');
    expect(sources.logLevel).toBe('file');
  });

  it('reports an invalid environment value by its variable and keeps the file value', () => {
    const { config, sources, problems } = resolveConfig({ MEMD_MAX_CONNECTIONS: 'lots' }, { maxConnections: 10 });
    expect(config.maxConnections).toBe(10);
    expect(sources.maxConnections).toBe('file');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('MEMD_MAX_CONNECTIONS="lots"');
    expect(problems[0]).toContain('invalid');
  });

  it.each([
    ['logLevel', 'loud'],
    ['logMaxBytes', 0],
    ['logMaxBytes', 1.5],
    ['logFiles', -1],
    ['shutdownGraceMs', -5],
    ['summarizer', 'gpt'],
    ['model', '   '],
    ['model', 42],
  ] as const)('reports file key %s = %j as invalid, naming the key, and keeps the default', (key, value) => {
    const { config, sources, problems } = resolveConfig({}, { [key]: value });
    expect(sources[key]).toBe('default');
    expect(config[key]).toEqual(resolveConfig({}, undefined).config[key]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`"${key}" is invalid`);
  });

  it('accepts zero where zero means something (no shutdown grace)', () => {
    expect(resolveConfig({ MEMD_SHUTDOWN_GRACE_MS: '0' }, undefined).config.shutdownGraceMs).toBe(0);
    expect(resolveConfig({ MEMD_LOG_FILES: '0' }, undefined).problems[0]).toContain('MEMD_LOG_FILES');
  });

  it('reports unknown file keys and still applies the known ones', () => {
    const { config, problems } = resolveConfig({}, { logLevl: 'debug', logFiles: 4 });
    expect(problems).toEqual(['config.json: unknown key "logLevl"']);
    expect(config.logFiles).toBe(4);
  });

  it.each([[[]], [null], ['text'], [3]])('reports a file that is not one object (%j)', (file) => {
    const { config, problems } = resolveConfig({}, file);
    expect(problems).toEqual(['config.json: must hold one JSON object']);
    expect(config).toEqual(resolveConfig({}, undefined).config);
  });

  it('does not take keys from the prototype chain as settings', () => {
    const { problems, sources } = resolveConfig({}, JSON.parse('{"__proto__": {"logLevel": "debug"}}'));
    expect(problems).toEqual(['config.json: unknown key "__proto__"']);
    expect(sources.logLevel).toBe('default');
  });
});

describe('describeConfigKeys', () => {
  it('documents every key with its environment variable', () => {
    const described = describeConfigKeys();
    expect(described.map((entry) => entry.key)).toEqual(CONFIG_KEYS);
    for (const entry of described) {
      expect(entry.env).toMatch(/^MEMD_[A-Z_]+$/);
      expect(entry.doc.length).toBeGreaterThan(0);
    }
  });
});
