/**
 * The facts of the recall benchmark's sessions (issue 33): a fix (the error line and the edit or
 * command that fixed it), a config edited where, a library chosen over another, a secret rotated,
 * a command run. Each fact carries the texts its session's transcript says it with, and the fields
 * a question may name (`keys`): two facts with the same values there answer the same question.
 */
import {
  COMMANDS,
  CONFIGS,
  ENVS,
  FLAKES,
  LIBRARIES,
  PROPS,
  PY_MODULES,
  SECRETS,
  SERVICES,
  VERBS,
} from './recall-vocabulary.mjs';

export const pick = (random, items) => items[Math.floor(random() * items.length)];
/** English plurals of the vocabulary's nouns: `query` → `queries`, `sms` → `smses`. */
export function plural(noun) {
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  if (/(s|sh|ch|x)$/.test(noun)) return `${noun}es`;
  return `${noun}s`;
}
const cap = (word) => word[0].toUpperCase() + word.slice(1);
const upper = (camel) => camel.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
const snake = (camel) => camel.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

/** A source file of the project for a module and a stem, in the project's language. */
function sourceFile(project, noun, stem) {
  return project.lang === 'py' ? `src/${plural(noun)}/${snake(stem)}.py` : `src/${plural(noun)}/${stem}.${project.ext}`;
}

const BEHAVIOURS = [
  'rounds_totals',
  'expires_on_time',
  'retries_twice',
  'dedupes_events',
  'sorts_by_date',
  'skips_empty_batch',
];
const FN_SUFFIXES = ['Summary', 'Payload', 'Row', 'Preview'];
const COLUMNS = ['external_id', 'email', 'idempotency_key', 'slug', 'reference'];
const TIMEOUTS_MS = [2000, 3000, 5000, 8000, 10000, 15000];

/** The fixes: each gives an error line, what fixed it, and the session's words for both. */
const FIXES = {
  timeout(project, random) {
    const noun = pick(random, project.nouns);
    const verb = pick(random, VERBS);
    const op = `${verb.verb}${cap(noun)}`;
    const ms = pick(random, TIMEOUTS_MS);
    const file = sourceFile(project, noun, op);
    return {
      family: 'timeout',
      id: op,
      fields: { op, noun, verb: verb.verb, verbSyn: verb.syn, verbIng: verb.ing, ms },
      request: `The ${verb.verb} ${noun} step in the ${project.area} ${project.kind} keeps failing in CI, please look.`,
      error: `TimeoutError: ${op} timed out after ${ms}ms (attempt 3 of 3)`,
      edit: {
        file,
        code: `export const ${upper(op)}_TIMEOUT_MS = ${ms * 3};\nexport const ${op}Backoff = { retries: 5, factor: 2, minTimeoutMs: 250 };`,
      },
      summary: `Fixed: ${op} was timing out under load. I raised ${upper(op)}_TIMEOUT_MS from ${ms} to ${ms * 3} in ${file} and wrapped the ${noun} call in exponential backoff (5 retries, factor 2). The suite passes now.`,
    };
  },
  flaky(project, random) {
    const noun = pick(random, project.nouns);
    const behaviour = pick(random, BEHAVIOURS);
    const flake = pick(random, FLAKES);
    const test = `test_${noun}_${behaviour}`;
    const file = project.lang === 'py' ? `tests/test_${noun}.py` : `src/${plural(noun)}/${noun}.test.${project.ext}`;
    return {
      family: 'flaky',
      id: test,
      fields: { test, noun, behaviour: behaviour.replaceAll('_', ' '), cause: flake.cause, flakeSyn: flake.syn },
      request: `${test} fails about one run in five on CI, find out why.`,
      error: `FAILED ${file}::${test} - AssertionError: expected 2 to equal 3`,
      edit: { file, code: `// ${test} depended on ${flake.cause}\n${flake.code}` },
      summary: `Fixed the flaky ${test}: it depended on ${flake.cause}, so I ${flake.fix} in ${file}. It passed 50 runs in a row.`,
    };
  },
  refused(project, random) {
    const service = pick(random, SERVICES);
    return {
      family: 'refused',
      id: service.service,
      fields: { service: service.service, port: service.port, env: service.env },
      request: `Running the ${project.area} ${project.kind} locally fails at startup, can you see why?`,
      error: `Error: connect ECONNREFUSED 127.0.0.1:${service.port}`,
      command: `docker compose up -d ${service.service}`,
      edit: { file: '.env.example', code: `${service.env}=${service.service}://localhost:${service.port}` },
      summary: `Fixed: ${service.service} was not running, so the ${project.slug} could not connect on port ${service.port}. Started it with docker compose and documented ${service.env} in .env.example.`,
    };
  },
  undefinedProp(project, random) {
    const noun = pick(random, project.nouns);
    const prop = pick(random, PROPS);
    const fn = `build${cap(noun)}${pick(random, FN_SUFFIXES)}`;
    const file = sourceFile(project, noun, fn);
    return {
      family: 'undefinedProp',
      id: `${fn}.${prop}`,
      fields: { fn, prop, noun },
      request: `The ${noun} page crashes for some old accounts in ${project.slug}, fix it.`,
      error: `TypeError: Cannot read properties of undefined (reading '${prop}') at ${fn} (${file}:${40 + Math.floor(random() * 200)}:17)`,
      edit: { file, code: `const ${prop} = ${noun}?.${prop} ?? DEFAULT_${upper(prop)};` },
      summary: `Fixed: ${fn} crashed when the ${noun} had no ${prop} (rows imported before 2024 leave it out). Guarded it with optional chaining and a default in ${file}.`,
    };
  },
  missingModule(project, random) {
    const mod = pick(random, PY_MODULES);
    return {
      family: 'missingModule',
      id: mod.module,
      fields: { module: mod.module, pkg: mod.pkg },
      request: `The ${project.slug} container dies right after it starts, have a look.`,
      error: `ModuleNotFoundError: No module named '${mod.module}'`,
      command: `pip install ${mod.pkg} && pip freeze | grep -i ${mod.pkg} >> requirements.txt`,
      summary: `Fixed: the ${project.slug} image lacked ${mod.pkg}. Installed it and pinned it in requirements.txt; the container starts now.`,
    };
  },
  duplicateKey(project, random) {
    const noun = pick(random, project.nouns);
    const column = pick(random, COLUMNS);
    const table = `${plural(noun)}`;
    const file = `db/queries/${table}.sql`;
    return {
      family: 'duplicateKey',
      id: `${table}.${column}`,
      fields: { table, column, noun },
      request: `Inserts into ${table} started failing after the webhook change, what happened?`,
      error: `psycopg.errors.UniqueViolation: duplicate key value violates unique constraint "${table}_${column}_key"`,
      edit: {
        file,
        code: `INSERT INTO ${table} (${column}, payload) VALUES ($1, $2)\nON CONFLICT (${column}) DO NOTHING;`,
      },
      summary: `Fixed: retried webhooks inserted the same ${noun} twice. The insert in ${file} is now an upsert on ${column}.`,
    };
  },
  throttled(project, random) {
    const noun = pick(random, project.nouns);
    const verb = pick(random, VERBS);
    const op = `${verb.verb}${cap(noun)}`;
    const file = sourceFile(project, noun, 'rateLimiter');
    return {
      family: 'throttled',
      id: op,
      fields: { op, noun, verb: verb.verb, verbIng: verb.ing, vendor: project.vendor },
      request: `We get a burst of errors from ${project.vendor} every morning in ${project.slug}.`,
      error: `HTTPError: 429 Too Many Requests from ${project.vendor} API (${op})`,
      edit: { file, code: `export const ${op}Bucket = new TokenBucket({ capacity: 20, refillPerSecond: 5 });` },
      summary: `Fixed: ${op} (${verb.ing} ${plural(noun)}) sent bursts that ${project.vendor} throttled with 429s. Added a token bucket (20 capacity, 5 per second) in ${file}.`,
    };
  },
};
export const FIX_FAMILIES = Object.keys(FIXES);

const FROM_TO = [
  [50, 200],
  [10, 40],
  [3, 6],
  [300, 900],
  [5, 20],
];
const FLAG_SUFFIXES = ['v2', 'beta', 'bulk', 'preview'];
const ORIGIN_HOSTS = ['partners', 'admin', 'mobile', 'kiosk'];

/** The slot an edit names, by config: a route, a flag, a job, an origin… */
function configSlot(config, project, random) {
  const noun = pick(random, project.nouns);
  switch (config.what) {
    case 'rate limiter':
      return `/v1/${plural(noun)}`;
    case 'feature flag':
      return `${noun}_${pick(random, FLAG_SUFFIXES)}`;
    case 'cron schedule':
      return `${pick(random, VERBS).verb}_${plural(noun)}`;
    case 'CORS allowlist':
      return `https://${pick(random, ORIGIN_HOSTS)}.${project.area}.example.com`;
    case 'connection pool':
      return `${project.area}_${plural(noun)}`;
    case 'retry policy':
      return `${pick(random, VERBS).verb}-${noun}`;
    case 'cache TTL':
      return `${noun}:by-id`;
    default:
      return `${plural(noun)}`;
  }
}

const LIBRARY_REASONS = [
  'it has no native dependencies',
  'its types are inferred from the schema',
  'it is a third of the bundle size',
  'it streams instead of buffering',
  'it is maintained and the other has been dormant for two years',
  'its API matches what the team already uses',
];
const ROTATION_REASONS = [
  'it showed up in a screenshot',
  'the contractor who had it left',
  'the quarterly rotation is due',
  'it was pasted in a ticket',
];
const OUTCOMES = ['finished cleanly', 'took four minutes', 'needed a second try after a lock timeout', 'went through'];

/** A fact of `kind` for a session of `project`; null when its slots came out as a fact already made. */
export function makeFact(kind, project, random, family) {
  if (kind === 'fix') {
    const fix = FIXES[family](project, random);
    return { kind, key: `fix:${project.slug}:${fix.family}:${fix.id}`, project: project.slug, ...fix };
  }
  if (kind === 'edit') {
    const config = pick(random, CONFIGS);
    const slot = configSlot(config, project, random);
    const [from, to] = pick(random, FROM_TO);
    return {
      kind,
      key: `edit:${project.slug}:${config.what}:${slot}`,
      project: project.slug,
      fields: { config: config.what, configSyn: config.syn, file: config.file, setting: config.key, slot, from, to },
      request: `Set the ${config.what} for ${slot} to ${to}.`,
      edit: { file: config.file, code: `${slot}:\n  ${config.key}: ${to}` },
      summary: `Changed the ${config.what} for ${slot} in ${config.file}: ${config.key} from ${from} to ${to}.`,
    };
  }
  if (kind === 'library') {
    const choice = pick(random, LIBRARIES);
    const lib = pick(random, choice.libs);
    const alt = pick(
      random,
      choice.libs.filter((other) => other !== lib),
    );
    const reason = pick(random, LIBRARY_REASONS);
    const noun = pick(random, project.nouns);
    return {
      kind,
      key: `library:${project.slug}:${choice.purpose}:${noun}`,
      project: project.slug,
      fields: { purpose: choice.purpose, purposeSyn: choice.syn, lib, alt, reason, noun },
      request: `The ${noun} module of ${project.slug} needs something for ${choice.purpose}: compare ${lib} and ${alt} and pick one.`,
      command: project.lang === 'py' ? `pip install ${lib}` : `npm install ${lib}`,
      summary: `Decision: ${lib} as the ${choice.purpose} library for the ${noun} module of ${project.slug}. ${alt} was the other candidate, but ${lib} won because ${reason}.`,
    };
  }
  if (kind === 'secret') {
    const secret = pick(random, SECRETS);
    const env = pick(random, ENVS);
    const version = 2 + Math.floor(random() * 7);
    const reason = pick(random, ROTATION_REASONS);
    const file = `deploy/${env}/secrets.yaml`;
    return {
      kind,
      key: `secret:${project.slug}:${secret.name}:${env}`,
      project: project.slug,
      fields: { name: secret.name, vendor: secret.vendor, words: secret.words, env, reason },
      request: `Rotate ${secret.name} for ${project.slug} on ${env}: ${reason}.`,
      command: `vault kv patch secret/${project.slug}/${env} ${secret.name.toLowerCase()}_version=${version}`,
      edit: {
        file,
        code: `- name: ${secret.name}\n  valueFrom:\n    secretKeyRef: { name: ${project.slug}-secrets-v${version}, key: ${secret.name.toLowerCase()} }`,
      },
      summary: `Rotated ${secret.name} for ${project.slug} on ${env}: the new version v${version} is in vault, ${file} points at it, and the old one is revoked in the ${secret.vendor} dashboard.`,
    };
  }
  const command = pick(random, COMMANDS);
  const env = pick(random, ENVS);
  const noun = pick(random, project.nouns);
  const minor = Math.floor(random() * 30);
  const slots = {
    slug: project.slug,
    env,
    module: `${plural(noun)}`,
    db: `${project.area}_${env}`,
    date: `2026-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`,
    tag: `v2.${minor}.${Math.floor(random() * 10)}`,
    prev: `2.${Math.max(0, minor - 1)}.0`,
  };
  const line = command.command(slots);
  const outcome = pick(random, OUTCOMES);
  return {
    kind,
    key: `command:${project.slug}:${command.what}:${env}:${noun}`,
    project: project.slug,
    fields: { what: command.what, syn: command.syn, env, noun, tag: slots.tag, db: slots.db },
    request: `Please do the ${command.what} for the ${plural(noun)} of ${project.slug} on ${env}.`,
    command: line,
    summary: `Ran the ${command.what} for ${project.slug} ${plural(noun)} on ${env} (${line}); it ${outcome}.`,
  };
}
