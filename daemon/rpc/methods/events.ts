/** `events.subscribe` / `events.unsubscribe`: per-connection topic sets fed by the bus. */
import { Methods } from '../../../shared/protocol/methods.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function eventMethods(): MethodHandler[] {
  return [
    handle(Methods.eventsSubscribe, (params, ctx) => ({ topics: ctx.connection.subscribe(params.topics) })),
    handle(Methods.eventsUnsubscribe, (params, ctx) => ({ topics: ctx.connection.unsubscribe(params.topics) })),
  ];
}
