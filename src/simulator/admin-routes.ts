/** The `/_simulator/` admin API: what the programmatic API offers, for out-of-process users. No auth. */
import { z } from 'zod';
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

const LatencyBody = z.union([LatencySchema, z.object({ ms: LatencySchema }).strict()]);

const noContent: Reply = { status: 204 };

export function adminRoutes(sim: Simulator): Route[] {
  const filterOf = (query: URLSearchParams) => ({
    ...(query.get('method') ? { method: query.get('method') as string } : {}),
    ...(query.get('route') ? { route: query.get('route') as string } : {}),
  });
  const removers = new Map<number, () => void>();
  let nextFaultId = 1;

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
        const id = ctx.params.deployment_id ?? '';
        if (!sim.deployments().some((d) => d.id === id))
          throw new HttpError(404, `Deployment ${id} not found`);
        sim.deleteDeploymentBehindOperator(id);
        return noContent;
      },
    },
  ];
}
