/** The token counts every usage figure of the protocol is made of: one response's, a session's, a report row's. */
import { looseObject, num, type Schema } from './schema.js';

/** Tokens by kind, as the Messages API's `usage` names them (camel-cased). */
export interface TokenCounts {
  input: number;
  output: number;
  /** cache_creation_input_tokens: all cache writes. */
  cacheCreation: number;
  cacheRead: number;
  /** The part of cacheCreation written with a 5-minute and a 1-hour TTL (cache_creation.ephemeral_5m / _1h; 0 and 0 when a transcript does not split it). */
  cache5m: number;
  cache1h: number;
}

/** TokenCounts' fields, spread into the schemas of the figures that extend it. */
export const tokenCountsFields = {
  input: num(),
  output: num(),
  cacheCreation: num(),
  cacheRead: num(),
  cache5m: num(),
  cache1h: num(),
};

export const tokenCountsSchema: Schema<TokenCounts> = looseObject(tokenCountsFields);
