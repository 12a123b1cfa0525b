/**
 * Which file the ingestor reads next: changed files (`live`) before the backfill, and the
 * backfill in the order it was given (newest first). A file waits in one of the two at most;
 * a backfill file that changes moves to `live`. A pass that gives way goes back to the head of
 * the queue it came from.
 */
export class PassQueue {
  private readonly live = new Set<string>();
  private backlog: string[] = [];
  private backlogHead = 0;
  private readonly backlogQueued = new Set<string>();

  get size(): number {
    return this.live.size + this.backlogQueued.size;
  }

  /** Changed files are waiting: a backfill pass, or a long live one, should give way. */
  get hasLive(): boolean {
    return this.live.size > 0;
  }

  has(path: string): boolean {
    return this.live.has(path) || this.backlogQueued.has(path);
  }

  isLive(path: string): boolean {
    return this.live.has(path);
  }

  /** Queues a changed file, taking it out of the backfill if it waited there. */
  addLive(path: string): void {
    this.backlogQueued.delete(path);
    this.live.add(path);
  }

  /** Queues backfill files; `order` sorts every backfill file queued, the earlier ones included. */
  addBackfill(paths: Iterable<string>, order: (a: string, b: string) => number): void {
    for (const path of paths) this.backlogQueued.add(path);
    this.backlog = [...this.backlogQueued].sort(order);
    this.backlogHead = 0;
  }

  next(): { path: string; fromBacklog: boolean } | null {
    for (const path of this.live) {
      this.live.delete(path);
      return { path, fromBacklog: false };
    }
    while (this.backlogHead < this.backlog.length) {
      const path = this.backlog[this.backlogHead++] as string;
      if (this.backlogQueued.delete(path)) return { path, fromBacklog: true };
    }
    return null;
  }

  /**
   * Takes up to `max` more backfill files from the head of the backlog while `accept` says so (the
   * small files read together in one group pass); the first file refused stays at the head.
   */
  takeBackfill(max: number, accept: (path: string) => boolean): string[] {
    const taken: string[] = [];
    while (taken.length < max && this.backlogHead < this.backlog.length) {
      const path = this.backlog[this.backlogHead] as string;
      if (!this.backlogQueued.has(path)) {
        this.backlogHead++;
        continue;
      }
      if (!accept(path)) break;
      this.backlogHead++;
      this.backlogQueued.delete(path);
      taken.push(path);
    }
    return taken;
  }

  /** Puts a pass that gave way (or met a store fault) back at the head of its queue. */
  requeue(path: string, fromBacklog: boolean): void {
    if (this.live.has(path)) return;
    if (!fromBacklog) {
      this.live.add(path);
      return;
    }
    this.backlogQueued.add(path);
    if (this.backlogHead > 0) this.backlog[--this.backlogHead] = path;
    else this.backlog.unshift(path);
  }

  clear(): void {
    this.live.clear();
    this.backlogQueued.clear();
  }
}
