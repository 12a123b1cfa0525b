/**
 * The recall benchmark's corpus (issue 33, docs/recall.md "The benchmark"): sessions in Claude Code
 * 2.1.197's transcript shape, in 48 projects, each holding four facts (recall-facts.mjs) among
 * rounds of common work, so that many sessions share words like test, retry, timeout and config.
 * Our own text, generated from a seed: the same arguments give the same bytes. Plain JS so that
 * bench/recall.js and the tests share it.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIX_FAMILIES, makeFact, pick } from './recall-facts.mjs';
import { AREAS, COMMON_TASKS, KINDS } from './recall-vocabulary.mjs';
import { seededRandom } from './seeded-random.mjs';

export const RECALL_SESSIONS = 1_200;
export const RECALL_SEED = 33;
/** The corpus's sessions start here, one every SESSION_SPACING_MS: five months of history. */
const FIRST_SESSION_MS = Date.parse('2026-06-01T08:00:00.000Z');
const SESSION_SPACING_MS = 3 * 3_600_000;
const VERSION = '2.1.197';
const MODEL = 'claude-sonnet-4-6';
/** The fact kinds; a session holds four of them (one left out in turn) and always a fix. */
const FACT_KINDS = ['edit', 'library', 'secret', 'command'];
/** How many times a fact may be drawn again before its session goes without it. */
const REDRAWS = 200;

export const PROJECTS = AREAS.flatMap((area) =>
  KINDS.map((kind) => ({
    ...area,
    ...kind,
    slug: `${area.area}-${kind.kind}`,
    cwd: `/home/user/src/${area.area}-${kind.kind}`,
  })),
);

/** Claude Code's project folder for a cwd: every character but letters and digits becomes `-`. */
export const projectFolder = (cwd) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

function sessionIdOf(seed, index) {
  const hex = index.toString(16).padStart(8, '0');
  return `${hex}-b33c-4${String(seed % 1000).padStart(3, '0')}-8000-${hex.padStart(12, '0')}`;
}

/**
 * The corpus's sessions with their facts (not yet their lines: `sessionLines` builds them). A
 * project is drawn with a skew (a few projects hold most sessions, as a real history does).
 */
export function recallSessions({ sessions = RECALL_SESSIONS, seed = RECALL_SEED } = {}) {
  const random = seededRandom(seed);
  const taken = new Set();
  const out = [];
  for (let index = 0; index < sessions; index++) {
    const project = PROJECTS[Math.floor(random() ** 1.3 * PROJECTS.length)];
    const kinds = ['fix', ...FACT_KINDS.filter((_, at) => at !== index % FACT_KINDS.length)];
    const facts = [];
    for (const kind of kinds) {
      for (let draw = 0; draw < REDRAWS; draw++) {
        const fact = makeFact(kind, project, random, pick(random, FIX_FAMILIES));
        if (taken.has(fact.key)) continue;
        taken.add(fact.key);
        facts.push(fact);
        break;
      }
    }
    out.push({
      sessionId: sessionIdOf(seed, index),
      index,
      project: project.slug,
      cwd: project.cwd,
      startMs: FIRST_SESSION_MS + index * SESSION_SPACING_MS,
      commonTask: pick(random, COMMON_TASKS),
      facts,
    });
  }
  return out;
}

/** Builds one transcript's lines in 2.1.197's shape, chaining parentUuid; one second apart. */
class Lines {
  constructor(session) {
    this.session = session;
    this.lines = [];
    this.last = null;
    this.counter = 0;
    this.clock = session.startMs;
    this.promptId = null;
    this.tag = session.sessionId.replace(/-/g, '').slice(0, 12);
  }

  next() {
    this.counter += 1;
    return String(this.counter).padStart(6, '0');
  }

  uuid() {
    return `${this.session.sessionId.slice(0, 8)}-${this.next().slice(2)}-4000-9000-${this.session.sessionId.slice(-12)}`;
  }

  push(type, extra) {
    this.clock += 1_000 + (this.counter % 7) * 400;
    const uuid = this.uuid();
    this.lines.push({
      parentUuid: this.last,
      isSidechain: false,
      ...(type === 'user' ? { promptId: this.promptId } : {}),
      type,
      ...extra,
      uuid,
      timestamp: new Date(this.clock).toISOString(),
      userType: 'external',
      entrypoint: 'cli',
      cwd: this.session.cwd,
      sessionId: this.session.sessionId,
      version: VERSION,
      gitBranch: 'main',
    });
    this.last = uuid;
    return uuid;
  }

  prompt(text) {
    this.promptId = `${this.tag.slice(0, 8)}-${this.next().slice(2)}-4000-a000-${this.tag}`;
    this.push('user', { message: { role: 'user', content: text }, permissionMode: 'default' });
  }

  /** One API response, one entry per block as Claude Code writes it; returns the tool_use ids. */
  respond(blocks) {
    const id = `msg_01${this.tag}${this.next()}`;
    const requestId = `req_01${this.tag}${this.next()}`;
    const input = 6;
    const cacheRead = 14_000 + this.counter * 180;
    blocks.forEach((block, at) => {
      const last = at === blocks.length - 1;
      this.push('assistant', {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: MODEL,
          content: [block],
          stop_reason: last ? (block.type === 'tool_use' ? 'tool_use' : 'end_turn') : null,
          stop_sequence: null,
          usage: {
            input_tokens: input,
            cache_creation_input_tokens: 420,
            cache_read_input_tokens: cacheRead,
            output_tokens: last ? 120 + (this.counter % 90) : 8,
            server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
            service_tier: 'standard',
            cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 420 },
          },
        },
        requestId,
      });
    });
  }

  /** A text, then one tool call, then its result (an error when `isError`). */
  tool(text, name, input, result, isError = false) {
    const id = `toolu_01${this.tag}${this.next()}`;
    this.respond([...(text === null ? [] : [{ type: 'text', text }]), { type: 'tool_use', id, name, input }]);
    const assistant = this.last;
    this.push('user', {
      message: {
        role: 'user',
        content: [{ tool_use_id: id, type: 'tool_result', content: result, ...(isError ? { is_error: true } : {}) }],
      },
      toolUseResult:
        name === 'Bash'
          ? { stdout: isError ? '' : result, stderr: isError ? result : '', interrupted: false, isImage: false }
          : result,
      sourceToolAssistantUUID: assistant,
    });
  }

  say(text) {
    this.respond([{ type: 'text', text }]);
  }
}

const path = (session, file) => `${session.cwd}/${file}`;

function testCommand(session) {
  return PROJECTS.find((project) => project.slug === session.project).test;
}

/** The rounds that say one fact: the request, the work, and the outcome in the assistant's words. */
function writeFact(out, session, fact, first) {
  if (!first) out.prompt(fact.request);
  if (fact.kind === 'fix') {
    out.tool(
      'Let me reproduce it first.',
      'Bash',
      { command: testCommand(session), description: 'Run the tests' },
      `Error: Exit code 1\n${fact.error}\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n1 failed, 41 passed`,
      true,
    );
    out.say(`The failure is \`${fact.error.split(' (')[0]}\`. Looking at the code around it.`);
    if (fact.edit !== undefined) {
      out.tool(null, 'Read', { file_path: path(session, fact.edit.file) }, `1\t// ${fact.edit.file}\n2\texport {};\n`);
      out.tool(
        null,
        'Edit',
        { file_path: path(session, fact.edit.file), old_string: 'export {};', new_string: fact.edit.code },
        `The file ${path(session, fact.edit.file)} has been updated successfully.`,
      );
    }
    if (fact.command !== undefined) out.tool(null, 'Bash', { command: fact.command }, 'done');
    out.tool(null, 'Bash', { command: testCommand(session) }, '42 passed in 3.8s');
  } else if (fact.kind === 'edit') {
    out.tool(
      null,
      'Read',
      { file_path: path(session, fact.edit.file) },
      `1\t${fact.fields.slot}:\n2\t  ${fact.fields.setting}: ${fact.fields.from}\n`,
    );
    out.tool(
      null,
      'Edit',
      {
        file_path: path(session, fact.edit.file),
        old_string: `${fact.fields.setting}: ${fact.fields.from}`,
        new_string: fact.edit.code,
      },
      `The file ${path(session, fact.edit.file)} has been updated successfully.`,
    );
  } else if (fact.kind === 'library') {
    out.say(
      `Comparing ${fact.fields.lib} and ${fact.fields.alt} for ${fact.fields.purpose}: bundle size, maintenance, typings.`,
    );
    out.tool(null, 'Bash', { command: fact.command }, `added 1 package in 2s`);
  } else if (fact.kind === 'secret') {
    out.tool('Writing the new version to vault.', 'Bash', { command: fact.command }, 'Success! Data written');
    out.tool(
      null,
      'Edit',
      { file_path: path(session, fact.edit.file), old_string: '- name: placeholder', new_string: fact.edit.code },
      `The file ${path(session, fact.edit.file)} has been updated successfully.`,
    );
  } else {
    out.tool(null, 'Bash', { command: fact.command }, `${fact.fields.what}: ok`);
  }
  out.say(fact.summary);
}

/** The rounds many sessions share: the test suite, a grep for retry and timeout, a config read. */
function writeCommonWork(out, session) {
  out.prompt(session.commonTask);
  out.tool(
    'Running the suite.',
    'Bash',
    { command: testCommand(session) },
    `${30 + (session.index % 40)} passed in 4.2s`,
  );
  out.tool(
    null,
    'Grep',
    { pattern: 'retry|timeout', path: 'src' },
    'src/client.ts:12: retry\nsrc/config.ts:4: timeout',
  );
  out.say('All green. The retry and timeout settings agree with the config; nothing else to change for now.');
}

/** The session's transcript lines, in the order Claude Code writes them. */
export function sessionLines(session) {
  const out = new Lines(session);
  const [first, ...rest] = session.facts;
  out.prompt(first.request);
  writeFact(out, session, first, true);
  writeCommonWork(out, session);
  for (const fact of rest) writeFact(out, session, fact, false);
  return out.lines;
}

/** Writes every session under `projectsDir`, each file's mtime its last line's time; returns the files and bytes. */
export function writeRecallCorpus(projectsDir, sessions) {
  const files = [];
  let bytes = 0;
  for (const session of sessions) {
    const dir = join(projectsDir, projectFolder(session.cwd));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${session.sessionId}.jsonl`);
    const lines = sessionLines(session);
    const text = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
    writeFileSync(file, text);
    const time = new Date(lines[lines.length - 1].timestamp);
    utimesSync(file, time, time);
    files.push(file);
    bytes += Buffer.byteLength(text);
  }
  return { files, bytes };
}
