/** `usage.report` and `usage.status` (issue 31's forecasts). */
import { Methods } from '../../../shared/protocol/methods.js';
import type { UsageService } from '../../usage/service.js';
import type { UsageStatus } from '../../usage/status.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function usageMethods(usage: UsageService, status: UsageStatus): MethodHandler[] {
  return [
    handle(Methods.usageReport, (params, ctx) => usage.report(params, ctx.signal)),
    handle(Methods.usageStatus, (params) => status.status(params.sessionId)),
  ];
}
