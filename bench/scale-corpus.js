// The heavy user's history of issue 15, generated: sessions in 40 projects with skewed sizes
// (median ~456 KB, ten of 20-80 MB, one of them 50 MB for the append test), about one in ten
// with sub-agent files, and a 1 MB tool result every 1,000 lines (corpus.js replays the recorded
// fixture lines). Deterministic: the same size gives the same corpus.
import { mkdirSync, statfsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureLines, hugeLine, writeSession } from './corpus.js';

const MB = 1024 * 1024;
const PROJECTS = 40;
/** At 2.4 GB: ten big sessions, 20 to 80 MB; smaller corpora scale them down. */
const BIG_SESSIONS_MB = [20, 25, 30, 35, 40, 50, 55, 60, 70, 80];
const DEFAULT_BYTES = 2.4 * 1024 * MB;
const MEDIAN_SESSION_BYTES = 456 * 1024;
/** Spread of the log-normal session sizes: most sessions small, a long tail of large ones. */
const SIGMA = 1.1;
/** One session in this many has sub-agent files (317 of 3,000 in the measured history). */
const SUBAGENT_EVERY = 9;
/** Sessions are this far apart in time (file mtimes): a history of weeks, the newest written last. */
const SESSION_SPACING_MS = 20 * 60_000;
/**
 * Dated corpora: how many sessions apart in time the big sessions are, but the append target, which
 * is the newest (the session being written now). A real history has its big sessions among the rest,
 * not as its newest ten.
 */
const BIG_SESSION_GAP = 80;
/** Corpus, database and WAL: free disk needed per corpus byte. */
const DISK_FACTOR = 1.6;

/** Deterministic pseudo-random numbers. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** `2.4G`, `500M`, `123456` → bytes. */
export function parseSize(text) {
  const match = /^(\d+(?:\.\d+)?)([kmg]?)b?$/i.exec(String(text).trim());
  if (match === null) throw new Error(`--size ${text}: give bytes, or a number with K, M or G`);
  const unit = { '': 1, k: 1024, m: MB, g: 1024 * MB }[match[2].toLowerCase()];
  return Math.round(Number(match[1]) * unit);
}

export function checkFreeDisk(dir, totalBytes) {
  const stats = statfsSync(dir);
  const free = stats.bavail * stats.bsize;
  if (free < totalBytes * DISK_FACTOR)
    throw new Error(
      `the scale bench needs ${Math.ceil((totalBytes * DISK_FACTOR) / MB)} MB free under ${dir}; ${Math.floor(free / MB)} MB are`,
    );
}

const sessionId = (index) => `5ca1e000-0000-4000-8000-${String(index).padStart(12, '0')}`;
const projectName = (index) => `-home-user-src-project-${String(index % PROJECTS).padStart(2, '0')}`;

/**
 * Writes the corpus under `projectsDir`; returns its files, bytes, and the append target (the
 * 50 MB-ish big session, or one of `appendTargetBytes` when given, within the total). With
 * `dated`, the lines are stamped as the history the mtimes tell (each session at its file's time)
 * and each session's responses are its own (corpus.js writeSession): what the usage bench counts.
 */
export function writeScaleCorpus(projectsDir, totalBytes = DEFAULT_BYTES, { appendTargetBytes, dated = false } = {}) {
  checkFreeDisk(projectsDir, totalBytes);
  const now = Date.now();
  const lines = fixtureLines();
  const huge = hugeLine(lines);
  const next = random(15);
  const scale = Math.min(1, totalBytes / DEFAULT_BYTES);
  const files = [];
  const timeRank = datedRanks(BIG_SESSIONS_MB.indexOf(50));
  /** The session index of each file, for its mtime. */
  const sessionOf = [];
  let bytes = 0;
  let index = 0;
  let appendTarget = null;
  const write = (size, withSubagents) => {
    const id = sessionId(index);
    const dir = join(projectsDir, projectName(index));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${id}.jsonl`);
    // As the mtimes below: a session of time rank n starts n + 1 spacings before now.
    const startMs = dated ? now - (timeRank(index) + 1) * SESSION_SPACING_MS : undefined;
    const main = writeSession(path, id, size, index, lines, huge, { startMs });
    files.push(path);
    sessionOf.push(index);
    bytes += main.bytes;
    if (withSubagents) {
      const agents = join(dir, id, 'subagents');
      mkdirSync(agents, { recursive: true });
      for (let agent = 0; agent < 1 + (index % 3); agent++) {
        const agentPath = join(agents, `agent-a${String(index).padStart(6, '0')}${agent}.jsonl`);
        bytes += writeSession(
          agentPath,
          id,
          Math.max(16 * 1024, Math.round(size / 5)),
          index * 8 + agent + 1,
          lines,
          huge,
          { startMs },
        ).bytes;
        files.push(agentPath);
        sessionOf.push(index);
      }
    }
    index++;
    return { id, path, lastUuid: main.lastUuid, bytes: main.bytes };
  };
  for (const mb of BIG_SESSIONS_MB) {
    const written = write(
      mb === 50 && appendTargetBytes !== undefined ? appendTargetBytes : Math.round(mb * MB * scale),
      false,
    );
    if (mb === 50) appendTarget = written;
  }
  while (bytes < totalBytes) {
    // Box-Muller: a normal deviate for the log-normal size.
    const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    const size = Math.min(
      totalBytes - bytes,
      Math.max(4 * 1024, Math.round(MEDIAN_SESSION_BYTES * Math.exp(SIGMA * normal))),
    );
    write(size, index % SUBAGENT_EVERY === 0);
  }
  // Written in seconds, but a history of weeks: a watcher that treats recent files apart must see them so.
  files.forEach((path, at) => {
    const session = sessionOf[at] ?? 0;
    const time = new Date(
      dated ? now - (timeRank(session) + 1) * SESSION_SPACING_MS : now - (index - session) * SESSION_SPACING_MS,
    );
    utimesSync(path, time, time);
  });
  return { files, bytes, sessions: index, appendTarget };
}

/**
 * A dated corpus's time ranks (0 newest) by session index: the big sessions, written first, are the
 * newest (`live`) and every BIG_SESSION_GAP-th after it; the others fill the ranks between in order.
 */
function datedRanks(live) {
  const bigRank = (index) => (index === live ? 0 : (index + (index < live ? 1 : 0)) * BIG_SESSION_GAP);
  const taken = new Set(BIG_SESSIONS_MB.map((_, index) => bigRank(index)));
  const ranks = [];
  let next = 0;
  return (index) => {
    if (index < BIG_SESSIONS_MB.length) return bigRank(index);
    while (ranks.length <= index - BIG_SESSIONS_MB.length) {
      if (!taken.has(next)) ranks.push(next);
      next++;
    }
    return ranks[index - BIG_SESSIONS_MB.length];
  };
}

/** `count` tiny sessions (a prompt and a reply each) in 40 projects: the 50,000-session listing. */
export function writeManySessions(projectsDir, count) {
  // One prompt each: a session with an entry, which a default list shows.
  const lines = fixtureLines()
    .filter((line) => line.includes('"type":"user"') && !line.includes('tool_result'))
    .slice(0, 1);
  for (let i = 0; i < count; i++) {
    const id = `5e550000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const dir = join(projectsDir, projectName(i));
    if (i < PROJECTS) mkdirSync(dir, { recursive: true });
    writeSession(join(dir, `${id}.jsonl`), id, 1, i, lines, lines[0]);
  }
}
