/**
 * A measurement's outcome from its metric's conditions, by Argo Rollouts' rule: a provider that gave no
 * result is Error; with only successCondition, true is Successful and false is Failed; with both,
 * successCondition true is Successful, else failureCondition true is Failed, else Inconclusive.
 *
 * Conditions are CEL over one variable, `result` (numbers are doubles; a JSON object is a map). They are
 * compiled once per text. A condition that does not parse, reads another variable, or can only yield a
 * number, a string, a list or a map is refused at compile time naming its field (the object cannot be
 * analysed until the spec changes); one that yields a non-bool for a given result, or fails on it (a
 * missing field), makes that measurement Error.
 *
 * The CEL library has no cost limit of its own, so the cost is bounded by what it runs on: a condition is
 * at most 1024 characters, it nests comprehensions (all, exists, map, filter) at most two deep, and a
 * result holds at most MAX_RESULT_NODES values; two nested comprehensions over the largest result are a
 * million steps at most.
 */
import { type CelInput, CelScalar, celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import {
  type AnalysisMetric,
  MAX_MEASUREMENT_MESSAGE,
  MAX_MEASUREMENT_VALUE,
  type Measurement,
  type MeasurementOutcome,
} from '../api/analysis.ts';
import { BoundedMemo } from '../lib/bounded-memo.ts';
import { cleanPeerText } from '../lib/peer-text.ts';

export const MAX_COMPREHENSION_DEPTH = 2;
/** Values (numbers, strings, list and map entries...) a result may hold. */
export const MAX_RESULT_NODES = 1000;
const MAX_PROBLEM = 200;

const env = celEnv({ variables: { result: CelScalar.DYN } });

type Program = (bindings: { result: CelInput }) => unknown;

/** A condition the spec states that cannot be evaluated: the object cannot be analysed as written. */
export class ConditionError extends Error {
  /** The field, e.g. spec.analysis.metrics[0].successCondition. */
  readonly field: string;
  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = 'ConditionError';
    this.field = field;
  }
}

export interface CompiledMetric {
  name: string;
  success: Program;
  failure: Program | undefined;
  successField: string;
  failureField: string;
}

/** What a provider gave: a JSON-like result, or why there is none. */
export type ProviderResult = { value: unknown } | { error: string };

export interface Judgement {
  outcome: MeasurementOutcome;
  /** Why the measurement erred (cleaned), when it did. */
  message?: string;
}

type Node = { exprKind?: { case?: string; value?: unknown } };

/** Expression kinds that can never yield a bool at the top of a condition. */
const NEVER_BOOL_CALLS = new Set([
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '-_',
  'size',
  'string',
  'int',
  'double',
]);

/** CEL's type names, identifiers a condition may read besides result (`type(result) == double`). */
const TYPE_NAMES = ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type'];

/** Why the parsed expression cannot be a condition over `result`, or undefined. */
function structuralProblem(root: Node): string | undefined {
  const top = root.exprKind;
  if (top?.case === 'constExpr') {
    const kind = (top.value as { constantKind?: { case?: string } }).constantKind?.case;
    if (kind !== 'boolValue') return 'is a constant that is not a bool';
  }
  if (top?.case === 'listExpr' || top?.case === 'structExpr') return 'is a list or a map, not a bool';
  if (top?.case === 'callExpr' && NEVER_BOOL_CALLS.has((top.value as { function: string }).function)) {
    return 'yields a number or a string, not a bool';
  }
  let problem: string | undefined;
  const walk = (node: Node, bound: ReadonlySet<string>, depth: number): void => {
    const kind = node.exprKind;
    if (problem || !kind) return;
    const v = kind.value as Record<string, unknown>;
    switch (kind.case) {
      case 'identExpr':
        if (!bound.has(v.name as string)) {
          problem = `reads ${cleanPeerText(String(v.name), 40)}: a condition reads result only`;
        }
        return;
      case 'comprehensionExpr': {
        if (depth + 1 > MAX_COMPREHENSION_DEPTH) {
          problem = `nests comprehensions (all, exists, map, filter) more than ${MAX_COMPREHENSION_DEPTH} deep`;
          return;
        }
        walk(v.iterRange as Node, bound, depth);
        walk(v.accuInit as Node, bound, depth);
        const inner = new Set([...bound, v.iterVar as string, v.accuVar as string]);
        if (v.iterVar2) inner.add(v.iterVar2 as string);
        for (const part of [v.loopCondition, v.loopStep, v.result]) walk(part as Node, inner, depth + 1);
        return;
      }
      case 'selectExpr':
        walk(v.operand as Node, bound, depth);
        return;
      case 'callExpr':
        if (v.target) walk(v.target as Node, bound, depth);
        for (const a of v.args as Node[]) walk(a, bound, depth);
        return;
      case 'listExpr':
        for (const e of v.elements as Node[]) walk(e, bound, depth);
        return;
      case 'structExpr':
        for (const e of v.entries as { keyKind?: { value?: unknown }; value?: Node }[]) {
          if (e.keyKind?.value && typeof e.keyKind.value === 'object')
            walk(e.keyKind.value as Node, bound, depth);
          if (e.value) walk(e.value, bound, depth);
        }
        return;
    }
  };
  walk(root, new Set(['result', ...TYPE_NAMES]), 0);
  return problem;
}

type Compiled = { program: Program } | { problem: string };

const compiled = new BoundedMemo<Compiled>(1024);

function compileText(text: string): Compiled {
  return compiled.get(text, () => {
    let root: Node;
    try {
      root = parse(text).expr as Node;
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      return { problem: `does not compile: ${cleanPeerText(detail, MAX_PROBLEM)}` };
    }
    const problem = structuralProblem(root);
    if (problem) return { problem };
    return { program: plan(env, root as never) as unknown as Program };
  });
}

function programFor(field: string, text: string): Program {
  const c = compileText(text);
  if ('problem' in c) throw new ConditionError(field, c.problem);
  return c.program;
}

/** The metric's conditions, compiled; throws ConditionError naming the field that cannot be. */
export function compileMetric(metric: AnalysisMetric, index: number): CompiledMetric {
  const at = `spec.analysis.metrics[${index}]`;
  const successField = `${at}.successCondition`;
  const failureField = `${at}.failureCondition`;
  return {
    name: metric.name,
    success: programFor(successField, metric.successCondition),
    failure:
      metric.failureCondition === undefined ? undefined : programFor(failureField, metric.failureCondition),
    successField,
    failureField,
  };
}

/** Every metric compiled, or the first ConditionError (thrown). */
export function compileMetrics(metrics: readonly AnalysisMetric[]): CompiledMetric[] {
  return metrics.map(compileMetric);
}

/** A JSON value as CEL reads it; throws when it holds more than MAX_RESULT_NODES values. */
export function celResult(value: unknown): CelInput {
  let nodes = 0;
  const convert = (v: unknown): CelInput => {
    if (++nodes > MAX_RESULT_NODES)
      throw new RangeError(`the result holds more than ${MAX_RESULT_NODES} values`);
    if (Array.isArray(v)) return v.map(convert);
    if (typeof v === 'object' && v !== null) {
      return new Map(Object.entries(v).map(([k, x]) => [k, convert(x)]));
    }
    if (v === undefined) return null;
    return v as CelInput;
  };
  return convert(value);
}

function evaluate(program: Program, field: string, result: CelInput): boolean | { error: string } {
  const out = program({ result });
  if (isCelError(out)) return { error: `${field}: ${cleanPeerText(out.message, MAX_PROBLEM)}` };
  if (typeof out !== 'boolean') return { error: `${field} yielded ${celTypeName(out)}, not a bool` };
  return out;
}

function celTypeName(v: unknown): string {
  if (typeof v === 'number') return 'a double';
  if (typeof v === 'bigint') return 'an int';
  if (typeof v === 'string') return 'a string';
  if (v === null) return 'null';
  return 'a list or a map';
}

/** The outcome of one measurement by Argo Rollouts' rule. */
export function judge(metric: CompiledMetric, result: ProviderResult): Judgement {
  if ('error' in result) return { outcome: 'Error', message: result.error };
  let input: CelInput;
  try {
    input = celResult(result.value);
  } catch (err) {
    return { outcome: 'Error', message: (err as Error).message };
  }
  const success = evaluate(metric.success, metric.successField, input);
  if (typeof success !== 'boolean') return { outcome: 'Error', message: success.error };
  if (success) return { outcome: 'Successful' };
  if (!metric.failure) return { outcome: 'Failed' };
  const failure = evaluate(metric.failure, metric.failureField, input);
  if (typeof failure !== 'boolean') return { outcome: 'Error', message: failure.error };
  return { outcome: failure ? 'Failed' : 'Inconclusive' };
}

/** The measurement as status.analysis records it: the result as JSON and the message, cleaned and bounded. */
export function measurementOf(at: Date, result: ProviderResult, judgement: Judgement): Measurement {
  // The strings inside are cleaned first: JSON writes a control character as a printable \u escape,
  // which the cleaner would let through and a reader decoding the value would get back.
  const json =
    'value' in result
      ? JSON.stringify(result.value, (_key, v) =>
          typeof v === 'string' ? cleanPeerText(v, MAX_MEASUREMENT_VALUE) : v,
        )
      : undefined;
  return {
    at: at.toISOString(),
    outcome: judgement.outcome,
    ...(json === undefined ? {} : { value: cleanPeerText(json, MAX_MEASUREMENT_VALUE) }),
    ...(judgement.message ? { message: cleanPeerText(judgement.message, MAX_MEASUREMENT_MESSAGE) } : {}),
  };
}
