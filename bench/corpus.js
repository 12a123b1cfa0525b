// A generated corpus of transcript-shaped lines: user prompts, assistant entries split per content
// block with usage, tool results (some of 1 MB), bookkeeping entries. Deterministic (seeded), so
// every run ingests the same bytes.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A tool result this large is how a `cat` of a big file looks in a transcript. */
const HUGE_RESULT_CHARS = 1024 * 1024;
/** One huge result in this many tool results. */
const HUGE_EVERY = 400;

function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = 'the of to and a in is it you that was for on are with as his they be at one have this from or had by hot word but what some we can out other were all there when up use your how said an each she which do their time if will way about many then them write would like so these her long make thing see him two has look more day could go come did number sound no most people my over know water than call first who may down side been now find'.split(' ');

function text(random, chars) {
  const parts = [];
  let length = 0;
  while (length < chars) {
    const word = WORDS[Math.floor(random() * WORDS.length)];
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ').slice(0, chars);
}

function uuid(random) {
  const hex = () => Math.floor(random() * 16).toString(16);
  return Array.from({ length: 32 }, hex).join('').replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
}

/** Writes one session of about `targetBytes`; returns the bytes written and the last uuid. */
export function writeSession(path, sessionId, targetBytes, seed) {
  const random = rng(seed);
  const cwd = '/home/user/src/bench';
  let parent = null;
  let bytes = 0;
  let turn = 0;
  let buffer = [];
  let buffered = 0;
  const flush = () => {
    if (buffer.length === 0) return;
    appendFileSync(path, buffer.join(''));
    buffer = [];
    buffered = 0;
  };
  const emit = (entry) => {
    const line = `${JSON.stringify(entry)}\n`;
    buffer.push(line);
    buffered += line.length;
    bytes += Buffer.byteLength(line);
    if (buffered > 4 * 1024 * 1024) flush();
  };
  writeFileSync(path, '');
  const base = Date.parse('2026-11-01T00:00:00.000Z');
  while (bytes < targetBytes) {
    const timestamp = new Date(base + turn * 1000).toISOString();
    const common = { isSidechain: false, userType: 'external', cwd, sessionId, version: '2.1.197', gitBranch: 'main', timestamp };
    const userUuid = uuid(random);
    emit({ parentUuid: parent, ...common, type: 'user', message: { role: 'user', content: text(random, 80 + Math.floor(random() * 400)) }, uuid: userUuid });
    const messageId = `msg_${uuid(random).replaceAll('-', '')}`;
    const requestId = `req_${uuid(random).replaceAll('-', '')}`;
    const usage = {
      input_tokens: 3 + Math.floor(random() * 50),
      cache_creation_input_tokens: Math.floor(random() * 4000),
      cache_read_input_tokens: 20_000 + Math.floor(random() * 100_000),
      output_tokens: 50 + Math.floor(random() * 2000),
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    };
    const toolId = `toolu_${uuid(random).replaceAll('-', '').slice(0, 24)}`;
    const textUuid = uuid(random);
    const assistant = (content, id, parentUuid) => ({
      parentUuid,
      ...common,
      type: 'assistant',
      message: { id: messageId, type: 'message', role: 'assistant', model: 'claude-opus-4-8', content, stop_reason: 'tool_use', usage },
      requestId,
      uuid: id,
    });
    emit(assistant([{ type: 'text', text: text(random, 200 + Math.floor(random() * 1500)) }], textUuid, userUuid));
    const toolUuid = uuid(random);
    emit(assistant([{ type: 'tool_use', id: toolId, name: 'Bash', input: { command: `grep -rn ${WORDS[turn % WORDS.length]} .` } }], toolUuid, textUuid));
    const huge = turn % HUGE_EVERY === HUGE_EVERY - 1;
    const resultUuid = uuid(random);
    emit({
      parentUuid: toolUuid,
      ...common,
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: text(random, huge ? HUGE_RESULT_CHARS : 500 + Math.floor(random() * 6000)), is_error: false }] },
      uuid: resultUuid,
    });
    if (turn % 10 === 0) emit({ type: 'last-prompt', lastPrompt: 'continue', leafUuid: resultUuid, sessionId });
    parent = resultUuid;
    turn++;
  }
  flush();
  return { bytes, lastUuid: parent };
}

/** Many sessions adding up to `totalBytes`, one of them `bigSessionBytes` (the append target). */
export function writeCorpus(projectsDir, totalBytes, bigSessionBytes) {
  const project = join(projectsDir, '-home-user-src-bench');
  mkdirSync(project, { recursive: true });
  const bigId = '00000000-0000-4000-8000-000000000000';
  const big = writeSession(join(project, `${bigId}.jsonl`), bigId, bigSessionBytes, 1);
  let bytes = big.bytes;
  let index = 1;
  while (bytes < totalBytes) {
    const id = `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
    const size = Math.min(totalBytes - bytes, 2 * 1024 * 1024 + ((index * 7919) % (6 * 1024 * 1024)));
    bytes += writeSession(join(project, `${id}.jsonl`), id, size, index + 1).bytes;
    index++;
  }
  return { bytes, files: index, bigSession: { id: bigId, path: join(project, `${bigId}.jsonl`), lastUuid: big.lastUuid } };
}
