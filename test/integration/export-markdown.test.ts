/**
 * `--format md` of a session whose title, prompt, reply, tool input and tool output carry HTML and
 * fences meant to break out (issue 27, item 11): before, `<script>`, `<img onerror>` and
 * `</details>` went into the markdown raw. Now nothing of the transcript is a tag outside code, every
 * fold memd opens is closed by memd, and no fence in the text swallows what follows it. No markdown
 * renderer is installed, so the structure is checked as CommonMark reads it: fenced blocks apart,
 * then the tags left.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/u/src/planted';
const SESSION = '3c3c3c3c-4444-4d4d-8e8e-000000000011';
/** What a page might carry to break out: HTML, memd's own closing tags, and fences. */
const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '</details>',
  '</summary>',
  '<details><summary>planted fold',
  '`</details>` and \\`<img src=x onerror=alert(3)>`',
  '````',
  '<script>alert(4)</script>',
  '```',
  '</details>',
].join('\n');

function hostileSession(): TranscriptWriter {
  const main = new TranscriptWriter({ sessionId: SESSION, cwd: CWD, version: '2.1.38' });
  main.raw({
    type: 'custom-title',
    customTitle: `Title <script>alert(0)</script> </details> \`\`\``,
    sessionId: SESSION,
  });
  main.prompt(HOSTILE);
  main.response([{ type: 'text', text: HOSTILE }], { input: 1, cacheWrite: 0, cacheRead: 0, output: 10 });
  main.toolRound('Bash', { command: HOSTILE }, `${HOSTILE}\n\`\`\`\`\`\`\`\n</details>`, {
    input: 1,
    cacheWrite: 0,
    cacheRead: 0,
    output: 10,
  });
  main.prompt('The last prompt, which must be prose');
  return main;
}

/** The lines outside fenced code blocks, as CommonMark reads fences at the top level and in `> ` quotes. */
function outsideFences(md: string): string[] {
  const kept: string[] = [];
  let fence: { char: string; length: number } | null = null;
  for (const raw of md.split('\n')) {
    const line = raw.replace(/^> ?/, '');
    if (fence !== null) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close?.[1]?.startsWith(fence.char) && close[1].length >= fence.length) fence = null;
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})([^`]*)$/.exec(line);
    if (open?.[1] !== undefined) fence = { char: open[1].charAt(0), length: open[1].length };
    else kept.push(raw);
  }
  expect(fence, 'a fence runs to the end of the document').toBeNull();
  return kept;
}

describe('markdown export of hostile text', () => {
  let sandbox: Sandbox;
  let client: Client;
  let md: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, SESSION), hostileSession());
    keepForFile(sandbox, await startDaemon(sandbox));
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(
      async () =>
        (await client.daemonStatus()).ingest.stats.entries > 0 &&
        (await client.daemonStatus()).ingest.progress.filesPending === 0,
      'ingest',
    );
    const run = await runMemctl(sandbox, ['export', SESSION.slice(0, 8), '--format', 'md']);
    expect(run.stderr).toBe('');
    md = run.stdout;
    return () => client.close();
  });

  it("writes no tag of the transcript outside code: only memd's folds and code", () => {
    const prose = outsideFences(md).join('\n');
    const tags = prose.match(/<\/?[a-z!?][^>\s]*/gi) ?? [];
    expect(new Set(tags)).toEqual(new Set(['<details', '<summary', '</summary', '</details', '<code', '</code']));
    expect(prose).not.toMatch(/<script|<img/i);
    expect(md.startsWith('# Title &lt;script>alert(0)&lt;/script> &lt;/details> ```\n')).toBe(true);
  });

  it('closes every fold it opens, each on its own line, and nothing else', () => {
    const lines = outsideFences(md);
    const opened = lines.filter((line) => line.startsWith('<details>')).length;
    expect(opened).toBe(1);
    expect(lines.filter((line) => line === '</details>').length).toBe(opened);
    expect(lines.filter((line) => line.includes('</details>') && line !== '</details>')).toEqual([]);
    const summaries = lines.filter((line) => line.includes('<summary>'));
    expect(summaries).toHaveLength(1);
    // The tool's label is text inside memd's summary: its only tags are memd's two.
    expect(summaries[0]).toMatch(
      /^<details><summary>Bash: &#60;script&#62;alert\(1\)&#60;\/script&#62; [^<]*<\/summary>$/,
    );
  });

  it('lets no fence of the text swallow what follows it', () => {
    const lines = outsideFences(md);
    expect(lines.filter((line) => /^\*\*(User|Assistant)\*\* · /.test(line)).length).toBe(4);
    expect(lines).toContain('> The last prompt, which must be prose');
  });
});
