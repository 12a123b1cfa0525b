/**
 * The recall benchmark's questions (issue 33, docs/recall.md "The benchmark"): for every third
 * session of the corpus, one question about one of its facts, asked as a user or an agent types it
 * (synonyms, other word order, question words, partial names, an error line seen again with other
 * numbers), with its answer sessions: every session holding a fact of the same kind that agrees on
 * the fields the question names. And prompts that no session answers (for the recall hooks:
 * nothing should be injected for them).
 */

import { PROJECTS, RECALL_SEED, RECALL_SESSIONS, recallSessions } from './recall-corpus.mjs';
import { plural } from './recall-facts.mjs';

/** One question per this many sessions: 1,200 sessions give 400 questions (fewer when two ask the same). */
export const QUESTION_EVERY = 3;
/** A question with more answer sessions than this is too easy to tell ranking apart: another shape is asked. */
const MAX_ANSWERS = 5;
const words = (identifier) => identifier.replace(/[_-]+/g, ' ');

/**
 * The question shapes by fact kind (fixes by family): the fields a question names (its answers
 * agree on them) and its text. `n` varies what the question says without changing what it asks.
 */
const TEMPLATES = {
  timeout: [
    { keys: ['area', 'noun', 'verb'], text: (f) => `how did we fix the ${f.verbIng} ${f.noun} timeouts in ${f.area}?` },
    { keys: ['op'], text: (f, n) => `${f.op} timed out after ${f.ms * 2 + n}ms again, seen this before?` },
    { keys: ['op'], text: (f) => `what did we change so ${f.op} stops timing out` },
  ],
  flaky: [
    { keys: ['test'], text: (f) => `how did we fix the flaky ${f.behaviour} test for ${plural(f.noun)}?` },
    { keys: ['test'], text: (f) => `why did ${f.test} only break some of the time` },
    {
      keys: ['area', 'noun', 'cause'],
      text: (f) => `which ${f.flakeSyn} ${f.noun} spec in ${f.area} did we stabilise?`,
    },
  ],
  refused: [
    {
      keys: ['project', 'service'],
      text: (f) => `the ${f.area} ${f.kind} couldn't reach ${f.service} on my laptop, what was the fix?`,
    },
    { keys: ['port'], text: (f) => `connection refused on ${f.port} when booting locally, how did we solve it` },
  ],
  undefinedProp: [
    { keys: ['fn'], text: (f) => `why did ${f.fn} blow up on old ${plural(f.noun)}?` },
    { keys: ['fn', 'prop'], text: (f) => `${f.fn} throws on a missing ${f.prop}` },
  ],
  missingModule: [
    { keys: ['area', 'pkg'], text: (f) => `which ${f.area} service was missing the ${f.pkg} dependency?` },
    { keys: ['module'], text: (f) => `No module named ${f.module} on startup, did we hit this before?` },
  ],
  duplicateKey: [
    {
      keys: ['table', 'column'],
      text: (f) => `how did we stop duplicate ${f.noun} rows by ${words(f.column)} from breaking inserts?`,
    },
    { keys: ['table', 'column'], text: (f) => `unique violation ${f.table}_${f.column}_key, what fixed it` },
  ],
  throttled: [
    {
      keys: ['vendor', 'noun', 'verb'],
      text: (f) => `how did we stop ${f.vendor} rate limiting our ${f.noun} ${f.verbIng}?`,
    },
    { keys: ['op'], text: (f) => `${f.op} was being rate limited by ${f.vendor}, what did we do about it` },
  ],
  edit: [
    { keys: ['config', 'slot'], text: (f) => `where did I last tweak the ${f.configSyn} for ${f.slot}?` },
    { keys: ['config', 'slot'], text: (f) => `which session bumped ${words(f.setting)} to ${f.to} for ${f.slot}` },
    { keys: ['config', 'slot'], text: (f) => `when did we bump the ${f.config} of ${f.slot} up from ${f.from}?` },
  ],
  library: [
    {
      keys: ['project', 'purpose', 'noun'],
      text: (f) =>
        `which library did we settle on for ${f.purposeSyn} of ${plural(f.noun)} in the ${f.area} ${f.kind}?`,
    },
    {
      keys: ['area', 'purpose', 'alt', 'noun'],
      text: (f) => `why did we pass on ${f.alt} for the ${f.area} ${plural(f.noun)}?`,
    },
    { keys: ['lib', 'purpose'], text: (f) => `which project picked ${f.lib} for ${f.purposeSyn}?` },
  ],
  secret: [
    {
      keys: ['area', 'name', 'env'],
      text: (f) => `which ${f.area} project had its ${f.vendor} ${f.words} rotated in ${f.env}?`,
    },
    {
      keys: ['project', 'name'],
      text: (f) => `when did we roll the ${words(f.name).toLowerCase()} for ${f.area} ${f.kind}?`,
    },
  ],
  command: [
    {
      keys: ['project', 'what', 'env', 'noun'],
      text: (f) => `when did we ${f.syn} for ${f.area} ${f.kind} ${f.noun} on ${f.env}?`,
    },
    {
      keys: ['project', 'what', 'env', 'noun'],
      text: (f) => `remind me when the ${f.env} ${f.what} for ${f.project} ${plural(f.noun)} was done`,
    },
  ],
};

/**
 * The same facts asked in other words, written after the ranking was tuned on TEMPLATES and never
 * tuned on (MEMD_RECALL_SET=held-out): how far the ranking's figures hold for phrasings it was not
 * fitted to.
 */
const HELD_OUT_TEMPLATES = {
  timeout: [
    { keys: ['op'], text: (f) => `${f.op} keeps hanging until it gives up after ${f.ms}ms, what did we do about it?` },
    {
      keys: ['area', 'noun', 'verb'],
      text: (f) => `the ${f.area} ${f.noun} ${f.verbIng} job kept running out of time`,
    },
  ],
  flaky: [
    { keys: ['test'], text: (f) => `${f.test} was intermittent on CI, what was the root cause?` },
    {
      keys: ['area', 'noun', 'cause'],
      text: (f) => `the ${f.noun} test in ${f.area} failed at random because of ${f.cause}, where did we sort it out?`,
    },
  ],
  refused: [
    { keys: ['project', 'service'], text: (f) => `${f.area} ${f.kind} cannot connect to ${f.service} in local dev` },
    { keys: ['port'], text: (f) => `port ${f.port} refuses connections at startup, what did we do` },
  ],
  undefinedProp: [
    { keys: ['fn'], text: (f) => `${f.fn} crashed with undefined on legacy ${plural(f.noun)}` },
    { keys: ['fn', 'prop'], text: (f) => `TypeError reading ${f.prop} inside ${f.fn}, seen it before?` },
  ],
  missingModule: [
    { keys: ['area', 'pkg'], text: (f) => `the ${f.area} image would not boot because ${f.pkg} was not installed` },
    { keys: ['module'], text: (f) => `ImportError for ${f.module} when the container starts` },
  ],
  duplicateKey: [
    {
      keys: ['table', 'column'],
      text: (f) => `inserting the same ${f.noun} twice broke the ${words(f.column)} constraint on ${f.table}`,
    },
  ],
  throttled: [
    {
      keys: ['vendor', 'noun', 'verb'],
      text: (f) => `${f.vendor} kept answering 429 when ${f.verbIng} ${plural(f.noun)}, how did we slow down?`,
    },
    { keys: ['op'], text: (f) => `too many requests errors in ${f.op}` },
  ],
  edit: [
    { keys: ['config', 'slot'], text: (f) => `what is the ${f.config} for ${f.slot} set to now?` },
    { keys: ['config', 'slot'], text: (f) => `${words(f.setting)} for ${f.slot} was changed from ${f.from}, where?` },
  ],
  library: [
    {
      keys: ['project', 'purpose', 'noun'],
      text: (f) => `what did ${f.project} end up using for ${f.purpose} in the ${f.noun} module?`,
    },
    { keys: ['lib', 'purpose'], text: (f) => `where did we go with ${f.lib} for ${f.purpose}?` },
  ],
  secret: [
    { keys: ['project', 'name'], text: (f) => `${f.name} of ${f.project} leaked, when was it replaced?` },
    { keys: ['area', 'name', 'env'], text: (f) => `a new ${f.vendor} ${f.words} for ${f.area} on ${f.env}` },
  ],
  command: [
    {
      keys: ['project', 'what', 'env', 'noun'],
      text: (f) => `did anyone run the ${f.what} of ${f.project} ${plural(f.noun)} on ${f.env}?`,
    },
  ],
};

/** The kinds asked about in turn: fixes most, as the errors met are what recall is most asked for. */
const ASKED_KINDS = ['fix', 'edit', 'fix', 'library', 'secret', 'fix', 'command'];

/** The session's fact of the n-th kind in turn, or of the next kind it has. */
function factToAsk(session, n) {
  for (let turn = 0; turn < ASKED_KINDS.length; turn++) {
    const kind = ASKED_KINDS[(n + turn) % ASKED_KINDS.length];
    const fact = session.facts.find((candidate) => candidate.kind === kind);
    if (fact !== undefined) return fact;
  }
  return session.facts[0];
}

/** A fact's fields with its project's: what templates read and what answers agree on. */
function fieldsOf(fact) {
  const project = PROJECTS.find((candidate) => candidate.slug === fact.project);
  return { ...fact.fields, project: fact.project, area: project.area, kind: project.kind };
}

const shapeOf = (fact) => (fact.kind === 'fix' ? fact.family : fact.kind);

/** Every session whose facts include one of the same shape agreeing on `keys`. */
function answersOf(sessions, fact, keys) {
  const wanted = fieldsOf(fact);
  return sessions
    .filter((session) =>
      session.facts.some(
        (other) => shapeOf(other) === shapeOf(fact) && keys.every((key) => fieldsOf(other)[key] === wanted[key]),
      ),
    )
    .map((session) => session.sessionId);
}

/**
 * The questions over `sessions` (recallSessions'): `{id, text, shape, answers, from}`, `from` the
 * session the question was made from (always among `answers`). `heldOut`: in the held-out words.
 */
export function recallQuestions(sessions, { heldOut = false } = {}) {
  const shapes = heldOut ? HELD_OUT_TEMPLATES : TEMPLATES;
  const questions = [];
  for (let index = 0; index < sessions.length; index += QUESTION_EVERY) {
    const session = sessions[index];
    const n = index / QUESTION_EVERY;
    const fact = factToAsk(session, n);
    const templates = shapes[shapeOf(fact)];
    const first = Math.floor(n / ASKED_KINDS.length);
    // The first shape in turn whose answers are few (the last one tried when none is).
    let asked;
    for (let turn = 0; turn < templates.length; turn++) {
      const template = templates[(first + turn) % templates.length];
      asked = { template, answers: answersOf(sessions, fact, template.keys) };
      if (asked.answers.length <= MAX_ANSWERS) break;
    }
    const text = asked.template.text(fieldsOf(fact), n % 7);
    // The same question made from another session with the same fact: asked once.
    if (questions.some((question) => question.text === text)) continue;
    questions.push({
      id: `q${String(questions.length + 1).padStart(3, '0')}`,
      text,
      shape: shapeOf(fact),
      answers: asked.answers,
      from: session.sessionId,
    });
  }
  return questions;
}

const UNRELATED_ASKS = [
  'Write a haiku about',
  'Explain to a child how',
  'Sketch a Godot scene where',
  'Draft a wedding toast mentioning',
  'Plan a weekend hike around',
  'Give me a sourdough timetable for',
  'Hum a lullaby for',
  'Suggest names for a cat that likes',
  'Summarize the history of',
  'Outline a watercolor lesson on',
  'Describe a board game based on',
  'Translate into French a note about',
];
const UNRELATED_TOPICS = [
  'autumn leaves drifting over a pond',
  'owls hunting at dusk',
  'the Roman aqueducts',
  'knitting a striped scarf',
  'a lighthouse keeper and her dog',
  'tidal pools on a rocky shore',
  'beekeeping through winter',
  'folding paper cranes',
  'volcanoes of Iceland',
  'a picnic under cherry blossoms',
];

/** Prompts no session of the corpus answers: hobbies, history, art (120 of them). */
export function unrelatedPrompts() {
  const prompts = [];
  for (const ask of UNRELATED_ASKS) for (const topic of UNRELATED_TOPICS) prompts.push(`${ask} ${topic}`);
  return prompts;
}

/**
 * What the recall hooks are measured with (issue 33 items 3 and 4): the benchmark's corpus, its
 * questions as prompts with their answer sessions, and prompts no session answers.
 */
export function recallPrompts({ sessions = RECALL_SESSIONS, seed = RECALL_SEED } = {}) {
  const corpus = recallSessions({ sessions, seed });
  return {
    sessions: corpus,
    related: recallQuestions(corpus).map((question) => ({ prompt: question.text, answers: question.answers })),
    unrelated: unrelatedPrompts(),
  };
}
