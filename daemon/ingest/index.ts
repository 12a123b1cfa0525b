/**
 * What other folders use of ingest; every other file of ingest/ is its own, free to move and split
 * (test/architecture/faces.test.ts holds them to it). main.ts builds the parser, the ingestor and
 * the watcher, and scans the tree; sessions keeps its aggregates in ingest's commits
 * (CommitObserver); the search index builder reads lines with ingest's own parser, so that its
 * texts are those ingest indexes; the archive asks whether an open file is still the one indexed.
 * The snippet reader, in search processes, takes a line's texts from search-line.ts instead: this
 * face loads all of ingest, chokidar included.
 */
export { ChunkParser } from './chunk-parser.js';
export { isSameFile } from './file-identity.js';
export { createIngestor, createIngestParser, type Ingestor } from './ingestor.js';
export type { LineParser } from './parser.js';
export { scanTranscripts } from './scan.js';
export { DEFAULT_MAX_LINE_BYTES } from './tailer.js';
export type { CommitObserver } from './types.js';
export { createWatcher } from './watcher.js';
