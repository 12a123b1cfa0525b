/**
 * The forecasts of a session in the sessions view (issue 31): `usage.status` asked when the user
 * expands a session, kept until the session's activity changes, and shown as the session's
 * children, each with its provenance and the daemon's basis in its tooltip. A memd that predates
 * `usage.status` answers MethodNotFound: the sessions are then shown without forecasts, quietly.
 */
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import type { UsageStatusResult } from '../../../shared/protocol/forecast.js';
import { type ForecastKind, forecastLines } from '../../../shared/statusline/forecast.js';
import type { TreeNode } from './tree.js';
import { parseUsageStatus } from './validate.js';

/** Codicons by forecast: the context folding, the plan's clock, the cache. */
const ICON_BY_KIND: Record<ForecastKind, string> = {
  autoCompact: 'fold',
  limit: 'watch',
  cacheRebuild: 'database',
};

interface Entry {
  /** The session's `lastActivity` the answer is for: a newer activity asks again. */
  key: string;
  result: UsageStatusResult | null;
  /** Why the last ask failed (not MethodNotFound), shown in place of the figures. */
  problem: string | null;
  pending: boolean;
}

export interface ForecastSource {
  usageStatus(params: { sessionId: string }): Promise<unknown>;
}

export class ForecastStore {
  private readonly entries = new Map<string, Entry>();
  /** False once memd answered MethodNotFound: its sessions have no forecasts to expand to. */
  private supported = true;

  constructor(
    private readonly source: () => ForecastSource,
    /** Called when an answer arrives, so that the view asks for the children again. */
    private readonly changed: () => void,
    private readonly log: (line: string) => void,
  ) {}

  /** Whether sessions may be expanded to their forecasts. */
  get available(): boolean {
    return this.supported;
  }

  /** Forgets every answer (a new connection: maybe another memd). */
  reset(): void {
    this.entries.clear();
    this.supported = true;
  }

  /** The children of a session node: its forecasts, asking memd when they are missing or older than its activity. */
  nodes(sessionId: string, activity: string | null, now: number): TreeNode[] {
    if (!this.supported) return [];
    const key = activity ?? '';
    let entry = this.entries.get(sessionId);
    if (entry === undefined || (entry.key !== key && !entry.pending)) {
      entry = { key, result: entry?.result ?? null, problem: null, pending: true };
      this.entries.set(sessionId, entry);
      void this.ask(sessionId, entry);
    }
    if (entry.result !== null)
      return forecastLines(entry.result, now).map((line) => ({
        kind: 'forecast',
        id: `memd.forecast.${sessionId}.${line.kind}`,
        label: line.text,
        description: line.provenance,
        tooltip: `${line.text}\n${line.provenance}: ${line.basis}`,
        icon: ICON_BY_KIND[line.kind],
      }));
    const id = `memd.forecast.${sessionId}.message`;
    if (entry.problem !== null)
      return [{ kind: 'message', id, label: `no forecasts: ${entry.problem}`, icon: 'warning' }];
    return [{ kind: 'message', id, label: 'asking memd for the forecasts…', icon: 'loading~spin' }];
  }

  private async ask(sessionId: string, entry: Entry): Promise<void> {
    try {
      entry.result = parseUsageStatus(await this.source().usageStatus({ sessionId }));
      entry.problem = null;
    } catch (error) {
      if (error instanceof RpcError && error.code === ErrorCode.MethodNotFound) this.supported = false;
      else {
        entry.problem = error instanceof Error ? error.message : String(error);
        this.log(`usage.status ${sessionId}: ${entry.problem}`);
      }
    } finally {
      entry.pending = false;
    }
    if (this.entries.get(sessionId) === entry) this.changed();
  }
}
