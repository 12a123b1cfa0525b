/** Okapi BM25 over whole documents (`{id, text}`); the returned function ranks their ids for a question, best first. */
export function bm25Ranker(documents: readonly { id: string; text: string }[]): (question: string) => string[];
