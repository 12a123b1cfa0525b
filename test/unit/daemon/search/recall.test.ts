import { describe, expect, it } from 'vitest';
import type { SearchFilter } from '../../../../daemon/search/query.js';
import { recallPassages } from '../../../../daemon/search/recall.js';

type Hits = Awaited<ReturnType<Parameters<typeof recallPassages>[0]['hits']>>;
type Hit = Hits['hits'][number];

const hit = (over: Partial<Hit>): Hit => ({
  fileId: 1,
  offset: 0,
  kind: 'prompt',
  score: 12.3456,
  sessionId: 's1',
  project: '-home-user-src-shop',
  projectName: 'shop',
  path: '/p/s1.jsonl',
  uuid: 'u1',
  timestamp: '2026-03-02T09:00:00.000Z',
  length: 10,
  gone: false,
  snippet: 'the «flaky» «retry» test',
  coverage: 0.75,
  title: 'Fix the retry',
  ...over,
});

describe('recallPassages (issue 33)', () => {
  it('asks a question with its scope and exclusions, and gives passages that say where they are', async () => {
    let asked: SearchFilter | undefined;
    const search = {
      hits: async (filter: SearchFilter): Promise<Hits> => {
        asked = filter;
        return {
          hits: [hit({}), hit({ sessionId: 's2', uuid: null }), hit({ sessionId: 's3', snippet: null })],
          nextCursor: null,
          partial: false,
        };
      },
    };
    const passages = await recallPassages(search, {
      question: 'how did we fix the "flaky" retry?',
      project: '/home/user/src/shop',
      excludeSessions: ['s9'],
      limit: 3,
    });
    expect(asked).toMatchObject({
      query: 'how did we fix the "flaky" retry?',
      question: true,
      limit: 3,
      excludeSessions: ['s9'],
      project: '/home/user/src/shop',
    });
    expect(passages).toEqual([
      {
        sessionId: 's1',
        title: 'Fix the retry',
        project: '-home-user-src-shop',
        projectName: 'shop',
        timestamp: '2026-03-02T09:00:00.000Z',
        text: 'the flaky retry test',
        score: 12.346,
        coverage: 0.75,
        ref: 's1:u1',
        field: 'prompt',
      },
    ]);
  });
});
