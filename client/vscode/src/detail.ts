/**
 * What `sessions.get` adds to the status bar's session (issue 31): Claude Code's reports of the
 * plan window and the prompt cache (`reported`) and the deletions memd saw without holding a copy
 * (`deletedNotHeld`). A `sessions.list` row and a `session.updated` carry neither, so the
 * controller asks for them whenever its current session changes, and on its refresh tick.
 */
import type { SessionSummary } from '../../../shared/protocol/sessions.js';
import { describeError } from './link.js';
import { parseSession } from './validate.js';

export interface SessionDetailOptions {
  client: () => { sessionsGet(params: { sessionId: string }): Promise<unknown> };
  /** The session to ask about now; null when there is none or memd is not connected. */
  sessionId: () => string | null;
  /** Called when an answer changed what the status bar shows. */
  changed: () => void;
  log: (line: string) => void;
}

type Detail = Pick<SessionSummary, 'sessionId' | 'reported' | 'deletedNotHeld'>;

export class SessionDetail {
  private detail: Detail | null = null;
  private asking = false;
  private again = false;

  constructor(private readonly options: SessionDetailOptions) {}

  /** The list row with the reports and deletions last read for it (none until read, or of another session). */
  merged(session: SessionSummary): SessionSummary {
    const { detail } = this;
    if (detail === null || detail.sessionId !== session.sessionId) return session;
    return {
      ...session,
      ...(detail.reported === undefined ? {} : { reported: detail.reported }),
      ...(detail.deletedNotHeld === undefined ? {} : { deletedNotHeld: detail.deletedNotHeld }),
    };
  }

  /** Asks memd; one request at a time, and a call meanwhile asks once more after it. */
  async refresh(): Promise<void> {
    if (this.asking) {
      this.again = true;
      return;
    }
    this.asking = true;
    try {
      do {
        this.again = false;
        const sessionId = this.options.sessionId();
        if (sessionId === null) return;
        const { reported, deletedNotHeld } = parseSession(await this.options.client().sessionsGet({ sessionId }));
        // The current session changed meanwhile: its change asked again.
        if (this.options.sessionId() !== sessionId) continue;
        this.detail = {
          sessionId,
          ...(reported === undefined ? {} : { reported }),
          ...(deletedNotHeld === undefined ? {} : { deletedNotHeld }),
        };
        this.options.changed();
      } while (this.again);
    } catch (error) {
      this.options.log(`could not read the current session's reports: ${describeError(error)}`);
    } finally {
      this.asking = false;
    }
  }
}
