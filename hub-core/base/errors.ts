/** An error a user caused; hosts map `status` to their protocol (HTTP status, exit code). */
export class HubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'HubError';
  }
}

/**
 * A configuration names a `$ENV(...)`/`$SECRET(...)` that is not set. A run that needs it cannot start, yet it says
 * nothing about the pipe's own logic: runners report such a pipe as "not run" instead of failed.
 */
export class UnsetVariableError extends HubError {
  constructor(message: string, detail?: string) {
    super(400, message, detail);
    this.name = 'UnsetVariableError';
  }
}

export const notFound = (what: string, detail?: string): HubError => new HubError(404, `${what} not found`, detail);
export const badRequest = (message: string, detail?: string): HubError => new HubError(400, message, detail);
export const conflict = (message: string, detail?: string): HubError => new HubError(409, message, detail);
