/**
 * The simulated deployment's graph: small and deterministic. Node `echo` appends an `ai` message
 * "echo: <last human text>", then node `tally` counts the turns in `values.turns`. Each node first waits
 * the configured delay, so a run is observable while it executes and an interrupted run leaves partial
 * output (the echo without its tally); a slow server's run first waits its `slowMs`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { aiMessage, type Message, textOf } from './messages.ts';
import type { Values } from './threads.ts';

const NEXT: Record<string, string[]> = {
  __input__: ['__start__'],
  __start__: ['echo'],
  echo: ['tally'],
  tally: [],
};

/** The nodes that run after the named one. */
export function nextAfter(node: string): string[] {
  return NEXT[node] ?? [];
}

/** What the graph raises; `error` is the exception's class name, as the server reports it. */
export class GraphError extends Error {
  readonly error = 'ValueError';
}

export interface GraphRun {
  /** How long the run waits before its first node. */
  slowMs: number;
  /** How long a node waits before writing, per node name. */
  delayMs(node: string): number;
  /** Raise in `echo` whatever the input. */
  fail: boolean;
  errorMarker: string;
  errorMessage: string;
  signal: AbortSignal;
  values(): Values;
  /** Writes one node's update as a checkpoint. */
  commit(node: string, update: Values, next: string[]): void;
}

export async function runEchoGraph(run: GraphRun): Promise<void> {
  const messages = (run.values().messages as Message[] | undefined) ?? [];
  const lastHuman = messages.findLast((m) => m.type === 'human');
  const text = lastHuman ? textOf(lastHuman) : '';

  await sleep(run.slowMs + run.delayMs('echo'), undefined, { signal: run.signal });
  if (run.fail || text.includes(run.errorMarker)) throw new GraphError(run.errorMessage);
  run.commit('echo', { messages: [aiMessage(`echo: ${text}`)] }, nextAfter('echo'));

  await sleep(run.delayMs('tally'), undefined, { signal: run.signal });
  const turns = run.values().turns;
  run.commit('tally', { turns: (typeof turns === 'number' ? turns : 0) + 1 }, nextAfter('tally'));
}

/** A run may set its nodes' delay: `delay_ms` (every node) or `delay_ms_by_node` ({node: ms}). */
export function delayOf(configurable: Record<string, unknown>, node: string): number | undefined {
  const byNode = configurable.delay_ms_by_node as Record<string, unknown> | undefined;
  for (const candidate of [byNode?.[node], configurable.delay_ms]) {
    if (typeof candidate === 'number' && candidate >= 0) return candidate;
  }
  return undefined;
}
