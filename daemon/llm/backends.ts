/**
 * Which model backends the daemon uses, from its config and the environment: the anthropic ones
 * when `summarizer` is anthropic and a key is set; null means the offline summarizers (DESIGN.md §5).
 */
import type { ResolvedConfig } from '../../shared/config.js';
import type { AnthropicHandoffOptions } from '../handoff/anthropic.js';
import type { Logger } from '../log/logger.js';
import { createAnthropicCompactionSummarizer } from '../compaction/anthropic-summary.js';
import { createAnthropicMemorySummarizer, type AnthropicMemorySummarizer } from '../extraction/anthropic-extractor.js';
import type { CompactionSummarizer } from '../compaction/summary.js';
import { hasAllSections } from '../extraction/template.js';

/** The anthropic summarizer when configured and a key is there; null means offline (DESIGN.md §5). */
export function modelCompactionSummarizer(config: ResolvedConfig['config'], log: Logger): CompactionSummarizer | null {
  if (config.summarizer !== 'anthropic') return null;
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (!apiKey) {
    log.warn('MEMD_SUMMARIZER is anthropic but ANTHROPIC_API_KEY is not set; summaries are offline');
    return null;
  }
  const baseURL = process.env.ANTHROPIC_BASE_URL;
  return createAnthropicCompactionSummarizer({ apiKey, model: config.model, ...(baseURL ? { baseURL } : {}) });
}

/** The anthropic session-memory summarizer when configured with a key; null means offline. */
export function memorySummarizer(config: ResolvedConfig['config'], log: Logger): AnthropicMemorySummarizer | null {
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (config.summarizer !== 'anthropic' || !apiKey) return null;
  const baseURL = process.env.ANTHROPIC_BASE_URL;
  log.info('session memory is summarized by the API', { model: config.model });
  return createAnthropicMemorySummarizer({ apiKey, model: config.model, validate: hasAllSections, ...(baseURL ? { baseURL } : {}) });
}

/** Where handoffs' narrative comes from: the API (claude-sonnet-4-6) when configured with a key; null means offline. */
export function handoffNarrator(config: ResolvedConfig['config']): AnthropicHandoffOptions | null {
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (config.summarizer !== 'anthropic' || !apiKey) return null;
  const baseURL = process.env.ANTHROPIC_BASE_URL;
  return { apiKey, model: config.handoffModel, ...(baseURL ? { baseURL } : {}) };
}
