/**
 * The objects a plan reads: YAML (or JSON) documents from files, directories (their .yaml, .yml and
 * .json files, in name order, not recursing) or standard input (`-`); `List` objects are flattened.
 * Only this operator's kinds are kept; the count of the others is reported.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { AGENT_DEPLOYMENT, API_VERSION, SANDBOX_TEMPLATE } from '../api/group.ts';
import type { InputObject, PlanKind } from './model.ts';

export interface Inputs {
  objects: (InputObject & { kind: PlanKind })[];
  /** Secrets given with them: they are what will be applied, so the plan reads them before the cluster's. */
  secrets: InputSecret[];
  /** Documents of other kinds, left alone (a kustomize build holds many). */
  ignored: number;
}

export class InputError extends Error {}

const KINDS: readonly string[] = [AGENT_DEPLOYMENT.kind, SANDBOX_TEMPLATE.kind];

export interface InputSecret {
  namespace: string | undefined;
  name: string;
  /** base64 values, as the API returns them (stringData folded in). */
  data: Record<string, string>;
}

function asSecret(doc: {
  metadata?: { name?: string; namespace?: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}): InputSecret {
  const data = { ...(doc.data ?? {}) };
  for (const [k, v] of Object.entries(doc.stringData ?? {}))
    data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  return { namespace: doc.metadata?.namespace, name: String(doc.metadata?.name ?? ''), data };
}

/** `readStdin`: standard input's text, read only when `-` is given. */
export function readInputs(paths: readonly string[], readStdin: () => string): Inputs {
  if (paths.length === 0) throw new InputError('no input: give -f <file|directory|->');
  const texts: { source: string; text: string }[] = [];
  for (const path of paths) {
    if (path === '-') texts.push({ source: 'standard input', text: readStdin() });
    else texts.push(...filesOf(path).map((file) => ({ source: file, text: readFileSync(file, 'utf8') })));
  }
  const out: Inputs = { objects: [], secrets: [], ignored: 0 };
  for (const { source, text } of texts) {
    let docs: unknown[];
    try {
      docs = yaml.loadAll(text);
    } catch (err) {
      throw new InputError(
        `${source}: not YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      );
    }
    for (const doc of docs.flatMap(flatten)) {
      if (doc === null || doc === undefined) continue;
      const obj = doc as Partial<InputObject>;
      if (obj.apiVersion === 'v1' && obj.kind === 'Secret') {
        out.secrets.push(asSecret(doc as Parameters<typeof asSecret>[0]));
        continue;
      }
      if (obj.apiVersion !== API_VERSION || !KINDS.includes(String(obj.kind))) {
        out.ignored += 1;
        continue;
      }
      if (typeof obj.metadata?.name !== 'string' || obj.metadata.name === '') {
        throw new InputError(`${source}: a ${obj.kind} without metadata.name: metadata.name is required`);
      }
      out.objects.push(obj as InputObject & { kind: PlanKind });
    }
  }
  return out;
}

function flatten(doc: unknown): unknown[] {
  const list = doc as { kind?: string; items?: unknown[] } | null;
  return list?.kind === 'List' && Array.isArray(list.items) ? list.items : [doc];
}

function filesOf(path: string): string[] {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch {
    throw new InputError(`${path}: no such file or directory`);
  }
  if (!stats.isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => join(path, f));
}
