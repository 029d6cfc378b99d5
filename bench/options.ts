/** The benchmark's flags, parsed with zod so a bad value stops the run with a message naming the flag. */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { parseDuration } from '../src/lib/duration.ts';

const MAX_N = 10_000;

const duration = (flag: string) =>
  z.string().transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `--${flag}: "${v}" is not a duration such as 300ms or 10s` });
      return z.NEVER;
    }
    return ms;
  });

const count = (flag: string) =>
  z.coerce
    .number({ error: `--${flag} must be a number` })
    .int(`--${flag} must be a whole number`)
    .positive(`--${flag} must be above 0`);

const BenchOptionsSchema = z.object({
  n: z
    .string()
    .transform((v) => v.split(',').map((s) => Number(s.trim())))
    .pipe(
      z
        .array(
          z
            .number()
            .int('--n: each N must be a whole number')
            .min(1, '--n: each N must be at least 1')
            .max(MAX_N, `--n: each N must be at most ${MAX_N}`),
        )
        .min(1),
    ),
  latencyMs: z.coerce.number({ error: '--latency-ms must be a number' }).min(0, '--latency-ms must be >= 0'),
  workers: count('workers'),
  pollIntervalMs: duration('poll-interval'),
  revisionStepMs: count('revision-step-ms'),
  /** Undefined: the time a revision takes in the simulator (steps × step). */
  revisionPollMs: duration('revision-poll-interval').optional(),
  /** Undefined: 1,000 in the single run (the workers are the limit); the controller's own in the sharded run. */
  qps: count('qps').optional(),
  applyConcurrency: count('apply-concurrency'),
  reactionUpdates: count('reaction-updates'),
  /** Undefined: 60 s + 100 ms per object. */
  readyTimeoutMs: duration('ready-timeout').optional(),
  /** Undefined: the image's (the Dockerfile's ENTRYPOINT). */
  /** Measure a restart after the largest N (restart.ts); false keeps its controller to a graceful stop. */
  restart: z
    .enum(['true', 'false'], { error: '--restart must be true or false' })
    .transform((v) => v === 'true'),
  /** Above 1: the sharded run (sharded.ts) instead of the single one. */
  replicas: count('replicas'),
  /** Rounds of the whole run, each on a fresh local API server: medians over rounds for figures that move. */
  repeat: count('repeat'),
  /** Undefined: the controller's defaults under --sharding=auto (what the goals are measured at). */
  leaseDurationMs: duration('lease-duration').optional(),
  renewDeadlineMs: duration('renew-deadline').optional(),
  retryPeriodMs: duration('retry-period').optional(),
  /** Profile the controller from the first apply to all Ready (convergence-profile.ts). */
  profile: z
    .enum(['true', 'false'], { error: '--profile must be true or false' })
    .transform((v) => v === 'true'),
  nodeFlags: z
    .string()
    .transform((v) => v.split(/\s+/).filter((f) => f !== ''))
    .pipe(z.array(z.string().startsWith('--', '--node-flags: each flag must start with --')))
    .optional(),
  /** The checkouts whose controller and CRDs each round runs, one after the other (trees.ts). */
  controllerTrees: z
    .string()
    .transform((v) => v.split(',').map((s) => s.trim()))
    .pipe(z.array(z.string().min(1, '--controller-tree: an empty directory name')).min(1)),
});
export type BenchOptions = Omit<z.infer<typeof BenchOptionsSchema>, 'qps'> & {
  /** RECONCILE_RATE and CONTROL_PLANE_RPS of the single run. */
  qps: number;
  /** The sharded run's: only when --qps was given (otherwise the controller's defaults, 50 and 50). */
  shardedQps: number | undefined;
};

/** The single run's pace when --qps is not given: high, so that the workers are the limit. */
const SINGLE_RUN_QPS = 1000;

export const USAGE = `Usage: node bench/run.ts [flags]
  --n 100,1000,10000           object counts, one run each (at most ${MAX_N}); --n 100,1000 for a quick run
  --latency-ms 20              fixed simulator latency per control-plane call
  --workers 4                  controller WORKERS
  --poll-interval 10s          controller POLL_INTERVAL (also the steady window measured)
  --revision-step-ms 100       simulator time per revision status step
  --revision-poll-interval D   controller REVISION_POLL_INTERVAL (default: steps × step, one revision's time)
  --qps 1000                   controller RECONCILE_RATE and CONTROL_PLANE_RPS (single run: 1000, high, so the workers
                               are the limit; sharded run: the controller's defaults unless given)
  --apply-concurrency 32       object creations in flight at once
  --reaction-updates 20        objects updated one at a time for the reaction time
  --ready-timeout D            how long all N get to become Ready (default 60s + 100ms × N)
  --node-flags="--f ..."       node flags for the controller instead of the image's (experiments)
  --profile true               a CPU profile of the controller from the first apply to all Ready, through its
                               inspector (--inspect=127.0.0.1:0 added to its flags): <results>/<run>-n<N>.cpuprofile
  --controller-tree DIR[,DIR]  the checkouts whose controller and CRDs run, each on a fresh API server in every round
                               (default: this one), e.g. --controller-tree ../wt-base,. to compare a commit with this
  --restart true               measure a restart at the largest N (false: stop its controller gracefully, e.g. for --cpu-prof)
  --repeat 1                   rounds of the whole run, each on a fresh local API server (the CPU per object is
                               reported per round and as the median over rounds)
  --replicas 1                 above 1: the sharded run (--sharding=auto), R replicas, then one more, then a SIGKILL
  --lease-duration D           the sharded run's LEADER_ELECTION_LEASE_DURATION (default: the controller's under
                               --sharding=auto)
  --renew-deadline D           the sharded run's LEADER_ELECTION_RENEW_DEADLINE (likewise)
  --retry-period D             the sharded run's LEADER_ELECTION_RETRY_PERIOD (likewise)`;

export function parseBenchOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      n: { type: 'string', default: '100,1000,10000' },
      'latency-ms': { type: 'string', default: '20' },
      workers: { type: 'string', default: '4' },
      'poll-interval': { type: 'string', default: '10s' },
      'revision-step-ms': { type: 'string', default: '100' },
      'revision-poll-interval': { type: 'string' },
      qps: { type: 'string' },
      'apply-concurrency': { type: 'string', default: '32' },
      'reaction-updates': { type: 'string', default: '20' },
      'ready-timeout': { type: 'string' },
      'node-flags': { type: 'string' },
      profile: { type: 'string', default: 'false' },
      restart: { type: 'string', default: 'true' },
      replicas: { type: 'string', default: '1' },
      repeat: { type: 'string', default: '1' },
      'lease-duration': { type: 'string' },
      'renew-deadline': { type: 'string' },
      'retry-period': { type: 'string' },
      'controller-tree': { type: 'string', default: '.' },
    },
    strict: true,
  });
  const parsed = BenchOptionsSchema.safeParse({
    n: values.n,
    latencyMs: values['latency-ms'],
    workers: values.workers,
    pollIntervalMs: values['poll-interval'],
    revisionStepMs: values['revision-step-ms'],
    revisionPollMs: values['revision-poll-interval'],
    qps: values.qps,
    applyConcurrency: values['apply-concurrency'],
    reactionUpdates: values['reaction-updates'],
    readyTimeoutMs: values['ready-timeout'],
    nodeFlags: values['node-flags'],
    profile: values.profile,
    restart: values.restart,
    replicas: values.replicas,
    repeat: values.repeat,
    leaseDurationMs: values['lease-duration'],
    renewDeadlineMs: values['renew-deadline'],
    retryPeriodMs: values['retry-period'],
    controllerTrees: values['controller-tree'],
  });
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join('\n'));
  if (parsed.data.replicas > 1 && values['controller-tree'] !== '.')
    throw new Error('--controller-tree is for the single run: the sharded run measures this checkout');
  if (parsed.data.replicas > 1 && parsed.data.profile)
    throw new Error('--profile is for the single run: the sharded run has several controllers');
  return { ...parsed.data, qps: parsed.data.qps ?? SINGLE_RUN_QPS, shardedQps: parsed.data.qps };
}
