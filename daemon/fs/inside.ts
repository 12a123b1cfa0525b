/** Whether a path lies below a directory, lexically (both absolute and normalized by the caller). */
import { isAbsolute, relative, sep } from 'node:path';

/** `path` is below `dir`; with `orSelf`, `dir` itself counts too. */
export function isInside(dir: string, path: string, orSelf = false): boolean {
  const rel = relative(dir, path);
  if (rel === '') return orSelf;
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
