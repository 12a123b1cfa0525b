/**
 * Section 2 of the offline compaction summary, Key Technical Concepts, from the tool calls alone:
 * the languages and formats of the files touched (by extension), the programs the shell commands
 * ran, and the tools used with their counts, the summary's one line of counts. Pure.
 */

import { type Call, filePath, inputString } from '../transcripts/facts.js';

const LANGUAGES: Record<string, string> = {
  ts: 'TypeScript',
  tsx: 'TypeScript',
  js: 'JavaScript',
  jsx: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  py: 'Python',
  rs: 'Rust',
  go: 'Go',
  java: 'Java',
  kt: 'Kotlin',
  rb: 'Ruby',
  php: 'PHP',
  cs: 'C#',
  c: 'C',
  h: 'C',
  cpp: 'C++',
  hpp: 'C++',
  swift: 'Swift',
  sh: 'Shell',
  sql: 'SQL',
  html: 'HTML',
  css: 'CSS',
  md: 'Markdown',
  json: 'JSON',
  yml: 'YAML',
  yaml: 'YAML',
  toml: 'TOML',
  csv: 'CSV',
  ipynb: 'Jupyter notebooks',
};
/** The programs a shell command runs (with the subcommand for package managers and runners). */
function programsOf(command: string): string[] {
  const programs: string[] = [];
  // Quoted arguments hold code (node -e "…;…"), not more commands.
  for (const segment of command.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, '""').split(/&&|\|\||[;|\n]/)) {
    const words = segment
      .trim()
      .split(/\s+/)
      .filter((word) => !/^\w+=/.test(word) && !['sudo', 'env', 'time', 'nohup', 'exec'].includes(word));
    const program =
      (words[0] ?? '')
        .replace(/^['"]|['"]$/g, '')
        .split('/')
        .at(-1) ?? '';
    if (program === '' || program === 'cd') continue;
    const sub = words[1];
    if (/^python[\d.]*$/.test(program) && sub === '-m' && words[2] !== undefined)
      programs.push(`${program} -m ${words[2]}`);
    else if (
      ['npm', 'pnpm', 'yarn', 'npx', 'cargo', 'go', 'uv', 'poetry'].includes(program) &&
      sub !== undefined &&
      !sub.startsWith('-')
    )
      programs.push(`${program} ${sub}`);
    else programs.push(program);
  }
  return programs;
}

/** Section 2 from the calls: the languages of the files touched, the programs run, the tools by count (one line). */
export function conceptLines(calls: readonly Call[]): string[] {
  const languages = new Set<string>();
  const programs = new Set<string>();
  const tools = new Map<string, number>();
  for (const call of calls) {
    tools.set(call.name, (tools.get(call.name) ?? 0) + 1);
    const ext = /\.([A-Za-z0-9]+)$/.exec(filePath(call) ?? '')?.[1]?.toLowerCase();
    if (ext !== undefined)
      languages.add(LANGUAGES[ext] !== undefined ? `${LANGUAGES[ext]} (.${ext})` : `.${ext} files`);
    const command = inputString(call, 'command');
    if (call.name === 'Bash' && command !== null) for (const program of programsOf(command)) programs.add(program);
  }
  const lines: string[] = [];
  if (languages.size > 0) lines.push(`   - Languages and formats: ${[...languages].join(', ')}`);
  if (programs.size > 0) lines.push(`   - Commands: ${[...programs].map((program) => `\`${program}\``).join(', ')}`);
  if (tools.size > 0)
    lines.push(`   - Tools used: ${[...tools].map(([name, count]) => `${name} ×${count}`).join(', ')}`);
  return lines;
}
