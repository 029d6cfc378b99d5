/**
 * An Event per change of the analysis, from the status the pass started with and the one it writes: a
 * start, each phase it reaches (Successful, Failed, Inconclusive; Promoted and Aborted when a person's
 * request made it), and a promote or abort request refused. Their text is cleaned: metric names and
 * measurement messages carry what providers answered.
 */
import type { AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import { type Analysis, DEFAULT_ANALYSIS_INTERVAL } from '../../../api/analysis.ts';
import { EventReason } from '../../../api/names.ts';
import { cleanPeerText } from '../../../lib/peer-text.ts';
import type { PendingEvent } from '../../../runtime/reconcile-shell.ts';

const MAX_MESSAGE = 1024;

export function analysisEvents(
  before: AgentDeploymentStatus | undefined,
  after: AgentDeploymentStatus,
  spec?: Analysis | undefined,
): PendingEvent[] {
  const events: PendingEvent[] = [];
  const event = (type: 'Normal' | 'Warning', reason: EventReason, message: string) =>
    events.push({ type, reason, message: cleanPeerText(message, MAX_MESSAGE) });
  const was = before?.analysis;
  const now = after.analysis;
  if (now && now.revisionId !== was?.revisionId) {
    const left =
      was?.phase === 'Running' ? `; the analysis of revision ${was.revisionId} is left for it` : '';
    const shape = spec
      ? `: ${spec.metrics.map((m) => m.name).join(', ')}, ${spec.count} × ${spec.interval ?? DEFAULT_ANALYSIS_INTERVAL}`
      : '';
    event(
      'Normal',
      EventReason.AnalysisStarted,
      `analysis of revision ${now.revisionId} started${shape}${left}`,
    );
  }
  const changed = now && (now.revisionId !== was?.revisionId || now.phase !== was?.phase);
  if (now && changed && now.phase !== 'Running') {
    const about = `the analysis of revision ${now.revisionId}`;
    const why = now.message ? `: ${now.message}` : '';
    const promoted =
      after.lastHandledPromoteAt !== before?.lastHandledPromoteAt && !after.analysisRequestRefused;
    const aborted = after.lastHandledAbortAt !== before?.lastHandledAbortAt && !after.analysisRequestRefused;
    if (now.phase === 'Successful' && promoted)
      event(
        'Normal',
        EventReason.AnalysisPromoted,
        `${about} was promoted by a person: the revision is the last good one`,
      );
    else if (now.phase === 'Successful')
      event(
        'Normal',
        EventReason.AnalysisSuccessful,
        `${about} succeeded: the revision is the last good one`,
      );
    else if (now.phase === 'Failed' && aborted)
      event(
        'Warning',
        EventReason.AnalysisAborted,
        `${about} was aborted by a person: spec.remediation decides`,
      );
    else if (now.phase === 'Failed')
      event('Warning', EventReason.AnalysisFailed, `${about} failed${why}: spec.remediation decides`);
    else
      event(
        'Warning',
        EventReason.AnalysisInconclusive,
        `${about} is inconclusive${why}: promote or abort it`,
      );
  }
  const refused = after.analysisRequestRefused;
  if (refused && refused !== before?.analysisRequestRefused)
    event('Warning', EventReason.AnalysisRequestRefused, refused);
  return events;
}
