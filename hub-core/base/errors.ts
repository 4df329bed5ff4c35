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

export const notFound = (what: string, detail?: string): HubError => new HubError(404, `${what} not found`, detail);
export const badRequest = (message: string, detail?: string): HubError => new HubError(400, message, detail);
export const conflict = (message: string, detail?: string): HubError => new HubError(409, message, detail);
