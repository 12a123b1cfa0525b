import { describe, expect, it } from 'vitest';
import {
  failingCommands,
  finalTodos,
  handoffFacts,
  MAX_COMMANDS,
  MAX_READ_FILES,
} from '../../../../daemon/handoff/facts.js';
import type { GitFacts } from '../../../../daemon/handoff/git.js';
import { factsOf } from './loaded.js';
import { session } from './session.js';

const S = 's';

describe('handoffFacts', () => {
  it('lists changed files first (a failed call changes nothing), then the newest reads; sub-agents count', () => {
    const main = session(S, '/repo')
      .prompt('Go.')
      .tool('Write', { file_path: '/repo/new.ts', content: 'x' }, 'ok', { type: 'create' })
      .tool('Edit', { file_path: '/repo/new.ts', old_string: 'x', new_string: 'y' }, 'ok')
      .tool('Write', { file_path: '/repo/old.ts', content: 'x' }, 'ok', { type: 'update' })
      .tool(
        'Edit',
        { file_path: '/repo/broken.ts', old_string: 'a', new_string: 'b' },
        '<tool_use_error>String to replace not found</tool_use_error>',
      );
    for (let n = 0; n < MAX_READ_FILES + 5; n++) main.tool('Read', { file_path: `/repo/r${n}.ts` }, 'text');
    const agent = session(S, '/repo')
      .tool('Edit', { file_path: '/repo/agent.ts', old_string: 'a', new_string: 'b' }, 'ok')
      .tool('Read', { file_path: '/repo/new.ts' }, 'y');
    const facts = handoffFacts({
      main: factsOf(main),
      sidechains: [factsOf(agent)],
      git: null,
      cwd: '/repo',
      realCwd: '/repo',
    });
    expect(facts.filesTouched.slice(0, 4)).toEqual([
      { path: '/repo/new.ts', status: 'created', summary: 'Write, Edit, Read' },
      { path: '/repo/old.ts', status: 'modified', summary: 'Write' },
      { path: '/repo/agent.ts', status: 'modified', summary: 'Edit (by a sub-agent)' },
      { path: '/repo/r5.ts', status: 'read', summary: 'Read' },
    ]);
    expect(facts.filesTouched).toHaveLength(3 + MAX_READ_FILES);
    expect(facts.filesTouched.some((file) => file.path === '/repo/broken.ts')).toBe(false);
  });

  it("lets git's status win for the files the session changed, under a cwd named through a symlink; lists no file it did not change", () => {
    const main = session(S, '/link/repo')
      .tool('Edit', { file_path: '/link/repo/src/a.ts', old_string: 'a', new_string: 'b' }, 'ok')
      .tool('Bash', { command: 'cat notes.md' }, '# notes')
      .tool('Write', { file_path: '/link/repo/b.ts', content: '' }, 'ok', { type: 'create' });
    const git: GitFacts = {
      top: '/real/repo',
      branch: 'main',
      porcelain: [' M src/a.ts', 'R  c.ts -> d.ts', '?? notes.md'],
      entries: [
        { code: ' M', path: '/real/repo/src/a.ts', from: null },
        { code: 'R ', path: '/real/repo/d.ts', from: '/real/repo/c.ts' },
        { code: '??', path: '/real/repo/notes.md', from: null },
      ],
      diffStat: null,
    };
    const facts = handoffFacts({ main: factsOf(main), sidechains: [], git, cwd: '/link/repo', realCwd: '/real/repo' });
    expect(facts.git).toEqual({
      branch: 'main',
      porcelain: [' M src/a.ts', 'R  c.ts -> d.ts', '?? notes.md'],
      diffStat: null,
    });
    expect(facts.filesTouched).toEqual([
      { path: 'src/a.ts', status: 'modified', summary: 'Edit; git `M`' },
      { path: 'notes.md', status: 'read', summary: 'Bash read; git `??`, not changed by this session' },
      { path: '/link/repo/b.ts', status: 'created', summary: 'Write' },
    ]);
  });

  it('keeps the last commands with exit codes; failing ones are those whose last run failed', () => {
    const main = session(S, '/repo').prompt('Test.');
    main
      .tool('Bash', { command: 'npm test' }, 'Exit code 1\nfail')
      .tool('Bash', { command: 'npm run lint' }, 'Exit code 2\nlint')
      .tool('Bash', { command: 'npm test' }, 'ok');
    for (let n = 0; n < MAX_COMMANDS; n++) main.tool('Bash', { command: `echo ${n}` }, `${n}`);
    const facts = handoffFacts({ main: factsOf(main), sidechains: [], git: null, cwd: '/repo', realCwd: '/repo' });
    expect(facts.commands).toHaveLength(MAX_COMMANDS);
    expect(facts.commands[0]).toEqual({ command: 'echo 0', exitCode: 0, isError: false });
    expect(facts.failing).toEqual([{ command: 'npm run lint', exitCode: 2, isError: true }]);
  });
});

describe('failingCommands', () => {
  it('follows each command to its last run', () => {
    const run = (command: string, exitCode: number) => ({ command, exitCode, isError: exitCode !== 0 });
    expect(failingCommands([run('a', 1), run('b', 0), run('a', 0), run('b', 1), run('c', 1)])).toEqual([
      run('b', 1),
      run('c', 1),
    ]);
  });
});

describe('finalTodos', () => {
  it('is the last TodoWrite list and every task with its last status; deleted tasks are gone', () => {
    const main = session(S, '/repo')
      .tool('TodoWrite', { todos: [{ content: 'old', status: 'pending' }] })
      .tool('TodoWrite', {
        todos: [
          { content: 'one', status: 'completed' },
          { content: 'two', status: 'in_progress' },
        ],
      })
      .tool('TaskCreate', { subject: 'Task A', description: 'a' }, 'Task #1 created', { task: { id: '1' } })
      .tool('TaskCreate', { subject: 'Task B', description: 'b' }, 'Task #2 created', { task: { id: '2' } })
      .tool('TaskCreate', { subject: 'Task C', description: 'c' }, 'Task #3 created', { task: { id: '3' } })
      .tool('TaskUpdate', { taskId: '1', status: 'completed' }, 'ok')
      .tool('TaskUpdate', { taskId: '2', subject: 'Task B, renamed' }, 'ok')
      .tool('TaskUpdate', { taskId: '3', status: 'deleted' }, 'ok');
    expect(finalTodos(factsOf(main).calls)).toEqual([
      { content: 'one', status: 'completed' },
      { content: 'two', status: 'in_progress' },
      { content: 'Task A', status: 'completed' },
      { content: 'Task B, renamed', status: 'pending' },
    ]);
  });
});
