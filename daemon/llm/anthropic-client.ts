/**
 * The Messages API client the anthropic summarizers share: @anthropic-ai/sdk, imported on first
 * use (a daemon on the offline summarizers never loads it), with the caller's timeout and retries.
 */

export interface MessagesClientOptions {
  apiKey: string;
  /** ANTHROPIC_BASE_URL: the tests' scripted server. */
  baseURL?: string;
  timeoutMs: number;
  maxRetries: number;
}

/** What the summarizers use of the SDK's client; replies are `unknown` until checked. */
export interface MessagesClient {
  messages: {
    create(
      body: unknown,
      request: { signal?: AbortSignal },
    ): Promise<{ content: unknown; usage?: Record<string, unknown> }>;
  };
}

export function lazyMessagesClient(options: MessagesClientOptions): () => Promise<MessagesClient> {
  let client: Promise<MessagesClient> | null = null;
  return () =>
    (client ??= import('@anthropic-ai/sdk').then(
      ({ default: Anthropic }) =>
        new Anthropic({
          apiKey: options.apiKey,
          ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
          timeout: options.timeoutMs,
          maxRetries: options.maxRetries,
        }) as unknown as MessagesClient,
    ));
}

/** The text blocks of a reply's content, joined. */
export function replyText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((block) =>
      typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text'
        ? String((block as { text?: unknown }).text ?? '')
        : '',
    )
    .join('');
}
