/**
 * The SandboxTemplate reconciler: observe only. Each pass resolves the object's credentials, reads the
 * templates from the shared per-credential snapshot, picks the exact name, copies what it observed into
 * status and reports drift field by field. Nothing is ever written to the control plane (the interface
 * shows no write endpoint for templates), so deletion needs no finalizer.
 */

import type { Logger } from 'pino';
import { Annotation } from '../../api/annotations.ts';
import type { Drift, SandboxTemplate, SandboxTemplateStatus } from '../../api/sandboxtemplate.ts';
import { type Credentials, credentialsKey } from '../../controlplane/credentials.ts';
import type { SandboxTemplate as ListedTemplate } from '../../controlplane/schemas.ts';
import { canonicalJson } from '../../translate/canonical-json.ts';
import { resolveCredentials } from '../agentdeployment/credentials.ts';
import { type Condition, removeCondition, setCondition } from '../conditions.ts';
import { parseDuration } from '../duration.ts';
import { applyOutcome, type Outcome, outcomeOf, Stall, Wait } from '../outcome.ts';
import { describeDrift, templateDrift } from './drift.ts';
import { observedFacts } from './observed.ts';
import { resolveTemplate } from './resolve.ts';
import type { TemplateSnapshots } from './snapshots.ts';

export type EventType = 'Normal' | 'Warning';

export const Reason = {
  NotFound: 'NotFound',
  Ambiguous: 'Ambiguous',
  DriftDetected: 'DriftDetected',
  InSync: 'InSync',
  Succeeded: 'Succeeded',
} as const;

export interface SandboxTemplateDeps {
  getObject(namespace: string, name: string): SandboxTemplate | undefined;
  getSecretData(namespace: string, name: string): Record<string, string> | undefined;
  writeStatus(obj: SandboxTemplate, status: SandboxTemplateStatus): Promise<void>;
  recordEvent(obj: SandboxTemplate, type: EventType, reason: string, message: string): void;
  /** One listing pass over every page, with these credentials. */
  listTemplates(credentials: Credentials): Promise<ListedTemplate[]>;
  snapshots: TemplateSnapshots;
  defaultCredentials: Partial<Credentials>;
  pollIntervalMs: number;
  now(): Date;
}

export interface ReconcileResult {
  requeueAfterMs?: number;
}

interface Pass {
  obj: SandboxTemplate;
  generation: number;
  status: SandboxTemplateStatus;
  log: Logger;
}

export class SandboxTemplateReconciler {
  readonly #deps: SandboxTemplateDeps;

  constructor(deps: SandboxTemplateDeps) {
    this.#deps = deps;
  }

  async reconcile(key: string, log: Logger): Promise<ReconcileResult> {
    const slash = key.indexOf('/');
    const obj = this.#deps.getObject(key.slice(0, slash), key.slice(slash + 1));
    // Deleted (or never seen): nothing to do on the control plane, ever.
    if (!obj || obj.metadata.deletionTimestamp) return {};
    const pass: Pass = {
      obj,
      generation: obj.metadata.generation ?? 0,
      status: structuredClone(obj.status ?? {}),
      log,
    };
    const result = { requeueAfterMs: this.#pollInterval(obj) };
    let outcome: Outcome;
    let failure: unknown;
    try {
      outcome = await this.#observe(pass);
    } catch (err) {
      outcome = outcomeOf(err);
      if (outcome.kind === 'transient') failure = err;
    }
    this.#noteProblem(pass, outcome);
    pass.status.observedGeneration = pass.generation;
    pass.status.conditions = applyOutcome(
      (pass.status.conditions ?? []) as Condition[],
      outcome,
      pass.generation,
      this.#deps.now(),
    );
    await this.#writeStatusIfChanged(pass);
    if (failure) throw failure;
    return result;
  }

  async #observe(pass: Pass): Promise<Outcome> {
    const { obj, status } = pass;
    if (obj.metadata.annotations?.[Annotation.Paused] === 'true') {
      return {
        kind: 'paused',
        reason: 'Paused',
        message: `reconciliation paused by annotation ${Annotation.Paused}`,
      };
    }
    const requestedAt = obj.metadata.annotations?.[Annotation.ReconcileRequestedAt];
    const requested = requestedAt !== undefined && requestedAt !== status.lastHandledReconcileAt;
    status.lastHandledReconcileAt = requestedAt;

    const namespace = obj.metadata.namespace ?? '';
    const credentials = resolveCredentials(
      obj.spec.credentialsSecretRef,
      (name) => this.#deps.getSecretData(namespace, name),
      this.#deps.defaultCredentials,
    );
    // A requested reconcile wants what the control plane has now, not the last pass.
    const maxAgeMs = requested ? 0 : this.#pollInterval(obj);
    const snapshot = await this.#deps.snapshots.get(credentialsKey(credentials), maxAgeMs, () =>
      this.#deps.listTemplates(credentials),
    );
    status.lastSyncTime = new Date(snapshot.takenAt).toISOString();

    const name = obj.spec.templateName;
    const found = resolveTemplate(snapshot.templates, name);
    if (found.kind === 'notFound') {
      this.#forgetTemplate(pass);
      const similar = found.similar.length ? `; names containing it: ${found.similar.join(', ')}` : '';
      throw new Wait(Reason.NotFound, `no sandbox template named "${name}" on the control plane${similar}`);
    }
    if (found.kind === 'ambiguous') {
      this.#forgetTemplate(pass);
      throw new Stall(
        Reason.Ambiguous,
        `${found.ids.length} sandbox templates are named "${name}" (ids ${found.ids.join(', ')}); the name must be unique`,
      );
    }
    Object.assign(status, observedFacts(found.template));
    const drift = templateDrift(obj.spec, { ...status.observed, registryName: status.registryName });
    this.#noteDrift(pass, drift);
    status.drift = drift;
    const now = this.#deps.now();
    if (drift.length > 0) {
      const message = `template ${found.template.id} differs from the spec: ${describeDrift(drift)}`;
      status.conditions = setCondition(
        (status.conditions ?? []) as Condition[],
        {
          type: 'Drifted',
          status: 'True',
          observedGeneration: pass.generation,
          reason: Reason.DriftDetected,
          message,
        },
        now,
      );
      // Needs a person (change the spec or the template), but the template keeps being observed.
      throw new Stall(Reason.DriftDetected, message);
    }
    status.conditions = setCondition(
      (status.conditions ?? []) as Condition[],
      {
        type: 'Drifted',
        status: 'False',
        observedGeneration: pass.generation,
        reason: Reason.InSync,
        message: 'the template matches the spec',
      },
      now,
    );
    return {
      kind: 'ready',
      reason: Reason.Succeeded,
      message: `template ${found.template.id} found and matches the spec`,
    };
  }

  /** The template is not (uniquely) there: nothing observed stands, and drift cannot be judged. */
  #forgetTemplate(pass: Pass) {
    const s = pass.status;
    for (const k of [
      'templateId',
      'registryName',
      'registryId',
      'createdAt',
      'updatedAt',
      'observed',
      'drift',
    ] as const) {
      delete s[k];
    }
    s.conditions = removeCondition((s.conditions ?? []) as Condition[], 'Drifted');
  }

  /** A Warning event when drift first appears or changes; a Normal one when it clears. */
  #noteDrift(pass: Pass, drift: readonly Drift[]) {
    const before = pass.status.drift ?? [];
    if (JSON.stringify(before) === JSON.stringify(drift)) return;
    if (drift.length > 0) {
      this.#deps.recordEvent(pass.obj, 'Warning', Reason.DriftDetected, describeDrift(drift));
      pass.log.warn({ fields: drift.map((d) => d.field) }, 'template drift');
    } else if (before.length > 0) {
      this.#deps.recordEvent(pass.obj, 'Normal', Reason.InSync, 'the template matches the spec again');
    }
  }

  /** A Warning event when a problem first appears or changes, not on every poll. Drift has its own. */
  #noteProblem(pass: Pass, outcome: Outcome) {
    if (outcome.kind === 'ready' || outcome.kind === 'paused' || outcome.reason === Reason.DriftDetected)
      return;
    const previous = pass.obj.status?.conditions?.find((c) =>
      outcome.kind === 'stalled' ? c.type === 'Stalled' : c.type === 'Reconciling',
    );
    if (previous?.reason === outcome.reason && previous.message === outcome.message) return;
    this.#deps.recordEvent(pass.obj, 'Warning', outcome.reason, outcome.message);
    pass.log.warn({ reason: outcome.reason }, outcome.message);
  }

  async #writeStatusIfChanged(pass: Pass) {
    const before = pass.obj.status ?? {};
    const after = JSON.parse(JSON.stringify(pass.status)) as SandboxTemplateStatus;
    // A newer listing that changed nothing is not worth a write: steady objects cost no status writes.
    const withoutSyncTime = ({ lastSyncTime: _, ...rest }: SandboxTemplateStatus) => canonicalJson(rest);
    if (withoutSyncTime(before) === withoutSyncTime(after)) return;
    await this.#deps.writeStatus(pass.obj, after);
  }

  #pollInterval(obj: SandboxTemplate): number {
    const annotated = obj.metadata.annotations?.[Annotation.PollInterval];
    const parsed = annotated ? parseDuration(annotated) : undefined;
    return parsed ?? this.#deps.pollIntervalMs;
  }
}
