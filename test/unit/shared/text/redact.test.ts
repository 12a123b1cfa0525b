import { describe, expect, it } from 'vitest';
import { REDACTED_PREFIX, redactDeep, redactSecrets } from '../../../../shared/text/redact.js';
import { SECRET_SAMPLES } from '../../../helpers/secrets.js';

describe('redactSecrets', () => {
  it.each(SECRET_SAMPLES.map((sample) => [sample.shape, sample] as const))('redacts %s', (_shape, sample) => {
    const out = redactSecrets(sample.text);
    for (const secret of sample.secrets) expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED_PREFIX);
    // Once is enough: a redacted text is left as it is.
    expect(redactSecrets(out)).toBe(out);
  });

  it.each([
    ['key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 here', 'key [redacted anthropic key] here'],
    ['export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx', 'export OPENAI_API_KEY=[redacted openai key]'],
    ['DB_PASSWORD=correct-horse-battery', 'DB_PASSWORD=[redacted secret]'],
    ['PGPASSWORD=hunter22 psql', 'PGPASSWORD=[redacted secret] psql'],
    ['AKIAIOSFODNN7EXAMPLE', '[redacted aws key]'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token [redacted github token]'],
    ['Authorization: Bearer abcdefghijklmnopqrstuvwxyz.0123', 'Authorization: Bearer [redacted authorization]'],
    ['got Bearer abcdefghijklmnopqrstuvwxyz.0123 back', 'got Bearer [redacted bearer token] back'],
    ['password=hunter22 and secret: "s3cr3t-value"', 'password=[redacted secret] and secret: "[redacted secret]"'],
    ['{"db_password": "p4ss"}', '{"db_password": "[redacted secret]"}'],
    ['postgres://app:pa55word@db:5432/app', 'postgres://app:[redacted url password]@db:5432/app'],
    ['redis://:p@cache:6379', 'redis://:[redacted url password]@cache:6379'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', '[redacted private key]'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk (cut here', '[redacted private key]'],
  ])('redacts %j', (text, redacted) => {
    expect(redactSecrets(text)).toBe(redacted);
  });

  it('leaves code, prose and references alone', () => {
    for (const text of [
      'the password field is required',
      'sk-short',
      'Bearer of bad news',
      'const apiKey = getKey();',
      'password = options.password;',
      'const token = tokens[i];',
      'password: string;',
      'GITHUB_TOKEN=$GITHUB_TOKEN',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
      'token: ${{ secrets.GITHUB_TOKEN }}',
      'MAX_TOKENS=4096',
      'TOKEN_LIMIT=4096',
      'PWD=/home/user/src OLDPWD=/tmp',
      'password:\n  valueFrom: secretKeyRef',
      'api_key = os.environ["API_KEY"]',
      'https://example.com:8080/path@v2',
      'git@github.com:org/repo.git',
      'session 3f2a9c1e-1b2c-4d5e-8f90-0123456789ab with hash 0123456789abcdef0123456789abcdef01234567',
      'the task-management-dashboard-service is up',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });

  it('redacts every string of a structured value and keeps its shape', () => {
    const value = { title: 'PGPASSWORD=pgHunter2pass', list: ['AKIAFAKEFAKEFAKE1234', 3, null], nested: { ok: true } };
    expect(redactDeep(value)).toEqual({
      title: 'PGPASSWORD=[redacted secret]',
      list: ['[redacted aws key]', 3, null],
      nested: { ok: true },
    });
  });
});

describe('redactSecrets on JSON text', () => {
  it('redacts an assignment whose quotes are escaped, and keeps the escapes', () => {
    const json = JSON.stringify({
      command: `echo 'OAUTH_CLIENT_SECRET="oauthFakeSecretValue77"' "DB_PASSWORD": "p4ssw0rd!"`,
    });
    const out = redactSecrets(json);
    expect(out).not.toContain('oauthFakeSecretValue77');
    expect(out).not.toContain('p4ssw0rd!');
    expect(JSON.parse(out)).toEqual({
      command: `echo 'OAUTH_CLIENT_SECRET="[redacted secret]"' "DB_PASSWORD": "[redacted secret]"`,
    });
  });
});
