import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

const processEntry = z.object({ pid: z.number().int().positive(), binary: z.string() });

/** The pidfile: what a later run needs to find, reuse or clean up a cluster started in a directory. */
export const clusterStateSchema = z.object({
  /** The process whose exit must end the cluster; null for a detached cluster. */
  ownerPid: z.number().int().positive().nullable(),
  server: z.string().optional(),
  kubeconfigPath: z.string().optional(),
  binDir: z.string().optional(),
  processes: z.record(z.string(), processEntry),
});
export type ClusterState = z.infer<typeof clusterStateSchema>;

export const stateFile = (dir: string) => join(dir, 'cluster.json');

export async function readClusterState(dir: string): Promise<ClusterState | undefined> {
  let text: string;
  try {
    text = await readFile(stateFile(dir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = clusterStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // a torn or foreign file: treat as no state
  }
}

export async function writeClusterState(dir: string, state: ClusterState): Promise<void> {
  const temporary = `${stateFile(dir)}.${process.pid}`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temporary, stateFile(dir));
}
