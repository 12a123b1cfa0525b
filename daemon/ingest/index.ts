/**
 * What other folders use of ingest; every other file of ingest/ is its own, free to move and split
 * (test/architecture/faces.test.ts holds them to it). main.ts builds the parser and the ingest part
 * (ingestor and watcher), subscribes its reactions and the followers of the index (the search
 * index's build, the archive and the usage book implement IndexFollower); sessions keeps its aggregates in ingest's commits
 * (CommitObserver); the search index builder reads lines with ingest's own parser, so that its
 * texts are those ingest indexes; the archive asks whether an open file is still the one indexed.
 * The snippet reader, in search processes, takes a line's texts from search-line.ts instead: this
 * face loads all of ingest, chokidar included.
 */
export { ChunkParser } from './chunk-parser.js';
export { isSameFile } from './file-identity.js';
export { followIndex, type IndexFollower } from './followers.js';
export { createIngestParser, type Ingestor } from './ingestor.js';
export type { LineParser } from './parser.js';
export { buildIngest, type IngestPart } from './part.js';
export { rereadOnRebuild } from './reactions.js';
export { scanTranscripts } from './scan.js';
export { DEFAULT_MAX_LINE_BYTES } from './tailer.js';
export type { CommitObserver } from './types.js';
