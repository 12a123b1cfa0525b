/**
 * Which model backend the daemon uses, from its config and the environment (DESIGN.md §5): the
 * Messages API when `summarizer` is anthropic and a key is set, else the offline summarizers
 * (null). Each domain builds its own summarizer from this access; llm/ knows none of them.
 */
import type { ResolvedConfig } from '../../shared/config.js';
import type { Logger } from '../log/logger.js';

/** What every anthropic summarizer needs to reach the API. */
export interface ModelAccess {
  apiKey: string;
  /** ANTHROPIC_BASE_URL: the tests' scripted server. */
  baseURL?: string;
}

/** The API access when configured with a key; null means offline. Says which, once, in the log. */
export function modelAccess(config: ResolvedConfig['config'], env: NodeJS.ProcessEnv, log: Logger): ModelAccess | null {
  if (config.summarizer !== 'anthropic') return null;
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey) {
    log.warn('MEMD_SUMMARIZER is anthropic but ANTHROPIC_API_KEY is not set; summaries are offline');
    return null;
  }
  const baseURL = env.ANTHROPIC_BASE_URL;
  log.info('summaries and session memory are made by the API', {
    model: config.model,
    handoffModel: config.handoffModel,
  });
  return { apiKey, ...(baseURL ? { baseURL } : {}) };
}
