/** An error answer from the Kubernetes API server (its Status message, never request data). */
export class KubeApiError extends Error {
  readonly status: number;
  readonly reason: string | undefined;

  constructor(status: number, message: string, reason?: string) {
    super(message);
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = reason;
  }
}

/** 404: the object is gone; callers usually treat this as done. */
export class NotFoundError extends KubeApiError {
  constructor(message: string) {
    super(404, message, 'NotFound');
    this.name = 'NotFoundError';
  }
}

/** Someone else wrote first (409, or a failed JSON-patch test): re-read and try again. */
export class ConflictError extends KubeApiError {
  constructor(message: string, status = 409) {
    super(status, message, 'Conflict');
    this.name = 'ConflictError';
  }
}

/** The HTTP status of an error from this module or from client-node's ApiException. */
function statusOf(err: unknown): number | undefined {
  if (err instanceof KubeApiError) return err.status;
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'number')
    return err.code;
  return undefined;
}

export function isNotFound(err: unknown): boolean {
  return statusOf(err) === 404;
}

export function isConflict(err: unknown): boolean {
  return err instanceof ConflictError || statusOf(err) === 409;
}
