/**
 * A session whose files were changed before a compaction (issue 32, F): in Claude Code 2.1.197's
 * shape (our own text), the calls before the compact_boundary edit `store/cache.py` (Edit),
 * create `tests/test_cache.py` (Write, toolUseResult `create`), edit `config.ini` with `sed -i`,
 * read a big `data/fixtures.json` and fail one Edit; Claude Code's summary after the boundary
 * names the files without a status, and the turn after it edits only `store/ttl.py`. Written with
 * TranscriptWriter.
 */
import { CONTINUATION_OPENING } from '../../shared/transcript/compaction-texts.js';
import { type IngestedSession, ingestWritten } from './compact.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from './real-shapes.js';

export const HIDDEN_CWD = '/home/user/src/cache-service';
export const HIDDEN_SESSION = '5e1f0c2a-7b3d-4e8f-9a00-0000000000f1';
/** What Claude Code's summary says of the cache module: the file's line keeps it. */
export const CACHE_NOTE = 'added a TTL to get() and put()';
/** The big Read result: the earlier reader never reads it back (its row says it succeeded). */
export const BIG_READ_CHARS = 200_000;

export function hiddenFilesSession(): TranscriptWriter {
  const writer = new TranscriptWriter({ sessionId: HIDDEN_SESSION, cwd: HIDDEN_CWD, version: '2.1.197' });
  let n = 0;
  const usage = () => growingUsage(++n);
  writer.prompt('Give the cache in store/cache.py a TTL, and add a test.');
  writer.toolRound(
    'Read',
    { file_path: `${HIDDEN_CWD}/data/fixtures.json` },
    `[${'1,'.repeat(BIG_READ_CHARS / 2)}1]`,
    usage(),
  );
  writer.toolRound(
    'Edit',
    {
      file_path: `${HIDDEN_CWD}/store/cache.py`,
      old_string: 'def get(self, key):',
      new_string: 'def get(self, key, now=None):',
    },
    `The file ${HIDDEN_CWD}/store/cache.py has been updated successfully.`,
    usage(),
  );
  writer.toolRound(
    'Write',
    { file_path: `${HIDDEN_CWD}/tests/test_cache.py`, content: 'def test_expiry():\n    assert True\n' },
    `File created successfully at: ${HIDDEN_CWD}/tests/test_cache.py`,
    usage(),
  );
  const written = writer.lines.at(-1);
  if (written !== undefined) written.toolUseResult = { type: 'create', filePath: `${HIDDEN_CWD}/tests/test_cache.py` };
  writer.toolRound('Bash', { command: "sed -i 's/ttl = 0/ttl = 60/' config.ini" }, '', usage());
  // A failed call changed nothing: its file is no file changed.
  const failed = writer.toolRound(
    'Edit',
    { file_path: `${HIDDEN_CWD}/store/missing.py`, old_string: 'a', new_string: 'b' },
    '',
    usage(),
  );
  const result = writer.lines.at(-1);
  if (result !== undefined)
    result.message = {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: failed,
          content: '<tool_use_error>File does not exist.</tool_use_error>',
          is_error: true,
        },
      ],
    };
  writer.response([{ type: 'text', text: 'The cache has a TTL and a test.' }], usage());
  const boundary = writer.compactBoundary(150_000);
  const summary = [
    `${CONTINUATION_OPENING}\n\nSummary:`,
    '1. Primary Request and Intent:\n   Give the cache a TTL, and add a test.',
    `3. Files and Code Sections:\n   - store/cache.py — ${CACHE_NOTE}\n   - tests/test_cache.py — the expiry test\n   - config.ini — ttl set to 60`,
    '7. Pending Tasks:\n   - None.',
  ].join('\n\n');
  writer.user(summary, { parentUuid: boundary.uuid, isCompactSummary: true, isVisibleInTranscriptOnly: true });
  writer.prompt('Move the expiry check into store/ttl.py.');
  writer.toolRound(
    'Edit',
    { file_path: `${HIDDEN_CWD}/store/ttl.py`, old_string: 'pass', new_string: 'def expired(at, now, ttl):' },
    `The file ${HIDDEN_CWD}/store/ttl.py has been updated successfully.`,
    usage(),
  );
  writer.response([{ type: 'text', text: 'The expiry check is in store/ttl.py now.' }], usage());
  return writer;
}

/** Writes the session under `<dir>/projects` and indexes it. */
export function ingestHiddenFiles(dir: string, writer = hiddenFilesSession()): Promise<IngestedSession> {
  writeTranscript(mainPath(`${dir}/projects`, HIDDEN_CWD, HIDDEN_SESSION), writer);
  return ingestWritten(dir, HIDDEN_SESSION);
}
