/** Help texts: one per command, printed by `memctl COMMAND --help`. */
import { QUERY_LIMITS } from '../../shared/search/query-syntax.js';

export const MAIN_USAGE = `usage: memctl [--no-autostart] COMMAND [ARGS] [--json] [--help]

Talks to the memd daemon on its Unix socket (started on demand unless --no-autostart or MEMD_NO_AUTOSTART).

commands:
  status [SESSION] [-v] [--json]
                            the daemon (version, pid, uptime, paths, counts) and its sessions;
                            with SESSION, that session in full and its forecasts (-v: their basis)
  sessions [--all] [--limit N] [--cursor C] [--json]
                            sessions, most recent first, with their context bars (50 a page)
  compact SESSION [--method auto|micro|reactive|cache-edits] [--limit N] [--force] [--json]
                            a compaction of the session: tokens before and after, what was lost
  memory summary|extract SESSION [--json] | memory pause|resume
                            the session's memory (summary.md), or an extraction now;
                            background extraction off or on
  memdir list|read|write|delete|conflicts|resolve PROJECT [NAME] [--team] ...
                            project and team memory files and their MEMORY.md index
  history [--project P] [--session S] [--limit N] [--before ISO]
                            the prompt history (history.jsonl), newest first, pastes resolved
  rewind list SESSION | restore SESSION MESSAGE_ID [--dry-run] [--allow-outside-project [--yes]] | undo UNDO_ID [--dry-run]
                            Claude Code's file checkpoints: put files back as before a prompt
  handoff [SESSION] [--cwd DIR]
                            write <cwd>/docs/handoff-context.md for a session now
  hook pre-compact|session-start|post-compact|turn-start|turn-end|turn-failed|instructions-loaded|tool-failed
                            Claude Code's hooks (stdin: the hook's JSON; always exits 0)
  install-hooks [--project] [--uninstall] [--dry-run]
                            add memd's hooks to Claude Code's settings.json
  statusline                Claude Code's status line (stdin: its JSON; one line out; exits 0)
  install-statusline [--project] [--uninstall] [--dry-run] [--force]
                            set Claude Code's statusLine to memctl statusline
  search QUERY [--project P] [--session S] [--since 7d] [--kind K] [--json] | search --context SESSION:UUID
                            full-text search of every session, hits grouped by session; a hit's messages
  usage [--since 30d] [--until T] [--by day|week|month|block|project|model|device] [--project P] [--device D] [--json]
                            tokens and cost by day, week, month, 5-hour block, project, model or machine, with a sparkline
  export SESSION [--format md|html|jsonl] [--out FILE] [--no-redact]
                            the session as markdown, a self-contained HTML report, or its transcript
  archive list|restore SESSION [--to DIR] [--device NAME]|verify|prune --older-than 180d|deleted [--since 7d]|forget SESSION
                            memd's copy of every transcript: put a session back for claude --resume, check, free,
                            what Claude Code deleted, forget
  sync status               what this machine shares through the sync folder (syncDir) and what the others shared
  mcp                       memd's MCP server on stdio, for Claude Code (search, session memory, handoff)
  install-mcp [--project] [--uninstall] [--dry-run]
                            register memctl mcp with Claude Code (~/.claude.json, or .mcp.json)
  start                     start the daemon if none answers
  stop                      ask the daemon to shut down gracefully
  watch                     the sessions table, redrawn live (--json: every event; Ctrl-C to stop)
  call METHOD [JSON]        call any protocol method with JSON params; prints the result
  doctor                    check node, paths and modes, the socket, the database, units, hooks, MCP
  install-service [--dry-run]
                            install and enable the systemd user units (memd.socket, memd.service)

SESSION is a session id or any unique prefix of one (the 8 characters memctl prints).
exit codes: 0 ok, 1 the daemon answered with an error, 2 no daemon or bad usage.
environment: MEMD_SOCKET, MEMD_STATE_DIR, XDG_RUNTIME_DIR, NO_COLOR (see docs/configuration.md).`;

export const COMMAND_USAGE: Record<string, string> = {
  status: `usage: memctl status [SESSION] [-v] [--json]

Prints the daemon's version, pid, uptime, paths, connection and request counts, memory use,
database state and ingest progress, then the sessions table (most recent first). With SESSION,
prints that session in full: context bar and threshold state, usage and cost, compactions, and
what the hooks recorded (the SessionStart handoff injection, the last compaction's summary and
what it lost), and the forecasts: turns until auto-compact, when the 5-hour limit comes at this
pace, what idling past the cache's expiry costs; each marked official (Claude Code reported it) or
estimated (memd computed it), -v adding the basis of each. --json prints the daemon.status result
unchanged; with SESSION, the sessions.get result with the hooks' records under "handoff" (the
handoff.status result) and the forecasts under "usageStatus" (the usage.status result).`,
  sessions: `usage: memctl sessions [--all] [--limit N] [--cursor C] [--json]

Lists sessions, most recent first, 50 a page (--limit N, up to 10,000; the last line gives the
--cursor of the next page). Sessions whose files are all deleted, or that hold no entry, are kept
as history but listed only with --all (the last line counts them); so are the sessions of your
other machines, shared through the sync folder (docs/sync.md), which --all lists with a DEVICE
column ("here" for this machine's). Each row: id, project, title,
last activity, cost and a context bar (▕██████░░▏ 91% used of auto-compact · 140K/154K, 14K left: the share of the auto-compact threshold used;
"3% context used · 33K/1M" of the window when Claude Code compacts only once the API refuses).
PROJECT is the end of the session's cwd, widened until two projects differ. --json prints the
sessions.list result unchanged.`,
  compact: `usage: memctl compact SESSION [--method auto|micro|reactive|cache-edits] [--limit N] [--force] [--json]

Asks the daemon for a compaction of SESSION's active conversation and prints the method, the
tokens before and after, what was done (results persisted or cleared, rounds dropped, a summary)
and what was lost: user messages, file paths, identifiers and errors present before and absent
after. Nothing is written to the transcript: the result is what a client would send next.
  --method auto         session memory when summary.md has content, else a 9-section summary (default)
  --method micro        persist big tool results, clear old ones (Layer 1)
  --method reactive     drop the oldest rounds, then cut the newest round's largest results to
                        previews, until the estimate fits --limit (default: the auto-compact
                        threshold, or the window where Claude Code compacts only once the API
                        refuses), as after a "prompt too long" error
  --method cache-edits  the tool results an API context_management edit would clear, and the savings
  --force               compact with auto even below the threshold
--json prints the compact.* result unchanged (the messages are ready to send).`,
  memory: `usage: memctl memory summary|extract SESSION [--json]
       memctl memory pause|resume [--json]

summary: prints the session's summary.md with when it was extracted, by which summarizer, its
tokens and cost, and the last message it covers. extract: runs an extraction now (whatever the
triggers say), waits for it to be written, and prints the result the same way. While a main agent
holds the session-memory lock (memory.lock) it says so at once; the extraction runs after the lock
is released (a Claude Code turn holds it from the prompt to its end, with memctl install-hooks).
pause: background extraction stops until resume, across restarts (extract still runs one).
memctl status shows whether it is paused, the daily budget and what extraction spent today.
--json prints the memory.summary / memory.extract / memory.pause / memory.resume result unchanged.`,
  memdir: `usage: memctl memdir list PROJECT [--team] [--json]
       memctl memdir read PROJECT NAME [--team] [--json]
       memctl memdir write PROJECT NAME --type user|feedback|project|reference [--description TEXT]
                    [--file FILE] [--if-match ETAG | --new] [--team] [--json]
       memctl memdir delete PROJECT NAME [--if-match ETAG] [--team] [--json]
       memctl memdir conflicts [PROJECT] [--json]
       memctl memdir resolve PROJECT NAME --keep local|theirs [--device ID] [--team] [--json]

Project memory lives in <projects>/<project>/memory/ (team memory in memory/team/, --team): one
NAME.md per memory with frontmatter, and MEMORY.md, the index, kept in step by memd. PROJECT is a
project folder name (-home-user-src-app), an absolute path, or . for the current directory. NAME
may be nested (testing/flaky-tests); names that could escape the dir are refused (PathRejected).
read prints the body; write takes the body from --file or stdin. --if-match ETAG (from list or
read --json) refuses the write if the memory changed since (Conflict); --new refuses it if the
memory exists. A user memory is never team memory.
With a sync folder (syncDir), memories travel between your machines: conflicts lists those changed
on this machine and another from one version (or deleted on one and changed on the other); both
versions are kept, this one in place and the other in memd's state dir, until resolve keeps one
(--device names the other machine when there are several). The other machine then takes it.`,
  history: `usage: memctl history [--project P] [--session S] [--limit N] [--before ISO] [--json]

Claude Code's prompt history (<claude root>/history.jsonl), newest first, at most 100 a call:
time, project and the prompt as typed, with its pastes (long ones are read from paste-cache/; a
paste whose file is gone says so). --project takes a path or a project folder name; --before the
time of the last prompt shown, to page back. --json prints the history.list result unchanged.`,
  rewind: `usage: memctl rewind list SESSION [--json]
       memctl rewind restore SESSION MESSAGE_ID [--dry-run] [--allow-outside-project [--yes]] [--json]
       memctl rewind undo UNDO_ID [--dry-run] [--json]

list: the session's file checkpoints (from its file-history-snapshot entries and the backups in
<claude root>/file-history/), one per prompt, with the files each records. restore: puts every
file the session changed from that prompt on back as it was just before it (deleting files that did
not exist then); --dry-run shows per file what would change. A restore first saves the files it
changes and prints an undo id; undo puts them back. Only files inside the session's project (the git
root of its cwd, or the cwd) are restored; --allow-outside-project restores the others the
transcript lists too, after you confirm (or with --yes).`,
  handoff: `usage: memctl handoff [SESSION] [--cwd DIR] [--json]

Writes <cwd>/docs/handoff-context.md for SESSION (default: the most recent session of the current
directory) and prints what it holds: files touched, commands and failures, and the pinned user
constraints. The file goes to the session's cwd unless --cwd names another.`,
  hook: `usage: memctl hook pre-compact|session-start|post-compact|turn-start|turn-end|turn-failed|instructions-loaded|tool-failed

Run by Claude Code as a hook (memctl install-hooks sets them up), with the hook's JSON on stdin.
pre-compact: writes the handoff (handoff.generate) and prints the pinned constraints for the
compaction instructions; when memd cannot answer in time it writes a HANDOFF_AUTO_PARTIAL handoff
itself. session-start: for the sources in MEMD_SESSION_START_SOURCES (default compact,resume)
prints {"hookSpecificOutput":{...,"additionalContext"}} with the handoff and the project's feedback
memories (at most 10,000 characters, what Claude Code keeps: whole handoff sections by priority, naming
those left out), or nothing. post-compact (print mode only; interactive /compact fires none): records
the compaction's summary and what it lost; it prints nothing. turn-start (UserPromptSubmit) takes the session-memory lock for the main agent's turn,
held while the transcript grows (a crashed turn's hold lapses MEMD_TURN_TTL_MS, default 5 minutes,
after its last line); turn-end (Stop, SessionEnd) releases it, and a deferred extraction runs;
turn-failed (StopFailure: a turn ended by an API error) releases it at once and records why;
instructions-loaded (InstructionsLoaded) records which CLAUDE.md and rule files are in context, so
that memctl status can say which did not come back after a compaction. These hooks never start memd, wait at most 100 ms for it and print nothing,
except turn-start's recall: passages from other sessions and the project's memory that bear on the prompt, above a
relevance threshold and within recallPromptTokens (1,500; 0 turns it off), printed as additionalContext (at most 50 ms).
tool-failed (PostToolUseFailure): when the failed call's error was seen in another session, one short note of where and
what came after it there (the edits, the run that passed); recallFailure off turns it off. Always exits 0.
MEMD_HOOK_DEADLINE_MS overrides how long the other hooks wait for memd.`,
  'install-hooks': `usage: memctl install-hooks [--project] [--uninstall] [--dry-run] [--json]

Merges memd's hooks (PreCompact, SessionStart, PostCompact, UserPromptSubmit, Stop, SessionEnd,
StopFailure, InstructionsLoaded and PostToolUseFailure: memctl hook ...) into Claude
Code's settings.json (<claude root>/settings.json, or <project>/.claude/settings.json with
--project). Idempotent; every other hook and key is kept; the file is backed up first
(settings.json.bak-<time>; the newest 3 are kept). A file that is not valid JSON is refused, with where it breaks.
Only the events the running Claude Code knows are installed (\`claude --version\`; without a claude
on PATH, those of 2.1.197), since a version may refuse a settings file with an event it does not
know; memd's hooks of other events are taken out.
--uninstall removes memd's hooks only. --dry-run prints what would change.`,
  statusline: `usage: memctl statusline

Claude Code's statusLine command (memctl install-statusline sets it up): reads the session's JSON
on stdin and prints one line: a context bar with the % used of auto-compact (the % of the
window used, "context used", when Claude Code compacts only once the API refuses), tokens left,
compactions so far, how old the session memory is, and the session's cost. The figures are memd's
when it answers within 150 ms; else they come from Claude Code's own fields, marked "no memd".
Never starts memd, never writes to stderr, always exits 0. NO_COLOR turns colour off; COLUMNS
sets the width (segments drop, least useful first).`,
  'install-statusline': `usage: memctl install-statusline [--project] [--uninstall] [--dry-run] [--force] [--json]

Sets statusLine in Claude Code's settings.json (<claude root>/settings.json, or
<project>/.claude/settings.json with --project) to memctl statusline. Another status line command
is left in place (exit 1) with a command that shows both on one line; --force replaces it. The
file is backed up first; a file that is not valid JSON is refused. --uninstall removes memd's
status line only. --dry-run prints what would change.`,
  archive: `usage: memctl archive list [SESSION] [--limit N] [--json]
       memctl archive restore SESSION [--to DIR] [--device NAME] [--json]
       memctl archive verify [SESSION] [--json]
       memctl archive prune --older-than SPAN [--dry-run] [--json]
       memctl archive deleted [--since SPAN|TIME] [--limit N] [--json]
       memctl archive forget SESSION [--delete-transcripts] [--json]

memd keeps a gzipped copy of every transcript, its sub-agent transcripts and its persisted tool
results in its state dir (archive/<project>/<session>/), past Claude Code's cleanup of transcripts
older than cleanupPeriodDays. list shows the archived sessions ("only in the archive" when Claude
Code's file is gone). restore writes a session's files back byte for byte where Claude Code keeps
them (or under DIR), so that claude --resume SESSION works again; a different file already there is
never overwritten. verify inflates every archived file and compares it with its source where that
still exists (exit 1 on a problem). prune removes the archives of sessions last active before SPAN
(180d, 26w) for good. forget removes a session from everywhere memd keeps it (index, search,
archive, the session memory memd wrote); Claude Code's own files are deleted too only with
--delete-transcripts (else forget refuses while the transcript exists, as memd would read it again).
deleted lists the transcripts Claude Code deleted (its cleanup, claude project purge), newest first,
grouped by burst, each with what memd holds of it: kept, verified (the archive's copy holds every
byte memd had read and inflates whole), partly held, or not held (the archive was off, or the file
went before memd archived it); restore brings a kept session back. With sync (docs/sync.md),
restore also writes another machine's session here (--device NAME picks the machine when several
hold it), and forget reaches every machine: each forgets the session, Claude Code's copies too.`,
  sync: `usage: memctl sync status [--json]

What this machine shares through the sync folder (the syncDir setting; nothing leaves the machine
without it) and what the other machines shared: for this machine its device id and name, the
sessions, archive files and bytes mirrored into its subtree, files not mirrored yet and the
tombstones it carries; for each other machine its name, when its subtree was last seen here (this
machine's clock) and when it says it wrote its index (its own), its sessions, the files and bytes
decoded here, files still arriving, files that cannot be decoded, and "gone" once its subtree left
the folder (its sessions stay here). docs/sync.md says how to set up rsync, Syncthing or rclone.`,
  usage: `usage: memctl usage [--since 30d] [--until T] [--by day|week|month|block|project|model|device] [--project P] [--device D] [--timezone TZ] [--json]

Tokens (input, output, cache writes and reads) and cost at standard API prices, by local day (the
default), week (from Monday), month, 5-hour billing block, project, model or device, then a
sparkline of the cost per day. --by block shows the blocks as ccusage's blocks view counts them
(from the UTC hour of a block's first response, five hours; a gap after five idle hours) and, for
the active block, its burn rate and where it ends at that pace. Tokens are what Claude Code's transcripts
record (official); costs, rates and projections are memd's estimates. Figures are ccusage 20's daily,
weekly, monthly and blocks views of the same transcripts: an API response written as several entries, or copied into another
session's file, counts once with its largest usage. memd counts transcripts Claude Code has since
deleted too. --since and --until take a span back from now (30d: today and the 29 days before;
2w, 12h, 90m), a day (2026-03-01 or 20260301; --until includes it) or an ISO time; --since all
reaches back to the first day memd knows (default 30d). --project takes a project folder or its
cwd. With sync across machines (the syncDir setting), their sessions count too, each response
once on every machine: --by device shows each machine's share (DEVICE: its name, and this machine
marked), and --device takes a machine's name or id for its usage alone. Days are those of --timezone (an IANA zone), else of TZ, else of memd's own zone. A cost
marked * leaves out responses of models memd has no price for. --json prints the usage.report
result unchanged.`,
  search: `usage: memctl search QUERY [--project P] [--session S] [--since T] [--until T] [--kind K]... [--limit N] [--cursor C] [--json]
       memctl search --context SESSION:UUID [--near WORDS] [--before N] [--after N] [--json]

Searches every session memd has read: the prompts typed, the assistant's text, tool calls' commands,
paths and patterns, the key lines of failed calls, and the start of tool outputs (secrets of known
shapes redacted). QUERY of plain words is a question (memctl search how did we fix the flaky retry
timeout): sessions ranked by how much of it they hold, rare words weighing more, one hit per session,
its best passage. A single word or FTS5 syntax is exact: words joined by AND (all must match),
"a phrase", OR, NOT, prefix*, every matching line a hit; a word with punctuation (totals.js,
src/app.ts) is searched as a phrase. A query holds at most ${QUERY_LIMITS.words} words,
${QUERY_LIMITS.prefixes} prefix* words, ${QUERY_LIMITS.nearPhrases} phrases in one NEAR and ${QUERY_LIMITS.orBranches} OR alternatives, and runs for at most
searchDeadlineMs (2 s) before it is stopped: split a bigger one into several searches. Hits are ranked by relevance with a
boost for recent ones and grouped by session with its title; each ends with the --context
reference that prints the messages around it, on whatever compaction segment or branch it is (and
--near its first matched word: a long message is shown around it, else by its head and tail;
terminal escapes are left out). --project takes a project folder or its cwd;
--since and --until an ISO time or a span back from now (7d, 12h, 30m); --kind one of prompt,
assistant, tool, error, output, write (what Write and Edit wrote: path and the file's start),
thinking, memd (repeatable). memd is memd's own traffic (its MCP tools' calls
and answers, Reads of its handoff and session memory, the context its SessionStart hook gave): left
out unless --kind memd asks for it. Run inside a Claude Code session (CLAUDE_CODE_SESSION_ID), that
session's turn in flight is never a hit, nor any session's whose turn hooks hold it open.
A page says whether it holds every hit; when more
exist it ends with the same command and a --cursor that goes on from where it stopped, so that
following it walks every match once. A page cut by its time budget (checking a phrase in a large
session) is followed for up to 10 s before it is printed. --json prints the search.query /
search.context result.`,
  export: `usage: memctl export SESSION [--format md|html|jsonl] [--out FILE] [--no-redact] [--json]

Exports a session (its id, or any unique prefix of it):
  --format md     the conversation as markdown: prompts, the assistant's text, each tool call
                  folded in <details> with its input and output, compactions marked (default)
  --format html   one self-contained HTML report that opens offline (no script, no URL): the
                  conversation with tool calls collapsible, a chart of context tokens per response
                  with the auto-compact threshold (or the window) and each compaction, cost by model, cache hit
                  rate, files touched and failed tool calls
  --format jsonl  the main transcript byte for byte as Claude Code wrote it (sub-agent transcripts
                  are files of their own and are not included)
  --no-redact     md and html keep secrets of known shapes (keys, tokens, passwords, private key
                  blocks) as they are; by default each is replaced by [redacted <kind>]. jsonl is
                  never redacted
Tool outputs are cut to 2,000 characters in md and html, and a very large conversation is cut after
8,000,000 characters (each cut says so). The export goes to stdout, or with --out to FILE, which is
written atomically (mode 0644) and never through a symlink; --json then prints
{sessionId, format, path, bytes, pages}.`,
  mcp: `usage: memctl mcp [--no-autostart]

memd's MCP server, speaking MCP over stdin and stdout, for Claude Code to start (memctl install-mcp
registers it). Its tools: recall (a question in plain words: the best passage of each past
session), search_sessions (exact full-text search over every session), session_context (the
messages around a hit), session_memory (a session's summary.md), handoff (the project's
docs/handoff-context.md), list_sessions (the project's sessions), project_memory (the project's
memory files: list, read, write) and usage_status (the forecasts of auto-compact and the limits). Each answer is compact text of at most 20,000 characters (about
5,000 tokens) that says how to get the rest. The project is the directory it runs in. It starts the
daemon when none answers, unless --no-autostart; a tool call that memd cannot answer gets an error
result, never a failed server. Exits when stdin closes.`,
  'install-mcp': `usage: memctl install-mcp [--project] [--uninstall] [--dry-run] [--json]

Registers memctl mcp with Claude Code as the MCP server "memd" (its tools are mcp__memd__*):
{"type": "stdio", "command": <this node>, "args": [<memctl>, "mcp"], "env": {}} under mcpServers in
Claude Code's user config (<CLAUDE_CONFIG_DIR>/.claude.json, else ~/.claude.json), or with --project
in the project's .mcp.json (Claude Code asks to approve it once). Only mcpServers.memd changes; an
older memd entry is updated in place. Idempotent; the file is backed up first (.bak-<time>; the newest 3
are kept); a file that is not valid JSON is refused. --uninstall removes mcpServers.memd only. --dry-run prints what
would change.`,
  start: `usage: memctl start

Starts the daemon when none answers (systemctl --user start memd.socket where the user units are
installed and a user systemd runs, else a detached memd), then prints its pid.`,
  stop: `usage: memctl stop

Asks the daemon to shut down gracefully (daemon.shutdown) and waits until its process is gone:
at most its shutdown deadline (shutdownDeadlineMs, 10 s) and 2 s more. Exits 1 when it did not go
in time, or when a process holds memd's lock without answering. Under systemd socket activation
the socket stays and the next client starts memd again.`,
  watch: `usage: memctl watch [--json]

Shows the sessions table and redraws it live as sessions change (on a terminal); otherwise, and
with --json, prints each notification as it arrives, one per line.`,
  call: `usage: memctl call METHOD [JSON]

Calls METHOD with the JSON object given as params (default {}) and prints the result as JSON.
Example: memctl call daemon.status '{}'`,
  doctor: `usage: memctl doctor

Checks: node version; the state and socket dirs exist, are yours and are 0700; the socket answers
(when it does not: what will start memd, the systemd unit or the SessionStart hook); the database
passes its integrity check; the projects dir exists; the systemd units, hooks and status line are
this memd's; memd's MCP server is registered (~/.claude.json, the project's .mcp.json) with a
memctl that exists. Exits 0 when every check passes, else 1.`,
  'install-service': `usage: memctl install-service [--dry-run]

Writes memd.socket and memd.service to ~/.config/systemd/user/ with the absolute paths of this
node and memd filled in, then runs systemctl --user daemon-reload and enable --now memd.socket.
Where systemctl --user does not work, it prints the steps instead. --dry-run prints the units only.`,
};
