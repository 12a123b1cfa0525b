/** Statuses in order, repeats counted: "exit 1 ×2, then exit 0". */
export function runLengths(statuses: readonly string[]): string {
  const groups: { status: string; count: number }[] = [];
  for (const status of statuses) {
    const last = groups.at(-1);
    if (last?.status === status) last.count++;
    else groups.push({ status, count: 1 });
  }
  return groups.map((group) => (group.count === 1 ? group.status : `${group.status} ×${group.count}`)).join(', then ');
}
