/**
 * The report's stylesheet, inlined into every report. System fonts only: a report must look the
 * same offline, and load nothing.
 */
export const REPORT_CSS = `
:root { --ink: #1d2330; --muted: #667085; --line: #e4e7ec; --paper: #ffffff; --wash: #f6f7f9;
  --accent: #3b5bdb; --accent-wash: #edf1ff; --bad: #c92a2a; --bad-wash: #fff1f1; --warn: #e8590c; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1000px; padding: 32px 24px 64px; color: var(--ink); background: var(--wash);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
code, pre, time, .meta dd { font-family: ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
h1 { font-size: 26px; line-height: 1.25; margin: 4px 0 16px; }
h2 { font-size: 17px; margin: 0 0 12px; }
h4 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 12px 0 4px; }
section, header.top { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 20px 24px; margin: 0 0 16px; }
.eyebrow { margin: 0; color: var(--accent); font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: .06em; }
.meta { display: grid; grid-template-columns: repeat(auto-fill, minmax(400px, 1fr)); gap: 6px 24px; margin: 0; }
.meta div { display: flex; gap: 10px; min-width: 0; }
.meta dt { color: var(--muted); width: 96px; flex: none; }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(120px, 1fr)); gap: 12px; background: none; border: 0; padding: 0; }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.card span { display: block; color: var(--muted); font-size: 12px; }
.card strong { font-size: 20px; }
.chart { margin: 0; }
.chart svg { width: 100%; height: auto; display: block; }
.chart .grid { stroke: var(--line); stroke-width: 1; }
.chart .axis { fill: var(--muted); font-size: 11px; }
.chart .axis-line { stroke: #98a2b3; stroke-width: 1; }
.chart .context-line { fill: none; stroke: var(--accent); stroke-width: 2; stroke-linejoin: round; }
.chart .context-area { fill: var(--accent-wash); }
.chart .context-dot { fill: var(--paper); stroke: var(--accent); stroke-width: 1.5; }
.chart .threshold { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 6 4; }
.chart .threshold-label { fill: var(--bad); font-size: 11px; font-weight: 600; }
.chart .compaction { stroke: var(--warn); stroke-width: 2; stroke-dasharray: 2 3; }
.chart .compaction-band { fill: var(--warn); fill-opacity: 0.15; stroke: var(--warn); stroke-opacity: 0.6; stroke-width: 1; }
.chart .compaction-label { fill: var(--warn); font-size: 11px; font-weight: 600; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 8px; }
.key { display: inline-block; width: 18px; height: 0; vertical-align: middle; margin: 0 4px 0 12px; border-top: 2px solid var(--accent); }
.key.line { margin-left: 0; }
.key.threshold { border-top: 2px dashed var(--bad); }
.key.compaction { width: 0; height: 14px; border-top: 0; border-left: 2px dotted var(--warn); }
table { width: 100%; border-collapse: collapse; font-size: 14px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
tfoot th, tfoot td { border-bottom: 0; font-weight: 600; color: var(--ink); }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td code { overflow-wrap: anywhere; }
.note, .muted { color: var(--muted); font-size: 13px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.pair section { margin: 0 0 16px; min-width: 0; }
@media (max-width: 760px) { .pair { grid-template-columns: 1fr; } }
.errors { list-style: none; margin: 0; padding: 0; }
.errors li { padding: 8px 0; border-bottom: 1px solid var(--line); }
.errors li:last-child { border-bottom: 0; }
pre { margin: 0; padding: 10px 12px; background: var(--wash); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 480px; overflow: auto; }
pre.bad { background: var(--bad-wash); color: var(--bad); }
.msg { margin: 14px 0; }
.msg header { display: flex; gap: 10px; align-items: baseline; margin-bottom: 4px; }
.msg .who { font-weight: 700; font-size: 13px; }
.msg.user .who { color: var(--accent); }
.msg .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.user .text { background: var(--accent-wash); border-radius: 8px; padding: 10px 14px; }
time { color: var(--muted); font-size: 12px; margin-left: 8px; }
details { margin: 6px 0; border: 1px solid var(--line); border-radius: 8px; background: var(--paper); }
details > summary { cursor: pointer; padding: 6px 12px; list-style-position: inside; overflow-wrap: anywhere; }
details[open] > summary { border-bottom: 1px solid var(--line); }
details .io, details > pre, details > .cut { margin: 10px 12px; }
details.failed { border-color: #f1b0b0; }
details.thinking > summary, details.summary > summary { color: var(--muted); font-style: italic; }
.tool-name { font-weight: 600; }
summary code { color: #475467; }
.badge { display: inline-block; font-size: 11px; font-weight: 600; padding: 0 6px; border-radius: 8px; margin-left: 6px; }
.badge.bad { background: var(--bad-wash); color: var(--bad); }
.badge.muted { background: var(--wash); color: var(--muted); }
.compaction-marker { display: flex; align-items: center; gap: 12px; margin: 20px 0; color: var(--warn); font-size: 13px; font-weight: 600; }
.compaction-marker::before, .compaction-marker::after { content: ""; flex: 1; border-top: 2px dotted var(--warn); }
.cut { color: var(--muted); font-size: 12px; font-style: italic; }
footer { color: var(--muted); font-size: 12px; text-align: center; margin-top: 24px; }
`;
