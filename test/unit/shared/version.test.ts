import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MEMD_VERSION } from '../../../shared/version.js';

describe('MEMD_VERSION', () => {
  it("equals package.json's version", () => {
    const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as {
      version: string;
    };
    expect(MEMD_VERSION).toBe(pkg.version);
  });
});
