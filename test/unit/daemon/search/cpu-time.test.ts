import { describe, expect, it } from 'vitest';
import { processCpuMs } from '../../../../daemon/search/cpu-time.js';

describe('processCpuMs', () => {
  it.skipIf(process.platform !== 'linux')("counts a process's CPU time as it works", () => {
    const before = processCpuMs(process.pid);
    expect(before).not.toBeNull();
    // Working until the count moves 30 ms (bounded: 10 s of wall time however loaded the machine).
    const deadline = performance.now() + 10_000;
    let now = before as number;
    while (now - (before as number) < 30 && performance.now() < deadline) {
      for (let spin = 0; spin < 100_000; spin++) Math.sqrt(spin);
      now = processCpuMs(process.pid) as number;
    }
    expect(now - (before as number)).toBeGreaterThanOrEqual(30);
  });

  it('says it does not know for a process that is not there', () => {
    expect(processCpuMs(2 ** 30)).toBeNull();
  });
});
