/**
 * A reference ranking for the recall benchmark (issue 33): Okapi BM25 over each session's indexed
 * text as one document (every search text of every line, split as unicode61 splits words, no
 * stemming), the question's content words as the query, computed in-process. Not memd's ranking:
 * a yardstick that says the questions can be answered from the words the index holds, and what a
 * textbook ranking of whole sessions gets on them.
 */
import { contentWords, wordsOf } from './recall-measure.mjs';

/** BM25's usual constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

/** `documents`: `{id, text}`. Returns a function giving a question's text the ids ranked, best first. */
export function bm25Ranker(documents) {
  const docs = documents.map(({ id, text }) => {
    const tf = new Map();
    const words = wordsOf(text);
    for (const word of words) tf.set(word, (tf.get(word) ?? 0) + 1);
    return { id, tf, length: words.length };
  });
  const averageLength = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, docs.length);
  const df = new Map();
  for (const doc of docs) for (const word of doc.tf.keys()) df.set(word, (df.get(word) ?? 0) + 1);
  const idf = (word) => Math.log(1 + (docs.length - df.get(word) + 0.5) / (df.get(word) + 0.5));
  return (question) => {
    const words = contentWords(question).filter((word) => df.has(word));
    return docs
      .map((doc) => {
        let score = 0;
        for (const word of words) {
          const f = doc.tf.get(word);
          if (f !== undefined)
            score += (idf(word) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / averageLength));
        }
        return { id: doc.id, score };
      })
      .filter((ranked) => ranked.score > 0)
      .sort((a, b) => b.score - a.score)
      .map((ranked) => ranked.id);
  };
}
