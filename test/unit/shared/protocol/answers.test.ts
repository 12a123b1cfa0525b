/** The combinators of a daemon's answers, and the result schemas built from them (shared/protocol/answers.ts). */
import { describe, expect, it } from 'vitest';
import { ANSWER_SCHEMAS } from '../../../../shared/protocol/answers.js';
import { RpcError } from '../../../../shared/protocol/errors.js';
import { Methods } from '../../../../shared/protocol/methods.js';
import {
  InvalidAnswer,
  int,
  literal,
  looseObject,
  nullable,
  num,
  object,
  parseAnswer,
  parseEvent,
  recordOf,
  str,
  withDefault,
} from '../../../../shared/protocol/schema.js';
import { sessionSummarySchema } from '../../../../shared/protocol/sessions.js';
import { checkAnswer } from '../../../helpers/client.js';
import { sampleSession } from '../../client/vscode/sample.js';

/** The error `run` throws, or a failure when it throws none. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('a failure in an answer', () => {
  const schema = looseObject({ tokens: int(), nested: looseObject({ model: str() }) });

  it('is InvalidAnswer naming the method and the field, never InvalidParams', () => {
    const error = thrown(() => parseAnswer(schema, { tokens: 1, nested: { model: 4 } }, 'sessions.get'));
    expect(error).toBeInstanceOf(InvalidAnswer);
    expect(error).not.toBeInstanceOf(RpcError);
    expect((error as InvalidAnswer).message).toBe(
      "memd's answer to sessions.get is not what this client reads: result.nested.model must be a string, got number",
    );
    expect((error as InvalidAnswer).field).toBe('result.nested.model');
  });

  it('names the topic of an event', () => {
    expect(() => parseEvent(schema, { tokens: 'x' }, 'session.updated')).toThrow(
      "memd's session.updated event is not what this client reads: event.tokens must be an integer, got string",
    );
  });

  it('reaches through every combinator: bounds, arrays, records, unions', () => {
    expect(() => parseAnswer(looseObject({ n: int({ min: 0 }) }), { n: -1 }, 'm')).toThrow(InvalidAnswer);
    expect(() => parseAnswer(recordOf(num()), { queued: 1, running: 'two' }, 'm')).toThrow(
      'result.running must be a number, got string',
    );
  });

  it('leaves params failing as InvalidParams', () => {
    expect(thrown(() => object({ n: int() }).parse({ n: 'x' }, 'params'))).toBeInstanceOf(RpcError);
  });
});

describe('looseObject', () => {
  const schema = looseObject({ name: str(), count: num() });

  it('keeps fields it does not know (a newer daemon), as they came', () => {
    expect(schema.parse({ name: 'a', count: 1.5, later: [1] }, 'result')).toEqual({
      name: 'a',
      count: 1.5,
      later: [1],
    });
  });

  it('is strict on the fields it reads', () => {
    expect(() => schema.parse({ name: 'a' }, 'result')).toThrow('result.count must be a number, got undefined');
    expect(() => schema.parse({ name: 'a', count: Number.NaN }, 'result')).toThrow(
      'result.count must be a number, got number',
    );
  });
});

describe('literal, nullable, withDefault', () => {
  it('literal takes its value only', () => {
    expect(literal('memd').parse('memd', 'result.name')).toBe('memd');
    expect(() => literal(true).parse(false, 'result.ok')).toThrow('result.ok must be true, got boolean');
  });

  it('withDefault fills an absent field, not a wrong one', () => {
    const schema = looseObject({ mode: withDefault(nullable(str()), 'threshold') });
    expect(schema.parse({}, 'result')).toEqual({ mode: 'threshold' });
    expect(schema.parse({ mode: null }, 'result')).toEqual({ mode: null });
    expect(() => schema.parse({ mode: 3 }, 'result')).toThrow('result.mode must be a string');
  });
});

describe('the result schemas', () => {
  it('read a session from a memd before the archive and bad timestamps as one with neither', () => {
    const { archived: _, badTimestamps: __, ...older } = sampleSession();
    expect(parseAnswer(sessionSummarySchema, older, 'sessions.get')).toEqual({
      ...older,
      archived: false,
      badTimestamps: 0,
    });
  });

  it('pair with methods the protocol has', () => {
    const names = new Set(Object.values(Methods).map((method) => method.name));
    for (const method of ANSWER_SCHEMAS.keys()) expect(names).toContain(method);
    expect([...ANSWER_SCHEMAS.keys()]).toEqual(
      expect.arrayContaining([
        'daemon.status',
        'sessions.get',
        'sessions.list',
        'usage.report',
        'search.query',
        'compact.thresholds',
      ]),
    );
  });

  it('reject a session whose usage lacks a figure, naming it', () => {
    const session = sampleSession();
    const broken = { ...session, usage: { ...session.usage, total: { ...session.usage.total, cacheRead: '269555' } } };
    expect(() => parseAnswer(sessionSummarySchema, broken, 'sessions.get')).toThrow(
      "memd's answer to sessions.get is not what this client reads: result.usage.total.cacheRead must be a number, got string",
    );
  });

  it("make the integration tests' client refuse a wrong answer (test/helpers/client.ts)", () => {
    const { gone: _, ...broken } = sampleSession();
    expect(checkAnswer('sessions.get', sampleSession())).toEqual(sampleSession());
    expect(() => checkAnswer('sessions.get', broken)).toThrow('result.gone must be a boolean, got undefined');
    expect(() => checkAnswer('sessions.list', { sessions: [broken], total: 1, hidden: 0, nextCursor: null })).toThrow(
      'result.sessions[0].gone must be a boolean',
    );
    // A method without a schema passes its answer as it came.
    expect(checkAnswer('memdir.list', { anything: 1 })).toEqual({ anything: 1 });
  });
});
