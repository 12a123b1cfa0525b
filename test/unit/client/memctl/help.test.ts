import { describe, expect, it } from 'vitest';
import { COMMAND_USAGE, MAIN_USAGE } from '../../../../client/memctl/help.js';

describe('memctl --help', () => {
  it('describes watch as what it draws on a terminal: the live sessions table', () => {
    const line = MAIN_USAGE.split('\n').find((entry) => entry.startsWith('  watch '));
    expect(line).toBeDefined();
    expect(line).toContain('sessions table');
    expect(line).not.toContain('print events live');
    // The command's own usage says the same.
    expect(COMMAND_USAGE.watch).toContain('sessions table');
  });
});
