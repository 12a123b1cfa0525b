import { describe, expect, it } from 'vitest';
import { promptTitle } from '../../../../shared/transcript/prompt-text.js';
import { readableUserText, taskNotificationLine } from '../../../../shared/transcript/user-text.js';

const NOTICE =
  '<task-notification>\n<task-id>b1x2</task-id>\n<tool-use-id>toolu_01</tool-use-id>\n<output-file>/tmp/claude-1000/p/tasks/b1x2.output</output-file>\n<status>completed</status>\n' +
  '<summary>Background command "Run SessionLive tests" completed (exit code 0)</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/claude-1000/p/tasks/b1x2.output';

describe('a user message as a summary quotes it', () => {
  it('renders a task notification as one line, without its pointer line', () => {
    expect(readableUserText(NOTICE)).toEqual({
      text: '[background task "Run SessionLive tests" completed, exit 0]',
      typed: '',
    });
    expect(readableUserText(`${NOTICE}\nnow refactor the poller`)).toEqual({
      text: '[background task "Run SessionLive tests" completed, exit 0]\nnow refactor the poller',
      typed: 'now refactor the poller',
    });
    expect(readableUserText(`${NOTICE}\n${NOTICE.replace('b1x2', 'b3')}`).text.split('\n')).toHaveLength(2);
  });

  it('says what it can of a notice that is not a background command', () => {
    expect(
      taskNotificationLine(
        '<task-id>a9</task-id><status>failed</status><summary>Agent "Explore the repo" failed</summary><result>long text</result>',
      ),
    ).toBe('[background task a9 failed: Agent "Explore the repo" failed]');
    expect(taskNotificationLine('')).toBe('[background task finished]');
  });

  it('leaves out reminders, hook output, IDE context and local-command output; keeps commands as typed', () => {
    expect(
      readableUserText('<system-reminder>\nThe TodoWrite tool…\n</system-reminder>\nfix the race in tick()'),
    ).toEqual({ text: 'fix the race in tick()', typed: 'fix the race in tick()' });
    expect(
      readableUserText(
        '<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>src/a.ts</command-args>',
      ),
    ).toEqual({ text: '/review src/a.ts', typed: '' });
    expect(readableUserText('<local-command-stdout>Bye!</local-command-stdout>')).toEqual({ text: '', typed: '' });
    expect(readableUserText('<bash-input>ls -la</bash-input>').text).toBe('! ls -la');
    expect(readableUserText('<ide_opened_file>The user opened a.ts</ide_opened_file>look at this').text).toBe(
      'look at this',
    );
    expect(readableUserText('<user-prompt-submit-hook>hook said</user-prompt-submit-hook>').text).toBe('');
  });

  it('drops an unclosed block to the end, and keeps markers out of what was typed', () => {
    expect(readableUserText('before\n<system-reminder>cut off').text).toBe('before');
    expect(readableUserText('[Request interrupted by user]')).toEqual({
      text: '[Request interrupted by user]',
      typed: '',
    });
    expect(readableUserText('plain <b>html</b> stays')).toEqual({
      text: 'plain <b>html</b> stays',
      typed: 'plain <b>html</b> stays',
    });
  });

  it('shares its tag list with prompt titles', () => {
    expect(promptTitle(NOTICE)).toBeNull();
    expect(promptTitle('<bash-input>ls</bash-input>')).toBeNull();
  });
});
