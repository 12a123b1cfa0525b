import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHandoffService } from '../../../../daemon/handoff/service.js';
import { openStore } from '../../../../daemon/store/db.js';
import { createTranscripts } from '../../../../daemon/transcripts/transcripts.js';
import { ingestFixture } from '../../../helpers/compact.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import type { Manifest } from '../../../helpers/fixtures.js';
import { SCENARIOS } from '../../../helpers/ingest.js';
import { bindingsIn } from './bindings-for-tests.js';
import { sectionsOf } from './sections.js';

/** The parts of manifest.json this test reads; fixtures.ts types only the common ones. */
interface FactsManifest extends Manifest {
  commands: { command: string; exitCode: number; isError: boolean; sidechain: boolean; stderrContains?: string }[];
  todos: { content: string; status: string }[] | null;
  tasks: { subject: string; status: string }[] | null;
  constraints: { text: string }[];
}

const recall: string[] = [];
afterAll(() => console.log(`offline handoff, fact recall per fixture:\n${recall.join('\n')}`));

describe('the offline handoff of each fixture', () => {
  it.each(SCENARIOS)('%s: names every changed file, failing command, user constraint and todo', async (scenario) => {
    const fixture = await ingestFixture(scenario);
    const cwd = mkdtempSync(join(tmpdir(), 'memd-handoff-'));
    try {
      const manifest = fixture.manifest as FactsManifest;
      const service = createHandoffService({
        transcripts: createTranscripts({ db: fixture.store.db, cache: fixture.cache }),
        projectsDir: fixture.projectsDir,
        log: fakeLogger(),
        clock: () => Date.parse('2026-01-02T03:04:05Z'),
        bindings: bindingsIn(fixture.dir),
      });
      const result = await service.generate({ sessionId: manifest.sessionId, cwd, trigger: 'auto' });
      const text = readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8');
      expect(result.text).toBe(text);
      expect(result.partial).toBe(false);
      expect(result.summarizer).toBe('offline');
      expect(text.split('\n')[0]).toBe(
        `# Handoff — session ${manifest.sessionId} — 2026-01-02T03:04:05.000Z — trigger: auto`,
      );
      const sections = sectionsOf(text);
      const files = sections.get('Files Touched') ?? '';
      const constraints = sections.get('Constraints') ?? '';
      const facts: { kind: string; found: boolean }[] = [];
      const changed = new Set([...manifest.files.edited, ...manifest.files.written]);
      for (const path of changed)
        facts.push({
          kind: `file ${path}`,
          found: files.includes(`\`${path}\``) && !files.includes(`\`${path}\` | read |`),
        });
      // Read files too (sub-agents' included): the next turn need not read them again to know they matter.
      for (const path of manifest.files.read.filter((candidate) => !changed.has(candidate)))
        facts.push({ kind: `read ${path}`, found: files.includes(`| \`${path}\` | read |`) });
      for (const command of manifest.commands.filter((candidate) => candidate.isError)) {
        facts.push({
          kind: `failing command ${command.command}`,
          found: text.includes(command.command) && text.includes(`exit ${command.exitCode}`),
        });
        if (command.stderrContains !== undefined)
          facts.push({
            kind: `error ${command.stderrContains}`,
            found: (sections.get('Issues Discovered') ?? '').includes(command.stderrContains),
          });
      }
      for (const constraint of manifest.constraints)
        facts.push({
          kind: `constraint ${constraint.text}`,
          found: constraints.includes(constraint.text) && result.pinned.includes(constraint.text),
        });
      const todos = [
        ...(manifest.todos ?? []).map((todo) => ({ status: todo.status, text: todo.content })),
        ...(manifest.tasks ?? []).map((task) => ({ status: task.status, text: task.subject })),
      ];
      for (const todo of todos)
        facts.push({
          kind: `todo ${todo.text} (${todo.status})`,
          found:
            result.facts.todos.some((found) => found.content === todo.text && found.status === todo.status) &&
            text.includes(todo.text),
        });
      const found = facts.filter((fact) => fact.found).length;
      recall.push(`  ${scenario}: ${found}/${facts.length}${facts.length === 0 ? ' (nothing listed)' : ''}`);
      expect(facts.filter((fact) => !fact.found).map((fact) => fact.kind)).toEqual([]);

      // The first next step is an action, and the todo list's open items are in the steps.
      const steps = sections.get('Next Steps') ?? '';
      expect(steps.trimStart().startsWith('1. ')).toBe(true);
      for (const todo of todos.filter((candidate) => candidate.status === 'pending'))
        expect(steps).toContain(todo.text);
      expect(result.pinned === '').toBe(manifest.constraints.length === 0);
      // Deterministic: the same handoff again.
      const again = await service.generate({ sessionId: manifest.sessionId, cwd, trigger: 'auto' });
      expect(again.text).toBe(text);
      expect(readdirSync(join(cwd, 'docs'))).toEqual(['handoff-context.md']);

      // Named by its path, the transcript is the same one; read without the index (a fresh
      // store), its main transcript gives the same facts.
      const path = join(fixture.dir, manifest.transcript);
      expect((await service.generate({ transcriptPath: path, cwd, trigger: 'auto' })).text).toBe(text);
      const empty = openStore(join(fixture.dir, 'empty.sqlite'), fakeLogger());
      try {
        const scanned = await createHandoffService({
          transcripts: createTranscripts({ db: empty.db }),
          projectsDir: fixture.projectsDir,
          log: fakeLogger(),
          clock: () => 0,
          bindings: bindingsIn(fixture.dir),
        }).generate({
          transcriptPath: path,
          cwd,
        });
        const { filesTouched, ...rest } = result.facts;
        expect(scanned.facts).toMatchObject(rest);
        if (!manifest.sidechain.present) expect(scanned.facts.filesTouched).toEqual(filesTouched);
      } finally {
        empty.close();
      }
    } finally {
      fixture.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
