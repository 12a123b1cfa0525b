/**
 * The words of the recall benchmark's generated corpus (issue 33): projects, their modules, the
 * errors met and how they were fixed, configs, libraries, secrets, commands. Our own text, chosen so
 * that many sessions share the common words (test, retry, timeout, config, deploy…) and each fact
 * has a few of its own (an operation's name, a library, a secret's name), as a real history does.
 * Plain JS so that bench/recall.js (no TypeScript loader) and the tests share it.
 */

/** Sixteen areas; each gives three projects (`<area>-api`, `<area>-worker`, `<area>-web`). */
export const AREAS = [
  { area: 'billing', nouns: ['invoice', 'refund', 'subscription', 'coupon'], vendor: 'Stripe' },
  { area: 'ledger', nouns: ['journal', 'balance', 'transfer', 'statement'], vendor: 'Plaid' },
  { area: 'checkout', nouns: ['cart', 'order', 'payment', 'voucher'], vendor: 'Adyen' },
  { area: 'catalog', nouns: ['product', 'variant', 'price', 'category'], vendor: 'Algolia' },
  { area: 'inventory', nouns: ['stock', 'warehouse', 'reservation', 'supplier'], vendor: 'Shopify' },
  { area: 'media', nouns: ['upload', 'thumbnail', 'video', 'transcode'], vendor: 'Cloudinary' },
  { area: 'notify', nouns: ['email', 'sms', 'push', 'digest'], vendor: 'Twilio' },
  { area: 'search', nouns: ['query', 'synonym', 'facet', 'crawler'], vendor: 'Elastic' },
  { area: 'auth', nouns: ['session', 'token', 'password', 'device'], vendor: 'Okta' },
  { area: 'analytics', nouns: ['event', 'funnel', 'cohort', 'dashboard'], vendor: 'Segment' },
  { area: 'payroll', nouns: ['payslip', 'timesheet', 'bonus', 'employee'], vendor: 'Gusto' },
  { area: 'booking', nouns: ['reservation', 'slot', 'calendar', 'guest'], vendor: 'Google' },
  { area: 'shipping', nouns: ['parcel', 'label', 'carrier', 'tracking'], vendor: 'Shippo' },
  { area: 'reviews', nouns: ['review', 'rating', 'moderation', 'reply'], vendor: 'Perspective' },
  { area: 'chat', nouns: ['message', 'channel', 'attachment', 'presence'], vendor: 'Pusher' },
  { area: 'maps', nouns: ['route', 'geocode', 'tile', 'isochrone'], vendor: 'Mapbox' },
];

export const KINDS = [
  { kind: 'api', ext: 'ts', test: 'npm test', lang: 'ts' },
  { kind: 'worker', ext: 'py', test: 'pytest -q', lang: 'py' },
  { kind: 'web', ext: 'tsx', test: 'npx vitest run', lang: 'ts' },
];

/** Verbs of the operations that time out, fail, or get retried: `fetchInvoice`, `syncLedger`. */
export const VERBS = [
  { verb: 'fetch', ing: 'fetching', syn: 'loading' },
  { verb: 'sync', ing: 'syncing', syn: 'mirroring' },
  { verb: 'publish', ing: 'publishing', syn: 'sending out' },
  { verb: 'reconcile', ing: 'reconciling', syn: 'matching up' },
  { verb: 'export', ing: 'exporting', syn: 'dumping' },
  { verb: 'import', ing: 'importing', syn: 'loading in' },
  { verb: 'resize', ing: 'resizing', syn: 'scaling' },
  { verb: 'index', ing: 'indexing', syn: 'reindexing' },
  { verb: 'notify', ing: 'notifying', syn: 'alerting' },
  { verb: 'archive', ing: 'archiving', syn: 'putting away' },
];

/** Properties read off undefined, and their owner objects. */
export const PROPS = ['customerId', 'currency', 'lineItems', 'metadata', 'locale', 'timezone', 'owner', 'expiresAt'];

/** Services a local run could not reach, with their ports. */
export const SERVICES = [
  { service: 'redis', port: 6379, env: 'REDIS_URL' },
  { service: 'postgres', port: 5432, env: 'DATABASE_URL' },
  { service: 'rabbitmq', port: 5672, env: 'AMQP_URL' },
  { service: 'elasticsearch', port: 9200, env: 'ELASTIC_URL' },
  { service: 'minio', port: 9000, env: 'S3_ENDPOINT' },
  { service: 'kafka', port: 9092, env: 'KAFKA_BROKERS' },
  { service: 'mongodb', port: 27017, env: 'MONGO_URL' },
  { service: 'memcached', port: 11211, env: 'MEMCACHE_SERVERS' },
];

/** Python modules a worker missed, and the package that provides each. */
export const PY_MODULES = [
  { module: 'dateutil', pkg: 'python-dateutil' },
  { module: 'yaml', pkg: 'PyYAML' },
  { module: 'jwt', pkg: 'PyJWT' },
  { module: 'magic', pkg: 'python-magic' },
  { module: 'boto3', pkg: 'boto3' },
  { module: 'orjson', pkg: 'orjson' },
  { module: 'tenacity', pkg: 'tenacity' },
  { module: 'structlog', pkg: 'structlog' },
];

/** Why a test was flaky, and what made it stable. */
export const FLAKES = [
  {
    cause: 'the clock',
    fix: 'froze the clock with fake timers',
    code: 'vi.useFakeTimers({ now: new Date("2026-01-15T12:00:00Z") })',
    syn: 'time-dependent',
  },
  {
    cause: 'random ordering',
    fix: 'seeded the random generator',
    code: 'random.seed(1234)',
    syn: 'order-dependent',
  },
  {
    cause: 'a shared database',
    fix: 'wrapped each case in a rolled-back transaction',
    code: 'await db.transaction(async (tx) => { await run(tx); await tx.rollback(); })',
    syn: 'leaking state',
  },
  {
    cause: 'a real network call',
    fix: 'stubbed the HTTP client with a recorded response',
    code: 'nock("https://api.example.test").get(/.*/).reply(200, recorded)',
    syn: 'network-bound',
  },
  {
    cause: 'a race on the retry timer',
    fix: 'awaited the retry promise instead of sleeping',
    code: 'await expect(retrying).resolves.toBeDefined()',
    syn: 'racy',
  },
];

/** Configs edited: the file, the setting's words, and the slot each edit names. */
export const CONFIGS = [
  { what: 'rate limiter', file: 'config/rate-limits.yaml', key: 'burst', syn: 'throttling settings' },
  { what: 'feature flag', file: 'config/flags.json', key: 'enabled', syn: 'toggle' },
  { what: 'cron schedule', file: 'deploy/cron.yaml', key: 'schedule', syn: 'nightly job timing' },
  { what: 'CORS allowlist', file: 'config/cors.json', key: 'origins', syn: 'allowed origins' },
  { what: 'connection pool', file: 'config/database.yml', key: 'pool_size', syn: 'db pool' },
  { what: 'retry policy', file: 'config/retry.toml', key: 'max_attempts', syn: 'retry attempts' },
  { what: 'cache TTL', file: 'config/cache.yaml', key: 'ttl_seconds', syn: 'cache expiry' },
  { what: 'log level', file: 'config/logging.yaml', key: 'level', syn: 'logging verbosity' },
];

/** Library choices: the purpose, its words in a question (one of them the purpose's), and the candidates. */
export const LIBRARIES = [
  { purpose: 'request validation', syn: 'validation of payloads', libs: ['zod', 'valibot', 'ajv', 'joi'] },
  { purpose: 'HTTP client', syn: 'outbound HTTP calls', libs: ['undici', 'axios', 'ky', 'got'] },
  { purpose: 'date handling', syn: 'dates and time zones', libs: ['luxon', 'dayjs', 'date-fns', 'temporal-polyfill'] },
  { purpose: 'database access', syn: 'the database layer', libs: ['drizzle', 'kysely', 'prisma', 'sequelize'] },
  { purpose: 'job queue', syn: 'background job processing', libs: ['bullmq', 'graphile-worker', 'pg-boss', 'agenda'] },
  { purpose: 'structured logging', syn: 'logging output', libs: ['pino', 'winston', 'bunyan', 'loglevel'] },
  {
    purpose: 'PDF rendering',
    syn: 'generating PDF documents',
    libs: ['pdfkit', 'weasyprint', 'puppeteer', 'reportlab'],
  },
  { purpose: 'CSV parsing', syn: 'reading CSV exports', libs: ['papaparse', 'csv-parse', 'fast-csv', 'polars'] },
  {
    purpose: 'retry with backoff',
    syn: 'backoff for failed calls',
    libs: ['p-retry', 'cockatiel', 'tenacity', 'backoff'],
  },
  { purpose: 'image processing', syn: 'image thumbnails and crops', libs: ['sharp', 'jimp', 'pillow', 'imagemagick'] },
];

/** Secrets rotated, by vendor: the variable and its words. */
export const SECRETS = [
  { name: 'STRIPE_WEBHOOK_SECRET', vendor: 'Stripe', words: 'webhook signing secret' },
  { name: 'SENDGRID_API_KEY', vendor: 'SendGrid', words: 'mail API key' },
  { name: 'TWILIO_AUTH_TOKEN', vendor: 'Twilio', words: 'auth token' },
  { name: 'GITHUB_APP_PRIVATE_KEY', vendor: 'GitHub', words: 'app private key' },
  { name: 'SLACK_SIGNING_SECRET', vendor: 'Slack', words: 'signing secret' },
  { name: 'DATADOG_API_KEY', vendor: 'Datadog', words: 'monitoring key' },
  { name: 'SENTRY_AUTH_TOKEN', vendor: 'Sentry', words: 'release token' },
  { name: 'ALGOLIA_ADMIN_KEY', vendor: 'Algolia', words: 'admin key' },
  { name: 'POSTMARK_SERVER_TOKEN', vendor: 'Postmark', words: 'server token' },
  { name: 'PAGERDUTY_ROUTING_KEY', vendor: 'PagerDuty', words: 'routing key' },
  { name: 'MAPBOX_ACCESS_TOKEN', vendor: 'Mapbox', words: 'access token' },
  { name: 'PLAID_CLIENT_SECRET', vendor: 'Plaid', words: 'client secret' },
];

/** Commands run, with the words a question uses for them (one of them the command's). */
export const COMMANDS = [
  {
    what: 'rollout restart',
    syn: 'restart the pods',
    command: (s) => `kubectl rollout restart deployment/${s.slug}-${s.module} -n ${s.env}`,
  },
  {
    what: 'terraform apply',
    syn: 'apply the infra change',
    command: (s) => `terraform apply -target=module.${s.module}_${s.env}`,
  },
  {
    what: 'database backup',
    syn: 'take a backup of the db',
    command: (s) => `pg_dump ${s.db} --table=${s.module} > backups/${s.db}-${s.module}-${s.date}.sql`,
  },
  {
    what: 'helm upgrade',
    syn: 'upgrade the chart',
    command: (s) => `helm upgrade ${s.slug}-${s.module} charts/${s.slug} --set image.tag=${s.tag}`,
  },
  {
    what: 'schema migration',
    syn: 'migrate the schema',
    command: (s) => `npx drizzle-kit migrate --config drizzle.${s.env}.config.ts # ${s.module} ${s.tag}`,
  },
  {
    what: 'bucket sync',
    syn: 'copy the bucket down',
    command: (s) => `aws s3 sync s3://${s.slug}-${s.env}-assets ./data/${s.module}`,
  },
  {
    what: 'git bisect',
    syn: 'bisect the regression',
    command: (s) => `git bisect start ${s.tag} v${s.prev} -- src/${s.module}`,
  },
  {
    what: 'release tag',
    syn: 'cut a release',
    command: (s) => `gh release create ${s.tag} --title "${s.slug} ${s.module} ${s.tag}" --generate-notes`,
  },
];

export const ENVS = ['staging', 'prod', 'dev', 'sandbox'];

/** Words many sessions share, so that ranking by word alone cannot tell them apart. */
export const COMMON_TASKS = [
  'Run the test suite and tell me what fails',
  'Check why the retry test is slow and whether the timeout is right',
  'Look over the config and tidy the deploy script',
  'Make the error messages clearer when a request fails',
  'Add a test for the timeout path and the retry path',
  'Update the README with the new setup steps',
  'Review the last commit for problems before I push',
  'Find where the logging is too noisy in the worker',
];
