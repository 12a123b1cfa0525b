/**
 * Fake secrets of every shape memd redacts (issue 27), each in the text it would be found in, with
 * the values that must never come out again. The values have the right form and are not real.
 */
export interface SecretSample {
  shape: string;
  /** The line as a transcript would hold it. */
  text: string;
  /** What must not appear in any output once redacted. */
  secrets: string[];
}

const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzEXAMPLE40';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkZha2UifQ.c2lnbmF0dXJlZmFrZWZha2VmYWtlZmFrZQ';
const PRIVATE_KEY_BODY = 'MIIEowIBAAKCAQEAzFakeFakeFakeKeyBodyQxyz0123456789abcdefghijklmnop';

export const SECRET_SAMPLES: readonly SecretSample[] = [
  { shape: 'PGPASSWORD', text: 'PGPASSWORD=pgHunter2pass psql -h db -U app', secrets: ['pgHunter2pass'] },
  { shape: 'MYSQL_PWD', text: 'MYSQL_PWD=myS3cretPwd mysql -u root', secrets: ['myS3cretPwd'] },
  {
    shape: 'SECRET_KEY_BASE',
    text: 'SECRET_KEY_BASE=9f8e7d6c5b4a39281706f5e4d3c2b1a0 rails s',
    secrets: ['9f8e7d6c5b4a39281706f5e4d3c2b1a0'],
  },
  { shape: 'DB_PASSWORD', text: 'DB_PASSWORD=correct-horse-battery-staple', secrets: ['correct-horse-battery-staple'] },
  {
    shape: 'GITHUB_TOKEN',
    text: 'export GITHUB_TOKEN=ghp_FakeToken0123456789abcdefghijklmnopq',
    secrets: ['ghp_FakeToken0123456789abcdefghijklmnopq', 'FakeToken0123456789abcdefghijklmnopq'],
  },
  {
    shape: 'ANTHROPIC_API_KEY',
    text: 'ANTHROPIC_API_KEY=sk-ant-api03-FakeKeyFakeKey0123456789abcdefghij',
    secrets: ['sk-ant-api03-FakeKeyFakeKey0123456789abcdefghij', 'FakeKeyFakeKey0123456789abcdefghij'],
  },
  { shape: '*_TOKEN', text: 'SENTRY_AUTH_TOKEN=sntrys_fakeSentryValue42', secrets: ['sntrys_fakeSentryValue42'] },
  { shape: '*_SECRET', text: 'OAUTH_CLIENT_SECRET="oauthFakeSecretValue77"', secrets: ['oauthFakeSecretValue77'] },
  { shape: 'aws access key id', text: 'aws_access_key_id = AKIAFAKEFAKEFAKE1234', secrets: ['AKIAFAKEFAKEFAKE1234'] },
  { shape: 'aws_secret_access_key', text: `aws_secret_access_key = ${AWS_SECRET}`, secrets: [AWS_SECRET] },
  {
    shape: 'SecretAccessKey (bare, next to it)',
    text: `{"Credentials": {"SecretAccessKey": "${AWS_SECRET.replace('40', '41')}"}}`,
    secrets: [AWS_SECRET.replace('40', '41')],
  },
  {
    shape: 'Authorization: Bearer',
    text: 'curl -H "Authorization: Bearer fakeOpaqueBearer0123456789xyz" https://api.example.com',
    secrets: ['fakeOpaqueBearer0123456789xyz'],
  },
  {
    shape: 'postgres url',
    text: 'DATABASE_URL=postgres://app:pgUrlPassw0rd@db.internal:5432/app',
    secrets: ['pgUrlPassw0rd'],
  },
  {
    shape: 'mongodb+srv url',
    text: 'mongodb+srv://admin:mongoFakePass99@cluster0.example.mongodb.net/test',
    secrets: ['mongoFakePass99'],
  },
  { shape: 'redis url', text: 'redis://:redisFakePass55@cache.internal:6379/0', secrets: ['redisFakePass55'] },
  { shape: 'jwt', text: `token: ${JWT}`, secrets: [JWT, JWT.split('.')[2] as string] },
  {
    shape: 'private key block',
    text: `-----BEGIN RSA PRIVATE KEY-----\n${PRIVATE_KEY_BODY}\n-----END RSA PRIVATE KEY-----`,
    secrets: [PRIVATE_KEY_BODY],
  },
  {
    shape: 'slack token',
    text: 'SLACK=xoxb-123456789012-1234567890123-FakeSlackBotToken',
    secrets: ['xoxb-123456789012-1234567890123-FakeSlackBotToken', 'FakeSlackBotToken'],
  },
  {
    shape: 'slack webhook',
    text: 'post to https://hooks.slack.com/services/T00FAKE00/B00FAKE00/FakeWebhookSecret12345678',
    secrets: ['FakeWebhookSecret12345678', 'T00FAKE00/B00FAKE00/FakeWebhookSecret12345678'],
  },
  {
    shape: 'stripe live',
    text: 'stripe key sk_live_FakeStripeLive0123456789',
    secrets: ['sk_live_FakeStripeLive0123456789', 'FakeStripeLive0123456789'],
  },
  {
    shape: 'stripe restricted',
    text: 'rk_live_FakeStripeRestricted0123',
    secrets: ['rk_live_FakeStripeRestricted0123', 'FakeStripeRestricted0123'],
  },
  {
    shape: 'stripe test',
    text: 'sk_test_FakeStripeTest012345678',
    secrets: ['sk_test_FakeStripeTest012345678', 'FakeStripeTest012345678'],
  },
  {
    shape: 'gcp api key',
    text: 'maps key AIzaSyFakeGoogleKey0123456789abcdefghij',
    secrets: ['AIzaSyFakeGoogleKey0123456789abcdefghij'],
  },
  {
    shape: 'gcp service account',
    text: `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nGcpFakeServiceAccountKeyBody0123456789\\n-----END PRIVATE KEY-----\\n", "client_email": "x@p.iam.gserviceaccount.com"}`,
    secrets: ['GcpFakeServiceAccountKeyBody0123456789'],
  },
  {
    shape: 'azure storage',
    text: 'DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey=FakeAzureAccountKey0123456789abcdefABCDEF+/==;EndpointSuffix=core.windows.net',
    secrets: ['FakeAzureAccountKey0123456789abcdefABCDEF'],
  },
  {
    shape: 'azure sas',
    text: 'SharedAccessSignature=sv=2021-06-08&ss=b&srt=sco&sp=rl&se=2030-01-01&sig=FakeAzureSasSignature0123456789abcd%3D',
    secrets: ['FakeAzureSasSignature0123456789abcd'],
  },
];

/** Every secret value of the samples. */
export const ALL_SECRETS: readonly string[] = SECRET_SAMPLES.flatMap((sample) => sample.secrets);
