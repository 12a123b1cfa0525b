/**
 * A report model with its secrets redacted (issue 27): markdown and HTML exports are files people
 * share, so they are redacted unless the caller asks for `redact: false`. The model is redacted, not
 * the rendered document: HTML escapes quotes and brackets, which would hide a secret's shape.
 */
import type { ReportModel } from '../../shared/export/model.js';
import { redactDeep } from '../../shared/text/redact.js';
import { nextTurn } from './report.js';

/** Conversation items redacted per turn of the event loop: a few milliseconds at the report's size limits. */
const ITEMS_PER_TURN = 500;

export async function redactReport(model: ReportModel, signal: AbortSignal): Promise<ReportModel> {
  const source = model.conversation.items;
  const items: typeof source = [];
  for (let at = 0; at < source.length; at += ITEMS_PER_TURN) {
    items.push(...redactDeep(source.slice(at, at + ITEMS_PER_TURN)));
    await nextTurn(signal);
  }
  return {
    ...model,
    session: redactDeep(model.session),
    conversation: { ...model.conversation, items },
    files: redactDeep(model.files),
    errors: redactDeep(model.errors),
  };
}
