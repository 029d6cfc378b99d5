/** The `/_simulator/` admin API: what the programmatic API offers, for out-of-process users. No auth. */
import { z } from 'zod';
import { RevisionStatus } from '../controlplane/schemas.ts';
import { FaultRuleSchema, type Latency, LatencySchema } from './faults.ts';
import { HttpError, type Reply, type Route } from './http.ts';
import type { Simulator } from './index.ts';
import { SandboxTemplateSeedSchema } from './templates.ts';
import { parseOrFail } from './validation.ts';

const FailRevisionsSchema = z
  .object({
    deploymentName: z.string().optional(),
    at: z.enum(['BUILD', 'DEPLOY', 'CREATE']),
    times: z.number().int().positive().optional(),
  })
  .strict();

const ScriptRevisionsSchema = z
  .object({
    deploymentName: z.string().optional(),
    repoRef: z.string().optional(),
    passThrough: z.enum(['INTERRUPTED', 'UNKNOWN']).optional(),
    hold: RevisionStatus.optional(),
    times: z.number().int().positive().optional(),
  })
  .strict()
  .refine((r) => r.passThrough !== undefined || r.hold !== undefined, {
    message: 'give passThrough or hold',
  });

/** Any non-empty string: a status the client does not know is what some tests need. */
const StatusBody = z.object({ status: z.string().min(1) }).strict();
const HoldBody = z.object({ hold: z.boolean() }).strict();
const PresentationBody = z
  .object({ nullOptionalFields: z.boolean().optional(), revealSecrets: z.boolean().optional() })
  .strict();

const LatencyBody = z.union([LatencySchema, z.object({ ms: LatencySchema }).strict()]);

const PushBody = z.object({ commitSha: z.string().min(1).optional() }).strict();
const PruneBody = z.object({ keep: z.number().int().min(0) }).strict();

const noContent: Reply = { status: 204 };

export function adminRoutes(sim: Simulator): Route[] {
  const filterOf = (query: URLSearchParams) => ({
    ...(query.get('method') ? { method: query.get('method') as string } : {}),
    ...(query.get('route') ? { route: query.get('route') as string } : {}),
  });
  const removers = new Map<number, () => void>();
  let nextFaultId = 1;
  const mustExist = (id: string | undefined): string => {
    if (!sim.deployments().some((d) => d.id === id)) throw new HttpError(404, `Deployment ${id} not found`);
    return id ?? '';
  };

  return [
    {
      method: 'GET',
      template: '/_simulator/requests',
      handler: (ctx) => ({ status: 200, body: { requests: sim.requests(filterOf(ctx.query)) } }),
    },
    {
      method: 'DELETE',
      template: '/_simulator/requests',
      handler: () => {
        sim.resetRequests();
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/faults',
      handler: (ctx) => {
        const rule = parseOrFail(FaultRuleSchema, ctx.body, ['body']);
        const id = nextFaultId++;
        removers.set(id, sim.addFault(rule));
        return { status: 201, body: { id } };
      },
    },
    {
      method: 'DELETE',
      template: '/_simulator/faults',
      handler: () => {
        sim.clearFaults();
        removers.clear();
        return noContent;
      },
    },
    {
      method: 'DELETE',
      template: '/_simulator/faults/{fault_id}',
      handler: (ctx) => {
        const id = Number(ctx.params.fault_id);
        const remove = removers.get(id);
        if (!remove) throw new HttpError(404, `Fault ${ctx.params.fault_id} not found`);
        remove();
        removers.delete(id);
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/latency',
      handler: (ctx) => {
        const body = parseOrFail(LatencyBody, ctx.body, ['body']);
        const latency: Latency = typeof body === 'object' && 'ms' in body ? body.ms : body;
        sim.setLatency(latency);
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/fail-revisions',
      handler: (ctx) => {
        sim.failRevisions(parseOrFail(FailRevisionsSchema, ctx.body, ['body']));
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/script-revisions',
      handler: (ctx) => {
        const { deploymentName, repoRef, passThrough, hold, times } = parseOrFail(
          ScriptRevisionsSchema,
          ctx.body,
          ['body'],
        );
        sim.scriptRevisions({
          ...(deploymentName === undefined ? {} : { deploymentName }),
          ...(repoRef === undefined ? {} : { repoRef }),
          ...(passThrough === undefined ? {} : { passThrough }),
          ...(hold === undefined ? {} : { hold }),
          ...(times === undefined ? {} : { times }),
        });
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/deployments/{deployment_id}/status',
      handler: (ctx) => {
        const id = mustExist(ctx.params.deployment_id);
        sim.setDeploymentStatus(id, parseOrFail(StatusBody, ctx.body, ['body']).status);
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/deployments/{deployment_id}/revisions/{revision_id}/status',
      handler: (ctx) => {
        const id = mustExist(ctx.params.deployment_id);
        const { status } = parseOrFail(StatusBody, ctx.body, ['body']);
        if (!sim.setRevisionStatus(id, ctx.params.revision_id ?? '', status))
          throw new HttpError(404, `Revision ${ctx.params.revision_id} not found`);
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/deployments/{deployment_id}/push',
      handler: (ctx) => {
        const id = mustExist(ctx.params.deployment_id);
        const { commitSha } = parseOrFail(PushBody, ctx.body ?? {}, ['body']);
        if (!sim.pushToRepository(id, commitSha))
          throw new HttpError(409, `Deployment ${id} does not build on push`);
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/deployments/{deployment_id}/prune-revisions',
      handler: (ctx) => {
        const id = mustExist(ctx.params.deployment_id);
        sim.pruneRevisions(id, parseOrFail(PruneBody, ctx.body, ['body']).keep);
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/hold-deletions',
      handler: (ctx) => {
        sim.holdDeletions(parseOrFail(HoldBody, ctx.body, ['body']).hold);
        return noContent;
      },
    },
    {
      method: 'POST',
      template: '/_simulator/presentation',
      handler: (ctx) => {
        const { nullOptionalFields, revealSecrets } = parseOrFail(PresentationBody, ctx.body, ['body']);
        sim.setPresentation({
          ...(nullOptionalFields === undefined ? {} : { nullOptionalFields }),
          ...(revealSecrets === undefined ? {} : { revealSecrets }),
        });
        return noContent;
      },
    },
    {
      method: 'GET',
      template: '/_simulator/state',
      handler: () => {
        const deployments = sim.deployments();
        const revisions = Object.fromEntries(deployments.map((d) => [d.id, sim.revisions(d.id)]));
        return { status: 200, body: { deployments, revisions } };
      },
    },
    {
      method: 'PUT',
      template: '/_simulator/templates',
      handler: (ctx) => {
        sim.setTemplates(parseOrFail(z.array(SandboxTemplateSeedSchema), ctx.body, ['body']));
        return noContent;
      },
    },
    {
      method: 'DELETE',
      template: '/_simulator/deployments/{deployment_id}',
      handler: (ctx) => {
        sim.deleteDeploymentBehindOperator(mustExist(ctx.params.deployment_id));
        return noContent;
      },
    },
  ];
}
