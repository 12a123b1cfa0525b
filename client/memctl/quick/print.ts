/** The quick paths' printing (issue 34): to a reader that may go away early (`memctl sessions | head -3` is not a failure). */
export function printLines(lines: readonly string[]): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
}
