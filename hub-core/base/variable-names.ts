// Names of environment variables and secrets: whatever `$ENV(name)` and `$SECRET(name)` can refer to. A name with
// a parenthesis, a space or a control character could be stored but never used, so it is refused up front.
import { badRequest } from './errors.js';

const MAX_LENGTH = 256;
const UNUSABLE = /[\s()\u0000-\u001f\u007f]/;

/** Why `name` cannot be a variable or secret name, or null when it can. */
export function variableNameProblem(name: string): string | null {
  if (name.length === 0) return 'a name may not be empty';
  if (name.length > MAX_LENGTH) return `a name has at most ${MAX_LENGTH} characters`;
  const bad = UNUSABLE.exec(name);
  if (bad) return `a name may not contain ${/\s/.test(bad[0]) ? 'spaces' : bad[0] === '(' || bad[0] === ')' ? 'parentheses' : 'control characters'}`;
  return null;
}

/** Throws a 400 naming the first unusable name of `names`; `what` is "environment variable" or "secret". */
export function checkVariableNames(names: Iterable<string>, what: string): void {
  for (const name of names) {
    const problem = variableNameProblem(name);
    if (problem !== null) {
      const ref = what === 'secret' ? '$SECRET' : '$ENV';
      throw badRequest(`${what} name ${JSON.stringify(name)} is not usable`, `${problem}, so ${ref}(...) could not refer to it`);
    }
  }
}
