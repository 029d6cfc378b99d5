/**
 * The one chain runner, for every program (AgentDeployment, SandboxTemplate, deletion): the first gate
 * with a verdict decides; a `read` verdict is gathered (derived from the facts held, or read by the
 * port); a bookkeeping verdict is acted on by the port and the facts advance; any other verdict is final
 * and returned, for the caller to act on (the controller) or print (the plan). A program is data: its
 * gates in order, which reads it derives (and what the facts learn from the others), which verdicts are
 * bookkeeping.
 */

/** A gate: a verdict, or undefined to let the next gate decide. */
export type ChainGate<F, V> = (facts: F) => V | undefined;

/** A chain's gates, each named, in the order they decide. */
export type GateList<F, V, N extends string = string> = readonly (readonly [N, ChainGate<F, V>])[];

/** What a `read` verdict of `V` asks for. */
export type ReadOf<V> = Extract<V, { kind: 'read' }> extends { read: infer R } ? R : never;

/**
 * A program: its gates, and what the runner does between them. `D`: the reads derived from the facts
 * held (the rest are the port's); `B`: the bookkeeping verdicts.
 */
export interface ChainProgram<F, V extends { kind: string }, B extends V = never, D = never> {
  gates: GateList<F, V>;
  isDerived?(read: ReadOf<V>): read is Extract<ReadOf<V>, D>;
  derive?(facts: F, read: Extract<ReadOf<V>, D>): void;
  /** What the facts learn from what the port read, before the chain runs again. */
  learn?(facts: F, read: Exclude<ReadOf<V>, D>): void;
  isBookkeeping?(verdict: V): verdict is B;
  /** The facts after a bookkeeping verdict the port acted on. */
  advance?(facts: F, verdict: B): void;
}

/** What a caller does for a program: read the world, and act on bookkeeping (or only note it). */
export interface ChainPort<F, V, B = never, D = never> {
  read(read: Exclude<ReadOf<V>, D>, facts: F): Promise<void>;
  act?(verdict: B, facts: F): Promise<void>;
}

/** A verdict that ends the chain. */
export type Final<V, B = never> = Exclude<V, { kind: 'read' } | B>;

/** The verdict of the first gate that has one. */
export function decideChain<F, V>(facts: F, gates: GateList<F, V>): V {
  // Indexed: under the image's baseline compiler, destructuring each [name, gate] allocates an iterator,
  // and the chain runs again after every read of every pass.
  for (let i = 0; i < gates.length; i++) {
    const verdict = (gates[i] as readonly [string, ChainGate<F, V>])[1](facts);
    if (verdict) return verdict;
  }
  throw new Error('no gate decided: the chain must end with one that always does');
}

export async function runChain<F, V extends { kind: string }, B extends V = never, D = never>(
  facts: F,
  program: ChainProgram<F, V, B, D>,
  port: ChainPort<F, V, B, D>,
): Promise<Final<V, B>> {
  for (;;) {
    const verdict = decideChain(facts, program.gates);
    if (verdict.kind === 'read') {
      const { read } = verdict as unknown as { read: ReadOf<V> };
      if (program.isDerived?.(read)) program.derive?.(facts, read);
      else {
        const world = read as Exclude<ReadOf<V>, D>;
        await port.read(world, facts);
        program.learn?.(facts, world);
      }
      continue;
    }
    if (program.isBookkeeping?.(verdict)) {
      await port.act?.(verdict, facts);
      program.advance?.(facts, verdict);
      continue;
    }
    return verdict as Final<V, B>;
  }
}
