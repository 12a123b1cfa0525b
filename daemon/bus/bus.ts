/**
 * The daemon's event buses, one shape for two uses. The wire bus carries the protocol's topics:
 * domains publish there (after their transaction commits) and the RPC layer forwards events to
 * subscribed connections. The domain bus (domain-events.ts) carries the daemon's internal
 * reactions between parts, so that no part holds a callback into a part built after it.
 */
import type { EventPayloads } from '../../shared/protocol/events.js';

export type BusListener<Events> = <T extends keyof Events>(topic: T, payload: Events[T]) => void;

export interface Bus<Events = EventPayloads> {
  publish<T extends keyof Events>(topic: T, payload: Events[T]): void;
  /**
   * Returns the function that removes the listener. `wants` says which topics it takes (all when
   * absent), so publishers can skip computing events nobody takes (`wanted`).
   */
  listen(listener: BusListener<Events>, wants?: (topic: keyof Events) => boolean): () => void;
  /** Whether any listener takes `topic`. */
  wanted(topic: keyof Events): boolean;
}

export function createBus<Events = EventPayloads>(
  onListenerError: (error: unknown, topic: keyof Events) => void,
): Bus<Events> {
  const listeners = new Map<BusListener<Events>, ((topic: keyof Events) => boolean) | undefined>();
  return {
    publish(topic, payload) {
      for (const listener of listeners.keys()) {
        try {
          listener(topic, payload);
        } catch (error) {
          // One broken subscriber must not stop delivery to the others, nor the publisher.
          onListenerError(error, topic);
        }
      }
    },
    listen(listener, wants) {
      listeners.set(listener, wants);
      return () => listeners.delete(listener);
    },
    wanted(topic) {
      for (const wants of listeners.values()) if (wants === undefined || wants(topic)) return true;
      return false;
    },
  };
}
