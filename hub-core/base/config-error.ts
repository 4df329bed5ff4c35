/** One problem of a configuration: where (a JSON path in `elements`), how bad, and what is wrong in words. */
export interface ConfigError {
  elements: string;
  level: 'error' | 'warning';
  msg: string;
}

/** Report a configuration problem at a JSON path. */
export type Complain = (elements: string, msg: string) => void;

export function hasErrors(errors: readonly ConfigError[]): boolean {
  return errors.some((e) => e.level === 'error');
}
