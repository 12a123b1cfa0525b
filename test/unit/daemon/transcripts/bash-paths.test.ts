import { describe, expect, it } from 'vitest';
import { bashFiles } from '../../../../daemon/transcripts/bash-paths.js';

const CWD = '/home/u/shop';
const of = (command: string, cwd: string | null = CWD) =>
  bashFiles(command, cwd).map((file) => `${file.action} ${file.path}`);

describe('bashFiles: the files a Bash command read, wrote or removed', () => {
  it('reads: cat, head/tail with their counts, less, grep after its pattern, sed without -i, git diff', () => {
    expect(of('cat cart.js')).toEqual(['read /home/u/shop/cart.js']);
    expect(of('head -n 20 src/a.ts && tail -5 b.txt')).toEqual([
      'read /home/u/shop/src/a.ts',
      'read /home/u/shop/b.txt',
    ]);
    expect(of('less /etc/hosts')).toEqual(['read /etc/hosts']);
    expect(of('grep -n "total" cart.js lib/util.js')).toEqual([
      'read /home/u/shop/cart.js',
      'read /home/u/shop/lib/util.js',
    ]);
    expect(of("sed -n '1,20p' cart.js")).toEqual(['read /home/u/shop/cart.js']);
    expect(of('git diff HEAD -- cart.js')).toEqual(['read /home/u/shop/cart.js']);
    expect(of('git diff cart.js')).toEqual(['read /home/u/shop/cart.js']);
    expect(of('wc -l < input.csv')).toEqual(['read /home/u/shop/input.csv']);
  });

  it('writes: sed -i, redirections, tee, cp and mv targets, git checkout -- and restore', () => {
    expect(of("sed -i 's/total/sum/g' cart.js")).toEqual(['edited /home/u/shop/cart.js']);
    expect(of('sed -i.bak -e s/a/b/ x.py')).toEqual(['edited /home/u/shop/x.py']);
    expect(of('echo "done" > out.txt')).toEqual(['written /home/u/shop/out.txt']);
    expect(of('echo done >> log.md 2>/dev/null')).toEqual(['edited /home/u/shop/log.md']);
    expect(of('npm test 2>&1 | tee -a test.log')).toEqual(['edited /home/u/shop/test.log']);
    expect(of('cp cart.js cart.bak.js')).toEqual(['read /home/u/shop/cart.js', 'written /home/u/shop/cart.bak.js']);
    expect(of('mv old.ts new.ts')).toEqual(['deleted /home/u/shop/old.ts', 'written /home/u/shop/new.ts']);
    expect(of('git checkout -- cart.js')).toEqual(['edited /home/u/shop/cart.js']);
    expect(of('git restore cart.js')).toEqual(['edited /home/u/shop/cart.js']);
    expect(of('rm -f a.txt b.txt')).toEqual(['deleted /home/u/shop/a.txt', 'deleted /home/u/shop/b.txt']);
  });

  it('a heredoc is data: its body names no file, its redirection does', () => {
    const command = "cat > notes.md <<'EOF'\nrm important.txt\necho x > other.txt\nEOF\ncat notes.md";
    expect(of(command)).toEqual(['written /home/u/shop/notes.md', 'read /home/u/shop/notes.md']);
  });

  it('follows a plain cd, and stops naming relative paths after one it cannot follow', () => {
    expect(of('cd web && cat index.html')).toEqual(['read /home/u/shop/web/index.html']);
    expect(of('cd "$DIR" && cat index.html; cat /abs/x.txt')).toEqual(['read /abs/x.txt']);
    expect(of('cat cart.js', null)).toEqual(['read cart.js']);
  });

  it('never guesses: flags, their values, URLs, globs, variables, subshells, loops, revisions, directories', () => {
    expect(of('grep -rn total src/')).toEqual([]);
    expect(of('grep total')).toEqual([]);
    expect(of('curl -o page.html https://example.com/a.html')).toEqual([]);
    expect(of('cat *.js')).toEqual([]);
    expect(of('cat "$FILE" ~/notes.txt')).toEqual([]);
    expect(of('cat $(git ls-files)')).toEqual([]);
    expect(of('for f in a.js b.js; do cat $f; done')).toEqual([]);
    expect(of('git diff main..feature origin/main')).toEqual([]);
    expect(of('git checkout main')).toEqual([]);
    expect(of('git restore --staged cart.js')).toEqual([]);
    expect(of('git rm --cached cart.js')).toEqual([]);
    expect(of('mv build dist')).toEqual([]);
    expect(of('cp a.js b.js dir/')).toEqual([]);
    expect(of('npm install && node cart.js')).toEqual([]);
    expect(of('echo "unterminated')).toEqual([]);
    expect(of('ls -la && git status')).toEqual([]);
    expect(of('less +G app.log')).toEqual(['read /home/u/shop/app.log']);
    expect(of('rm -rf build dist.js')).toEqual([]);
    expect(of('git checkout -- . && git diff HEAD~3 -- src')).toEqual([]);
    expect(of('diff -q a b')).toEqual([]);
    expect(of('git add cart.js && git commit -m "fix cart.js"')).toEqual(['read /home/u/shop/cart.js']);
    expect(of("sed 's/a/b/' in.txt > out.txt")).toEqual(['written /home/u/shop/out.txt', 'read /home/u/shop/in.txt']);
  });
});
