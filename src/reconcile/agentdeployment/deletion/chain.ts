/**
 * The deletion's gates, in the order they decide (DEVELOPMENT.md lists them): the first gate with a
 * verdict decides; the finalize step (for an object being deleted) and `kubectl agd plan --prune` (for
 * one a pruning sync would delete) both run this chain.
 */
import type { GateList } from '../../chain-runner.ts';
import type { DeletionFacts } from './facts.ts';
import { copiedStatus } from './gates/copied-status.ts';
import { credentials } from './gates/credentials.ts';
import { defaultCredentials } from './gates/default-credentials.ts';
import { deleted } from './gates/deleted.ts';
import { finalizer } from './gates/finalizer.ts';
import { lateCommit } from './gates/late-commit.ts';
import { orphanPolicy } from './gates/orphan-policy.ts';
import { ownsNothing } from './gates/owns-nothing.ts';
import { platformDeleting } from './gates/platform-deleting.ts';
import { recordedGone } from './gates/recorded-gone.ts';
import { refusedMadeNothing } from './gates/refused-made-nothing.ts';
import { sendDelete } from './gates/send-delete.ts';
import { takeFound } from './gates/take-found.ts';
import { window } from './gates/window.ts';
import type { DeletionVerdict } from './verdict.ts';

export type DeletionGateName =
  | 'finalizer'
  | 'refusedMadeNothing'
  | 'orphanPolicy'
  | 'defaultCredentials'
  | 'credentials'
  | 'copiedStatus'
  | 'takeFound'
  | 'lateCommit'
  | 'ownsNothing'
  | 'recordedGone'
  | 'window'
  | 'sendDelete'
  | 'deleted'
  | 'platformDeleting';

export type DeletionGates = GateList<DeletionFacts, DeletionVerdict, DeletionGateName>;

export const DELETION_GATES: DeletionGates = [
  ['finalizer', finalizer],
  ['refusedMadeNothing', refusedMadeNothing],
  ['orphanPolicy', orphanPolicy],
  ['defaultCredentials', defaultCredentials],
  ['credentials', credentials],
  ['copiedStatus', copiedStatus],
  ['takeFound', takeFound],
  ['lateCommit', lateCommit],
  ['ownsNothing', ownsNothing],
  ['recordedGone', recordedGone],
  ['window', window],
  ['sendDelete', sendDelete],
  ['deleted', deleted],
  ['platformDeleting', platformDeleting],
];
