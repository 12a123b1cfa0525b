/**
 * The daemon's one event bus. Domains publish here (after their transaction commits); the RPC
 * layer forwards events to subscribed connections as notifications.
 */
import type { EventPayloads, EventTopic } from '../../shared/protocol/events.js';

export type BusListener = <T extends EventTopic>(topic: T, payload: EventPayloads[T]) => void;

export interface Bus {
  publish<T extends EventTopic>(topic: T, payload: EventPayloads[T]): void;
  /** Returns the function that removes the listener. */
  listen(listener: BusListener): () => void;
}

export function createBus(onListenerError: (error: unknown, topic: EventTopic) => void): Bus {
  const listeners = new Set<BusListener>();
  return {
    publish(topic, payload) {
      for (const listener of listeners) {
        try {
          listener(topic, payload);
        } catch (error) {
          // One broken subscriber must not stop delivery to the others, nor the publisher.
          onListenerError(error, topic);
        }
      }
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
