/** `usage.report`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { UsageService } from '../../usage/service.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function usageMethods(usage: UsageService): MethodHandler[] {
  return [handle(Methods.usageReport, (params, ctx) => usage.report(params, ctx.signal))];
}
