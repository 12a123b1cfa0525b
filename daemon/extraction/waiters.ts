/**
 * The clients waiting for a session's extraction (`memory.extract`): each is told when the
 * session's job ends, and one whose request is cancelled stops waiting at once.
 */

type Wake = (error: Error | null) => void;

export interface ExtractionWaiters {
  /**
   * Resolves when the session's job ends well and rejects with its error; rejects at once when
   * `signal` aborts, after calling `onLastLeft` if no one else waits for the session then.
   */
  wait(sessionId: string, signal: AbortSignal | undefined, onLastLeft: () => void): Promise<void>;
  /** Tells everyone waiting for the session, and forgets them. */
  settle(sessionId: string, error: Error | null): void;
  has(sessionId: string): boolean;
  sessions(): string[];
}

export function createExtractionWaiters(): ExtractionWaiters {
  const waiting = new Map<string, Wake[]>();

  function remove(sessionId: string, wake: Wake): void {
    const left = (waiting.get(sessionId) ?? []).filter((other) => other !== wake);
    if (left.length === 0) waiting.delete(sessionId);
    else waiting.set(sessionId, left);
  }

  return {
    wait(sessionId, signal, onLastLeft) {
      return new Promise<void>((resolve, reject) => {
        const leave = () => {
          remove(sessionId, wake);
          reject(new Error('the extraction was cancelled by its caller'));
          if (!waiting.has(sessionId)) onLastLeft();
        };
        const wake: Wake = (error) => {
          signal?.removeEventListener('abort', leave);
          if (error === null) resolve();
          else reject(error);
        };
        waiting.set(sessionId, [...(waiting.get(sessionId) ?? []), wake]);
        if (signal?.aborted) leave();
        else signal?.addEventListener('abort', leave, { once: true });
      });
    },
    settle(sessionId, error) {
      const woken = waiting.get(sessionId) ?? [];
      waiting.delete(sessionId);
      for (const wake of woken) wake(error);
    },
    has: (sessionId) => waiting.has(sessionId),
    sessions: () => [...waiting.keys()],
  };
}
