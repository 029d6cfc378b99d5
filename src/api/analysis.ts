/**
 * Analysis of each new revision of an AgentDeployment: spec.analysis (what is measured, how often, and
 * what decides) and status.analysis (its progress, small enough to live in status). The names are Argo
 * Rollouts' (AnalysisTemplate): interval, count, failureLimit, inconclusiveLimit, successCondition,
 * failureCondition, dryRun. The rules are in src/analysis/ (outcome.ts, progress.ts, providers/).
 *
 * Where a schema keyword can say a rule (pattern) it does, costing no CEL: the object's CEL budget is
 * nearly spent (test/cel-cost.test.ts). The spec has no listType map: server-side apply words a duplicate
 * key its own way, which the plan's offline validation does not reproduce.
 */
import { z } from 'zod';
import { cel, celUnique, durationField, freeForm } from './common.ts';
import { SecretKeySelector } from './secret-env.ts';

export const DEFAULT_ANALYSIS_INTERVAL = '1m';
export const DEFAULT_FAILURE_LIMIT = 0;
export const DEFAULT_INCONCLUSIVE_LIMIT = 0;
export const DEFAULT_AGENT_SERVER_RUNS = 3;
export const MAX_ANALYSIS_METRICS = 8;
export const MAX_ANALYSIS_COUNT = 100;
/** Measurements each metric keeps in status (the newest). */
export const MAX_KEPT_MEASUREMENTS = 10;
export const MAX_MEASUREMENT_VALUE = 128;
export const MAX_MEASUREMENT_MESSAGE = 256;
export const MAX_CONDITION = 1024;

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value: visible ASCII and spaces, nothing that could end the header line. */
const HEADER_VALUE = /^[\x20-\x7e]*$/;
/** A metric's name: a DNS label, so it reads the same in status, metrics and events. */
const METRIC_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const AnalysisHeader = z
  .object({
    name: z
      .string()
      .min(1)
      .max(128)
      .regex(HEADER_NAME, 'must be an HTTP header name')
      .describe('Header name.'),
    value: z
      .string()
      .max(4096)
      .regex(HEADER_VALUE, 'must be printable ASCII')
      .optional()
      .describe(
        'Literal value. Prefer valueFrom for a credential: a literal value sits in git and in the object.',
      ),
    valueFrom: z
      .object({
        secretKeyRef: SecretKeySelector.describe("A key of a Secret in the object's namespace."),
      })
      .optional()
      .describe("Take the value from a key of a Secret in the object's namespace, read at each measurement."),
  })
  .meta(
    cel({
      rule: 'has(self.value) != has(self.valueFrom)',
      message: 'spec.analysis.metrics[].web.headers[]: exactly one of value or valueFrom is required',
    }),
  );
export type AnalysisHeader = z.infer<typeof AnalysisHeader>;

export const AgentServerProvider = z.object({
  assistantId: z.string().min(1).max(256).describe('Graph id or assistant uuid the runs use, e.g. agent.'),
  input: freeForm()
    .optional()
    .describe(
      'Input of each run, kept as written. Defaults to {"messages": [{"role": "user", "content": "ping"}]}.',
    ),
  runs: z
    .int()
    .min(1)
    .max(10)
    .optional()
    .describe('Runs per measurement, each on a fresh thread, at the same time (1 to 10). Defaults to 3.'),
});
export type AgentServerProvider = z.infer<typeof AgentServerProvider>;

export const WebProvider = z.object({
  url: z.string().min(1).max(2048).describe('http(s) URL the measurement GETs; its answer must be JSON.'),
  jsonPath: z
    .string()
    .min(1)
    .max(256)
    .describe(
      "The value of the answer that is the result, in Argo Rollouts' form, e.g. {$.errorRate} or {$.data[0]['error rate']}: $, .field, ['field'] and [n] only.",
    ),
  headers: z
    .array(AnalysisHeader)
    .max(8)
    .optional()
    .describe(
      "Headers the request carries, each a literal or a key of a Secret in the object's namespace. The controller's own credentials are never sent.",
    ),
});
export type WebProvider = z.infer<typeof WebProvider>;

export const PrometheusProvider = z.object({
  address: z
    .string()
    .min(1)
    .max(2048)
    .describe('Base URL of the Prometheus HTTP API, e.g. http://prometheus.monitoring:9090.'),
  query: z
    .string()
    .min(1)
    .max(4096)
    .describe(
      'PromQL instant query. {{deploymentId}} and {{revisionId}} are replaced by the deployment and the revision under analysis, quoted as PromQL strings: write them bare, e.g. rate(errors{revision={{revisionId}}}[5m]).',
    ),
});
export type PrometheusProvider = z.infer<typeof PrometheusProvider>;

const PROVIDERS = ['agentServer', 'web', 'prometheus'] as const;
const providerCount = PROVIDERS.map((p) => `(has(self.${p}) ? 1 : 0)`).join(' + ');

export const AnalysisMetric = z
  .object({
    name: z
      .string()
      .min(1)
      .max(63)
      .regex(METRIC_NAME, 'must be a DNS label: lowercase letters, digits and -')
      .describe('Name of the metric, unique in the list: a DNS label.'),
    agentServer: AgentServerProvider.optional().describe(
      "Runs against the revision's agent server under the verification's rules; result: {successRate (0 to 1), p50Ms, p95Ms} over the measurement's runs.",
    ),
    web: WebProvider.optional().describe('An HTTP GET returning JSON; result: the value jsonPath selects.'),
    prometheus: PrometheusProvider.optional().describe(
      "An instant query; result: the scalar, or the list of the vector's values.",
    ),
    successCondition: z
      .string()
      .min(1)
      .max(MAX_CONDITION)
      .describe(
        'CEL expression over result that is true when the measurement is Successful, e.g. result.successRate >= 0.95.',
      ),
    failureCondition: z
      .string()
      .min(1)
      .max(MAX_CONDITION)
      .optional()
      .describe(
        'CEL expression over result that is true when the measurement is Failed. With it, a result that meets neither condition is Inconclusive; without it, one that misses successCondition is Failed.',
      ),
    dryRun: z
      .boolean()
      .optional()
      .describe('Measure and report the metric, never let it decide. Defaults to false.'),
  })
  .meta(
    cel(
      {
        rule: `${providerCount} >= 1`,
        message: 'spec.analysis.metrics[]: one provider is required: agentServer, web or prometheus',
        reason: 'FieldValueRequired',
      },
      {
        rule: `${providerCount} <= 1`,
        message: 'spec.analysis.metrics[]: only one provider may be set: agentServer, web or prometheus',
        reason: 'FieldValueForbidden',
      },
    ),
  );
export type AnalysisMetric = z.infer<typeof AnalysisMetric>;

export const Analysis = z.object({
  interval: durationField('spec.analysis.interval', '10s', '24h')
    .optional()
    .describe('Time between measurements (10s to 24h). Defaults to 1m.'),
  count: z
    .int()
    .min(1)
    .max(MAX_ANALYSIS_COUNT)
    .describe(
      'Measurements each metric takes (1 to 100); the analysis is Successful once every metric that is not a dry run has them and no limit was passed. A measurement that errs does not count.',
    ),
  failureLimit: z
    .int()
    .min(0)
    .max(MAX_ANALYSIS_COUNT)
    .optional()
    .describe('Failed measurements of a metric the analysis tolerates; one more fails it. Defaults to 0.'),
  inconclusiveLimit: z
    .int()
    .min(0)
    .max(MAX_ANALYSIS_COUNT)
    .optional()
    .describe(
      'Inconclusive measurements of a metric the analysis tolerates; one more makes it Inconclusive, waiting for a person. Defaults to 0.',
    ),
  metrics: z
    .array(AnalysisMetric)
    .max(MAX_ANALYSIS_METRICS)
    .meta(
      cel(
        { rule: 'size(self) >= 1', message: 'spec.analysis.metrics must list at least one metric' },
        celUnique('name', 'spec.analysis.metrics[].name must be unique'),
      ),
    )
    .describe('What is measured (1 to 8 metrics, names unique).'),
});
export type Analysis = z.infer<typeof Analysis>;

// ---- status ----

export const AnalysisPhase = z.enum(['Running', 'Successful', 'Failed', 'Inconclusive']);
export type AnalysisPhase = z.infer<typeof AnalysisPhase>;

export const MeasurementOutcome = z.enum(['Successful', 'Failed', 'Inconclusive', 'Error']);
export type MeasurementOutcome = z.infer<typeof MeasurementOutcome>;

export const Measurement = z.object({
  at: z.iso.datetime().describe('When the measurement was taken (RFC 3339).'),
  outcome: MeasurementOutcome.describe(
    'Successful, Failed, Inconclusive, or Error (the provider gave no result).',
  ),
  value: z
    .string()
    .max(MAX_MEASUREMENT_VALUE)
    .optional()
    .describe('The result as JSON, cleaned and shortened to 128 characters.'),
  message: z
    .string()
    .max(MAX_MEASUREMENT_MESSAGE)
    .optional()
    .describe('Why the measurement erred, or what its conditions said.'),
});
export type Measurement = z.infer<typeof Measurement>;

const tally = (what: string) => z.int().min(0).describe(what);

export const MetricStatus = z.object({
  name: z.string().max(63).describe('The metric (spec.analysis.metrics[].name).'),
  dryRun: z.boolean().optional().describe('True when the metric is a dry run: it never decides.'),
  measured: tally('Measurements that count toward spec.analysis.count (every outcome but Error).'),
  successful: tally('Successful measurements.'),
  failed: tally('Failed measurements.'),
  inconclusive: tally('Inconclusive measurements.'),
  error: tally('Measurements that erred.'),
  consecutiveErrors: tally('Errors in a row since the last measurement that did not err.'),
  measurements: z
    .array(Measurement)
    .max(MAX_KEPT_MEASUREMENTS)
    .describe('The last measurements, newest last (at most 10).'),
});
export type MetricStatus = z.infer<typeof MetricStatus>;

export const AnalysisStatus = z
  .object({
    revisionId: z.string().max(64).describe('The revision the analysis is for; a new revision starts over.'),
    phase: AnalysisPhase.describe(
      'Running, Successful (the revision may become the last good one), Failed, or Inconclusive (waiting for a person).',
    ),
    startedAt: z.iso.datetime().describe('When the analysis started (RFC 3339).'),
    completedAt: z.iso.datetime().optional().describe('When the analysis reached its phase, if it ended.'),
    nextMeasurementAt: z.iso
      .datetime()
      .optional()
      .describe('When the next measurement is due, while Running.'),
    message: z.string().max(512).optional().describe('Why the analysis ended the way it did.'),
    metrics: z
      .array(MetricStatus)
      .max(MAX_ANALYSIS_METRICS)
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })
      .describe("Each metric's counts and last measurements."),
  })
  .describe('The analysis of the latest revision (spec.analysis).');
export type AnalysisStatus = z.infer<typeof AnalysisStatus>;
