/** The handoff bindings of a test: a state dir of their own (daemon/handoff/bindings.ts). */
import { join } from 'node:path';
import { createHandoffBindings, type HandoffBindings } from '../../../../daemon/handoff/bindings.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

export function bindingsIn(dir: string): HandoffBindings {
  return createHandoffBindings({ stateDir: join(dir, 'memd-state'), clock: Date.now, log: fakeLogger() });
}
