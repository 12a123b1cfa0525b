/** `export.session`: a session as its transcript, markdown or an HTML report, in pages. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { ExportService } from '../../export/service.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function exportMethods(exports: ExportService): MethodHandler[] {
  return [handle(Methods.exportSession, (params, ctx) => exports.page(params, ctx.signal))];
}
