/**
 * The SandboxTemplate reconciler: observe only, one step in the runtime's reconcile shell. Each pass
 * runs the kind's program (reconcile/sandboxtemplate/: the credentials, the templates from the shared
 * per-credential snapshot, the exact name, the drift) and acts on its verdict: copies what it observed
 * into status and reports drift field by field. Nothing
 * is ever written to the control plane (the interface shows no write endpoint for templates), so
 * deletion needs no finalizer. The Drifted condition and its event are summary.ts's.
 */

import type { SandboxTemplate, SandboxTemplateStatus } from '../../api/sandboxtemplate.ts';
import type { ControlPlaneAllowList } from '../../controlplane/allowed-control-planes.ts';
import { type Credentials, credentialsKey } from '../../controlplane/credentials.ts';
import type { ScopeDecision } from '../../controlplane/default-credentials-scope.ts';
import { outcomeOfControlPlaneError } from '../../controlplane/errors.ts';
import { credentialsPolicy } from '../../controlplane/resolve-credentials.ts';
import type { SandboxTemplate as ListedTemplate } from '../../controlplane/template-schemas.ts';
import { canonicalJson } from '../../lib/canonical-json.ts';
import type { TemplateFacts } from '../../reconcile/sandboxtemplate/facts.ts';
import { observedFacts } from '../../reconcile/sandboxtemplate/observed.ts';
import { runTemplate, type TemplateGates } from '../../reconcile/sandboxtemplate/program.ts';
import type { FinalTemplateVerdict } from '../../reconcile/sandboxtemplate/verdict.ts';
import { pollIntervalOf, takeReconcileRequest } from '../../runtime/annotations.ts';
import type { Reconciler } from '../../runtime/controller.ts';
import { type Outcome, Stall, Wait } from '../../runtime/outcome.ts';
import {
  type KindShell,
  type Pass,
  type PendingEvent,
  reconcileWithShell,
  type Step,
} from '../../runtime/reconcile-shell.ts';
import type { TemplateSnapshots } from './snapshots.ts';
import { driftMessage, statusEvents, summarizeDrift, type TemplateFound } from './summary.ts';

export interface SandboxTemplateDeps {
  getObject(namespace: string, name: string): SandboxTemplate | undefined;
  /** A Secret's data (base64 values, as the API returns them); undefined when it does not exist. */
  readSecret(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  writeStatus(obj: SandboxTemplate, status: SandboxTemplateStatus, signal: AbortSignal): Promise<void>;
  recordEvent(obj: SandboxTemplate, event: PendingEvent): void;
  /**
   * One listing pass over every page, with these credentials, ended when `deadline` aborts; `namespace`:
   * the one whose credentials Secret named them (counted against its identities); `maxBytes`: what its
   * pages may read at most.
   */
  listTemplates(
    credentials: Credentials,
    options: { namespace?: string; maxBytes?: number; deadline?: AbortSignal },
  ): Promise<ListedTemplate[]>;
  snapshots: TemplateSnapshots;
  defaultCredentials: Partial<Credentials>;
  /** Control planes a namespace's credentials Secret may name (default: the default credentials' only). */
  allowedControlPlanes?: ControlPlaneAllowList;
  /** Whether objects of this namespace may use the default credentials (the administrator's scope). */
  defaultCredentialsScope(namespace: string): ScopeDecision;
  pollIntervalMs: number;
  now(): Date;
}

interface TemplatePass extends Pass<SandboxTemplate, SandboxTemplateStatus> {
  /** Set once the template is found: its id and how it differs from the spec. */
  found?: TemplateFound;
}

type TemplateStep = Step<TemplatePass>;

/** Everything status says about a template, for when it is not (uniquely) there. */
const TEMPLATE_FIELDS = [
  'templateId',
  'registryName',
  'registryId',
  'createdAt',
  'updatedAt',
  'observed',
  'drift',
] as const satisfies readonly (keyof SandboxTemplateStatus)[];

function templateSteps(deps: SandboxTemplateDeps, gates?: TemplateGates): readonly TemplateStep[] {
  const policy = credentialsPolicy(deps.defaultCredentials, deps.allowedControlPlanes);
  /** Gather and decide (reconcile/sandboxtemplate/), then act: record what was observed, report drift. */
  const decide: TemplateStep = {
    name: 'decide',
    async run(pass) {
      const { obj, status } = pass;
      const namespace = obj.metadata.namespace ?? '';
      // A requested reconcile wants what the control plane has now, not the last pass.
      const requested = takeReconcileRequest(obj, { ...status });
      const facts: TemplateFacts = {
        object: { metadata: obj.metadata, spec: obj.spec },
        settings: {
          defaultCredentialsScope: deps.defaultCredentialsScope(namespace),
          credentialsPolicy: policy,
        },
      };
      const verdict = await runTemplate(
        facts,
        {
          async read(read, f) {
            const ref = obj.spec.credentialsSecretRef;
            if (read === 'credentialsSecret') {
              f.credentialsSecret = { data: ref ? await deps.readSecret(namespace, ref.name) : undefined };
              return;
            }
            if (!f.credentials?.ok) throw new Error('templates listed before the credentials resolved');
            const { credentials } = f.credentials;
            const maxAgeMs = requested ? 0 : pollIntervalOf(obj, deps.pollIntervalMs);
            // Under the pass deadline (--reconcile-timeout), as every AgentDeployment call: a server that
            // answers each page just inside the call deadline cannot hold the worker for hundreds of pages.
            const from = ref ? namespace : undefined;
            const snapshot = await deps.snapshots.get(
              credentialsKey(credentials),
              maxAgeMs,
              (maxBytes, deadline) =>
                deps.listTemplates(credentials, {
                  ...(from === undefined ? {} : { namespace: from }),
                  ...(maxBytes === undefined ? {} : { maxBytes }),
                  ...(deadline === undefined ? {} : { deadline }),
                }),
              from,
              pass.deadline,
            );
            status.lastSyncTime = new Date(snapshot.takenAt).toISOString();
            f.templates = snapshot.templates;
          },
        },
        gates,
      );
      if (verdict.kind !== 'paused') takeReconcileRequest(obj, status);
      return act(pass, verdict);
    },
  };
  return [decide];
}

function act(pass: TemplatePass, verdict: FinalTemplateVerdict): Outcome {
  const { status } = pass;
  // Not (uniquely) there: status says nothing of a template.
  if ((verdict.kind === 'wait' || verdict.kind === 'stall') && verdict.unresolved)
    for (const k of TEMPLATE_FIELDS) delete status[k];
  switch (verdict.kind) {
    case 'paused':
      return { kind: 'paused', reason: 'Paused', message: verdict.message };
    case 'wait':
      throw new Wait(verdict.reason, verdict.message);
    case 'stall':
      throw new Stall(verdict.reason, verdict.message);
    case 'found': {
      const { template, drift } = verdict;
      Object.assign(status, observedFacts(template));
      status.drift = drift;
      pass.found = { id: template.id, drift };
      // Needs a person (change the spec or the template), but the template keeps being observed.
      if (drift.length > 0) throw new Stall('DriftDetected', driftMessage(template.id, drift));
      return {
        kind: 'ready',
        reason: 'Succeeded',
        message: `template ${template.id} found and matches the spec`,
      };
    }
  }
}

/** A newer listing that changed nothing is not worth a write: steady objects cost no status writes. */
function worthWriting(before: SandboxTemplateStatus, after: SandboxTemplateStatus): boolean {
  const withoutSyncTime = ({ lastSyncTime: _, ...rest }: SandboxTemplateStatus) => canonicalJson(rest);
  return withoutSyncTime(before) !== withoutSyncTime(after);
}

/** `gates`: the chain to run (a test may take one out; the default is the whole chain). */
export function sandboxTemplateShell(
  deps: SandboxTemplateDeps,
  gates?: TemplateGates,
): KindShell<SandboxTemplate, SandboxTemplateStatus, TemplatePass> {
  return {
    kind: 'SandboxTemplate',
    // Deleted (or never seen): nothing to do on the control plane, ever.
    read: (namespace, name) => {
      const obj = deps.getObject(namespace, name);
      return obj?.metadata.deletionTimestamp ? undefined : obj;
    },
    begin: (pass) => pass,
    steps: templateSteps(deps, gates),
    classify: outcomeOfControlPlaneError,
    summarize: (pass, outcome) => {
      if (outcome.kind !== 'paused') summarizeDrift(pass);
    },
    statusEvents,
    worthWriting,
    writeStatus: deps.writeStatus,
    recordEvent: deps.recordEvent,
    requeueAfter: (pass) => pollIntervalOf(pass.obj, deps.pollIntervalMs),
    now: deps.now,
  };
}

export function sandboxTemplateReconciler(deps: SandboxTemplateDeps): Reconciler {
  const shell = sandboxTemplateShell(deps);
  return (key, ctx) => reconcileWithShell(shell, key, ctx);
}
