/**
 * What tests inject into the simulator's next revisions (revision-plan.ts): failures and scripts, each
 * for the next `times` revisions of one deployment name (or any) and one `repo_ref` (or any).
 */
import type { RevisionStatus } from '../controlplane/schemas.ts';
import type { FailureStage, RevisionScript } from './revision-plan.ts';

export interface FailRevisionsRule {
  deploymentName?: string;
  at: FailureStage;
  times?: number;
}

/**
 * Scripts the next `times` revisions (of one deployment name, or any; of one `repo_ref`, or any): a
 * transient status or a hold. The ref picks out, say, a rollback's redeploy before it exists.
 */
export interface ScriptRevisionsRule {
  deploymentName?: string;
  repoRef?: string;
  passThrough?: RevisionScript['passThrough'];
  hold?: RevisionStatus;
  times?: number;
}

type ScriptRule = { deploymentName?: string; repoRef?: string; times: number; script: RevisionScript };

export class RevisionScripts {
  #rules: ScriptRule[] = [];

  fail(rule: FailRevisionsRule): void {
    this.#rules.push({
      ...(rule.deploymentName === undefined ? {} : { deploymentName: rule.deploymentName }),
      times: rule.times ?? 1,
      script: { failAt: rule.at },
    });
  }

  script(rule: ScriptRevisionsRule): void {
    const { deploymentName, repoRef, times, ...script } = rule;
    this.#rules.push({
      ...(deploymentName === undefined ? {} : { deploymentName }),
      ...(repoRef === undefined ? {} : { repoRef }),
      times: times ?? 1,
      script,
    });
  }

  /** The script of a new revision of deployment `name` at `repoRef`, used up once its times are. */
  take(name: string, repoRef: string | undefined): RevisionScript | undefined {
    const rule = this.#rules.find(
      (r) =>
        (r.deploymentName === undefined || r.deploymentName === name) &&
        (r.repoRef === undefined || r.repoRef === repoRef),
    );
    if (!rule) return undefined;
    rule.times -= 1;
    if (rule.times <= 0) this.#rules = this.#rules.filter((r) => r !== rule);
    return rule.script;
  }
}
