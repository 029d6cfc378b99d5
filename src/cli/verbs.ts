/**
 * The hands-on verbs, as `kubectl rollout` and `flux` name them: `history` (status.history as a table),
 * `suspend` and `resume` (the paused annotation the controller honours), `reconcile` (a new value of
 * the reconcile-requested-at annotation, then the wait for the pass that records it handled, as `flux
 * reconcile` waits for lastHandledReconcileAt), `undo` (a rollback by hand, as `kubectl rollout undo`;
 * the controller's gate `undo` makes it) and `status` (the object followed until it is ready or
 * fails, a line per step, as `kubectl rollout status`); `promote` and `abort` (analysis-verbs.ts). NAME
 * is an AgentDeployment; `KIND/NAME` names either kind where the verb applies to both.
 */
import { parseArgs } from 'node:util';
import { AGENT_DEPLOYMENT, type KindNames } from '../api/group.ts';
import { Annotation } from '../api/names.ts';
import type { KubeAccess } from '../kube/access.ts';
import { NotFoundError } from '../kube/errors.ts';
import { AbortScope } from '../lib/abort-scope.ts';
import { parseDuration } from '../lib/duration.ts';
import { ANALYSIS_VERBS } from './analysis-verbs.ts';
import { analysisLines } from './analysis-view.ts';
import { FollowError, follow } from './follow.ts';
import { formatHistory } from './history.ts';
import { clean, stateOf } from './object-state.ts';
import {
  annotate,
  describeRef,
  getObject,
  KINDS,
  kindNamed,
  listNames,
  ObjectArgError,
  type ObjectRef,
  parseObjectArg,
} from './objects.ts';

export interface VerbIo {
  argv: readonly string[];
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  kubeAccess: () => KubeAccess;
  /** The clock: the reconcile request's value. */
  now?: () => Date;
}

const NAMESPACE_FLAG = `  -n, --namespace NS           the objects' namespace (default: the kubeconfig's, or default)`;
const HELP_FLAG = '  -h, --help                   this text';
const NAME_FORMS = `NAME is an AgentDeployment's; KIND/NAME names either kind (agentdeployment/NAME, agd/NAME,
sandboxtemplate/NAME, sbt/NAME).`;

export interface Verb {
  name: string;
  description: string;
  usage: string;
  kinds: readonly KindNames[];
  /** Takes several names, or --all. */
  many: boolean;
  /** The default of --timeout; undefined: the verb takes none. 0: no timeout. */
  timeoutMs?: number;
  /** Takes --to-revision ID. */
  toRevision?: true;
  run(
    access: KubeAccess,
    refs: ObjectRef[],
    io: VerbIo,
    signal: AbortSignal,
    flags: { toRevision?: string | undefined },
  ): Promise<number>;
}

const manyFlags = `${NAMESPACE_FLAG}
      --all                    every AgentDeployment of the namespace`;

export const VERBS: readonly Verb[] = [
  {
    name: 'history',
    description: "an AgentDeployment's revisions",
    usage: `Usage: kubectl agd history NAME [-n NS]

Lists the revisions the AgentDeployment's status records (status.history), newest first: id, the
configuration it runs, what made it, its outcome and when the controller first knew it.

Options:
${NAMESPACE_FLAG}
${HELP_FLAG}
`,
    kinds: [AGENT_DEPLOYMENT],
    many: false,
    async run(access, [ref], io) {
      const obj = await getObject(access, ref as ObjectRef);
      io.stdout(formatHistory(obj, describeRef(ref as ObjectRef)));
      return 0;
    },
  },
  {
    name: 'suspend',
    description: 'stop reconciling (the paused annotation)',
    usage: `Usage: kubectl agd suspend NAME... [-n NS] | --all [-n NS]

Sets the annotation ${Annotation.Paused}=true: the controller sends nothing to the platform for the
object until it is resumed (its status says Paused). ${NAME_FORMS}

Options:
${manyFlags}
${HELP_FLAG}
`,
    kinds: KINDS,
    many: true,
    async run(access, refs, io) {
      for (const ref of refs) {
        const obj = await getObject(access, ref);
        if (obj.metadata.annotations?.[Annotation.Paused] === 'true') {
          io.stdout(`${describeRef(ref)} is suspended already\n`);
          continue;
        }
        await annotate(access, ref, { [Annotation.Paused]: 'true' });
        io.stdout(`${describeRef(ref)} suspended\n`);
      }
      return 0;
    },
  },
  {
    name: 'resume',
    description: 'reconcile again after suspend',
    usage: `Usage: kubectl agd resume NAME... [-n NS] | --all [-n NS]

Removes the annotation ${Annotation.Paused}: the controller reconciles the object again. ${NAME_FORMS}

Options:
${manyFlags}
${HELP_FLAG}
`,
    kinds: KINDS,
    many: true,
    async run(access, refs, io) {
      for (const ref of refs) {
        const obj = await getObject(access, ref);
        if (obj.metadata.annotations?.[Annotation.Paused] !== 'true') {
          io.stdout(`${describeRef(ref)} is not suspended\n`);
          continue;
        }
        await annotate(access, ref, { [Annotation.Paused]: null });
        io.stdout(`${describeRef(ref)} resumed\n`);
      }
      return 0;
    },
  },
  {
    name: 'reconcile',
    description: 'ask for a reconcile now and wait for it',
    usage: `Usage: kubectl agd reconcile NAME... [-n NS] [--timeout DURATION] | --all [-n NS]

Sets the annotation ${Annotation.ReconcileRequestedAt} to the time now, which asks the controller
for a pass at once (and lifts a stall that waits for a person), then waits for the pass that records
the request handled (status.lastHandledReconcileAt) and prints what it found. Exit code 1 when the
object is suspended, the pass finds it failed (Stalled), or no pass answered in time. ${NAME_FORMS}

Options:
${manyFlags}
      --timeout DURATION       how long to wait for the pass, e.g. 30s or 5m (default 5m; 0: no limit)
${HELP_FLAG}
`,
    kinds: KINDS,
    many: true,
    timeoutMs: 5 * 60_000,
    async run(access, refs, io, signal) {
      let failed = false;
      const requested: { ref: ObjectRef; value: string }[] = [];
      for (const ref of refs) {
        const obj = await getObject(access, ref);
        if (obj.metadata.annotations?.[Annotation.Paused] === 'true') {
          io.stderr(`kubectl-agd: ${describeRef(ref)} is suspended: resume it first (kubectl agd resume)\n`);
          failed = true;
          continue;
        }
        const value = (io.now?.() ?? new Date()).toISOString();
        await annotate(access, ref, { [Annotation.ReconcileRequestedAt]: value });
        io.stdout(`${describeRef(ref)}: reconcile requested (${value})\n`);
        requested.push({ ref, value });
      }
      for (const { ref, value } of requested) {
        const what = describeRef(ref);
        const state = await follow(
          access,
          ref,
          (obj) => (obj.status?.lastHandledReconcileAt === value ? stateOf(obj, what) : undefined),
          signal,
        ).catch((err: unknown) => {
          if (err instanceof FollowError && signal.aborted)
            throw new FollowError(
              `${what}: no pass answered the request in time (is the controller running?)`,
            );
          throw err;
        });
        if (state.kind === 'failed' || state.kind === 'suspended') failed = true;
        (state.kind === 'failed' ? io.stderr : io.stdout)(`${state.line}\n`);
      }
      return failed ? 1 : 0;
    },
  },
  {
    name: 'undo',
    description: 'roll back by hand to an earlier revision',
    usage: `Usage: kubectl agd undo NAME [-n NS] [--to-revision ID] [--timeout DURATION]

Rolls the AgentDeployment back by hand: sets the annotations ${Annotation.UndoRequestedAt} (the
time now) and ${Annotation.UndoToRevision} (--to-revision, else removed), and the controller redeploys
that revision (default: the newest other revision of its history that deployed) as a rollback, once,
then holds it as RolledBack until the spec changes or a reconcile is requested, so a GitOps sync and
the undo never fight. Waits for the pass that handles the request and prints what it did; exit code 1
when the undo was refused (no deployment, observe-only, no such revision that deployed) or no pass
answered in time. kubectl agd history NAME lists the revisions.

Options:
${NAMESPACE_FLAG}
      --to-revision ID         the revision to go back to (an ID of kubectl agd history)
      --timeout DURATION       how long to wait for the pass, e.g. 30s or 5m (default 5m; 0: no limit)
${HELP_FLAG}
`,
    kinds: [AGENT_DEPLOYMENT],
    many: false,
    timeoutMs: 5 * 60_000,
    toRevision: true,
    async run(access, [ref], io, signal, { toRevision }) {
      const target = ref as ObjectRef;
      const what = describeRef(target);
      const obj = await getObject(access, target);
      if (obj.metadata.annotations?.[Annotation.Paused] === 'true') {
        io.stderr(`kubectl-agd: ${what} is suspended: resume it first (kubectl agd resume)\n`);
        return 1;
      }
      const value = (io.now?.() ?? new Date()).toISOString();
      await annotate(access, target, {
        [Annotation.UndoRequestedAt]: value,
        [Annotation.UndoToRevision]: toRevision ?? null,
      });
      io.stdout(`${what}: undo requested (${value})${toRevision ? ` to revision ${toRevision}` : ''}\n`);
      const state = await follow(
        access,
        target,
        (o) => (o.status?.lastHandledUndoAt === value ? stateOf(o, what) : undefined),
        signal,
      ).catch((err: unknown) => {
        if (err instanceof FollowError && signal.aborted)
          throw new FollowError(`${what}: no pass answered the undo in time (is the controller running?)`);
        throw err;
      });
      (state.kind === 'failed' ? io.stderr : io.stdout)(`${state.line}\n`);
      return state.kind === 'failed' ? 1 : 0;
    },
  },
  {
    name: 'status',
    description: 'follow an object until it is ready or fails',
    usage: `Usage: kubectl agd status NAME [-n NS] [--timeout DURATION]

Follows the object, printing a line each time its state changes, until it is ready (exit code 0) or
it fails: Stalled (the controller waits for a person), suspended or paused for a person (an
inconclusive analysis), or deleted (exit code 1). With spec.analysis, the analysis' phase and each
metric's counts and last measurement follow the line, as they come. ${NAME_FORMS}

Options:
${NAMESPACE_FLAG}
      --timeout DURATION       give up after this long, e.g. 10m (exit code 1; default 0: no limit)
${HELP_FLAG}
`,
    kinds: KINDS,
    many: false,
    timeoutMs: 0,
    async run(access, [ref], io, signal) {
      const what = `${(ref as ObjectRef).kind.kind} "${(ref as ObjectRef).name}"`;
      let last = '';
      const state = await follow(
        access,
        ref as ObjectRef,
        (obj) => {
          const now = stateOf(obj, what);
          // The analysis' measurements as they come, under the state's line.
          const lines = [now.line, ...analysisLines(obj)].join('\n');
          if (lines !== last) (now.kind === 'failed' ? io.stderr : io.stdout)(`${lines}\n`);
          last = lines;
          return now.kind === 'progressing' ? undefined : now;
        },
        signal,
      );
      return state.kind === 'ready' ? 0 : 1;
    },
  },
  ...ANALYSIS_VERBS,
];

class VerbUsageError extends Error {}

const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `kubectl agd VERB ...`; resolves with the exit code. */
export async function runVerb(verb: Verb, io: VerbIo): Promise<number> {
  try {
    const { values, positionals } = parseVerbArgs(verb, io.argv.slice(1));
    if (values.help) {
      io.stdout(verb.usage);
      return 0;
    }
    const timeoutMs = timeoutOf(values.timeout, verb.timeoutMs);
    const access = io.kubeAccess();
    const namespace = values.namespace ?? access.namespace ?? 'default';
    if (!NAMESPACE_NAME.test(namespace) || namespace.length > 63)
      throw new VerbUsageError(`${JSON.stringify(clean(namespace, 80))} is not a namespace name`);
    const names = values.all ? await listNames(access, AGENT_DEPLOYMENT, namespace) : positionals;
    const refs = names.map((n) => parseObjectArg(n, namespace, verb.kinds));
    if (values.all && refs.length === 0) io.stdout(`No AgentDeployment in namespace ${namespace}\n`);
    const scope = new AbortScope([], timeoutMs > 0 ? timeoutMs : undefined);
    try {
      return await verb.run(access, refs, io, scope.signal, { toRevision: values['to-revision'] });
    } finally {
      scope.end();
    }
  } catch (err) {
    const message =
      err instanceof NotFoundError
        ? `not found: ${clean(err.message)}`
        : clean(err instanceof Error ? err.message : String(err), 1000);
    const hint = err instanceof VerbUsageError || err instanceof ObjectArgError ? ' (see --help)' : '';
    io.stderr(`kubectl-agd ${verb.name}: ${message}${hint}\n`);
    return 1;
  }
}

function parseVerbArgs(verb: Verb, args: readonly string[]) {
  let parsed: {
    values: {
      namespace?: string;
      all?: boolean;
      timeout?: string;
      help?: boolean;
      'to-revision'?: string;
    };
    positionals: string[];
  };
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        namespace: { type: 'string', short: 'n' },
        help: { type: 'boolean', short: 'h', default: false },
        ...(verb.many ? { all: { type: 'boolean', default: false } } : {}),
        ...(verb.timeoutMs !== undefined ? { timeout: { type: 'string' } } : {}),
        ...(verb.toRevision ? { 'to-revision': { type: 'string' } } : {}),
      },
    }) as typeof parsed; // the options given: --all a boolean, --timeout a string
  } catch (err) {
    throw new VerbUsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  if (values.help) return parsed;
  if (values.all && positionals.length > 0) throw new VerbUsageError('give names or --all, not both');
  if (!values.all && positionals.length === 0)
    throw new VerbUsageError(verb.many ? 'give the object names, or --all' : 'give the object name');
  if (!verb.many && positionals.length > 1) throw new VerbUsageError('give one object name');
  const to = values['to-revision'];
  if (to !== undefined && !REVISION_ID.test(to))
    throw new VerbUsageError(
      `--to-revision ${JSON.stringify(clean(to, 80))}: must be a revision id (kubectl agd history)`,
    );
  return parsed;
}

/** What a revision id looks like (the platform's are UUIDs): letters, digits, '.', '_', '-'. */
const REVISION_ID = /^[A-Za-z0-9._-]{1,128}$/;

function timeoutOf(text: string | undefined, fallback: number | undefined): number {
  if (text === undefined) return fallback ?? 0;
  if (text === '0') return 0;
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new VerbUsageError(`--timeout ${JSON.stringify(text)}: must be a duration such as 30s or 5m, or 0`);
  return ms;
}

/** The names `kubectl agd VERB <TAB>` offers: the namespace's objects, as `KIND/NAME` once `KIND/` is typed. */
export async function namesToComplete(
  access: KubeAccess,
  verb: Verb,
  typed: string,
  namespace: string | undefined,
): Promise<string[]> {
  const ns = namespace ?? access.namespace ?? 'default';
  const slash = typed.indexOf('/');
  if (slash < 0) return listNames(access, AGENT_DEPLOYMENT, ns);
  const prefix = typed.slice(0, slash);
  const kind = kindNamed(prefix);
  if (!kind || !verb.kinds.includes(kind)) return [];
  return (await listNames(access, kind, ns)).map((n) => `${prefix}/${n}`);
}
