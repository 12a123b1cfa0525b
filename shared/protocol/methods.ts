/**
 * Every method of DESIGN.md §3 as a typed descriptor: its name, its params schema (validated by the
 * daemon at the boundary) and its result type (carried for the typed client).
 */
import { arrayOf, bool, int, object, oneOf, optional, str, union, type Schema } from './schema.js';
import { EVENT_TOPICS } from './events.js';
import type {
  CompactionResult,
  DaemonStatus,
  MemoryLockResult,
  MemorySummaryResult,
  OkResult,
  SessionList,
  SessionSummary,
  SubscriptionResult,
  ThresholdResult,
  ToolResultContent,
  VersionInfo,
} from './results.js';

export interface MethodDescriptor<P, R> {
  readonly name: string;
  readonly params: Schema<P>;
  /** Phantom field: never set, only carries the result type to the client. */
  readonly result?: R;
}

function method<R>() {
  return <P>(name: string, params: Schema<P>): MethodDescriptor<P, R> => ({ name, params });
}

/** Results of methods whose feature lands in a later issue; the daemon answers MethodNotFound until then. */
export type PendingResult = Record<string, unknown>;

const sessionId = str({ minLength: 1, maxLength: 200 });
const nothing = object({});
const scope = optional(oneOf('private', 'team'));
const memoryType = oneOf('user', 'feedback', 'project', 'reference');
const topics = arrayOf(oneOf(...EVENT_TOPICS), { minItems: 1, maxItems: EVENT_TOPICS.length });

export const Methods = {
  daemonVersion: method<VersionInfo>()('daemon.version', nothing),
  daemonStatus: method<DaemonStatus>()('daemon.status', nothing),
  daemonShutdown: method<OkResult>()('daemon.shutdown', object({ reason: optional(str({ maxLength: 500 })) })),

  sessionsList: method<SessionList>()(
    'sessions.list',
    object({ project: optional(str()), activeWithinMs: optional(int({ min: 0 })), limit: optional(int({ min: 1, max: 10_000 })) }),
  ),
  sessionsGet: method<SessionSummary>()('sessions.get', object({ sessionId })),

  eventsSubscribe: method<SubscriptionResult>()('events.subscribe', object({ topics })),
  eventsUnsubscribe: method<SubscriptionResult>()('events.unsubscribe', object({ topics })),

  compactThresholds: method<ThresholdResult>()(
    'compact.thresholds',
    union(object({ sessionId }), object({ model: str({ minLength: 1 }), tokens: int({ min: 0 }) })),
  ),
  compactMicro: method<CompactionResult>()('compact.micro', object({ sessionId })),
  compactCacheEdits: method<CompactionResult>()('compact.cacheEdits', object({ sessionId, keep: optional(int({ min: 0 })) })),
  compactAuto: method<CompactionResult>()(
    'compact.auto',
    object({ sessionId, force: optional(bool()), instructions: optional(str({ maxLength: 100_000 })) }),
  ),
  compactReactive: method<CompactionResult>()('compact.reactive', object({ sessionId, limitTokens: optional(int({ min: 1 })) })),
  toolResultsGet: method<ToolResultContent>()('toolResults.get', object({ sessionId, toolUseId: str({ minLength: 1 }) })),

  memorySummary: method<MemorySummaryResult>()('memory.summary', object({ sessionId })),
  memoryExtract: method<MemorySummaryResult>()('memory.extract', object({ sessionId })),
  memoryLock: method<MemoryLockResult>()(
    'memory.lock',
    object({ sessionId, owner: str({ minLength: 1 }), ttlMs: optional(int({ min: 1 })) }),
  ),
  memoryUnlock: method<{ released: boolean }>()('memory.unlock', object({ sessionId, owner: str({ minLength: 1 }) })),

  memdirList: method<PendingResult>()('memdir.list', object({ project: str({ minLength: 1 }), scope })),
  memdirRead: method<PendingResult>()('memdir.read', object({ project: str({ minLength: 1 }), scope, name: str({ minLength: 1 }) })),
  memdirWrite: method<PendingResult>()(
    'memdir.write',
    object({
      project: str({ minLength: 1 }),
      scope,
      name: str({ minLength: 1 }),
      type: memoryType,
      description: optional(str()),
      content: str(),
    }),
  ),
  memdirDelete: method<PendingResult>()('memdir.delete', object({ project: str({ minLength: 1 }), scope, name: str({ minLength: 1 }) })),

  historyList: method<PendingResult>()('history.list', object({ project: optional(str()), limit: optional(int({ min: 1 })) })),
  rewindList: method<PendingResult>()('rewind.list', object({ sessionId })),
  rewindRestore: method<PendingResult>()(
    'rewind.restore',
    object({ sessionId, messageId: str({ minLength: 1 }), dryRun: optional(bool()) }),
  ),

  handoffGenerate: method<PendingResult>()(
    'handoff.generate',
    union(
      object({ sessionId, cwd: str({ minLength: 1 }), trigger: optional(str()) }),
      object({ transcriptPath: str({ minLength: 1 }), cwd: str({ minLength: 1 }), trigger: optional(str()) }),
    ),
  ),
  handoffRead: method<PendingResult>()('handoff.read', object({ cwd: str({ minLength: 1 }) })),
} as const;

export type MethodName = (typeof Methods)[keyof typeof Methods]['name'];
export type ParamsOf<M> = M extends MethodDescriptor<infer P, unknown> ? P : never;
export type ResultOf<M> = M extends MethodDescriptor<unknown, infer R> ? R : never;

export const METHOD_BY_NAME: ReadonlyMap<string, MethodDescriptor<unknown, unknown>> = new Map(
  Object.values(Methods).map((descriptor) => [descriptor.name, descriptor as MethodDescriptor<unknown, unknown>]),
);
