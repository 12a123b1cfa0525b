/**
 * The client the integration and security tests talk to the daemon with: memd/client's, with the
 * answer of every method that has a result schema (shared/protocol/answers.ts) checked against it,
 * so that each test also checks that the daemon answers what the protocol's types promise.
 */
import { type Client, type ClientOptions, createClient as createMemdClient } from '../../client/index.js';
import { ANSWER_SCHEMAS } from '../../shared/protocol/answers.js';
import { parseAnswer } from '../../shared/protocol/schema.js';

/** Throws InvalidAnswer, naming the field, when `value` is not what `method`'s result schema reads; else returns it as it came. */
export function checkAnswer(method: string, value: unknown): unknown {
  const schema = ANSWER_SCHEMAS.get(method);
  if (schema !== undefined) parseAnswer(schema, value, method);
  return value;
}

export function createClient(options?: ClientOptions): Client {
  const client = createMemdClient(options);
  // The typed methods (client.sessionsGet()) go through call, memctl-style raw calls through callRaw.
  const call = client.call.bind(client);
  const callRaw = client.callRaw.bind(client);
  client.call = async (descriptor, params) => checkAnswer(descriptor.name, await call(descriptor, params)) as never;
  client.callRaw = async (method, params) => checkAnswer(method, await callRaw(method, params));
  return client;
}

/**
 * Scores every session's past compactions (handoff.status scores them first; sessions.get only
 * starts it, and a later answer carries the score): tests that compare two reads of a status line
 * read both after.
 */
export async function scoreCompactions(client: Client): Promise<void> {
  const { sessions } = await client.sessionsList({ all: true });
  for (const session of sessions) await client.handoffStatus({ sessionId: session.sessionId });
}
