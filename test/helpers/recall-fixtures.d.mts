import type { RecallQuestion } from './recall-questions.mjs';

export const FIXTURES_DIR: string;
export function fixtureScenarios(): { scenario: string; sessionId: string; transcript: string }[];
export function fixtureQuestions(): RecallQuestion[];
export function writeFixtureSessions(projectsDir: string): void;
