/**
 * Whether a deployment read again within a pass still stands for the observation the pass decided on
 * (pure): the same configuration (what drift compares: source, source and revision configuration,
 * secrets) and the same latest revision. Otherwise the decision and the revision followed belong to an
 * older state: the chain decides again on the new read before anything is recorded (no Ready, no
 * history entry, from a read nobody compared with the spec).
 */

import { Deployment } from '../../controlplane/schemas.ts';
import { sameJson } from '../../lib/canonical-json.ts';
import { knownFields } from '../../lib/known-fields.ts';

export function sameObservation(decided: Deployment, read: Deployment): boolean {
  return (
    decided.id === read.id &&
    decided.latest_revision_id === read.latest_revision_id &&
    sameJson(configurationOf(decided), configurationOf(read))
  );
}

const Configuration = Deployment.pick({
  source: true,
  source_config: true,
  source_revision_config: true,
  secrets: true,
});

/**
 * What of a deployment the spec sets, and drift compares, in the fields the document names: the batched
 * poll's snapshot keeps no others (knownFields), and a pass judges either a snapshot or a read, so a
 * field the platform adds must not read as another configuration (every poll would enqueue the object).
 */
export function configurationOf(
  d: Deployment,
): Pick<Deployment, 'source' | 'source_config' | 'source_revision_config' | 'secrets'> {
  return knownFields(Configuration, {
    source: d.source,
    source_config: d.source_config,
    source_revision_config: d.source_revision_config,
    secrets: d.secrets,
  });
}
