/** `history.list`: Claude Code's prompt history, read from `<claude root>/history.jsonl`. */
import { Methods } from '../../../shared/protocol/methods.js';
import { listHistory } from '../../memory/history/list.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function historyMethods(deps: { claudeRoot: string }): MethodHandler[] {
  return [handle(Methods.historyList, (params, ctx) => listHistory(deps.claudeRoot, params, { signal: ctx.signal }))];
}
