import { describe, expect, it } from 'vitest';
import { RpcError } from '../../../../shared/protocol/errors.js';
import { EVENT_TOPICS } from '../../../../shared/protocol/events.js';
import { METHOD_BY_NAME, Methods } from '../../../../shared/protocol/methods.js';

/** DESIGN.md §3, in its order. A method added or renamed must change the contract first. */
const DESIGN_METHODS = [
  'daemon.version',
  'daemon.status',
  'daemon.shutdown',
  'sessions.list',
  'sessions.get',
  'events.subscribe',
  'events.unsubscribe',
  'compact.thresholds',
  'compact.micro',
  'compact.cacheEdits',
  'compact.auto',
  'compact.reactive',
  'toolResults.get',
  'memory.summary',
  'memory.extract',
  'memory.lock',
  'memory.unlock',
  'memdir.list',
  'memdir.read',
  'memdir.write',
  'memdir.delete',
  'history.list',
  'rewind.list',
  'rewind.restore',
  'handoff.generate',
  'handoff.read',
  'search.query',
  'search.context',
  'archive.list',
  'archive.restore',
  'archive.verify',
  'archive.forget',
  'export.session',
  'usage.report',
];
/** Methods memd adds to DESIGN.md §3, each documented as an addition in docs/protocol.md. */
const ADDED_METHODS = [
  'rewind.undo',
  'handoff.sessionStart',
  'handoff.postCompact',
  'handoff.status',
  'memory.pause',
  'memory.resume',
  'archive.prune',
  'archive.deleted',
  'sessions.report',
  'handoff.turnFailed',
  'handoff.instructionsLoaded',
  'usage.status',
  'recall.forPrompt',
  'recall.forFailure',
  'sync.status',
  'memdir.conflicts',
  'memdir.resolve',
];

const names = Object.values(Methods).map((descriptor) => descriptor.name);

describe('Methods', () => {
  it('names every method domain.verb', () => {
    for (const name of names) expect(name).toMatch(/^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/);
  });

  it('has no name twice', () => {
    expect(new Set(names).size).toBe(names.length);
    expect(METHOD_BY_NAME.size).toBe(names.length);
  });

  it("is exactly DESIGN.md §3's list, plus the documented additions", () => {
    expect([...names].sort()).toEqual([...DESIGN_METHODS, ...ADDED_METHODS].sort());
  });

  it('maps each name to its descriptor', () => {
    for (const descriptor of Object.values(Methods)) expect(METHOD_BY_NAME.get(descriptor.name)).toBe(descriptor);
  });
});

/** Params DESIGN.md §3 documents: each must parse, and each required field must be required. */
const DOCUMENTED_PARAMS: [string, Record<string, unknown>, string[]][] = [
  ['daemon.version', {}, []],
  ['sessions.list', { project: 'p', activeWithinMs: 0, limit: 5 }, []],
  ['sessions.get', { sessionId: 's' }, ['sessionId']],
  ['events.subscribe', { topics: ['session.updated'] }, ['topics']],
  ['events.unsubscribe', { topics: [...EVENT_TOPICS] }, ['topics']],
  ['compact.thresholds', { sessionId: 's' }, ['sessionId']],
  ['compact.thresholds', { model: 'claude-x', tokens: 0 }, ['model', 'tokens']],
  ['compact.micro', { sessionId: 's' }, ['sessionId']],
  ['compact.cacheEdits', { sessionId: 's', keep: 3 }, ['sessionId']],
  ['compact.auto', { sessionId: 's', force: true, instructions: 'focus' }, ['sessionId']],
  ['compact.reactive', { sessionId: 's', limitTokens: 1000 }, ['sessionId']],
  ['toolResults.get', { sessionId: 's', toolUseId: 't' }, ['sessionId', 'toolUseId']],
  ['memory.summary', { sessionId: 's' }, ['sessionId']],
  ['memory.extract', { sessionId: 's' }, ['sessionId']],
  ['memory.lock', { sessionId: 's', owner: 'o', ttlMs: 1000 }, ['sessionId', 'owner']],
  ['memory.unlock', { sessionId: 's', owner: 'o' }, ['sessionId', 'owner']],
  ['memdir.list', { project: 'p', scope: 'team' }, ['project']],
  [
    'memdir.write',
    { project: 'p', scope: 'private', name: 'n', type: 'feedback', content: '' },
    ['project', 'name', 'type', 'content'],
  ],
  ['history.list', { project: 'p', limit: 1 }, []],
  ['rewind.list', { sessionId: 's' }, ['sessionId']],
  ['rewind.restore', { sessionId: 's', messageId: 'm', dryRun: true }, ['sessionId', 'messageId']],
  ['handoff.generate', { sessionId: 's', cwd: '/p', trigger: 'manual' }, ['sessionId', 'cwd']],
  ['handoff.generate', { transcriptPath: '/t.jsonl', cwd: '/p' }, ['transcriptPath', 'cwd']],
  ['handoff.read', { cwd: '/p' }, ['cwd']],
];

describe('method params', () => {
  it.each(DOCUMENTED_PARAMS)('%s accepts %j', (name, params) => {
    expect(METHOD_BY_NAME.get(name)?.params.parse(params, 'params')).toEqual(params);
  });

  it.each(DOCUMENTED_PARAMS.filter(([, , required]) => required.length > 0))(
    '%s %j requires %j',
    (name, params, required) => {
      const schema = METHOD_BY_NAME.get(name)?.params;
      for (const key of required) {
        const { [key]: _removed, ...rest } = params;
        expect(() => schema?.parse(rest, 'params'), `without ${key}`).toThrow(RpcError);
      }
    },
  );

  it.each(DOCUMENTED_PARAMS)('%s refuses an unknown field beside %j', (name, params) => {
    expect(() => METHOD_BY_NAME.get(name)?.params.parse({ ...params, bogus: 1 }, 'params')).toThrow(RpcError);
  });

  it('refuses scopes and memory types outside DESIGN.md §3', () => {
    const write = Methods.memdirWrite.params;
    const base = { project: 'p', name: 'n', type: 'user', content: 'c' };
    expect(() => write.parse({ ...base, scope: 'public' }, 'params')).toThrow(RpcError);
    expect(() => write.parse({ ...base, type: 'note' }, 'params')).toThrow(RpcError);
    for (const type of ['user', 'feedback', 'project', 'reference'])
      expect(write.parse({ ...base, type }, 'params')).toMatchObject({ type });
  });

  it('refuses unknown event topics and an empty topic list', () => {
    expect(() => Methods.eventsSubscribe.params.parse({ topics: [] }, 'params')).toThrow(RpcError);
    expect(() => Methods.eventsSubscribe.params.parse({ topics: ['session.created'] }, 'params')).toThrow(RpcError);
  });
});
