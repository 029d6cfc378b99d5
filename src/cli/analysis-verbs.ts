/**
 * `kubectl agd promote` and `abort`: a person's word on the analysis of the latest revision
 * (spec.analysis), as `kubectl argo rollouts promote` and `abort` give it. Each sets its annotation to
 * the time now, waits for the pass that records it handled (the gate analysisRequest), and says what it
 * did; exit code 1 when the request was refused (no analysis, or one that already ended) or no pass
 * answered in time.
 */
import { AGENT_DEPLOYMENT } from '../api/group.ts';
import { Annotation } from '../api/names.ts';
import { analysisLines } from './analysis-view.ts';
import { FollowError, follow } from './follow.ts';
import { clean } from './object-state.ts';
import { annotate, describeRef, getObject, type ObjectRef, type VerbObject } from './objects.ts';
import type { Verb } from './verbs.ts';

const NAMESPACE_FLAG = `  -n, --namespace NS           the objects' namespace (default: the kubeconfig's, or default)`;
const HELP_FLAG = '  -h, --help                   this text';

interface Request {
  name: 'promote' | 'abort';
  annotation: Annotation;
  handled: 'lastHandledPromoteAt' | 'lastHandledAbortAt';
}

function requestVerb(request: Request, description: string, what: string): Verb {
  return {
    name: request.name,
    description,
    usage: `Usage: kubectl agd ${request.name} NAME [-n NS] [--timeout DURATION]

${what} Sets the annotation ${request.annotation} (the time now) and waits for the pass that handles
it; prints the analysis after it. Exit code 1 when the request was refused (no analysis, or one that
already ended) or no pass answered in time.

Options:
${NAMESPACE_FLAG}
      --timeout DURATION       how long to wait for the pass, e.g. 30s or 5m (default 5m; 0: no limit)
${HELP_FLAG}
`,
    kinds: [AGENT_DEPLOYMENT],
    many: false,
    timeoutMs: 5 * 60_000,
    async run(access, [ref], io, signal) {
      const target = ref as ObjectRef;
      const shown = describeRef(target);
      const obj = await getObject(access, target);
      if (obj.metadata.annotations?.[Annotation.Paused] === 'true') {
        io.stderr(`kubectl-agd: ${shown} is suspended: resume it first (kubectl agd resume)\n`);
        return 1;
      }
      const value = (io.now?.() ?? new Date()).toISOString();
      await annotate(access, target, { [request.annotation]: value });
      io.stdout(`${shown}: ${request.name} requested (${value})\n`);
      const handled = await follow<VerbObject>(
        access,
        target,
        (o) =>
          (o.status as Record<string, unknown> | undefined)?.[request.handled] === value ? o : undefined,
        signal,
      ).catch((err: unknown) => {
        if (err instanceof FollowError && signal.aborted)
          throw new FollowError(
            `${shown}: no pass answered the ${request.name} in time (is the controller running?)`,
          );
        throw err;
      });
      const refused = (handled.status as { analysisRequestRefused?: string } | undefined)
        ?.analysisRequestRefused;
      if (refused?.includes(`${request.annotation}=${value}:`)) {
        io.stderr(`${shown}: ${request.name} refused: ${clean(refused, 600)}\n`);
        return 1;
      }
      io.stdout(`${analysisLines(handled).join('\n')}\n`);
      return 0;
    },
  };
}

export const ANALYSIS_VERBS: readonly Verb[] = [
  requestVerb(
    { name: 'promote', annotation: Annotation.AnalysisPromoteRequestedAt, handled: 'lastHandledPromoteAt' },
    'accept the revision under analysis',
    'Accepts the revision under analysis (spec.analysis): a Running or Inconclusive analysis becomes\nSuccessful, the revision the last good one, and a pause for it ends.',
  ),
  requestVerb(
    { name: 'abort', annotation: Annotation.AnalysisAbortRequestedAt, handled: 'lastHandledAbortAt' },
    'fail the revision under analysis now',
    'Fails the analysis of the revision under analysis (spec.analysis) now: spec.remediation decides\n(Rollback rolls back to the last good revision; None stalls with reason AnalysisFailed).',
  ),
];
