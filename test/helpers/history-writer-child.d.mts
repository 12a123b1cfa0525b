/** Types of history-writer-child.mjs, so tests check entries against the lines it writes. */
export function historyDisplay(writer: string | number, index: number): string;
export function historyLine(writer: string | number, index: number): string;
