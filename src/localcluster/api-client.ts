import { request } from 'node:https';

/** TLS material for talking to the local API server as the admin user. */
export interface AdminCredentials {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface ApiResponse {
  readonly status: number;
  readonly body: string;
}

/** One HTTPS request to the API server, authenticated with the admin client certificate. */
export function apiRequest(
  server: string,
  credentials: AdminCredentials,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      new URL(path, server),
      {
        method,
        ...credentials,
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
        timeout: 5_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}
